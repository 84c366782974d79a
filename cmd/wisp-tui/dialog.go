package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// The labels that head the dialogs. A question or a card is the model's
// and says so; an approval is wisp's own. Neither ever carries the other's
// label, border, colours or keys, so a question such as "Approve rm -rf
// build? [y/n]" cannot pass for wisp's gate. wisp-tui chooses the label
// by the choice's kind; it does not show the line's title.
const (
	labelModelAsks = "? the model asks"
	labelApproval  = "! wisp asks your approval"
)

// secretNote is shown under a secret question.
const secretNote = "What you type is not shown; the model gets a reference to it, never the value."

// approvalKeys are the keys that approve, by scope, narrowest first.
var approvalKeys = []struct{ key, scope, label, said string }{
	{"y", "once", "[y]once", "you approved, once"},
	{"s", "session", "[s]ession", "you approved for this session"},
	{"p", "project", "[p]roject", "you approved for this project"},
	{"a", "always", "[a]lways", "you approved, always"},
}

// dialog is an open choice: a question, a card, or an approval request.
type dialog struct {
	id, kind, thread string
	deadline         time.Time      // zero: none
	question         jsonl.Question // for a question
	card             jsonl.Card     // for a card
	approval         jsonl.Approval // for an approval
	diffTop          int            // an approval's first row of its diff shown

	shown time.Time // when it was first drawn; its guard runs from then

	cursor  int                // the highlighted row
	marked  map[int]bool       // a multi-select question's marked options
	field   editor             // typed text: free text, something else, a secret
	typing  bool               // the "something else" field is open
	q       int                // a card's current question
	answers []jsonl.CardAnswer // a card's answers so far
	said    []string           // how each of them reads
}

func newDialog(c jsonl.Choice) *dialog {
	d := &dialog{id: c.ChoiceID(), kind: c.ChoiceKind()}
	switch c := c.(type) {
	case jsonl.Question:
		d.question, d.thread, d.deadline = c, c.Thread, c.Deadline
	case jsonl.Card:
		d.card, d.thread, d.deadline = c, c.Thread, c.Deadline
	case jsonl.Approval:
		d.approval, d.thread, d.deadline = c, c.Thread, c.Deadline
	}
	d.prepare()
	return d
}

// prepare readies the state for the current question.
func (d *dialog) prepare() {
	d.cursor, d.typing, d.marked = 0, false, map[int]bool{}
	d.field = editor{}
	if q := d.cardQuestion(); q != nil && q.Secret != "" {
		d.field.mask = true
	}
}

// cardQuestion is a card's current question, or nil.
func (d *dialog) cardQuestion() *jsonl.CardQuestion {
	if d.kind != jsonl.KindCard || d.q >= len(d.card.Questions) {
		return nil
	}
	return &d.card.Questions[d.q]
}

// textField is the field typing goes to now, or nil when the dialog is a
// picker (or an approval).
func (d *dialog) textField() *editor {
	switch d.kind {
	case jsonl.KindQuestion:
		if len(d.question.Options) == 0 || d.typing {
			return &d.field
		}
	case jsonl.KindCard:
		if q := d.cardQuestion(); q != nil && (len(q.Options) == 0 || d.typing) {
			return &d.field
		}
	}
	return nil
}

// multi reports whether the current question takes several options.
func (d *dialog) multi() bool {
	q := d.cardQuestion()
	return q != nil && q.MultiSelect
}

type rowKind int

const (
	rowOption rowKind = iota
	rowOther          // "something else": the person's own answer
	rowNone           // "none of these"
)

// row is one line of a picker.
type row struct {
	kind        rowKind
	option      int // for rowOption: the option's number, from 1
	label, desc string
	recommended bool
}

