package requestapproval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/outofband"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/requestapproval"
	"github.com/wisp-agent/wisp/wisptest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	action = "delete the S3 bucket acme-logs-staging"
	reason = "the person asked to clean up staging; it holds only test logs"
)

var when = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// fixture is the tool over a real gate whose person is approver.
type fixture struct {
	tool     wisp.Tool
	events   *wisptest.Recorder
	requests []wisp.ApprovalRequest
}

func newFixture(approver func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error), timeout time.Duration) *fixture {
	f := &fixture{events: &wisptest.Recorder{}}
	opts := &policy.GateOptions{
		Events:    f.events,
		Session:   "s-1",
		Threshold: policy.Dangerous, // request_approval asks whatever it says
		Timeout:   timeout,
		Now:       func() time.Time { return when },
		NewID:     func() string { return "a1b2c3d4" },
	}
	if approver != nil {
		opts.Approver = wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
			f.requests = append(f.requests, r)
			return approver(ctx, r)
		})
	}
	f.tool = requestapproval.New(policy.NewGate(opts))
	return f
}

func (f *fixture) call(t *testing.T, ctx context.Context, args string) (wisp.Result, error) {
	t.Helper()
	return f.tool.Call(ctx, wisp.Call{Name: requestapproval.Name, Arguments: json.RawMessage(args), Thread: "t-1", Turn: 2})
}

func answers(d wisp.Decision) func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
	return func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) { return d, nil }
}

func argsOf(action, reason string) string {
	b, _ := json.Marshal(map[string]string{"action": action, "reason": reason})
	return string(b)
}

func TestOutcomes(t *testing.T) {
	approvedLine := `approved (approval a1b2c3d4): you may take exactly this action, once: "` + action + `". Anything more or different needs a new request.`
	tests := []struct {
		name     string
		approver func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error)
		want     wisp.Result
		decided  wisp.ApprovalDecidedData
		source   string
	}{
		{
			name:     "approved once",
			approver: answers(wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}),
			want:     wisp.Result{Content: approvedLine},
			decided:  wisp.ApprovalDecidedData{ApprovalID: "a1b2c3d4", Decision: "approved", Scope: "once"},
			source:   wisp.SourcePerson,
		},
		{
			name:     "a session answer is narrowed to once",
			approver: answers(wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}),
			want:     wisp.Result{Content: approvedLine},
			decided:  wisp.ApprovalDecidedData{ApprovalID: "a1b2c3d4", Decision: "approved", Scope: "once", DowngradedFrom: "session"},
			source:   wisp.SourcePerson,
		},
		{
			name:     "an always answer is narrowed to once",
			approver: answers(wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromPerson}),
			want:     wisp.Result{Content: approvedLine},
			decided:  wisp.ApprovalDecidedData{ApprovalID: "a1b2c3d4", Decision: "approved", Scope: "once", DowngradedFrom: "always"},
			source:   wisp.SourcePerson,
		},
		{
			name:     "declined",
			approver: answers(wisp.Decision{Provenance: wisp.FromPerson}),
			want:     wisp.ErrorResult("error: not approved: the person declined"),
			decided:  wisp.ApprovalDecidedData{ApprovalID: "a1b2c3d4", Decision: "refused", Scope: "none", Reason: "the person declined"},
			source:   wisp.SourcePerson,
		},
		{
			name:     "no person at the face",
			approver: answers(wisp.Decision{Reason: policy.ReasonNoPerson, Provenance: wisp.FromUnattended}),
			want:     wisp.ErrorResult("error: not approved: no person can approve here"),
			decided:  wisp.ApprovalDecidedData{ApprovalID: "a1b2c3d4", Decision: "refused", Scope: "none", Reason: "no person can approve here"},
			source:   wisp.SourceWisp,
		},
		{
			name:     "no face at all",
			approver: nil,
			want:     wisp.ErrorResult("error: not approved: no person can approve here"),
			decided:  wisp.ApprovalDecidedData{ApprovalID: "a1b2c3d4", Decision: "refused", Scope: "none", Reason: "no person can approve here"},
			source:   wisp.SourceWisp,
		},
		{
			name: "the face failed",
			approver: func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
				return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, errors.New("the terminal went away")
			},
			want:    wisp.ErrorResult("error: not approved: the terminal went away"),
			decided: wisp.ApprovalDecidedData{ApprovalID: "a1b2c3d4", Decision: "refused", Scope: "none", Reason: "the terminal went away"},
			source:  wisp.SourceWisp,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(tt.approver, 0)
			got, err := f.call(t, context.Background(), argsOf(action, reason))
			if err != nil {
				t.Fatalf("Call = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{wisp.KindClassifierVerdict, wisp.KindApprovalRequested, wisp.KindApprovalDecided}, f.events.Kinds()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			decided := f.events.Events(wisp.KindApprovalDecided)[0]
			if diff := cmp.Diff(tt.decided, decided.Data); diff != "" {
				t.Errorf("approval.decided data (-want +got):\n%s", diff)
			}
			if decided.Source != tt.source || decided.Approval != "a1b2c3d4" || decided.Thread != "t-1" || decided.Turn != 2 {
				t.Errorf("approval.decided = %+v, want source %s, approval a1b2c3d4, thread t-1, turn 2", decided, tt.source)
			}
		})
	}
}

