package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/wisp-agent/wisp"
)

// ApprovalLabel heads the approval prompt. It never says "the model
// asks", and a question never says this: the two cannot pass for each
// other.
const ApprovalLabel = "! wisp asks your approval"

// The refusals the approval prompt gives in its own words.
const (
	// ReasonNoPerson: the input ended, so no person can answer.
	ReasonNoPerson = "no person can approve here"
	// ReasonNotOffered: the person typed twice what the prompt does not
	// offer.
	ReasonNotOffered = "the person's answer was not one offered"
)

var _ wisp.Approver = (*Face)(nil)

// approvalKeys are the keys and words that answer the prompt, by scope.
var approvalKeys = [...]struct {
	scope wisp.Scope
	key   string
	label string
}{
	{wisp.ScopeOnce, "y", "[y]once"},
	{wisp.ScopeSession, "s", "[s]ession"},
	{wisp.ScopeProject, "p", "[p]roject"},
	{wisp.ScopeAlways, "a", "[a]lways"},
}

// Approve shows r as wisp's request for approval, unlike a question, and
// reads the answer:
//
//	! wisp asks your approval
//	  models enable ollama:qwen3:4b
//	  turns ollama:qwen3:4b on in config.json
//	allow? [y]once [s]ession [n]o ›
//
// The command and every line of r.Text are escaped. A request with a
// Diff shows it below, each line escaped too, coloured with
// Options.Color. Only the scopes
// r.Scopes allows are offered, narrowest first, and [n]o always. A key or
// its word (once, session, project, always, no), in any case, answers;
// Enter alone is no. Anything else asks once more, then refuses. Keys typed
// before the question line (allow? …) appeared are dropped if the face has
// a FlushTypeAhead hook (NewWithOptions); keys typed after it never are.
//
// A cancelled or timed-out read, and Ctrl-C (wisp.ErrInterrupted), return
// an error and never an approval. At the end of the input no person can
// answer, and the request is refused.
func (f *Face) Approve(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	w := f.width()
	b.WriteString(approvalFrame(r.Command, r.Text, w))
	b.WriteString(Diff(r.Diff, w, f.color))
	if !r.Deadline.IsZero() {
		fmt.Fprintf(&b, "(the request is refused unanswered at %s)\n", r.Deadline.Local().Format(time.TimeOnly))
	}
	// The request is shown, then what was typed so far is dropped, and only
	// then does the question appear: no key typed before it can answer it,
	// and no key typed after it is ever dropped.
	if _, err := io.WriteString(f.out, b.String()); err != nil {
		return wisp.Decision{}, err
	}
	if f.flushTypeAhead != nil {
		f.flushTypeAhead()
	}
	b.Reset()
	b.WriteString("allow?")
	var keys []string
	for _, k := range approvalKeys {
		if slices.Contains(r.Scopes, k.scope) {
			b.WriteString(" " + k.label)
			keys = append(keys, k.key)
		}
	}
	b.WriteString(" [n]o › ")
	keys = append(keys, "n")
	if _, err := io.WriteString(f.out, b.String()); err != nil {
		return wisp.Decision{}, err
	}
	for tries := 0; ; tries++ {
		text, err := f.in.ReadLine(ctx)
		switch {
		case errors.Is(err, io.EOF):
			fmt.Fprintln(f.out, "\n(the input ended; no person can approve)")
			return wisp.Decision{Reason: ReasonNoPerson, Provenance: wisp.FromUnattended}, nil
		case errors.Is(err, context.DeadlineExceeded):
			fmt.Fprintln(f.out, "\n(no answer in time; the request was refused)")
			return wisp.Decision{}, err
		case errors.Is(err, ErrLineTooLong):
			fmt.Fprint(f.out, tooLong)
		case err != nil:
			fmt.Fprintln(f.out)
			return wisp.Decision{}, err
		default:
			if d, ok := readApproval(r.Scopes, text); ok {
				return d, nil
			}
		}
		if tries > 0 {
			fmt.Fprintln(f.out, "(not an answer offered; the request was refused)")
			return wisp.Decision{Reason: ReasonNotOffered, Provenance: wisp.FromPerson}, nil
		}
		fmt.Fprintf(f.out, "type %s, or press Enter to refuse › ", orList(keys))
	}
}

// approvalFrame is a request as the face shows it, without the prompt:
// under ApprovalLabel, its command and each line of its text, escaped,
// wrapped to width and indented.
func approvalFrame(command, text string, width int) string {
	var b strings.Builder
	b.WriteString(ApprovalLabel + "\n")
	if command != "" {
		b.WriteString(Quote("", command, width))
	}
	if text != "" {
		for l := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
			b.WriteString(Quote("", strings.TrimSuffix(l, "\r"), width))
		}
	}
	return b.String()
}

// readApproval turns a line into a decision; ok is false for anything the
// prompt did not offer.
func readApproval(scopes []wisp.Scope, text string) (wisp.Decision, bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" || t == "n" || t == "no" {
		return wisp.Decision{Provenance: wisp.FromPerson}, true
	}
	for _, k := range approvalKeys {
		if (t == k.key || t == k.scope.String()) && slices.Contains(scopes, k.scope) {
			return wisp.Decision{Scope: k.scope, Provenance: wisp.FromPerson}, true
		}
	}
	return wisp.Decision{}, false
}

// orList writes "y", "y or n", "y, s or n".
func orList(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}
