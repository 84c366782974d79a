package terminal_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/terminal"
)

var (
	onceOnly    = []wisp.Scope{wisp.ScopeOnce}
	onceSession = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}
	everyScope  = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}
)

func approval(scopes []wisp.Scope) wisp.ApprovalRequest {
	return wisp.ApprovalRequest{
		ID: "id1", Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
		Text: "turns ollama:qwen3:4b on in config.json", Scopes: scopes,
	}
}

func TestApproveKeys(t *testing.T) {
	refused := wisp.Decision{Provenance: wisp.FromPerson}
	once := wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}
	session := wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}
	notOffered := wisp.Decision{Reason: terminal.ReasonNotOffered, Provenance: wisp.FromPerson}
	noPerson := wisp.Decision{Reason: terminal.ReasonNoPerson, Provenance: wisp.FromUnattended}
	tests := []struct {
		name   string
		scopes []wisp.Scope
		input  string
		want   wisp.Decision
	}{
		{"y", onceOnly, "y\n", once},
		{"Y", onceOnly, "Y\n", once},
		{"once", onceOnly, "once\n", once},
		{"ONCE with spaces and CRLF", onceOnly, "  ONCE \r\n", once},
		{"n", onceOnly, "n\n", refused},
		{"no", onceOnly, "No\n", refused},
		{"Enter alone refuses", onceOnly, "\n", refused},
		{"blank refuses", onceOnly, "   \n", refused},
		{"s is not offered for once, then y", onceOnly, "s\ny\n", once},
		{"session is not offered for once, twice", onceOnly, "session\ns\n", notOffered},
		{"yes is not a key", onceOnly, "yes\nn\n", refused},
		{"an unknown key, then y", onceOnly, "x\ny\n", once},
		{"an unknown key, then another", onceOnly, "x\nz\ny\n", notOffered},
		{"end of input: no person", onceOnly, "", noPerson},
		{"end of input after an unknown key", onceOnly, "x\n", noPerson},

		{"y with session offered", onceSession, "y\n", once},
		{"s", onceSession, "s\n", session},
		{"S", onceSession, "S\n", session},
		{"session", onceSession, "Session\n", session},
		{"n with session offered", onceSession, "n\n", refused},
		{"Enter with session offered", onceSession, "\n", refused},
		{"p is not offered", onceSession, "p\ns\n", session},
		{"always is not offered, twice", onceSession, "always\na\n", notOffered},

		{"p when offered", everyScope, "p\n", wisp.Decision{Scope: wisp.ScopeProject, Provenance: wisp.FromPerson}},
		{"always when offered", everyScope, "ALWAYS\n", wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromPerson}},
		{"nothing offered but no", nil, "y\nn\n", refused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := terminal.New(terminal.NewInput(strings.NewReader(tc.input)), &screen{})
			got, err := f.Approve(context.Background(), approval(tc.scopes))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Approve with scopes %v and input %q (-want +got):\n%s", tc.scopes, tc.input, diff)
			}
		})
	}
}

func TestApproveScreen(t *testing.T) {
	const head = "! wisp asks your approval\n  models enable ollama:qwen3:4b\n  turns ollama:qwen3:4b on in config.json\n"
	tests := []struct {
		name   string
		scopes []wisp.Scope
		input  string
		want   string
	}{
		{"a pull offers once and no", onceOnly, "n\n", head + "allow? [y]once [n]o › "},
		{"once and session", onceSession, "n\n", head + "allow? [y]once [s]ession [n]o › "},
		{"every scope, in order", []wisp.Scope{wisp.ScopeAlways, wisp.ScopeOnce, wisp.ScopeProject, wisp.ScopeSession}, "n\n",
			head + "allow? [y]once [s]ession [p]roject [a]lways [n]o › "},
		{"asks once more, naming the keys", onceSession, "x\nn\n",
			head + "allow? [y]once [s]ession [n]o › type y, s or n, or press Enter to refuse › "},
		{"then refuses", onceOnly, "x\nx\n",
			head + "allow? [y]once [n]o › type y or n, or press Enter to refuse › (not an answer offered; the request was refused)\n"},
		{"end of input", onceOnly, "",
			head + "allow? [y]once [n]o › \n(the input ended; no person can approve)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := &screen{}
			if _, err := terminal.New(terminal.NewInput(strings.NewReader(tc.input)), out).Approve(context.Background(), approval(tc.scopes)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.String()); diff != "" {
				t.Errorf("screen (-want +got):\n%s", diff)
			}
			if s := out.String(); strings.Contains(s, "the model asks") || strings.Contains(s, terminal.Label) {
				t.Errorf("the approval prompt reads like a question:\n%s", s)
			}
		})
	}
}

