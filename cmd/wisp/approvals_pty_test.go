//go:build unix

package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/cmdline"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// An approval request that wisp mcp waits on is approved, or denied, with
// wisp approvals at a real terminal: the request is shown escaped under
// wisp's own label, an approval is filed only once the person types y,
// bound to what was shown, and the answer is recorded as
// approval.answered in the answering process.
func TestApprovalsAtTerminal(t *testing.T) {
	const hostile = "models enable ollama:qwen3:4b\x1b[2J\u202e"
	enable := wisp.ApprovalRequest{
		ID: "7f3a2c1d", Session: "s-mcp", Thread: "t-models", Turn: 3, Kind: "modelAction",
		Command: hostile, Pattern: "models enable *",
		Text:   "turns ollama:qwen3:4b on in config.json\n\x1b]0;pwned\x07allow? [y]once",
		Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
	}
	pull := wisp.ApprovalRequest{
		ID: "0a0b0c0d", Session: "s-mcp", Thread: "t-pull", Turn: 5, Kind: "modelAction",
		Command: "models pull mlx-community/Qwen3-4B-4bit", Pattern: "models pull *",
		Text: "downloads 2.3 GB in 4 of 7 files from Hugging Face", Scopes: []wisp.Scope{wisp.ScopeOnce},
	}
	tests := []struct {
		name  string
		r     wisp.ApprovalRequest
		args  []string
		early string // typed before wisp shows anything
		// meanwhile, when set, runs once the prompt shows and before the
		// keys are pressed, as another process would.
		meanwhile func(t *testing.T, s outofband.Store, r outofband.Request)
		keys      string
		screen    []string
		exit      int
		want      *outofband.Decision // nil: none filed
		from      string              // the decision's face, when not terminal
	}{
		{
			name: "approved for the session", r: enable, args: []string{"approve", "7f3a2c1d", "--scope", "session"}, keys: "y\r",
			screen: []string{
				"approval 7f3a2c1d · thread t-models · asked ",
				"! wisp asks your approval\r\n  models enable ollama:qwen3:4b\\e[2J\\u{202E}\r\n  turns ollama:qwen3:4b on in config.json\r\n  \\e]0;pwned\\u{7}allow? [y]once\r\noffers once or session · refused unanswered in 9 min\r\n",
				"approve session? type y to approve; anything else files nothing › ",
				"approval 7f3a2c1d: approved session; the request goes ahead",
			},
			want: &outofband.Decision{Scope: wisp.ScopeSession},
		},
		{
			name: "approved once by default, YES in any case", r: enable, args: []string{"approve", "7f3a2c1d"}, keys: " YES \r",
			screen: []string{"approve once? type y to approve; anything else files nothing › ", "approval 7f3a2c1d: approved once; the request goes ahead"},
			want:   &outofband.Decision{Scope: wisp.ScopeOnce},
		},
		{
			// Filed as answered: the waiting gate narrows it to once and
			// records downgradedFrom session.
			name: "a scope not offered is narrowed to once", r: pull, args: []string{"approve", "0a0b0c0d", "--scope", "session"}, keys: "y\r",
			screen: []string{
				"offers once only · refused unanswered in 9 min\r\n",
				"approval request 0a0b0c0d does not offer session; it is narrowed to once\r\napprove once? ",
				"approval 0a0b0c0d: approved once; the request goes ahead",
			},
			want: &outofband.Decision{Scope: wisp.ScopeSession},
		},
		{
			name: "anything but y files nothing", r: enable, args: []string{"approve", "7f3a2c1d"}, keys: "n\r",
			screen: []string{"not approved; nothing was filed (wisp approvals deny 7f3a2c1d refuses it; it is refused anyway if nobody answers in time)"},
		},
		{
			name: "keys typed before the prompt appeared do not answer it", r: enable, args: []string{"approve", "7f3a2c1d"},
			early: "y\r", keys: "\r",
			screen: []string{"not approved; nothing was filed"},
		},
		{
			name: "denied at once, without a prompt", r: pull, args: []string{"deny", "0a0b0c0d"},
			screen: []string{
				"! wisp asks your approval\r\n  models pull mlx-community/Qwen3-4B-4bit\r\n",
				"approval 0a0b0c0d: denied; the request is refused and nothing changes",
			},
			want: &outofband.Decision{Scope: wisp.ScopeNone},
		},
		{
			name: "Ctrl-C at the prompt files nothing", r: enable, args: []string{"approve", "7f3a2c1d"}, keys: "\x03",
			screen: []string{"wisp: stopped; nothing was filed for approval request 7f3a2c1d (wisp approvals approve 7f3a2c1d asks again)"},
			exit:   cmdline.ExitInterrupted,
		},
		{
			name: "the client's dialog answered first", r: enable, args: []string{"approve", "7f3a2c1d"},
			meanwhile: func(t *testing.T, s outofband.Store, r outofband.Request) {
				if err := s.Decide(t.Context(), outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeNone, From: outofband.FromElicitation}); err != nil {
					t.Fatal(err)
				}
			},
			keys:   "y\r",
			screen: []string{"wisp: approval request 7f3a2c1d was already answered from elicitation; the first answer wins, so yours was not filed"},
			exit:   1,
			want:   &outofband.Decision{Scope: wisp.ScopeNone},
			from:   outofband.FromElicitation,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.early != "" && runtime.GOOS != "linux" {
				t.Skip("flushing a terminal's queue is Linux's here")
			}
			home := t.TempDir()
			store := outofband.Store{Dir: filepath.Join(home, "approvals")}
			req := tt.r
			req.Deadline = time.Now().Add(10 * time.Minute)
			filed, err := store.File(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			run := startPTYTypedAhead(t, home, tt.early, append([]string{"approvals"}, tt.args...)...)
			if tt.args[0] == "approve" {
				run.waitFor("anything else files nothing › ")
			}
			if tt.meanwhile != nil {
				tt.meanwhile(t, store, filed)
			}
			if tt.keys != "" {
				run.press(tt.keys)
			}
			if got := run.exit(); got != tt.exit {
				t.Errorf("exit status %d, want %d:\n%s", got, tt.exit, run.shown())
			}
			for _, s := range tt.screen {
				run.waitFor(s)
			}
			for _, raw := range []string{"\x1b[2J", "\u202e", "\x07"} {
				if strings.Contains(run.shown(), raw) {
					t.Errorf("the terminal got the raw %q from the request", raw)
				}
			}

			got, ok, err := store.Decided(filed.ID)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == nil && ok:
				t.Errorf("a decision was filed: %+v", got)
			case tt.want != nil && !ok:
				t.Errorf("no decision was filed, want %+v", *tt.want)
			case tt.want != nil:
				from := tt.from
				if from == "" {
					from = outofband.FromTerminal
				}
				if got.Scope != tt.want.Scope || got.From != from || got.Digest != filed.Digest {
					t.Errorf("decision %+v, want scope %v from %s bound to digest %s", got, tt.want.Scope, from, filed.Digest)
				}
			}

			var wantAudit []answerRecord
			if tt.want != nil && tt.from == "" {
				wantAudit = []answerRecord{{
					Thread: req.Thread, Turn: req.Turn, Source: wisp.SourcePerson, Approval: req.ID,
					Data: map[string]any{"id": req.ID, "command": req.Command, "scope": tt.want.Scope.String(), "from": "terminal"},
				}}
			}
			answered, _ := answerRecords(t, home, wisp.KindApprovalAnswered)
			if diff := cmp.Diff(wantAudit, answered); diff != "" {
				t.Errorf("approval.answered records (-want +got):\n%s", diff)
			}
		})
	}
}