// TestRequest checks what the person is asked and what the audit holds.
func TestRequest(t *testing.T) {
	f := newFixture(answers(wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}), 5*time.Minute)
	if _, err := f.call(t, context.Background(), argsOf("  "+action+" ", "\n"+reason+"\n")); err != nil {
		t.Fatal(err)
	}
	want := []wisp.ApprovalRequest{{
		ID: "a1b2c3d4", Session: "s-1", Thread: "t-1", Turn: 2,
		Kind:     "requestApproval",
		Command:  action,
		Text:     "the model's reason: " + reason,
		Scopes:   []wisp.Scope{wisp.ScopeOnce},
		Deadline: when.Add(5 * time.Minute),
	}}
	if diff := cmp.Diff(want, f.requests); diff != "" {
		t.Errorf("requests the person saw (-want +got):\n%s", diff)
	}
	requested := f.events.Events(wisp.KindApprovalRequested)[0].Data
	wantRequested := wisp.ApprovalRequestedData{
		ID: "a1b2c3d4", Kind: "requestApproval", Command: action, Pattern: "",
		Text: "the model's reason: " + reason, Scopes: []string{"once"}, Rating: "dangerous",
		Deadline: "2026-09-01T12:05:00Z",
	}
	if diff := cmp.Diff(wantRequested, requested); diff != "" {
		t.Errorf("approval.requested data (-want +got):\n%s", diff)
	}
	verdict := f.events.Events(wisp.KindClassifierVerdict)[0].Data.(wisp.ClassifierVerdictData)
	if verdict.Command != action || verdict.Rating != "dangerous" {
		t.Errorf("classifier.verdict data = %v, want the action rated dangerous", verdict)
	}
}

// TestEveryRequestIsAsked checks that no answer covers a later request,
// even a session answer to the same action.
func TestEveryRequestIsAsked(t *testing.T) {
	f := newFixture(answers(wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}), 0)
	for range 3 {
		if r, err := f.call(t, context.Background(), argsOf(action, reason)); err != nil || r.IsError {
			t.Fatalf("Call = %v, %v", r, err)
		}
	}
	if len(f.requests) != 3 {
		t.Errorf("the person was asked %d times for 3 requests, want 3", len(f.requests))
	}
	for _, e := range f.events.Events(wisp.KindApprovalDecided) {
		if d := e.Data.(wisp.ApprovalDecidedData); d.Covered {
			t.Errorf("approval.decided %+v: a request was covered", d)
		}
	}
}

func TestTimeoutRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
			<-ctx.Done() // the person never answers
			return wisp.Decision{}, ctx.Err()
		}, 30*time.Second)
		got, err := f.call(t, context.Background(), argsOf(action, reason))
		if err != nil {
			t.Fatalf("Call = %v", err)
		}
		if diff := cmp.Diff(wisp.ErrorResult("error: not approved: no answer within 30 s"), got); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		decided := f.events.Events(wisp.KindApprovalDecided)[0].Data.(wisp.ApprovalDecidedData)
		if decided.Decision != "refused" || decided.Reason != "no answer within 30 s" {
			t.Errorf("approval.decided data = %v, want refused for the timeout", decided)
		}
	})
}

