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

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
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

// Tool is the request_approval tool. Create it with New.
type Tool struct {
	approvals Approvals
}

var _ wisp.Tool = (*Tool)(nil)

// New returns the tool, which puts its requests through approvals, the
// session's gate. nil refuses every request: no person can approve.
func New(approvals Approvals) *Tool { return &Tool{approvals: approvals} }

// Name returns "request_approval".
func (*Tool) Name() string { return Name }

// Description returns what the model reads about the tool: when to ask
// for permission, and that preferences go to ask_user instead.
func (*Tool) Description() string { return description }

// Schema returns the JSON Schema of the arguments.
func (*Tool) Schema() json.RawMessage { return schema }

var schema = json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "action": {
      "type": "string",
      "minLength": 1,
      "maxLength": %d,
      "pattern": "^[^\\r\\n]*$",
      "description": "The action you are about to take, exactly as you will take it, in one line of 1 to %d characters: what, on what, where"
    },
    "reason": {
      "type": "string",
      "minLength": 1,
      "maxLength": %d,
      "description": "Why you need to take it, 1 to %d characters"
    }
  },
  "required": ["action", "reason"],
  "additionalProperties": false
}`, MaxActionChars, MaxActionChars, MaxReasonChars, MaxReasonChars))

var _ wisp.Summarizer = (*Tool)(nil)

// Summary returns "an action", and none of the words the action is asked
// with: those reach the person only under the gate's own label, once the
// gate asks.
func (*Tool) Summary(json.RawMessage) string { return "an action" }

type args struct {
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// LineApproved is what the model reads when the person approved: it may
// take exactly the action it asked for, once.
func LineApproved(id, action string) string {
	return fmt.Sprintf("approved (approval %s): you may take exactly this action, once: %q. Anything more or different needs a new request.", id, action)
}

// Call puts the request to the person through the gate and waits. An
// approval comes back as LineApproved; a refusal as an error result,
// policy.LineNotApproved and the reason. Arguments the tool cannot ask
// about come back as an error result that says what to send. Call returns
// an error only when the turn cannot go on: ctx ended, or the person
// stopped the turn at the prompt (wisp.ErrInterrupted).
func (t *Tool) Call(ctx context.Context, c wisp.Call) (wisp.Result, error) {
	var a args
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.ErrorResult(fmt.Sprintf(`the arguments for request_approval are not valid: %v; send {"action": "…", "reason": "…"}`, err)), nil
	}
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
