package main

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// editor is a one-line text field: the message box, and the fields of
// dialogs that take typed text. A masked editor never shows what was
// typed, only a dot for each character.
type editor struct {
	r    []rune
	pos  int
	mask bool
}

func (e *editor) value() string { return string(e.r) }

func (e *editor) empty() bool { return len(e.r) == 0 }

func (e *editor) reset() { e.r, e.pos = nil, 0 }

// insert puts s at the cursor. Line breaks become spaces, the field being
// one line; those that end s (as a pasted token's often does) go.
func (e *editor) insert(s string) {
	s = strings.TrimRight(s, "\r\n")
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	ins := []rune(s)
	e.r = append(e.r[:e.pos], append(ins, e.r[e.pos:]...)...)
	e.pos += len(ins)
}

// key applies an editing key and reports whether it was one.
func (e *editor) key(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "left", "ctrl+b":
		e.pos = max(0, e.pos-1)
	case "right", "ctrl+f":
		e.pos = min(len(e.r), e.pos+1)
	case "home", "ctrl+a":
		e.pos = 0
	case "end", "ctrl+e":
		e.pos = len(e.r)
	case "backspace", "ctrl+h":
		if e.pos > 0 {
			e.r = append(e.r[:e.pos-1], e.r[e.pos:]...)
			e.pos--
		}
	case "delete", "ctrl+d":
		if e.pos < len(e.r) {
			e.r = append(e.r[:e.pos], e.r[e.pos+1:]...)
		}
	case "ctrl+u":
		e.r = append([]rune(nil), e.r[e.pos:]...)
		e.pos = 0
	case "ctrl+k":
		e.r = e.r[:e.pos]
	case "ctrl+w", "alt+backspace":
		i := e.pos
		for i > 0 && unicode.IsSpace(e.r[i-1]) {
			i--
		}
		for i > 0 && !unicode.IsSpace(e.r[i-1]) {
			i--
		}
		e.r = append(e.r[:i], e.r[e.pos:]...)
		e.pos = i
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		e.insert(k.Text)
	}
	return true
}

// view draws the field in width cells, scrolled so the cursor shows.
// What was typed is escaped, so a pasted control character shows as what
// it is; a masked field shows a dot a character. cursor draws the cursor
// cell with st.
func (e *editor) view(width int, cursor bool, st styles) string {
	cells := make([]string, len(e.r))
	for i, r := range e.r {
		if e.mask {
			cells[i] = "•"
		} else {
			cells[i] = escape.Terminal(string(r))
		}
	}
	width = max(width, 4)
	// Scroll so the cursor's cell is the last shown when the text is long.
	start := 0
	used := 1 // the cursor cell past the end
	for i := e.pos - 1; i >= 0; i-- {
		w := cellWidth(cells[i])
		if used+w > width {
			start = i + 1
			break
		}
		used += w
	}
	var b strings.Builder
	shown := 0
	for i := start; i <= len(cells); i++ {
		c := " "
		if i < len(cells) {
			c = cells[i]
		}
		if shown+cellWidth(c) > width {
			break
		}
		if cursor && i == e.pos {
			b.WriteString(st.cursor.Render(c))
		} else if i < len(cells) {
			b.WriteString(c)
		}
		shown += cellWidth(c)
	}
	return b.String()
}