// rows are the picker's lines for the current question.
func (d *dialog) rows() []row {
	var rs []row
	switch d.kind {
	case jsonl.KindQuestion:
		for i, o := range d.question.Options {
			rs = append(rs, row{kind: rowOption, option: i + 1, label: o})
		}
		if d.question.AcceptsText && len(d.question.Options) > 0 {
			rs = append(rs, row{kind: rowOther, label: "something else…"})
		}
		if d.question.NoneOfThese {
			rs = append(rs, row{kind: rowNone, label: "none of these"})
		}
	case jsonl.KindCard:
		q := d.cardQuestion()
		if q == nil {
			return nil
		}
		for i, o := range q.Options {
			rs = append(rs, row{kind: rowOption, option: i + 1, label: o.Label, desc: o.Description, recommended: o.Recommended})
		}
		if q.AcceptsText && len(q.Options) > 0 {
			rs = append(rs, row{kind: rowOther, label: "something else…"})
		}
	}
	return rs
}

// otherRow is the index of the "something else" row, or -1.
func (d *dialog) otherRow() int {
	return slices.IndexFunc(d.rows(), func(r row) bool { return r.kind == rowOther })
}

// dialogKey handles a key while d is shown.
func (m *model) dialogKey(d *dialog, k tea.KeyPressMsg) {
	s := k.String()
	if s == "esc" {
		switch {
		case d.typing:
			d.typing = false // back to the options
			d.field.reset()
		case d.kind == jsonl.KindCard:
			m.answerCard(d, jsonl.CardAnswer{Decline: true}, "declined")
		default:
			m.decline(d)
		}
		return
	}
	if m.now().Sub(d.shown) < guard {
		return // typed before the person could read it
	}
	if d.kind == jsonl.KindApproval {
		m.approvalKey(d, strings.ToLower(s))
		return
	}
	if f := d.textField(); f != nil {
		if s != "enter" {
			f.key(k)
			return
		}
		v := f.value()
		if strings.TrimSpace(v) == "" {
			return
		}
		if !f.mask {
			v = strings.TrimSpace(v)
		}
		if err := wisp.CheckTyped(strings.TrimSpace(v)); err != nil {
			// A pasted Esc or arrow key is no answer: say so, and keep
			// the dialog open, the field shown escaped, for editing.
			m.add(entryError, err.Error()+"; edit the answer, or press Esc")
			return
		}
		m.answerText(d, v)
		return
	}
	rows := d.rows()
	if len(rows) == 0 {
		return
	}
	switch {
	case s == "up" || s == "ctrl+p" || s == "shift+tab":
		d.cursor = max(0, d.cursor-1)
	case s == "down" || s == "ctrl+n" || s == "tab":
		d.cursor = min(len(rows)-1, d.cursor+1)
	case s == "space" && d.multi():
		m.pickRow(d, rows, d.cursor, true)
	case s == "enter":
		if d.multi() && rows[d.cursor].kind == rowOption && len(d.marked) > 0 {
			m.answerMarked(d)
			return
		}
		m.pickRow(d, rows, d.cursor, false)
	case len(s) == 1 && s[0] >= '1' && s[0] <= '9':
		i := int(s[0] - '1')
		if i >= len(rows) {
			return
		}
		d.cursor = i
		m.pickRow(d, rows, i, d.multi())
	default:
		if o := d.otherRow(); o >= 0 && k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			d.cursor, d.typing = o, true
			d.field.insert(k.Text)
		}
	}
}

// pickRow acts on row i: mark toggles a multi-select option; otherwise
// the option is the answer, "something else" opens its field, and "none
// of these" answers so.
func (m *model) pickRow(d *dialog, rows []row, i int, mark bool) {
	r := rows[i]
	switch {
	case r.kind == rowOther:
		d.typing = true
	case r.kind == rowNone:
		m.answerQuestion(d, jsonl.Choose{None: true}, "you chose none of these")
	case mark:
		if d.marked[r.option] {
			delete(d.marked, r.option)
		} else {
			d.marked[r.option] = true
		}
	case d.kind == jsonl.KindCard && d.multi():
		m.answerCard(d, jsonl.CardAnswer{Options: []int{r.option}}, r.label)
	case d.kind == jsonl.KindCard:
		m.answerCard(d, jsonl.CardAnswer{Option: r.option}, r.label)
	default:
		m.answerQuestion(d, jsonl.Choose{Option: r.option}, "you chose: "+r.label)
	}
}