// TestTurnEnds checks the two failures that end the turn: the caller's
// context, and the person stopping the turn at the prompt.
func TestTurnEnds(t *testing.T) {
	t.Run("context cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		f := newFixture(func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
			cancel()
			return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil // too late to count
		}, 0)
		if r, err := f.call(t, ctx, argsOf(action, reason)); !errors.Is(err, context.Canceled) || r.Content != "" {
			t.Errorf("Call = %+v, %v; want no result and context.Canceled", r, err)
		}
		if d := f.events.Events(wisp.KindApprovalDecided)[0].Data.(wisp.ApprovalDecidedData); d.Decision != "refused" {
			t.Errorf("approval.decided data = %v, want refused", d)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		f := newFixture(func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
			return wisp.Decision{}, wisp.ErrInterrupted
		}, 0)
		if _, err := f.call(t, context.Background(), argsOf(action, reason)); !errors.Is(err, wisp.ErrInterrupted) {
			t.Errorf("Call = %v, want wisp.ErrInterrupted", err)
		}
	})
}

// TestPersonsAlone checks that the model cannot ask the person to let it
// answer wisp's own approvals: nobody is asked.
func TestPersonsAlone(t *testing.T) {
	f := newFixture(answers(wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}), 0)
	got, err := f.call(t, context.Background(), argsOf("run wisp approvals approve a1b2c3d4", "to save you the trouble"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wisp.ErrorResult(policy.LineNotApproved+policy.ReasonPersonsAlone), got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if len(f.requests) != 0 {
		t.Errorf("the person was asked %d times, want never", len(f.requests))
	}
}

func TestNilApprovals(t *testing.T) {
	got, err := requestapproval.New(nil).Call(context.Background(), wisp.Call{Arguments: json.RawMessage(argsOf(action, reason))})
	if diff := cmp.Diff(wisp.ErrorResult("error: not approved: no person can approve here"), got); err != nil || diff != "" {
		t.Errorf("Call = %v; result (-want +got):\n%s", err, diff)
	}
}

// TestBadArguments checks the arguments the tool refuses without asking
// anyone, with the same line through a tools.Set and called directly:
// what the schema refuses, and what passes it but not the tool's own
// check (want starts with "error: ").
func TestBadArguments(t *testing.T) {
	tests := []struct {
		name, args string
		want       string // what the error result says: all of it, or the schema's words
	}{
		{"empty action", argsOf("", reason), "at /action: minLength"},
		{"blank action", argsOf("   ", reason), "error: action is empty: give the action you are about to take, in one line"},
		{"two lines", argsOf("delete x\nand y", reason), "at /action: 'delete x\\nand y' does not match pattern"},
		{"a carriage return", argsOf("delete x\rdelete y", reason), "at /action: 'delete x\\rdelete y' does not match pattern"},
		{"an escape sequence", argsOf("delete x\x1b[2K", reason), "error: action must be one line of text, without line breaks or control characters; put details in reason"},
		{"a line separator", argsOf("delete x\u2028delete y", reason), "error: action must be one line of text, without line breaks or control characters; put details in reason"},
		{"too long", argsOf(strings.Repeat("x", 301), reason), "at /action: maxLength"},
		{"too many bytes", argsOf(strings.Repeat("😀", 257), reason), "error: action is too long: say it in one line of at most 300 characters"},
		{"blank reason", argsOf("delete x", " "), "error: reason is empty: say why you need to take the action"},
		{"no reason", `{"action": "delete x"}`, "at the arguments: missing property 'reason'"},
		{"reason too long", argsOf("delete x", strings.Repeat("y", 501)), "at /reason: maxLength"},
		{"unknown argument", `{"action": "a", "reason": "b", "scope": "always"}`, "additional properties 'scope' not allowed"},
		{"not JSON", `{"action": `, "not valid JSON"},
	}
	reg := tools.NewRegistry()
	f := newFixture(answers(wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}), 0)
	if err := reg.AddOptIn(f.tool); err != nil {
		t.Fatal(err)
	}
	set, err := reg.Select(tools.Selection{Named: []string{requestapproval.Name}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := set.Call(context.Background(), wisp.Call{Name: requestapproval.Name, Arguments: json.RawMessage(tt.args), Thread: "t-1", Turn: 2})
			if err != nil || !r.IsError || !strings.Contains(r.Content, tt.want) {
				t.Errorf("through a Set: %+v, %v; want an error result saying %q", r, err, tt.want)
			}
			if strings.HasPrefix(tt.want, "error: ") && !strings.HasPrefix(r.Content, tt.want) {
				t.Errorf("through a Set: %q; want it to start %q", r.Content, tt.want)
			}
			direct, err := f.call(t, context.Background(), tt.args)
			if diff := cmp.Diff(r, direct); err != nil || diff != "" {
				t.Errorf("directly: %v; (-through a Set +directly):\n%s", err, diff)
			}
		})
	}
	if len(f.requests) != 0 || len(f.events.Kinds()) != 0 {
		t.Errorf("bad arguments asked the person %d times and recorded %v; want nothing", len(f.requests), f.events.Kinds())
	}
}

