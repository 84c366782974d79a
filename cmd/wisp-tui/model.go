package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// The messages the engine sends the model.
type (
	// lineMsg is one protocol line from wisp's standard output.
	lineMsg struct{ line jsonl.Line }
	// unknownChoiceMsg is a choice of a kind wisp-tui does not know.
	unknownChoiceMsg struct{ id, kind string }
	// badLineMsg is a line on wisp's standard output that is not a
	// protocol line.
	badLineMsg struct {
		text string
		err  error
	}
	// stderrMsg is one line of wisp's standard error.
	stderrMsg struct{ text string }
	// endedMsg says the wisp process has ended; err is how (nil for exit
	// status 0).
	endedMsg struct{ err error }
	// giveUpMsg ends the program when wisp has not ended in time after
	// the person left.
	giveUpMsg struct{}
)

// engineWriter is what the model needs of the engine: a way to write the
// person's lines, and to close wisp's input when the person leaves.
type engineWriter interface {
	Send(l jsonl.Line) error
	CloseInput() error
}

// guard is how long after a dialog opens its answering keys are ignored,
// so keys typed for something else cannot answer it. Esc and Ctrl-C, which
// decline, are never ignored.
const guard = 300 * time.Millisecond

// leaveWait is how long wisp may take to end after the person leaves
// before wisp-tui quits anyway (and the engine is stopped).
const leaveWait = 5 * time.Second

// modelOptions configures newModel; a zero field is the default.
type modelOptions struct {
	next   func() tea.Cmd   // waits for the engine's next message; nil: none (tests)
	now    func() time.Time // default time.Now
	plain  bool             // no colours or text attributes
	width  int              // until the terminal says, default 80
	height int              // default 24
}

// model is wisp-tui's state: the conversation, the message box, the open
// dialog and those queued behind it, and where the turn is.
type model struct {
	eng  engineWriter
	next func() tea.Cmd
	now  func() time.Time
	st   styles

	width, height int

	hello   *jsonl.Hello // wisp's hello line, once it came
	entries []entry
	open    int             // the entry streamed text goes on; -1 when none
	stepOut string          // the reply text streamed since the turn's last tool call
	printed map[string]bool // the calls whose output was shown as it came, by id
	flagged bool            // a flag note came in this turn (end's flags repeat it)

	input  editor
	vp     viewport.Model
	follow bool // keep the conversation scrolled to its end

	quitArmed     bool // Ctrl-C at the empty box said how to leave; another leaves
	toldQuestions bool // said once how /questions answers a waiting question
	running       bool // a turn runs
	interrupted   bool // a Ctrl-C declined a dialog in this turn; the next stops it
	cancelSent    bool

	dialogs []*dialog // the first is shown; the rest wait
	// dropping is set when wisp settled a secret question while the
	// person was typing its value: the keys that follow were meant for
	// that field, so they are dropped, not typed into the message box,
	// until Enter or Esc (dropped too).
	dropping bool

	leaving bool
	ended   bool
	endErr  error

	bottom string // the dialog, message box and status line, as drawn
}

func newModel(eng engineWriter, o modelOptions) *model {
	m := &model{eng: eng, next: o.next, now: o.now, st: newStyles(o.plain),
		width: o.width, height: o.height, open: -1, follow: true}
	if m.now == nil {
		m.now = time.Now
	}
	if m.width <= 0 {
		m.width = 80
	}
	if m.height <= 0 {
		m.height = 24
	}
	m.vp = viewport.New()
	m.layout()
	return m
}

// Init starts waiting for the engine.
func (m *model) Init() tea.Cmd { return m.listen() }

func (m *model) listen() tea.Cmd {
	if m.next == nil {
		return nil
	}
	return m.next()
}