// answerMarked answers a multi-select question with its marked options,
// in the options' order.
func (m *model) answerMarked(d *dialog) {
	nums, labels := d.markedOptions()
	m.answerCard(d, jsonl.CardAnswer{Options: nums}, strings.Join(labels, ", "))
}

// markedOptions are the numbers and labels of the current question's
// marked options, in the options' order.
func (d *dialog) markedOptions() (nums []int, labels []string) {
	q := d.cardQuestion()
	if q == nil {
		return nil, nil
	}
	for i, o := range q.Options {
		if d.marked[i+1] {
			nums = append(nums, i+1)
			labels = append(labels, o.Label)
		}
	}
	return nums, labels
}

// answerText answers with what the person typed. On a multi-select
// question the options marked before "something else" go with it.
func (m *model) answerText(d *dialog, v string) {
	if d.kind == jsonl.KindCard {
		q := d.cardQuestion()
		if q.Secret != "" {
			m.answerCard(d, jsonl.CardAnswer{Text: v}, "the secret "+q.Secret+" (not shown)")
			return
		}
		a := jsonl.CardAnswer{Text: v}
		said := v
		if q.MultiSelect {
			nums, labels := d.markedOptions()
			if len(nums) > 0 {
				a.Options = nums
				said = strings.Join(append(labels, v), ", ")
			}
		}
		m.answerCard(d, a, said)
		return
	}
	m.answerQuestion(d, jsonl.Choose{Text: v}, "you answered: "+v)
}

// answerQuestion sends the answer to a question and closes it.
func (m *model) answerQuestion(d *dialog, c jsonl.Choose, said string) {
	c.ID = d.id
	m.closeDialog(d)
	if m.send(c) {
		m.add(entryInfo, said)
	}
}

// answerCard records the answer to the card's current question and goes
// on to the next; after the last it sends the card's answers.
func (m *model) answerCard(d *dialog, a jsonl.CardAnswer, said string) {
	d.answers = append(d.answers, a)
	d.said = append(d.said, cardChip(d, d.q)+": "+said)
	d.q++
	if d.q < len(d.card.Questions) {
		d.prepare()
		return
	}
	m.closeDialog(d)
	if m.send(jsonl.Choose{ID: d.id, Answers: d.answers}) {
		m.add(entryInfo, "you answered the card: "+strings.Join(d.said, " · "))
	}
}

// decline declines d as a whole: a question, every question of a card
// not yet answered, or an approval (refused).
func (m *model) decline(d *dialog) {
	switch d.kind {
	case jsonl.KindApproval:
		m.closeDialog(d)
		if m.send(jsonl.Deny{ID: d.id}) {
			m.add(entryInfo, "you refused")
		}
	case jsonl.KindCard:
		for d.q < len(d.card.Questions) {
			m.answerCard(d, jsonl.CardAnswer{Decline: true}, "declined")
		}
	default:
		m.answerQuestion(d, jsonl.Choose{Decline: true}, "you declined the question")
	}
}

// approvalKey answers an approval request: a key its scopes offer, or n;
// ↑ and ↓ scroll a diff cut to the screen.
func (m *model) approvalKey(d *dialog, s string) {
	switch s {
	case "up":
		d.diffTop = max(0, d.diffTop-1)
		return
	case "down":
		d.diffTop++ // the view keeps it within the diff
		return
	case "n":
		m.decline(d)
		return
	}
	for _, k := range approvalKeys {
		if s == k.key && slices.Contains(d.approval.Scopes, k.scope) {
			m.closeDialog(d)
			if m.send(jsonl.Approve{ID: d.id, Scope: k.scope}) {
				m.add(entryInfo, k.said)
			}
			return
		}
	}
}

// cardChip names question i of d's card: "Env", or "question 2".
func cardChip(d *dialog, i int) string {
	if h := d.card.Questions[i].Header; h != "" {
		return h
	}
	if s := d.card.Questions[i].Secret; s != "" {
		return s
	}
	return fmt.Sprintf("question %d", i+1)
}