func TestSpec(t *testing.T) {
	tl := requestapproval.New(nil)
	if tl.Name() != "request_approval" {
		t.Errorf("Name() = %q", tl.Name())
	}
	var schema map[string]any
	if err := json.Unmarshal(tl.Schema(), &schema); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	d := tl.Description()
	for _, want := range []string{"destructive, irreversible or outward-facing", "exactly", "once", "ask_user", "default"} {
		if !strings.Contains(d, want) {
			t.Errorf("the description does not say %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "\n") || len(d) > 1024 {
		t.Errorf("the description is %d bytes or has a line break; keep it one paragraph", len(d))
	}
	if requestapproval.MaxActionBytes > outofband.MaxCommandBytes {
		t.Errorf("MaxActionBytes %d exceeds what wisp approvals files (%d)", requestapproval.MaxActionBytes, outofband.MaxCommandBytes)
	}
	if n := len(requestapproval.ReasonPrefix) + 4*requestapproval.MaxReasonChars; n > outofband.MaxTextBytes {
		t.Errorf("the longest text, %d bytes, exceeds what wisp approvals files (%d)", n, outofband.MaxTextBytes)
	}
	if !tools.Interactive()[requestapproval.Name] {
		t.Errorf("tools.Interactive() = %v, does not enable %s", tools.Interactive(), requestapproval.Name)
	}
}

// The spec is what the model sees, name, description and schema: pinned,
// byte for byte.
func TestSpecGolden(t *testing.T) {
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(wisp.SpecOf(requestapproval.New(nil))); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "spec.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
}

// Through the agent's guard, whose gate is the tool's own, the person is
// asked once: the call itself is the request, so the guard asks nothing
// more.
func TestAskedOnceThroughTheGuard(t *testing.T) {
	var asked []string
	events := &wisptest.Recorder{}
	gate := policy.NewGate(&policy.GateOptions{Events: events, Session: "s-1",
		Approver: wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
			asked = append(asked, r.Command)
			return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
		})})
	tl := requestapproval.New(gate)
	r, err := agent.CallTool(context.Background(), gate, tl, wisp.Call{Name: requestapproval.Name, Arguments: json.RawMessage(argsOf(action, reason)), Thread: "t-1", Turn: 2})
	if err != nil || r.IsError || !strings.HasPrefix(r.Content, "approved (approval ") {
		t.Fatalf("request_approval through the guard = %+v, %v; want approved", r, err)
	}
	if diff := cmp.Diff([]string{action}, asked); diff != "" {
		t.Errorf("the person was asked (-want +got):\n%s", diff)
	}
	if n := len(events.Events(wisp.KindApprovalRequested)); n != 1 {
		t.Errorf("%d approval.requested records; want 1", n)
	}
}