// Update handles a key, a paste, a resize, or a message from the engine.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	case tea.PasteMsg:
		m.paste(msg.Content)
	case lineMsg:
		cmd = tea.Batch(m.line(msg.line), m.listen())
	case unknownChoiceMsg:
		m.add(entryDiag, fmt.Sprintf("wisp-tui: a choice of a kind it does not know (%s) was declined; a newer wisp-tui may show it", msg.kind))
		m.send(jsonl.Choose{ID: msg.id, Decline: true})
		cmd = m.listen()
	case badLineMsg:
		m.add(entryDiag, fmt.Sprintf("wisp-tui: skipped a line from wisp that is not a protocol line (%v): %s", msg.err, clip(msg.text, 200)))
		cmd = m.listen()
	case stderrMsg:
		m.add(entryDiag, msg.text)
		cmd = m.listen()
	case endedMsg:
		m.ended, m.endErr = true, msg.err
		m.dialogs = nil
		if msg.err != nil {
			m.add(entryError, "wisp chat --json ended: "+msg.err.Error())
		} else {
			m.add(entryInfo, "(wisp chat --json ended)")
		}
		m.layout()
		return m, tea.Quit
	case giveUpMsg:
		return m, tea.Quit
	}
	m.layout()
	return m, cmd
}

// line shows one protocol line.
func (m *model) line(l jsonl.Line) tea.Cmd {
	switch l := l.(type) {
	case jsonl.Hello:
		m.hello = &l
		if l.Protocol != jsonl.Protocol || l.Version != jsonl.Version {
			m.add(entryError, fmt.Sprintf("wisp-tui speaks %s version %d, and this wisp speaks %s version %d; use a wisp-tui and a wisp of the same release", jsonl.Protocol, jsonl.Version, l.Protocol, l.Version))
			return m.leave()
		}
	case jsonl.Turn:
		m.closeStream()
		m.running, m.interrupted, m.cancelSent, m.stepOut, m.flagged = true, false, false, "", false
		m.add(entryYou, l.Text)
	case jsonl.Delta:
		if l.Thinking != "" {
			m.stream(entryThinking, l.Thinking)
		}
		if l.Text != "" {
			m.stream(entryReply, l.Text)
			m.stepOut += l.Text
		}
	case jsonl.ToolCall:
		m.stepOut = ""
		m.add(entryCall, strings.TrimSpace(l.Name+" "+l.Summary))
	case jsonl.ToolOutput:
		if m.printed == nil {
			m.printed = map[string]bool{}
		}
		m.printed[l.ID] = true
		m.add(entryPrinted, l.Text)
	case jsonl.ToolResult:
		m.stepOut = ""
		text := l.Text
		if m.printed[l.ID] {
			// The output was shown as it came: its first line says how
			// the call ended.
			text, _, _ = strings.Cut(text, "\n")
			delete(m.printed, l.ID)
		}
		m.add(entryResult, text)
	case jsonl.Note:
		if l.Kind == jsonl.NoteCommand {
			// Its columns line up with blanks; a tab would show escaped.
			m.add(entryOutput, strings.ReplaceAll(l.Text, "\t", "  "))
			return nil
		}
		m.flagged = m.flagged || l.Kind == jsonl.NoteFlag
		m.add(entryNote, l.Text)
		if l.Kind == jsonl.NoteQuestion && l.ID != "" && !m.toldQuestions &&
			m.hello != nil && slices.Contains(m.hello.Accepts, jsonl.TypeQuestions) {
			m.toldQuestions = true
			m.add(entryInfo, "(/questions answer ID answers a waiting question here; /questions lists them)")
		}
	case jsonl.Card:
		m.closeStream()
		if len(l.Questions) == 0 { // nothing to show; its deadline ends it
			m.add(entryDiag, "wisp-tui: skipped a card with no questions")
			return nil
		}
		m.dialogs = append(m.dialogs, newDialog(l))
	case jsonl.Choice:
		m.closeStream()
		m.dialogs = append(m.dialogs, newDialog(l))
	case jsonl.Settled:
		m.settled(l)
	case jsonl.End:
		m.end(l)
	case jsonl.Error:
		m.add(entryError, l.Error)
	case jsonl.Bye:
		m.closeStream()
	}
	return nil
}

// stream adds streamed text to the reply or the thinking being shown.
func (m *model) stream(k entryKind, s string) {
	if m.open >= 0 && m.entries[m.open].kind == k {
		e := &m.entries[m.open]
		e.text += s
		e.drawn = ""
		return
	}
	m.add(k, s)
	m.open = len(m.entries) - 1
}

func (m *model) closeStream() { m.open = -1 }

