package wisp

// A Reply is the end of a turn.
type Reply struct {
	Thread string
	Turn   int
	// Text is the model's final message.
	Text string
	// Facts are the facts the turn added to the thread.
	Facts []Fact
	// Flags are the verification pass's findings about Text: claims the
	// turn cannot back, such as a choice the person never made.
	Flags []string
}

// A Mail is something that arrived for a thread between turns, which an
// Inbox hands the thread's next turn: a notice the model reads before the
// person's input, and the facts it brings.
type Mail struct {
	// Text is the notice, wisp's word to the model.
	Text string
	// Facts become the thread's, as a tool result's do; their IDs are
	// assigned by the thread.
	Facts []Fact
	// Key lets the Inbox tell its mail apart in Delivered; the agent does
	// not read it.
	Key string
}
