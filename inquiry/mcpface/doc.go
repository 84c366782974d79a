// Package mcpface is the face wisp's questions, ask_user cards and
// approval requests reach the person through while wisp serves the Model
// Context Protocol (wisp mcp). Nothing in the MCP conversation answers
// for the person: a question is filed in the pending folder for wisp
// questions at a terminal and announced to the client; a request is filed
// in the approvals folder for wisp approvals. With inquiry.elicitation
// on, the client's own dialog shows them too (form-mode elicitation), and
// it is the only face that shows a card. A turn holds for the person for
// a minute; then a question parks, a card falls back, and a request is
// refused.
//
// The face stands on a small Session: whether the client's dialog takes
// forms, a way to put one to it and hear the reply, a way to tell it a
// line, and word of when no call waits any more. Package mcpserver gives
// each turn it runs a Session over mcp-go, in both protocol eras (an
// input request on 2026-07-28, elicitation/create before), and wires the
// Face into the turn's conversation; an embedder with another MCP server
// can do the same.
//
//	face := mcpface.New(&mcpface.Options{Pending: store, Elicitation: true})
//	desk := inquiry.NewDesk(face, nil)
//	…
//	ctx = mcpface.WithSession(ctx, session) // in each turn
package mcpface