// end closes a turn: the reply if it did not stream, the flags, or why the
// turn stopped.
func (m *model) end(l jsonl.End) {
	m.closeStream()
	if l.Reply != "" && strings.TrimSpace(m.stepOut) != strings.TrimSpace(l.Reply) {
		m.add(entryReply, l.Reply)
	}
	if !m.flagged { // each flag came as a note too, from a wisp that sends them
		for _, f := range l.Flags {
			m.add(entryNote, f)
		}
	}
	switch {
	case l.Error != "" && l.Stopped:
		m.add(entryInfo, "(turn stopped: "+l.Error+")")
	case l.Error != "":
		m.add(entryError, l.Error)
	case l.Stopped:
		m.add(entryInfo, "(turn stopped)")
	}
	m.running, m.interrupted, m.cancelSent, m.stepOut, m.flagged = false, false, false, "", false
}

// settled closes the dialog of a choice that ended, if it is still open:
// wisp ended it (a deadline, the turn stopping), not the person here.
func (m *model) settled(l jsonl.Settled) {
	for i, d := range m.dialogs {
		if d.id != l.ID {
			continue
		}
		m.dialogs = append(m.dialogs[:i], m.dialogs[i+1:]...)
		what := "the question"
		if d.kind == jsonl.KindApproval {
			what = "the approval request"
		}
		m.add(entryInfo, fmt.Sprintf("(%s closed: %s)", what, outcomeWords(l.Outcome)))
		if d.field.mask && !d.field.empty() {
			// The person is typing a secret: what they type next is the
			// rest of it, and must not land in the message box.
			d.field.reset()
			m.dropping = true
			m.add(entryInfo, dropNote)
		}
		return
	}
}

// dropNote says why the keys typed after a secret question closed go
// nowhere.
const dropNote = "(the secret question closed; what you typed was dropped, and so is what you type until you press Enter or Esc)"

// outcomeWords says a settled outcome for the person.
func outcomeWords(o string) string {
	switch o {
	case jsonl.OutcomeTimedOut:
		return "no answer in time"
	case jsonl.OutcomeCancelled:
		return "the turn ended"
	case jsonl.OutcomeDeclined:
		return "declined"
	case jsonl.OutcomeAnswered, jsonl.OutcomeChose, jsonl.OutcomeChoseNone:
		return "answered elsewhere"
	case jsonl.OutcomeApproved:
		return "approved elsewhere"
	case jsonl.OutcomeRefused:
		return "refused"
	case jsonl.OutcomeClosed:
		return "wisp's input closed, so no person can answer it"
	}
	return o
}

// key handles a key press.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	if k.String() != "ctrl+c" {
		m.quitArmed = false
	}
	switch k.String() {
	case "ctrl+c":
		return m.interrupt()
	case "pgup":
		m.vp.PageUp()
		m.follow = m.vp.AtBottom()
		return nil
	case "pgdown":
		m.vp.PageDown()
		m.follow = m.vp.AtBottom()
		return nil
	}
	if m.leaving || m.ended {
		return nil
	}
	if m.dropping {
		// The rest of a secret whose question closed: drop it, and the
		// Enter or Esc that ends it.
		if s := k.String(); s == "enter" || s == "esc" {
			m.dropping = false
		}
		return nil
	}
	if d := m.dialog(); d != nil {
		m.dialogKey(d, k)
		return nil
	}
	switch k.String() {
	case "enter":
		m.submit()
	case "ctrl+d":
		if m.input.empty() {
			return m.leave()
		}
		m.input.key(k)
	case "up":
		m.vp.ScrollUp(1)
		m.follow = m.vp.AtBottom()
	case "down":
		m.vp.ScrollDown(1)
		m.follow = m.vp.AtBottom()
	case "esc":
	default:
		m.input.key(k)
	}
	return nil
}

// interrupt is Ctrl-C: it declines the open dialog; a second one in the
// same turn, or one with no dialog open, stops the turn. With no turn
// running it clears the message box; at an empty box it says how to
// leave, and leaves when pressed again. (So Ctrl-C pressed twice to stop
// a turn that has just ended does not end the session.)
func (m *model) interrupt() tea.Cmd {
	if m.leaving || m.ended {
		return nil
	}
	if d := m.dialog(); d != nil && !(m.running && m.interrupted) {
		m.decline(d)
		if m.running {
			m.interrupted = true
			m.add(entryInfo, "(Ctrl-C again stops the turn)")
		}
		return nil
	}
	if m.running {
		if !m.cancelSent {
			m.cancelSent = true
			m.send(jsonl.Cancel{})
			m.add(entryInfo, "(stopping the turn)")
		}
		return nil
	}
	if !m.input.empty() {
		m.input.reset()
		return nil
	}
	if !m.quitArmed {
		m.quitArmed = true
		m.add(entryInfo, "(no turn is running: press Ctrl-C again, or Ctrl-D, to leave)")
		return nil
	}
	return m.leave()
}

