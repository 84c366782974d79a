package mcpface

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// maxCardAsks bounds how often one card is put to the dialog: a form
// whose answers do not fit is put again, saying why, this many times in
// all; then the card waits out its hold.
const maxCardAsks = 3

// AskCard puts c to the client's dialog as one form and waits for the
// person's answers until the hold ends (the questions fall back, as
// nobody answered them in time: wisp.OutcomeTimedOut), the client goes
// away (they fall back with wisp.OutcomeNoPerson) or ctx ends (AskCard
// returns ctx's cause).
//
// Each question is a field of the form (cardParams). An accepted form's
// answers are returned marked wisp.FromPerson, one for each question, a
// field left empty as a decline; a declined form declines every question;
// a dismissed one answers nothing, and the card waits on. A form whose
// answers do not fit the card (an option it does not offer, text where
// none is taken or with control characters) is put again with a line
// that says why, never passed on.
//
// A card the client cannot show (no Session, inquiry.elicitation off, a
// client that declared no form elicitation) and a secret's card, which
// never goes through MCP, get no person's answer, at once
// (wisp.OutcomeNoPerson, wisp.FromUnattended): the desk falls them back
// and declines the secret.
func (f *Face) AskCard(ctx context.Context, c wisp.Card) ([]wisp.CardAnswer, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	sess := SessionFrom(ctx)
	if sess == nil || !f.dialogs(sess) || secretCard(c.Questions) {
		return fill(len(c.Questions), wisp.OutcomeNoPerson, wisp.FromUnattended), nil
	}
	hold := f.opts.After(f.opts.Hold)
	w := &cardWait{replies: make(chan cardReply, 1), done: make(chan struct{})}
	defer close(w.done)
	// The dialog is the card's alone: it is withdrawn when the card ends.
	dctx, withdraw := context.WithCancel(context.WithoutCancel(ctx))
	defer withdraw()
	f.putCard(dctx, sess, c, "", w)
	for asks := 1; ; {
		select {
		case r := <-w.replies:
			switch {
			case r.answers != nil:
				return r.answers, nil
			case r.misfit != "" && asks < maxCardAsks:
				asks++
				f.putCard(dctx, sess, c, r.misfit, w)
			}
		case <-hold:
			return fill(len(c.Questions), wisp.OutcomeTimedOut, wisp.FromTimeout), nil
		case <-sess.Gone():
			return fill(len(c.Questions), wisp.OutcomeNoPerson, wisp.FromUnattended), nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// CardHold returns how long a card of qs is shown to the person under
// ctx: the hold, when it goes to the client's dialog; 0 when it falls
// back at once. The desk waits no longer than that, so the card's
// deadline and the lines of the questions nobody answered say how long it
// was shown.
func (f *Face) CardHold(ctx context.Context, qs []wisp.CardQuestion) time.Duration {
	sess := SessionFrom(ctx)
	if sess == nil || !f.dialogs(sess) || secretCard(qs) {
		return 0
	}
	return f.opts.Hold
}

// secretCard reports whether qs collect a secret.
func secretCard(qs []wisp.CardQuestion) bool {
	return slices.ContainsFunc(qs, func(q wisp.CardQuestion) bool { return q.Secret != "" })
}

// fill returns n answers, each ending with o and p.
func fill(n int, o wisp.Outcome, p wisp.Provenance) []wisp.CardAnswer {
	out := make([]wisp.CardAnswer, n)
	for i := range out {
		out[i] = wisp.CardAnswer{Outcome: o, Provenance: p}
	}
	return out
}

// A cardWait is where the dialog's replies to a card meet the turn that
// waits for them.
type cardWait struct {
	replies chan cardReply
	done    chan struct{} // closed once AskCard has returned
}

// A cardReply is a reply from the dialog: the answers, or why they did
// not fit (misfit), or neither (the person dismissed the form).
type cardReply struct {
	answers []wisp.CardAnswer
	misfit  string
}

// deliver hands r to the waiting turn; it reports false when the card
// has ended.
func (w *cardWait) deliver(r cardReply) bool {
	select {
	case <-w.done:
		return false
	default:
	}
	select {
	case w.replies <- r:
		return true
	case <-w.done:
		return false
	}
}

// putCard puts c to sess's dialog; note, when set, says why the last
// answers were not taken.
func (f *Face) putCard(ctx context.Context, sess Session, c wisp.Card, note string, w *cardWait) {
	sess.Elicit(ctx, Form{Kind: KindCard, ID: c.ID, Params: cardParams(c, note, f.opts.Hold)},
		func(_ context.Context, reply *mcp.ElicitationResult) string {
			r, line := readReply(c, reply)
			if r.answers == nil && r.misfit == "" {
				return line // dismissed: nothing to hand the turn
			}
			if !w.deliver(r) {
				return "wisp: the dialog's answers to card " + c.ID + " came after the card ended and were not used"
			}
			return line
		})
}

// readReply reads the dialog's reply to c, and the line for the client
// when its answers were not used.
func readReply(c wisp.Card, reply *mcp.ElicitationResult) (cardReply, string) {
	if reply == nil {
		return cardReply{}, ""
	}
	switch reply.Action {
	case mcp.ElicitationResponseActionAccept:
		answers, why := readCard(c.Questions, reply.Content)
		if why != "" {
			return cardReply{misfit: why}, "wisp: the dialog's answers to card " + c.ID + " were not used: " + why
		}
		return cardReply{answers: answers}, ""
	case mcp.ElicitationResponseActionDecline:
		return cardReply{answers: fill(len(c.Questions), wisp.OutcomeDeclined, wisp.FromPerson)}, ""
	default: // dismissed without an answer: the card waits on
		return cardReply{}, ""
	}
}

// fieldName is the form's field for question n (from 1); otherField the
// field of its "something else" text.
func fieldName(n int) string  { return "q" + strconv.Itoa(n) }
func otherField(n int) string { return fieldName(n) + "_other" }

// cardParams is the form the client shows for c: the questions, escaped,
// what the answers are not (private), and a field for each question:
//
//   - a single choice is a string whose oneOf lists each option (const:
//     the label; title: the label, its description and whether it is
//     recommended), with the recommended option as its default;
//   - a multi-select is an array whose items are any of those, with the
//     recommended option as its default;
//   - "something else" is a text field of its own, beside the options;
//   - free text is a string of up to 2,000 characters.
//
// No field is required: one left empty declines its question. note, when
// set, says why the last answers were not taken.
func cardParams(c wisp.Card, note string, hold time.Duration) mcp.ElicitationParams {
	var b strings.Builder
	if note != "" {
		b.WriteString("Your last answers were not used: " + note + ". Answer again.\n\n")
	}
	if len(c.Questions) == 1 {
		b.WriteString("wisp: the model asks:\n")
	} else {
		b.WriteString("wisp: the model asks " + strconv.Itoa(len(c.Questions)) + " questions:\n")
	}
	props := map[string]any{}
	for i, q := range c.Questions {
		n := i + 1
		b.WriteString(strconv.Itoa(n) + ". " + fieldTitle(n, q) + ": " + escape.Terminal(q.Text) + "\n")
		props[fieldName(n)] = questionField(n, q)
		if q.Other {
			what := "instead of an option"
			if q.Multi {
				what = "besides the options you choose"
			}
			props[otherField(n)] = map[string]any{"type": "string", "title": fieldTitle(n, q) + ": something else",
				"description": "Your own answer to question " + strconv.Itoa(n) + ", " + what + ".", "maxLength": inquiry.MaxAnswerBytes}
		}
	}
	b.WriteString("\nLeave a question empty to decline it. Unanswered within " + inquiry.Wait(hold) +
		", a choice falls back to its recommended option (else its first) and free text goes unanswered.\n\n")
	b.WriteString(strings.TrimSpace(notPrivate(c.Thread)))
	return mcp.ElicitationParams{
		Mode:            mcp.ElicitationModeForm,
		Message:         b.String(),
		RequestedSchema: map[string]any{"type": "object", "properties": props},
	}
}

// fieldTitle names question n in the form: its header, when it has one.
func fieldTitle(n int, q wisp.CardQuestion) string {
	if q.Header == "" {
		return "Question " + strconv.Itoa(n)
	}
	return "Question " + strconv.Itoa(n) + " (" + escape.Terminal(q.Header) + ")"
}

// questionField is the field of question n.
func questionField(n int, q wisp.CardQuestion) map[string]any {
	field := map[string]any{"title": fieldTitle(n, q), "description": escape.Terminal(q.Text)}
	if len(q.Options) == 0 {
		field["type"] = "string"
		field["maxLength"] = inquiry.MaxAnswerBytes
		return field
	}
	var choices []any
	recommended := ""
	for _, o := range q.Options {
		choices = append(choices, map[string]any{"const": o.Label, "title": optionTitle(o)})
		if o.Recommended {
			recommended = o.Label
		}
	}
	if !q.Multi {
		field["type"] = "string"
		field["oneOf"] = choices
		if recommended != "" {
			field["default"] = recommended
		}
		return field
	}
	field["type"] = "array"
	field["items"] = map[string]any{"anyOf": choices}
	field["maxItems"] = len(q.Options)
	if recommended != "" {
		field["default"] = []string{recommended}
	}
	return field
}

// optionTitle is how an option is shown: its label, escaped, its
// description, and whether it is the recommended one.
func optionTitle(o wisp.Option) string {
	t := escape.Terminal(o.Label)
	if o.Description != "" {
		t += " — " + escape.Terminal(o.Description)
	}
	if o.Recommended {
		t += " (recommended)"
	}
	return t
}

// readCard reads a form's content as the answers to qs, one for each, in
// order, each marked wisp.FromPerson. why says what did not fit, when
// something did not (then no answers are returned).
func readCard(qs []wisp.CardQuestion, content any) (answers []wisp.CardAnswer, why string) {
	m, ok := content.(map[string]any)
	if !ok && content != nil {
		return nil, "the form's content is not an object"
	}
	known := map[string]bool{}
	for i, q := range qs {
		known[fieldName(i+1)] = true
		if q.Other {
			known[otherField(i+1)] = true
		}
	}
	for k := range m {
		if !known[k] {
			return nil, "the form holds a field the card did not ask for"
		}
	}
	for i, q := range qs {
		a, why := readQuestion(q, m[fieldName(i+1)], m[otherField(i+1)])
		if why != "" {
			return nil, "question " + strconv.Itoa(i+1) + ": " + why
		}
		answers = append(answers, a)
	}
	return answers, ""
}

// readQuestion reads the answer to q from its field's value v and its
// "something else" field's value other (nil when left empty).
func readQuestion(q wisp.CardQuestion, v, other any) (wisp.CardAnswer, string) {
	declined := wisp.CardAnswer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson}
	if len(q.Options) == 0 {
		text, why := readText(v)
		if why != "" || text == "" {
			return declined, why
		}
		return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}, ""
	}
	chosen, why := readChosen(q, v)
	if why != "" {
		return wisp.CardAnswer{}, why
	}
	text, why := readText(other)
	switch {
	case why != "":
		return wisp.CardAnswer{}, why
	case len(chosen) > 1 && !q.Multi:
		return wisp.CardAnswer{}, "it takes one option"
	case len(chosen) > 0 && text != "" && !q.Multi:
		return wisp.CardAnswer{}, "it takes one answer: an option or your own text, not both"
	case len(chosen) > 0:
		return wisp.CardAnswer{Outcome: wisp.OutcomeChose, Chosen: chosen, Text: text, Provenance: wisp.FromPerson}, ""
	case text != "":
		return wisp.CardAnswer{Outcome: wisp.OutcomeAnswered, Text: text, Provenance: wisp.FromPerson}, ""
	}
	return declined, ""
}

// readChosen reads the options chosen in a choice's field: a label, or on
// a multi-select a list of them; each as the question spells it (case and
// surrounding space aside), once.
func readChosen(q wisp.CardQuestion, v any) ([]string, string) {
	var picks []any
	switch v := v.(type) {
	case nil:
		return nil, ""
	case string:
		if strings.TrimSpace(v) == "" {
			return nil, ""
		}
		picks = []any{v}
	case []any:
		picks = v
	default:
		return nil, "its answer is not an option"
	}
	var chosen []string
	for _, p := range picks {
		s, ok := p.(string)
		if !ok {
			return nil, "its answer is not an option"
		}
		i := slices.IndexFunc(q.Options, func(o wisp.Option) bool { return strings.EqualFold(o.Label, strings.TrimSpace(s)) })
		if i < 0 {
			if q.Other {
				return nil, "that is none of its options; give your own answer in its something else field"
			}
			return nil, "that is none of its options"
		}
		if !slices.Contains(chosen, q.Options[i].Label) {
			chosen = append(chosen, q.Options[i].Label)
		}
	}
	return chosen, ""
}

// readText reads a text field: "" when it was left empty; why when it is
// not text a person typed.
func readText(v any) (string, string) {
	switch v := v.(type) {
	case nil:
		return "", ""
	case string:
		t := strings.TrimSpace(v)
		switch {
		case !utf8.ValidString(t):
			return "", "its text is not UTF-8"
		case utf8.RuneCountInString(t) > inquiry.MaxAnswerBytes:
			return "", fmt.Sprintf("its text is longer than %d characters", inquiry.MaxAnswerBytes)
		}
		if err := wisp.CheckTyped(t); err != nil {
			return "", err.Error()
		}
		return t, ""
	}
	return "", "its answer is not text"
}
