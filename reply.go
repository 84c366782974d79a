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
