package terminal_test

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// A turn with no person takes its prompt from the argument, or from
// standard input for "-", without the blanks around it; an empty prompt,
// or one longer than a chat takes as one message, is refused with a line
// that says how to mend it.
func TestReadPrompt(t *testing.T) {
	tests := []struct {
		name, arg, stdin string
		want             string
		wantErr          string // "": none
	}{
		{name: "argument", arg: "  Summarise the log.\n", stdin: "not read", want: "Summarise the log."},
		{name: "standard input", arg: "-", stdin: "\nWhat changed?\n\n", want: "What changed?"},
		{name: "the most a turn takes", arg: strings.Repeat("x", terminal.MaxLine), want: strings.Repeat("x", terminal.MaxLine)},
		{name: "empty", arg: " \n", wantErr: "the prompt is empty; pass the text, or - and the text on standard input"},
		{name: "empty input", arg: "-", stdin: "", wantErr: "the prompt is empty; pass the text, or - and the text on standard input"},
		{name: "too long", arg: strings.Repeat("x", terminal.MaxLine+1), wantErr: "the prompt is longer than 1048576 bytes, the most one turn takes; shorten it"},
		{name: "too long on input", arg: "-", stdin: strings.Repeat("x", terminal.MaxLine+10), wantErr: "the prompt is longer than 1048576 bytes, the most one turn takes; shorten it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := terminal.ReadPrompt(tc.arg, strings.NewReader(tc.stdin))
			var bad *terminal.PromptError
			switch {
			case tc.wantErr == "" && (err != nil || got != tc.want):
				t.Errorf("ReadPrompt(%.20q) = %.20q, %v; want %.20q", tc.arg, got, err, tc.want)
			case tc.wantErr != "" && (!errors.As(err, &bad) || err.Error() != tc.wantErr):
				t.Errorf("ReadPrompt(%.20q) = %v, want a *PromptError %q", tc.arg, err, tc.wantErr)
			}
		})
	}
	// Standard input that cannot be read is no mistake of the person's.
	_, err := terminal.ReadPrompt("-", iotest.ErrReader(errors.New("broken pipe")))
	var bad *terminal.PromptError
	if err == nil || errors.As(err, &bad) || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("ReadPrompt(-) from a broken input = %v, want the read's error", err)
	}
}