// The model chooses part of the command and can reach the text; neither
// may move the cursor, clear the screen or forge a line of the prompt.
func TestApproveEscapes(t *testing.T) {
	r := approval(onceOnly)
	r.Command = "models enable evil\r! wisp asks your approval\x1b[2J"
	r.Text = "publisher: \x1b]0;title\x07trusted\r\nallow? [y]once [s]ession [n]o › \u202eok\n"
	r.Deadline = time.Date(2026, 11, 30, 10, 5, 0, 0, time.Local)
	out := &screen{}
	if _, err := terminal.New(terminal.NewInput(strings.NewReader("n\n")), out).Approve(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	want := "! wisp asks your approval\n" +
		"  models enable evil\\r! wisp asks your approval\\e[2J\n" +
		"  publisher: \\e]0;title\\u{7}trusted\n" +
		"  allow? [y]once [s]ession [n]o › \\u{202E}ok\n" +
		"(the request is refused unanswered at 10:05:00)\n" +
		"allow? [y]once [n]o › "
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

// Keys typed before the prompt appeared (at a prompt the model's text
// faked, say) must not answer it: the FlushTypeAhead hook drops them from
// the terminal, where they wait, since the Input reads nothing ahead.
func TestApproveTypeAhead(t *testing.T) {
	tests := []struct {
		name    string
		hook    bool
		want    wisp.Decision
		flushed []string
	}{
		{"the stale y is dropped; the fresh n refuses", true, wisp.Decision{Provenance: wisp.FromPerson}, []string{"y"}},
		// Without the hook the stale key answers: the test above rests on it.
		{"without the hook the stale y answers", false, wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tty := newFakeTTY()
				in := terminal.NewInput(tty)
				var opts *terminal.Options
				if tc.hook {
					opts = &terminal.Options{FlushTypeAhead: func() {
						tty.flush()
						in.Discard()
					}}
				}
				f := terminal.NewWithOptions(in, &screen{}, opts)

				tty.typeLines("y") // typed before the prompt

				type result struct {
					d   wisp.Decision
					err error
				}
				done := make(chan result, 1)
				go func() {
					d, err := f.Approve(context.Background(), approval(onceSession))
					done <- result{d, err}
				}()
				synctest.Wait() // the prompt is up
				select {
				case res := <-done:
					if diff := cmp.Diff(tc.want, res.d); diff != "" || res.err != nil {
						t.Errorf("Approve = %v (-want +got):\n%s", res.err, diff)
					}
				default:
					tty.typeLines("n") // typed after the prompt
					res := <-done
					if diff := cmp.Diff(tc.want, res.d); diff != "" || res.err != nil {
						t.Errorf("Approve = %v (-want +got):\n%s", res.err, diff)
					}
				}
				if diff := cmp.Diff(tc.flushed, tty.flushed); diff != "" {
					t.Errorf("flushed from the terminal (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// Discard drops what the Input read and nobody took: the rest of a chunk
// read from a pipe or a file.
func TestDiscard(t *testing.T) {
	in := terminal.NewInput(strings.NewReader("first\nstale\nstale too"))
	if n := in.Discard(); n != 0 {
		t.Errorf("Discard with nothing read = %d, want 0", n)
	}
	if l, err := in.ReadLine(context.Background()); l != "first" || err != nil {
		t.Fatalf("ReadLine = %q, %v; want first", l, err)
	}
	if n := in.Discard(); n != 2 {
		t.Errorf("Discard = %d, want 2", n)
	}
	if l, err := in.ReadLine(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("ReadLine after Discard = %q, %v; want io.EOF", l, err)
	}
}

func TestApproveEnds(t *testing.T) {
	tests := []struct {
		name   string
		end    func(in *terminal.Input, cancel context.CancelFunc)
		ctx    func() (context.Context, context.CancelFunc)
		want   error
		screen string
	}{
		{
			name:   "Ctrl-C",
			end:    func(in *terminal.Input, _ context.CancelFunc) { in.Interrupt() },
			ctx:    func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			want:   wisp.ErrInterrupted,
			screen: "› \n",
		},
		{
			name:   "cancelled",
			end:    func(_ *terminal.Input, cancel context.CancelFunc) { cancel() },
			ctx:    func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			want:   context.Canceled,
			screen: "› \n",
		},
		{
			name: "deadline",
			end:  func(*terminal.Input, context.CancelFunc) { time.Sleep(5 * time.Minute) },
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 5*time.Minute)
			},
			want:   context.DeadlineExceeded,
			screen: "› \n(no answer in time; the request was refused)\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, w := io.Pipe()
				defer w.Close()
				in := terminal.NewInput(r)
				out := &screen{}
				ctx, cancel := tc.ctx()
				defer cancel()
				go func() {
					synctest.Wait() // the prompt is up and waiting
					tc.end(in, cancel)
				}()
				d, err := terminal.New(in, out).Approve(ctx, approval(onceSession))
				if !errors.Is(err, tc.want) {
					t.Errorf("Approve error = %v, want %v", err, tc.want)
				}
				if d.Approved() {
					t.Errorf("Approve = %+v: an approval from a read that ended", d)
				}
				if !strings.HasSuffix(out.String(), tc.screen) {
					t.Errorf("screen ends %q, want it to end %q", out.String(), tc.screen)
				}
				// A y typed after the end answers nothing: it is left for the
				// next reader.
				go io.WriteString(w, "y\n")
				if l, _ := in.ReadLine(context.Background()); l != "y" {
					t.Errorf("next line = %q, want y", l)
				}
			})
		})
	}
}

// Type-ahead is dropped after the request is shown and before its
// question line is: a person who answers as soon as allow? appears is
// never dropped, however slow wisp is to drop what came before.
func TestApproveDropsBeforeTheQuestion(t *testing.T) {
	tty := newFakeTTY()
	in := terminal.NewInput(tty)
	out := &screen{}
	var shown string
	f := terminal.NewWithOptions(in, out, &terminal.Options{FlushTypeAhead: func() {
		shown = out.String()
		tty.flush()
		in.Discard()
	}})
	tty.typeLines("n")
	go func() {
		for !strings.Contains(out.String(), "allow?") {
			runtime.Gosched()
		}
		tty.typeLines("y") // the person answers as soon as the question shows
	}()
	d, err := f.Approve(context.Background(), approval(onceSession))
	if err != nil || !d.Approved() {
		t.Errorf("Approve = %+v, %v; want approved once by the answer typed after the question", d, err)
	}
	if !strings.Contains(shown, "models enable ollama:qwen3:4b") || strings.Contains(shown, "allow?") {
		t.Errorf("the screen when type-ahead was dropped = %q; want the request shown and its question not yet", shown)
	}
}
