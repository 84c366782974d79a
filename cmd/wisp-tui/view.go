package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// Every string that comes from wisp (the model's words above all, but
// also wisp's own lines and its standard error) is escaped with
// escape.Terminal before it is drawn, line by line, so it keeps its line
// breaks but can move no cursor, set no title and hide nothing. Escaping
// happens here, in the view, and nowhere else: the model keeps the text as
// it came.

type entryKind int

const (
	entryYou      entryKind = iota // the person's message, as wisp accepted it
	entryReply                     // the model's reply
	entryThinking                  // the model's reasoning
	entryCall                      // a tool call
	entryResult                    // a tool's result
	entryNote                      // something wisp tells the person
	entryError                     // an error line, or a turn that failed
	entryDiag                      // wisp's standard error, or a line wisp-tui skipped
	entryInfo                      // wisp-tui's own account of what the person did
	entryOutput                    // what one of the person's commands said
	entryPrinted                   // what a tool call printed as it ran, such as a command's output
)

// entry is one item of the conversation.
type entry struct {
	kind entryKind
	text string

	drawn      string // text as drawn at drawnWidth; "" when not drawn yet
	drawnWidth int
}

func (m *model) add(k entryKind, s string) {
	m.entries = append(m.entries, entry{kind: k, text: s})
	m.open = -1
}

// View draws the conversation, then the open dialog, the message box and
// the status line.
func (m *model) View() tea.View {
	v := tea.NewView(m.vp.View() + "\n" + m.bottom)
	v.AltScreen = true
	return v
}

// layout redraws the bottom of the screen and gives the conversation the
// rest, keeping its end in view unless the person scrolled up.
func (m *model) layout() {
	m.bottom = m.bottomView()
	h := max(1, m.height-lipgloss.Height(m.bottom))
	m.vp.SetWidth(m.width)
	m.vp.SetHeight(h)
	c := m.conversation()
	if n := lipgloss.Height(c); n < h {
		c = strings.Repeat("\n", h-n) + c // the conversation sits on the dialog, as in a chat
	}
	m.vp.SetContent(c)
	if m.follow {
		m.vp.GotoBottom()
	}
}

// conversation draws every entry, wrapped to the screen's width.
func (m *model) conversation() string {
	var b strings.Builder
	for i := range m.entries {
		e := &m.entries[i]
		if e.kind == entryYou && i > 0 {
			b.WriteString("\n")
		}
		if e.drawn == "" || e.drawnWidth != m.width {
			e.drawn, e.drawnWidth = m.entryView(*e), m.width
		}
		b.WriteString(e.drawn)
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (m *model) entryView(e entry) string {
	first, rest := "", ""
	st := m.st.reply
	switch e.kind {
	case entryYou:
		first, rest, st = "› ", "  ", m.st.you
	case entryThinking:
		first, st = "(thinking) ", m.st.thinking
	case entryCall:
		first, rest, st = "⚙ ", "  ", m.st.call
	case entryResult:
		first, rest, st = "↳ ", "  ", m.st.call
	case entryNote, entryError:
		first, rest, st = "! wisp: ", "  ", m.st.note
	case entryDiag:
		st = m.st.diag
	case entryInfo:
		first, rest, st = "  ", "  ", m.st.info
	case entryOutput:
		st = m.st.reply
	case entryPrinted:
		first, rest, st = "  │ ", "  │ ", m.st.call
	}
	lines := escapedLines(e.text)
	for i, l := range lines {
		lead := rest
		if i == 0 {
			lead = first
		}
		lines[i] = st.Render(hang(lead, l, m.width))
	}
	return strings.Join(lines, "\n")
}

// escapedLines splits s into lines and escapes each.
func escapedLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = escape.Terminal(l)
	}
	return lines
}

// wrap breaks an escaped line to width cells.
func wrap(s string, width int) string {
	return lipgloss.Wrap(s, max(width, 10), "")
}

