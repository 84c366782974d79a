// Package jsonl is wisp's JSON-lines protocol, version 1: the wire that
// wisp chat --json speaks with a front end (wisp-tui, an editor, a web
// page) over its standard input and output, and a face that speaks it.
//
// Each direction carries one JSON object a line, UTF-8, ended by '\n';
// every object has a "type". wisp writes [Hello] first, then [Turn],
// [Delta], [ToolCall] and [ToolResult], [Note], the choices ([Question],
// [Card] and [Approval], all of type "choice", told apart by "kind"),
// [Settled], [End] and [Error], and [Bye] last. The client writes
// [Message], [Choose], [Approve], [Deny] and [Cancel]. Every message is a
// Go type here, with its wire form pinned by a golden file under
// testdata/golden and described by the JSON Schema that [Schema] returns;
// docs/jsonl.md documents each with an example.
//
// Front ends written in Go use the types with [Encode] and [Decode]:
//
//	line, err := jsonl.Decode(b)
//	switch l := line.(type) {
//	case jsonl.Question: // show a picker titled l.Title ("the model asks")
//	case jsonl.Approval: // show wisp's own approval prompt
//	}
//	b, err = jsonl.Encode(jsonl.Choose{ID: id, Option: 2})
//
// # The face
//
// [Face] is the wisp side: a wisp.Inquirer, wisp.CardInquirer,
// wisp.Approver and wisp.Notifier that writes each question, card and
// approval request as a choice line and waits for the client's answer,
// which [Face.Serve] reads and routes to the waiting choice by its id. It
// only shows and reads: every rule about questions is the inquiry desk's,
// every rule about approvals the gate's. A line that does not fit (not
// JSON, an unknown type, over [MaxLine] bytes, an answer to a choice that
// does not exist or has settled, an option out of range) gets an [Error]
// line that says what was wrong; nothing changes and the session goes on.
//
// # The session
//
// [Session] is the whole wisp side of a session, as wisp chat --json runs
// it: [Session.Serve] writes hello, runs a turn for each message line
// while the next lines are read (so that an answer or a cancel reaches
// it), lists and answers the questions wisp mcp parked, ends each turn
// with its End line and the session with bye. It knows the conversation
// only by its turns ([Conversation]) and the parked questions by
// [Parked], so the same loop serves a pipe, a socket or a websocket.
//
// The model's words reach the client exactly as the model wrote them,
// inside JSON strings: escaping them for a screen is the client's job
// (package inquiry/escape does it for Go). [Encode] writes every control,
// bidirectional and invisible character as a \u escape, so a line is safe
// to print raw, and decodes to the same text.
//
// # Versioning
//
// The protocol's version is [Version]. Additions (a new key, a new line
// type wisp writes, a new note kind, a new value the client may send and
// [Hello] announces in accepts) keep version 1: both sides ignore keys
// they do not know, and a client ignores lines of a type it does not
// know. A change that takes away or changes the meaning of what a client
// relies on is version 2.
package jsonl
