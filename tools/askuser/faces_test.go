package askuser_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
	"github.com/wisp-agent/wisp/inquiry/unattended"
	"github.com/wisp-agent/wisp/tools/askuser"
)

// card is a call with a choice whose second option is recommended, a
// multi-select, and a free-text question.
const card = `{"questions":[
  {"question":"Which environment?","header":"Env","options":[{"label":"staging"},{"label":"production","recommended":true}]},
  {"question":"Which checks?","multiSelect":true,"options":[{"label":"unit"},{"label":"lint"}]},
  {"question":"Anything else?"}],
 "timeout_seconds":10}`

// The same call through the real faces: the plain terminal with a person
// who answers, one who answers part and then says nothing until the
// deadline, and the unattended face. Every line says who chose.
func TestRealFaces(t *testing.T) {
	tests := []struct {
		name  string
		face  func(in io.Reader) wisp.Inquirer
		input string // "" with silent: nothing more ever arrives
		quiet bool
		want  []string
	}{
		{
			name:  "a person answers at the terminal",
			face:  func(in io.Reader) wisp.Inquirer { return terminal.New(terminal.NewInput(in), io.Discard) },
			input: "1\n1 2\nkeep the logs\n",
			want: []string{
				"1 (Env): chose: staging (from the person)",
				"2: chose: unit, lint (from the person)",
				"3: answer: keep the logs (from the person)",
			},
		},
		{
			name:  "the person answers one, then the deadline passes",
			face:  func(in io.Reader) wisp.Inquirer { return terminal.New(terminal.NewInput(in), io.Discard) },
			input: "1\n",
			quiet: true,
			want: []string{
				"1 (Env): chose: staging (from the person)",
				"2: fallback: unit (the first option; no answer within 10 s, so the person did not choose it)",
				"3: no answer within 10 s; this question has no default. Do not guess what the person would say",
			},
		},
		{
			name: "nobody is there",
			face: func(io.Reader) wisp.Inquirer { return unattended.Face{} },
			want: []string{
				"1 (Env): fallback: production (the recommended option; no person can answer here, so the person did not choose it)",
				"2: fallback: unit (the first option; no person can answer here, so the person did not choose it)",
				"3: no person can answer here; this question has no default. Do not guess what the person would say",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pr, pw := io.Pipe()
				defer pw.Close()
				go func() {
					_, _ = io.WriteString(pw, tc.input)
					if !tc.quiet {
						pw.Close()
					}
				}()
				set := newSet(t, tc.face(pr), &vault{})
				r, err := set.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t", Turn: 1, Arguments: json.RawMessage(card)})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, strings.Split(r.Content, "\n")); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			})
		})
	}
}
