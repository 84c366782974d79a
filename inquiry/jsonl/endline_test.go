package jsonl

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
)

// TestEndLine: the end line of a turn that never started has no turn
// number (never a turn 0), and is never a success.
func TestEndLine(t *testing.T) {
	tests := []struct {
		name  string
		reply wisp.Reply
		err   error
		want  string
	}{
		{"a reply", wisp.Reply{Thread: "t-1", Turn: 3, Text: "Done.", Flags: []string{"f"}}, nil,
			`{"type":"end","thread":"t-1","turn":3,"reply":"Done.","flags":["f"]}`},
		{"stopped", wisp.Reply{Thread: "t-1", Turn: 3}, fmt.Errorf("asking: %w", wisp.ErrInterrupted),
			`{"type":"end","thread":"t-1","turn":3,"error":"the person stopped the turn","stopped":true}`},
		{"stopped before it started", wisp.Reply{}, wisp.ErrInterrupted,
			`{"type":"end","thread":"t-1","error":"the person stopped the turn","stopped":true}`},
		{"failed before it started", wisp.Reply{}, errors.New("loading the thread: disk\nfull"),
			`{"type":"end","thread":"t-1","error":"loading the thread: disk full"}`},
		{"no turn and no error", wisp.Reply{Text: "odd"}, nil,
			`{"type":"end","thread":"t-1","error":"the turn did not start"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Encode(endLine("t-1", tt.reply, tt.err))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(string(b), "\n"); got != tt.want {
				t.Errorf("end line\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
