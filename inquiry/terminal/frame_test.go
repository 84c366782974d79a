package terminal_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// forged is a question that copies wisp's approval header, spaced so that
// a terminal 60 columns wide would wrap its second part to the left edge.
var forged = terminal.ApprovalLabel + "   drop the table sessions_old" + strings.Repeat(" ", 40) + terminal.ApprovalLabel + " · the model's reason: it is unused"

// No row of the model's words starts at the left edge, where wisp's own
// lines do: not a question's text or options, not a card's header,
// question, labels or descriptions, not an approval request's words, and
// not where a long line would wrap on the terminal. The only row that
// starts with wisp's approval header is the header of a real approval.
func TestModelWordsStandIn(t *testing.T) {
	const cols = 60
	opts := &terminal.Options{Width: func() int { return cols }}
	tests := []struct {
		name    string
		show    func(f *terminal.Face) error
		headers int // rows that are wisp's approval header
	}{
		{"a question", func(f *terminal.Face) error {
			_, err := f.Ask(context.Background(), wisp.Question{Text: forged, Options: []string{"y", terminal.ApprovalLabel}})
			return err
		}, 0},
		{"a card", func(f *terminal.Face) error {
			_, err := f.AskCard(context.Background(), wisp.Card{Questions: []wisp.CardQuestion{{
				Header: terminal.ApprovalLabel, Text: forged,
				Options: []wisp.Option{{Label: terminal.ApprovalLabel, Description: forged}, {Label: "n"}},
			}}})
			return err
		}, 0},
		{"an approval", func(f *terminal.Face) error {
			_, err := f.Approve(context.Background(), wisp.ApprovalRequest{Command: forged, Text: forged + "\n" + terminal.ApprovalLabel, Scopes: []wisp.Scope{wisp.ScopeOnce}})
			return err
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := &screen{}
			if err := tc.show(terminal.NewWithOptions(terminal.NewInput(strings.NewReader("\n")), out, opts)); err != nil {
				t.Fatal(err)
			}
			headers := 0
			for _, row := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(row, terminal.ApprovalLabel) {
					headers++
				}
				if n := utf8.RuneCountInString(row); n > cols && !strings.HasPrefix(row, "type ") && !strings.HasPrefix(row, "allow?") {
					t.Errorf("a row is %d columns wide, more than the terminal's %d: %q", n, cols, row)
				}
			}
			if headers != tc.headers {
				t.Errorf("%d rows start with %q, want %d:\n%s", headers, terminal.ApprovalLabel, tc.headers, out)
			}
			if !strings.Contains(out.String(), "\n"+terminal.Indent+terminal.ApprovalLabel) {
				t.Errorf("the model's copy of the header is not shown indented:\n%s", out)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		name, lead, text string
		width            int
		want             string
	}{
		{"no wrapping", "", "Which config did you mean?", 0, "  Which config did you mean?\n"},
		{"fits", "1 ", "staging", 20, "  1 staging\n"},
		{"wrapped at a blank", "", "one two three four", 12, "  one two\n  three four\n"},
		{"an option wrapped under its text", "2 ", "one two three", 12, "  2 one two\n    three\n"},
		{"no blank: cut", "", "abcdefghijklmnop", 12, "  abcdefghij\n  klmnop\n"},
		{"blanks that would wrap to the edge", "", "x" + strings.Repeat(" ", 12) + "! wisp", 12, "  x        \n     ! wisp\n"},
		{"wide characters take two columns", "", "設定ファイル", 10, "  設定ファ\n  イル\n"},
		{"escaped first", "", "a\x1b[2Jb", 0, "  a\\e[2Jb\n"},
		{"too narrow a terminal still wraps", "", strings.Repeat("x", 20), 3, "  xxxxxxxx\n  xxxxxxxx\n  xxxx\n"},
	}
	for _, tc := range tests {
		if got := terminal.Quote(tc.lead, tc.text, tc.width); got != tc.want {
			t.Errorf("%s: Quote(%q, %q, %d) = %q, want %q", tc.name, tc.lead, tc.text, tc.width, got, tc.want)
		}
	}
}

// Whatever the model writes, every row Quote gives stands in by Indent and
// fits the width, and the rows hold the escaped text, cut only at blanks
// or between characters.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "Which config did you mean?", forged, "設定ファイル\u0301", "a\x1b[2J\u202eb\r\n", strings.Repeat(" ", 100) + "x"} {
		f.Add("1 ", s, 30)
	}
	f.Fuzz(func(t *testing.T, lead, text string, width int) {
		if escape.Terminal(lead) != lead || strings.ContainsAny(lead, "\n") || width > 1000 || width < 0 {
			t.Skip()
		}
		width = min(width, 1000)
		got := terminal.Quote(lead, text, width)
		if !strings.HasSuffix(got, "\n") {
			t.Fatalf("Quote(%q, %q, %d) = %q: no newline at the end", lead, text, width, got)
		}
		rows := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		var joined strings.Builder
		for i, row := range rows {
			if !strings.HasPrefix(row, terminal.Indent) {
				t.Fatalf("row %d of Quote(%q, %q, %d) starts at the edge: %q", i, lead, text, width, row)
			}
			body := strings.TrimPrefix(row, terminal.Indent)
			if i == 0 {
				body = strings.TrimPrefix(body, lead)
			} else {
				body = body[len(strings.Repeat(" ", utf8.RuneCountInString(lead))):]
			}
			joined.WriteString(body)
		}
		esc := escape.Terminal(text)
		if diff := cmp.Diff(strings.ReplaceAll(esc, " ", ""), strings.ReplaceAll(joined.String(), " ", "")); diff != "" {
			t.Fatalf("Quote(%q, %q, %d) lost or added text (-want +got):\n%s", lead, text, width, diff)
		}
	})
}
