package mcpface

import (
	"context"
	"regexp"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp/inquiry/pending"
)

// A Session is the MCP client a turn answers to, as the face needs it:
// whether the client's dialog takes forms, a way to put one to it and
// hear the reply, and a way to tell it a line. The server that runs the
// turn (package mcpserver) gives one to each turn it runs, in the turn's
// context (WithSession); a question asked outside such a turn gets "no
// person can answer here".
//
// A Session speaks whichever protocol era the client does: on a
// 2026-07-28 connection a form goes out as an input request and the
// reply comes with the client's retry of the call; on an older one it is
// an elicitation/create request. The face does not need to know which.
//
// Its methods are called from many goroutines at once.
type Session interface {
	// Forms reports whether the client's dialog can take a form now: the
	// client declared form elicitation (per request from 2026-07-28, at
	// initialize before) and a call it made can carry one.
	Forms() bool
	// Elicit puts form to the client's dialog. When the client replies,
	// in whichever call brings the reply, Elicit calls answer with it and
	// tells the client the line answer returns, if any. ctx ending
	// withdraws the dialog where the protocol lets a server do so (a
	// 2025-era request is cancelled); a reply that still comes is given
	// to answer, which refuses what it no longer takes. Elicit does not
	// wait for the reply.
	Elicit(ctx context.Context, form Form, answer func(ctx context.Context, reply *mcp.ElicitationResult) string)
	// Notify tells the client msg, one of wisp's lines: now, through the
	// call that waits, or with the retry a 2026-07-28 client owes. With
	// no way to reach the client it is dropped (the pending folder and
	// the audit log keep what it says).
	Notify(msg string)
	// Gone returns a channel that is closed once no call waits for the
	// turn any more: the client cancelled the call or went away, or the
	// server is closing. A question waiting then parks at once.
	Gone() <-chan struct{}
	// Parked tells the call that the turn parked q: respond lists it as
	// waiting for the person.
	Parked(q pending.Question)
	// Answered tells the call that question id was answered within its
	// turn. The call settles it in the pending folder once the thread is
	// saved with the answer, so that a crash in between loses nothing.
	Answered(id string)
}

// A Form is what the face puts to the client's dialog: form-mode
// elicitation, named by what it asks.
type Form struct {
	// Kind is KindQuestion, KindCard or KindApproval.
	Kind string
	// ID is the question's, the card's or the approval request's ID.
	ID string
	// Params are the elicitation's message and requested schema.
	Params mcp.ElicitationParams
}

// What a Form may ask for. Each is also the key of the input request and
// of its response on a 2026-07-28 connection.
const (
	KindQuestion = "question"
	KindCard     = "card"
	KindApproval = "approval"
)

// formID is what the IDs of questions, cards and approval requests look
// like: the inquiry desk's and the approvals gate's are 8 hex digits;
// the bound leaves room for IDs an embedder's desk draws.
var formID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidForm reports whether kind and id can name a Form: kind is one of
// the kinds, and id is 1 to 64 letters, digits, dots, underscores and
// dashes, starting with a letter or digit. A server checks the names a
// client echoes back (a 2026-07-28 request state) with it.
func ValidForm(kind, id string) bool {
	switch kind {
	case KindQuestion, KindCard, KindApproval:
		return formID.MatchString(id)
	}
	return false
}

type sessionKey struct{}

// WithSession returns ctx carrying s: the session the turn running under
// ctx answers to.
func WithSession(ctx context.Context, s Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// SessionFrom returns the session ctx carries, or nil.
func SessionFrom(ctx context.Context) Session {
	s, _ := ctx.Value(sessionKey{}).(Session)
	return s
}