// hang wraps s to width with lead before its first line and as many
// spaces before the others, so a wrapped line keeps its indent.
func hang(lead, s string, width int) string {
	w := cellWidth(lead)
	lines := strings.Split(wrap(s, width-w), "\n")
	pad := strings.Repeat(" ", w)
	for i := range lines {
		if i == 0 {
			lines[i] = lead + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// bottomView draws the dialog shown (if any), the message box, and the
// status line.
func (m *model) bottomView() string {
	var parts []string
	d := m.dialog()
	if d != nil {
		parts = append(parts, m.dialogView(d))
	}
	prompt := "› "
	parts = append(parts, prompt+m.input.view(m.width-cellWidth(prompt)-1, d == nil && !m.leaving && !m.ended && !m.dropping, m.st))
	parts = append(parts, m.statusView())
	return strings.Join(parts, "\n")
}

// statusView is the bottom line: the model, the tools, and what the keys
// do now.
func (m *model) statusView() string {
	left := "wisp-tui · starting wisp chat --json"
	if m.hello != nil {
		tools := strings.Join(m.hello.Tools, ", ")
		if tools == "" {
			tools = "none"
		}
		left = "wisp-tui · " + escape.Terminal(m.hello.Model) + " · tools: " + escape.Terminal(tools)
	}
	var right string
	switch {
	case m.ended:
		right = "wisp has ended"
	case m.leaving:
		right = "leaving: wisp is ending the session"
	case m.dropping:
		right = "the secret question closed: typing is dropped until Enter or Esc"
	case m.dialog() != nil:
		right = "the dialog above waits for you"
	case m.running:
		right = "working · Ctrl-C stops the turn"
	default:
		right = "Enter sends · Ctrl-D leaves"
	}
	// What the keys do is what matters: the model's name gives way.
	if room := m.width - cellWidth(right) - 3; cellWidth(left) > room {
		left = truncate(left, max(room, 12))
	}
	line := left + " │ " + right
	if w := cellWidth(line); w < m.width {
		line += strings.Repeat(" ", m.width-w)
	}
	return m.st.status.Render(truncate(line, m.width))
}

// truncate cuts an unstyled line to width cells.
func truncate(s string, width int) string {
	if cellWidth(s) <= width {
		return s
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		rw := cellWidth(string(r))
		if w+rw > width-1 {
			break
		}
		b.WriteRune(r)
		w += rw
	}
	return b.String() + "…"
}

// dialogView draws d in its box: the model's rounded one for a question or
// a card, wisp's double one for an approval.
func (m *model) dialogView(d *dialog) string {
	inner := max(m.width-4, 10) // the border and padding take 4 cells
	var lines []string
	add := func(s string) { lines = append(lines, wrap(s, inner)) }
	addHang := func(lead, s string) { lines = append(lines, hang(lead, s, inner)) }
	addText := func(s string) {
		for _, l := range escapedLines(s) {
			add(l)
		}
	}
	box := m.st.asks
	switch d.kind {
	case jsonl.KindApproval:
		box = m.st.approval
		lines = m.approvalLines(d, inner)
	case jsonl.KindCard:
		n := len(d.card.Questions)
		head := labelModelAsks + " · 1 question"
		if n > 1 {
			head = fmt.Sprintf("%s · %d questions", labelModelAsks, n)
		}
		lines = append(lines, m.st.asksTitle.Render(head))
		if t, ok := deadline(d); ok {
			switch {
			case slices.ContainsFunc(d.card.Questions, func(q jsonl.CardQuestion) bool { return q.Secret != "" }):
				add("ends at " + t + "; if you leave it unanswered by then, it is declined")
			case n == 1:
				add("ends at " + t + "; if you leave it unanswered by then, it falls back to its default")
			default:
				add("ends at " + t + "; questions you leave unanswered by then fall back to their defaults")
			}
		}
		for _, s := range d.said {
			addHang("✓ ", escape.Terminal(s))
		}
		q := d.cardQuestion()
		chip := []string{}
		if n > 1 {
			chip = append(chip, fmt.Sprintf("%d/%d", d.q+1, n))
		}
		if q.Header != "" {
			chip = append(chip, escape.Terminal(q.Header))
		}
		if q.Secret != "" {
			chip = append(chip, "secret "+escape.Terminal(q.Secret))
		}
		if len(chip) > 0 {
			add(strings.Join(chip, " · "))
		}
		addText(q.Text)
		if q.Secret != "" {
			add(secretNote)
		}
		lines = append(lines, m.pickerView(d, inner)...)
		for i := d.q + 1; i < n; i++ {
			add(truncate(fmt.Sprintf("then %d/%d · %s", i+1, n, escape.Terminal(cardChip(d, i))), inner))
		}
		add(m.st.info.Render(m.destination(d.thread)))
		add(m.st.keys.Render(m.pickerKeys(d)))
	default:
		lines = append(lines, m.st.asksTitle.Render(labelModelAsks))
		addText(d.question.Text)
		lines = append(lines, m.pickerView(d, inner)...)
		if t, ok := deadline(d); ok {
			add("ends at " + t + "; unanswered by then, the model is told no answer came")
		}
		if d.question.Parked {
			add(m.st.info.Render(parkedDestination(d.thread)))
		} else {
			add(m.st.info.Render(m.destination(d.thread)))
		}
		add(m.st.keys.Render(m.pickerKeys(d)))
	}
	return box.Width(m.width).Render(strings.Join(lines, "\n"))
}

// approvalLines draws an approval request: the command, what the person
// needs to know, the change to a file it would allow (its diff), when
// silence refuses it, and the keys its scopes offer.
func (m *model) approvalLines(d *dialog, inner int) []string {
	a := d.approval
	lines := []string{m.st.apprTitle.Render(labelApproval)}
	if a.Command != "" {
		lines = append(lines, hang("  ", escape.Terminal(a.Command), inner))
	}
	for _, l := range escapedLines(a.Text) {
		if l != "" {
			lines = append(lines, hang("  ", l, inner))
		}
	}
	var after []string
	if t, ok := deadline(d); ok {
		after = append(after, wrap(fmt.Sprintf("(the request is refused unanswered at %s)", t), inner))
	}
	keys := "allow?"
	for _, k := range approvalKeys {
		if slices.Contains(a.Scopes, k.scope) {
			keys += " " + k.label
		}
	}
	after = append(after, wrap(m.st.keys.Render(keys+" [n]o · Esc refuses"), inner))
	if a.Diff != "" {
		others := lipgloss.Height(strings.Join(append(lines, after...), "\n"))
		lines = append(lines, m.diffView(d, inner, others)...)
	}
	return append(lines, after...)
}

// minDiffRows is the fewest rows of a diff an approval shows, however
// small the screen.
const minDiffRows = 3

// diffView draws an approval's diff: each line escaped like the rest of
// the request, its tabs as blanks, wrapped to the dialog under its text
// (clear of its mark, "+", "-" or " "); removed lines in
// red, added ones in green, hunk headers in cyan and the file names in
// bold. A diff taller than the screen has room for, beside the dialog's
// other rows (others), its border, the message box, the status line and a
// row of the conversation, is cut to that room, with a note that says
// which rows show and that ↑ ↓ scroll it.
func (m *model) diffView(d *dialog, inner, others int) []string {
	var rows []string
	for _, line := range strings.Split(strings.TrimSuffix(d.approval.Diff, "\n"), "\n") {
		line = strings.TrimSuffix(line, "\r")
		st := m.diffStyle(line)
		shown := escape.Terminal(strings.ReplaceAll(line, "\t", "    "))
		// A wrapped line goes on under its text, clear of the mark.
		lead := "  "
		if _, n := utf8.DecodeRuneInString(shown); n > 0 {
			lead, shown = lead+shown[:n], shown[n:]
		}
		for _, r := range strings.Split(hang(lead, shown, inner), "\n") {
			rows = append(rows, st.Render(r))
		}
	}
	// The rest of the screen: the border, the message box and the status
	// line, a row of the conversation, and the note. The note's row holds
	// the last row of a diff that fits but for it.
	room := max(minDiffRows, m.height-others-2-2-1-1)
	if len(rows) <= room+1 {
		d.diffTop = 0
		return rows
	}
	d.diffTop = min(d.diffTop, len(rows)-room)
	end := d.diffTop + room
	note := fmt.Sprintf("(the diff, rows %d-%d of %d: ↑ ↓ scroll it)", d.diffTop+1, end, len(rows))
	return append(rows[d.diffTop:end:end], m.st.info.Render(note))
}

// diffStyle is the style of a diff's line.
func (m *model) diffStyle(line string) lipgloss.Style {
	switch {
	case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
		return m.st.diffFile
	case strings.HasPrefix(line, "@@"):
		return m.st.diffHunk
	case strings.HasPrefix(line, "+"):
		return m.st.diffAdded
	case strings.HasPrefix(line, "-"):
		return m.st.diffRemoved
	}
	return m.st.reply
}

// pickerView draws the rows of the current question, and its text field.
func (m *model) pickerView(d *dialog, inner int) []string {
	var out []string
	multi := d.multi()
	for i, r := range d.rows() {
		lead := "  "
		if i == d.cursor && !(d.typing && r.kind != rowOther) {
			lead = "› "
		}
		mark := ""
		if multi && r.kind == rowOption {
			mark = "○ "
			if d.marked[r.option] {
				mark = "● "
			}
		}
		label := r.label
		if r.kind == rowOption {
			label = escape.Terminal(r.label)
		}
		if r.recommended {
			label += " (recommended)"
		}
		num := fmt.Sprintf("%s%s%d ", lead, mark, i+1)
		s := hang(num, label, inner)
		if i == d.cursor {
			s = m.st.selected.Render(s)
		}
		out = append(out, s)
		if r.desc != "" {
			out = append(out, hang(strings.Repeat(" ", cellWidth(num)), escape.Terminal(r.desc), inner))
		}
	}
	if f := d.textField(); f != nil {
		out = append(out, "› "+f.view(inner-2, true, m.st))
	}
	return out
}

// pickerKeys says what the keys do in d now. It never offers an
// approval's keys.
func (m *model) pickerKeys(d *dialog) string {
	scope := "declines"
	if d.kind == jsonl.KindCard && len(d.card.Questions) > 1 {
		scope = "declines this question"
	}
	if f := d.textField(); f != nil {
		if d.typing {
			return "type your own answer · Enter sends · Esc goes back to the options"
		}
		return "Enter sends · Esc " + scope
	}
	n := len(d.rows())
	if d.multi() {
		return fmt.Sprintf("↑↓ move · Space or 1-%d marks · Enter sends the marked · Esc %s", n, scope)
	}
	return fmt.Sprintf("↑↓ move · Enter or 1-%d chooses · Esc %s", n, scope)
}

// destination says where the person's answer goes. Under wisp mcp (a
// question from a thread other than this conversation's) it also says
// that the agent that called wisp can read the answer.
func (m *model) destination(thread string) string {
	if thread == "" || (m.hello != nil && thread == m.hello.Thread) {
		t := ""
		if thread != "" {
			t = " (thread " + escape.Terminal(thread) + ")"
		}
		return "your answer goes to the model, in this conversation" + t + ", and becomes part of its thread"
	}
	t := escape.Terminal(thread)
	return "your answer goes to thread " + t + ", which an agent started through wisp mcp; it is not private from that agent: it can read this thread's output, context, facts and audit through wisp://threads/" + t
}

// parkedDestination says where the answer to a question wisp mcp parked
// goes: to its thread's next turn, where the agent that called wisp can
// read it; and that a decline is final there.
func parkedDestination(thread string) string {
	t := escape.Terminal(thread)
	return "a question wisp mcp parked: your answer goes to thread " + t + " with its next turn, and declining it is final there; it is not private from the agent that called wisp: it can read this thread's output, context, facts and audit through wisp://threads/" + t
}

// deadline formats a choice's deadline in local time, if it has one.
func deadline(d *dialog) (string, bool) {
	if d.deadline.IsZero() {
		return "", false
	}
	return d.deadline.Local().Format(time.TimeOnly), true
}
