// Package requestapproval is the request_approval tool: the model asks the
// person's permission for an action it is about to take that is
// destructive, irreversible or outward-facing, and waits for the answer.
//
// The request goes through the approval gate (policy.Gate) like every
// request for approval: it is rated by the classifier, recorded
// (classifier.verdict, approval.requested, approval.decided), and put to
// the person in wisp's own approval dialog, with the dialog's keys, never
// as a question's options. It is always asked, whatever
// approval.threshold says, and only ever for this once: an answer of "this
// session" or wider is narrowed to once (downgradedFrom in
// approval.decided), so no earlier answer covers a later request.
//
// Unlike an ask_user question, whose unanswered questions fall back to a
// default, the wait never resolves on its own: declined, timed out, no
// person, or anything but an answer is a refusal, and the model reads
// "error: not approved: <reason>". That is why ask_user and
// request_approval are enabled together (tools.Interactive): the model
// needs a place for preferences and a separate one for permission.
package requestapproval

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools"
)

// Name is the tool's name.
const Name = "request_approval"

// Kind is the kind of its approval requests (wisp.ApprovalRequest.Kind).
const Kind = "requestApproval"

// Limits of the arguments, which the schema states too.
const (
	// MaxActionChars bounds the action, in characters; it is one line.
	MaxActionChars = 300
	// MaxActionBytes bounds the action in bytes, so that a request fits
	// what wisp approvals files (policy/outofband's MaxCommandBytes).
	MaxActionBytes = 1 << 10
	// MaxReasonChars bounds the reason, in characters.
	MaxReasonChars = 500
)

// ReasonPrefix starts the request's text, which the person reads under
// the action: the model's reason follows it.
const ReasonPrefix = "the model's reason: "

//go:embed description.md
var description string

// Approvals asks the person to allow what the model asks for. A
// *policy.Gate is one.
type Approvals interface {
	Ask(ctx context.Context, r policy.Request) (policy.Outcome, error)
}

// New returns the tool, which puts its requests through approvals, the
// session's gate. nil refuses every request: no person can approve. The
// tool is a wisp.Summarizer whose summary is "an action", and none of the
// words the action is asked with: those reach the person only under the
// gate's own label, once the gate asks. A call is itself the request to
// the gate, so it declares that it needs no approval of the agent's guard
// (tools.NoApproval): the person is asked once, for the action it names.
func New(approvals Approvals) wisp.Tool {
	t := &tool{approvals: approvals}
	return tools.New(Name, description, t.call, &tools.Options{
		Schema:  limits,
		Summary: func(json.RawMessage) string { return "an action" },
		Action:  tools.NoApproval,
	})
}

// args are the call's arguments; the schema the model reads is theirs.
type args struct {
	Action string `json:"action" jsonschema:"The action you are about to take, exactly as you will take it, in one line of 1 to 300 characters: what, on what, where"`
	Reason string `json:"reason" jsonschema:"Why you need to take it, 1 to 500 characters"`
}

// limits gives the schema the limits of the arguments.
func limits(s *jsonschema.Schema) {
	a, r := s.Properties["action"], s.Properties["reason"]
	a.MinLength, a.MaxLength, a.Pattern = jsonschema.Ptr(1), jsonschema.Ptr(MaxActionChars), `^[^\r\n]*$`
	r.MinLength, r.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(MaxReasonChars)
}

type tool struct {
	approvals Approvals
}

// LineApproved is what the model reads when the person approved: it may
// take exactly the action it asked for, once.
func LineApproved(id, action string) string {
	return fmt.Sprintf("approved (approval %s): you may take exactly this action, once: %q. Anything more or different needs a new request.", id, action)
}

// call puts the request to the person through the gate and waits. An
// approval comes back as LineApproved; a refusal as an error result,
// policy.LineNotApproved and the reason. Arguments the tool cannot ask
// about come back as an error result that says what to send. call returns
// an error only when the turn cannot go on: ctx ended, or the person
// stopped the turn at the prompt (wisp.ErrInterrupted).
func (t *tool) call(ctx context.Context, c wisp.Call, a args) (wisp.Result, error) {
	action, reason, problem := check(a)
	if problem != "" {
		return wisp.ErrorResult(problem), nil
	}
	if t.approvals == nil {
		return wisp.ErrorResult(policy.LineNotApproved + policy.ReasonNoPerson), nil
	}
	out, err := t.approvals.Ask(ctx, policy.Request{
		Thread:  c.Thread,
		Turn:    c.Turn,
		Kind:    Kind,
		Command: action,
		// No pattern: no answer covers another request, and an answer
		// wider than once is narrowed to it.
		Text:      ReasonPrefix + reason,
		Scopes:    []wisp.Scope{wisp.ScopeOnce},
		AlwaysAsk: true,
	})
	if err != nil {
		return wisp.Result{}, err
	}
	if !out.Approved {
		return wisp.ErrorResult(policy.LineNotApproved + out.Reason), nil
	}
	return wisp.Result{Content: LineApproved(out.ID, action)}, nil
}

// check trims the arguments and holds them to the limits, returning what
// is wrong, for the model, when they miss.
func check(a args) (action, reason, problem string) {
	action, reason = strings.TrimSpace(a.Action), strings.TrimSpace(a.Reason)
	switch n := utf8.RuneCountInString(action); {
	case n == 0:
		return "", "", "action is empty: give the action you are about to take, in one line"
	case n > MaxActionChars || len(action) > MaxActionBytes:
		return "", "", fmt.Sprintf("action is too long: say it in one line of at most %d characters", MaxActionChars)
	case strings.IndexFunc(action, breaksLine) >= 0:
		return "", "", "action must be one line of text, without line breaks or control characters; put details in reason"
	}
	switch n := utf8.RuneCountInString(reason); {
	case n == 0:
		return "", "", "reason is empty: say why you need to take the action"
	case n > MaxReasonChars:
		return "", "", fmt.Sprintf("reason is too long: at most %d characters", MaxReasonChars)
	}
	return action, reason, ""
}

// breaksLine reports a character that has no place in a one-line action:
// a control character, or a line or paragraph separator.
func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