// leave closes wisp's input: wisp settles what waits (no person can
// answer it), ends the turn, says bye and exits, and wisp-tui quits when
// it has.
func (m *model) leave() tea.Cmd {
	if m.leaving {
		return nil
	}
	m.leaving = true
	if err := m.eng.CloseInput(); err != nil {
		m.add(entryError, "wisp-tui: "+err.Error())
	}
	return tea.Tick(leaveWait, func(time.Time) tea.Msg { return giveUpMsg{} })
}

// submit sends the message box as the next message, or runs the
// /questions, /models or /config command it holds.
func (m *model) submit() {
	text := strings.TrimSpace(m.input.value())
	if text == "" {
		return
	}
	f := strings.Fields(text)
	sent, command := false, true
	switch f[0] {
	case "/questions":
		sent = m.questions(f[1:])
	case "/models", "/config":
		sent = m.command(f)
	default:
		command = false
	}
	if command {
		if sent {
			m.input.reset()
		}
		return
	}
	if m.running {
		m.add(entryInfo, "(a turn is running: wait for its end, or press Ctrl-C to stop it; your message is kept)")
		return
	}
	if m.send(jsonl.Message{Text: text}) {
		m.input.reset()
	}
}

// questions runs /questions [list] | answer ID | decline ID, the
// questions wisp mcp parked for the person, as a plain wisp chat does; it
// runs while a turn runs too. It reports whether the command went to wisp.
func (m *model) questions(args []string) bool {
	l, err := jsonl.QuestionsLine(args)
	if err != nil {
		m.add(entryError, "wisp-tui: "+err.Error())
		return false
	}
	if m.hello == nil || !slices.Contains(m.hello.Accepts, jsonl.TypeQuestions) {
		m.add(entryError, "wisp-tui: this wisp does not answer parked questions through wisp-tui; run wisp questions in a terminal")
		return false
	}
	m.add(entryInfo, strings.TrimSpace("/questions "+strings.Join(args, " ")))
	return m.send(l)
}

// command runs /models or /config, f the words typed: wisp runs them as
// a plain chat does, and answers with a note of kind command. They run
// while a turn runs too. It reports whether the command went to wisp.
func (m *model) command(f []string) bool {
	name := strings.TrimPrefix(f[0], "/")
	if m.hello == nil || !slices.Contains(m.hello.Accepts, jsonl.TypeCommand) {
		m.add(entryError, fmt.Sprintf("wisp-tui: this wisp does not run %s through wisp-tui; run wisp %s in a terminal", f[0], name))
		return false
	}
	m.add(entryInfo, strings.Join(f, " "))
	return m.send(jsonl.Command{Name: name, Args: f[1:]})
}

func (m *model) paste(s string) {
	if m.dropping {
		return // the rest of a secret whose question closed
	}
	if d := m.dialog(); d != nil {
		if f := d.textField(); f != nil {
			f.insert(s)
		}
		return
	}
	m.input.insert(s)
}

// send writes one line to wisp and reports whether it went.
func (m *model) send(l jsonl.Line) bool {
	if err := m.eng.Send(l); err != nil {
		m.add(entryError, "wisp-tui: "+err.Error())
		return false
	}
	return true
}

// dialog returns the dialog shown, starting its guard the first time.
func (m *model) dialog() *dialog {
	if len(m.dialogs) == 0 {
		return nil
	}
	d := m.dialogs[0]
	if d.shown.IsZero() {
		d.shown = m.now()
	}
	return d
}

// closeDialog removes d, which the person answered.
func (m *model) closeDialog(d *dialog) {
	for i, x := range m.dialogs {
		if x == d {
			m.dialogs = append(m.dialogs[:i], m.dialogs[i+1:]...)
			break
		}
	}
	m.dialog() // the next one's guard starts now
}

// clip shortens s to about n bytes for a diagnostic, on a character
// boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if i > n {
			return s[:i] + "…"
		}
	}
	return s
}
