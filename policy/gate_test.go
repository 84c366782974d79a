package policy_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
)

// now is the injected clock's one time.
var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// An answer is what the scripted person does with one request.
type answer struct {
	d   wisp.Decision
	err error
	// wait blocks until the request's context ends, then returns d and err
	// (or the context's cause when err is nil and d is zero).
	wait bool
}

// script is an Approver that plays its answers in order and keeps the
// requests it was given. A request beyond the script is a test failure.
type script struct {
	t       *testing.T
	mu      sync.Mutex
	answers []answer
	got     []wisp.ApprovalRequest
}

func newScript(t *testing.T, answers ...answer) *script { return &script{t: t, answers: answers} }

func (s *script) Approve(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
	s.mu.Lock()
	s.got = append(s.got, r)
	if len(s.answers) == 0 {
		s.mu.Unlock()
		s.t.Errorf("request %q put to the person, but the script has no answer left", r.Command)
		return wisp.Decision{}, errors.New("script exhausted")
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	s.mu.Unlock()
	if a.wait {
		<-ctx.Done()
		if a.err == nil && a.d == (wisp.Decision{}) {
			return wisp.Decision{}, context.Cause(ctx)
		}
	}
	return a.d, a.err
}

func (s *script) requests() []wisp.ApprovalRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}

func (s *script) left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.answers)
}

// recorder keeps the events it is given, and fails the kinds in failOn.
type recorder struct {
	mu     sync.Mutex
	events []wisp.Event
	failOn string
}

// Record keeps e whatever ctx says, as the audit log does: a cancelled
// turn's records are written (ctx ends only a long wait for the log's
// lock, which this recorder never has).
func (r *recorder) Record(ctx context.Context, e wisp.Event) error {
	if e.Kind() == r.failOn {
		return errors.New("disk full")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

func (r *recorder) all() []wisp.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events
}

// ids returns an id maker that counts: id1, id2, …
func ids() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("id%d", n) }
}

var (
	onceOnly    = []wisp.Scope{wisp.ScopeOnce}
	onceSession = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}
)

func enable(name string) policy.Request {
	return policy.Request{
		Thread: "t1", Turn: 3, Kind: "modelAction",
		Command: "models enable " + name, Pattern: "models enable *",
		Text:   "turns " + name + " on in config.json",
		Scopes: onceSession, AlwaysAsk: true,
	}
}

func disable(name string) policy.Request {
	r := enable(name)
	r.Command, r.Pattern, r.Text = "models disable "+name, "models disable *", "turns "+name+" off in config.json"
	return r
}

func pull(repo string) policy.Request {
	return policy.Request{
		Thread: "t1", Turn: 3, Kind: "modelAction",
		Command: "models pull " + repo, Pattern: "models pull *",
		Text:   "downloads 2.3 GB in 4 of 7 files from Hugging Face",
		Scopes: onceOnly, AlwaysAsk: true,
	}
}

func list() policy.Request {
	return policy.Request{Thread: "t1", Turn: 3, Kind: "modelAction", Command: "models list", Pattern: "models list", Scopes: onceSession}
}

// newGate is policy.NewGate with wisp's classifier, unless opts names one.
func newGate(opts *policy.GateOptions) *policy.Gate {
	o := *opts
	if o.Classifier == nil {
		o.Classifier = classifier
	}
	return policy.NewGate(&o)
}

func with(r policy.Request, f func(*policy.Request)) policy.Request { f(&r); return r }

// Events as the gate records them for the requests above.

func event(source, id string, data wisp.EventData) wisp.Event {
	return wisp.Event{Time: now, Session: "s1", Thread: "t1", Turn: 3, Source: source, Approval: id, Data: data}
}

func verdict(id string, r policy.Request) wisp.Event {
	v := classify(r.Command)
	return event(wisp.SourceWisp, id, wisp.ClassifierVerdictData{Command: r.Command, Rating: v.Rating.String(), Reason: v.Reason})
}

func requested(id string, r policy.Request, scopes ...string) wisp.Event {
	return event(wisp.SourceWisp, id, wisp.ApprovalRequestedData{
		ID: id, Kind: r.Kind, Command: r.Command, Pattern: r.Pattern, Text: r.Text,
		Scopes: scopes, Rating: classify(r.Command).Rating.String(),
	})
}

// decided is approval.decided; more are the fields it has besides id,
// decision and scope: "covered", true; "reason", "…"; "downgradedFrom",
// "…".
func decided(id, source, decision, scope string, more ...any) wisp.Event {
	d := wisp.ApprovalDecidedData{ApprovalID: id, Decision: decision, Scope: scope}
	for i := 0; i < len(more); i += 2 {
		switch v := more[i+1]; more[i] {
		case "covered":
			d.Covered = v.(bool)
		case "reason":
			d.Reason = v.(string)
		case "downgradedFrom":
			d.DowngradedFrom = v.(string)
		default:
			panic(fmt.Sprintf("decided: no field %v", more[i]))
		}
	}
	return event(source, id, d)
}

// A step is one request to the gate and how it must end.
type step struct {
	r       policy.Request
	want    policy.Outcome
	wantErr error
}

func TestGate(t *testing.T) {
	tests := []struct {
		name    string
		opts    policy.GateOptions // Approver, Events, Session, Now, NewID are filled in
		noFace  bool               // leave Approver nil
		answers []answer
		steps   []step
		events  []wisp.Event
	}{
		{
			name:    "approved once",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps:   []step{{r: enable("ollama:qwen3:4b"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce}}},
			events: []wisp.Event{
				verdict("id1", enable("ollama:qwen3:4b")),
				requested("id1", enable("ollama:qwen3:4b"), "once", "session"),
				decided("id1", wisp.SourcePerson, "approved", "once"),
			},
		},
		{
			name:    "once covers nothing: the same pattern is asked again",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}, {d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce}},
				{r: enable("b"), want: policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"), decided("id1", "person", "approved", "once"),
				verdict("id2", enable("b")), requested("id2", enable("b"), "once", "session"), decided("id2", "person", "approved", "once"),
			},
		},
		{
			name:    "session covers the same pattern for another command",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: enable("ollama:qwen3:4b"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession}},
				{r: enable("mlx:Qwen3-4B-4bit"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession, Covered: true}},
			},
			events: []wisp.Event{
				verdict("id1", enable("ollama:qwen3:4b")),
				requested("id1", enable("ollama:qwen3:4b"), "once", "session"),
				decided("id1", "person", "approved", "session"),
				verdict("id1", enable("mlx:Qwen3-4B-4bit")),
				decided("id1", "wisp", "approved", "session", "covered", true),
			},
		},
		{
			name:    "session covers only its own pattern",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}}, {d: wisp.Decision{Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession}},
				{r: disable("a"), want: policy.Outcome{ID: "id2", Reason: policy.ReasonDeclined}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"), decided("id1", "person", "approved", "session"),
				verdict("id2", disable("a")), requested("id2", disable("a"), "once", "session"),
				decided("id2", "person", "refused", "none", "reason", policy.ReasonDeclined),
			},
		},
		{
			name:    "project is narrowed to session, and covers",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeProject, Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession, DowngradedFrom: wisp.ScopeProject}},
				{r: enable("b"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession, Covered: true}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "person", "approved", "session", "downgradedFrom", "project"),
				verdict("id1", enable("b")), decided("id1", "wisp", "approved", "session", "covered", true),
			},
		},
		{
			name:    "a covered request is allowed no wider than it allows",
			opts:    policy.GateOptions{Keeper: &memKeeper{}, Project: "/w"},
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeProject, Provenance: wisp.FromPerson}}},
			steps: []step{
				{
					r:    with(enable("a"), func(r *policy.Request) { r.Scopes = []wisp.Scope{wisp.ScopeOnce, wisp.ScopeProject} }),
					want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeProject},
				},
				{r: enable("b"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession, Covered: true}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "project"),
				decided("id1", "person", "approved", "project"),
				verdict("id1", enable("b")), decided("id1", "wisp", "approved", "session", "covered", true),
			},
		},
		{
			name:    "always is narrowed to session",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromPerson}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession, DowngradedFrom: wisp.ScopeAlways}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "person", "approved", "session", "downgradedFrom", "always"),
			},
		},
		{
			name:    "a face that narrowed already keeps what the person said",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeSession, DowngradedFrom: wisp.ScopeAlways, Provenance: wisp.FromPerson}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession, DowngradedFrom: wisp.ScopeAlways}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "person", "approved", "session", "downgradedFrom", "always"),
			},
		},
		{
			name: "a pull: every wider answer is narrowed to once, and every pull is asked",
			answers: []answer{
				{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}},
				{d: wisp.Decision{Scope: wisp.ScopeProject, Provenance: wisp.FromPerson}},
				{d: wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromPerson}},
			},
			steps: []step{
				{r: pull("a/b"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce, DowngradedFrom: wisp.ScopeSession}},
				{r: pull("a/b"), want: policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce, DowngradedFrom: wisp.ScopeProject}},
				{r: pull("c/d"), want: policy.Outcome{Approved: true, ID: "id3", Scope: wisp.ScopeOnce, DowngradedFrom: wisp.ScopeAlways}},
			},
			events: []wisp.Event{
				verdict("id1", pull("a/b")), requested("id1", pull("a/b"), "once"),
				decided("id1", "person", "approved", "once", "downgradedFrom", "session"),
				verdict("id2", pull("a/b")), requested("id2", pull("a/b"), "once"),
				decided("id2", "person", "approved", "once", "downgradedFrom", "project"),
				verdict("id3", pull("c/d")), requested("id3", pull("c/d"), "once"),
				decided("id3", "person", "approved", "once", "downgradedFrom", "always"),
			},
		},
		{
			name: "a session answer does not cover a request that allows only once",
			answers: []answer{
				{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}},
				{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}},
			},
			steps: []step{
				{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession}},
				{r: with(enable("b"), func(r *policy.Request) { r.Scopes = onceOnly }), want: policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"), decided("id1", "person", "approved", "session"),
				verdict("id2", enable("b")), requested("id2", enable("b"), "once"), decided("id2", "person", "approved", "once"),
			},
		},
		{
			name:    "declined, and nothing is remembered",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeNone, Provenance: wisp.FromPerson}}, {d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: "the person declined"}},
				{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "person", "refused", "none", "reason", "the person declined"),
				verdict("id2", enable("a")), requested("id2", enable("a"), "once", "session"), decided("id2", "person", "approved", "once"),
			},
		},
		{
			name:    "a face with no person refuses in its own words",
			answers: []answer{{d: wisp.Decision{Reason: "no person can approve here", Provenance: wisp.FromUnattended}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: "no person can approve here"}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "wisp", "refused", "none", "reason", "no person can approve here"),
			},
		},
		{
			name:    "an approval that is no person's is refused",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromDefault}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: policy.ReasonNoPerson}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "wisp", "refused", "none", "reason", policy.ReasonNoPerson),
			},
		},
		{
			name:    "an approval that does not say who gave it is refused",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeSession}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: policy.ReasonUnknownProvenance}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "wisp", "refused", "none", "reason", policy.ReasonUnknownProvenance),
			},
		},
		{
			name:    "a refusal that does not say who gave it is no person's",
			answers: []answer{{d: wisp.Decision{Reason: "the person declined"}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: policy.ReasonUnknownProvenance}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "wisp", "refused", "none", "reason", policy.ReasonUnknownProvenance),
			},
		},
		{
			name:    "an answer narrower than any allowed is refused",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps: []step{{
				r:    with(enable("a"), func(r *policy.Request) { r.Scopes = []wisp.Scope{wisp.ScopeSession} }),
				want: policy.Outcome{ID: "id1", Reason: policy.ReasonNotOffered},
			}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "session"),
				decided("id1", "person", "refused", "none", "reason", policy.ReasonNotOffered),
			},
		},
		{
			name:    "an answer that is no scope is refused",
			answers: []answer{{d: wisp.Decision{Scope: wisp.Scope(9), Provenance: wisp.FromPerson}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: policy.ReasonNotOffered}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "person", "refused", "none", "reason", policy.ReasonNotOffered),
			},
		},
		{
			name:    "the approver fails: refused with its error, nothing remembered",
			answers: []answer{{err: errors.New("write /dev/tty: input/output error")}, {d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: "write /dev/tty: input/output error"}},
				{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "wisp", "refused", "none", "reason", "write /dev/tty: input/output error"),
				verdict("id2", enable("a")), requested("id2", enable("a"), "once", "session"), decided("id2", "person", "approved", "once"),
			},
		},
		{
			name:    "an approval that comes with an error is no approval",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}, err: errors.New("half-read")}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: "half-read"}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "wisp", "refused", "none", "reason", "half-read"),
			},
		},
		{
			name:    "the person stops the turn at the prompt",
			answers: []answer{{err: wisp.ErrInterrupted}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: wisp.ErrInterrupted.Error()}, wantErr: wisp.ErrInterrupted}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "person", "refused", "none", "reason", wisp.ErrInterrupted.Error()),
			},
		},
		{
			name:   "no approver: every asked request is refused",
			noFace: true,
			steps: []step{
				{r: enable("a"), want: policy.Outcome{ID: "id1", Reason: "no person can approve here"}},
				{r: pull("a/b"), want: policy.Outcome{ID: "id2", Reason: "no person can approve here"}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"),
				decided("id1", "wisp", "refused", "none", "reason", "no person can approve here"),
				verdict("id2", pull("a/b")), requested("id2", pull("a/b"), "once"),
				decided("id2", "wisp", "refused", "none", "reason", "no person can approve here"),
			},
		},
		{
			name:   "no approver: below the threshold still goes ahead",
			noFace: true,
			opts:   policy.GateOptions{Threshold: policy.Moderate},
			steps:  []step{{r: list(), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce, Reason: "below approval.threshold"}}},
			events: []wisp.Event{
				verdict("id1", list()),
				decided("id1", "wisp", "approved", "once", "reason", "below approval.threshold"),
			},
		},
		{
			name:    "at the threshold is asked",
			opts:    policy.GateOptions{Threshold: policy.Moderate},
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps:   []step{{r: with(enable("a"), func(r *policy.Request) { r.AlwaysAsk = false }), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"), decided("id1", "person", "approved", "once"),
			},
		},
		{
			name:  "below the threshold is allowed without asking",
			opts:  policy.GateOptions{Threshold: policy.Dangerous},
			steps: []step{{r: with(enable("a"), func(r *policy.Request) { r.AlwaysAsk = false }), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce, Reason: policy.ReasonBelowThreshold}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), decided("id1", "wisp", "approved", "once", "reason", "below approval.threshold"),
			},
		},
		{
			name:    "AlwaysAsk beats the threshold",
			opts:    policy.GateOptions{Threshold: policy.Dangerous},
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps:   []step{{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce}}},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"), decided("id1", "person", "approved", "once"),
			},
		},
		{
			name:    "the zero threshold asks about safe commands",
			answers: []answer{{d: wisp.Decision{Provenance: wisp.FromPerson}}},
			steps:   []step{{r: list(), want: policy.Outcome{ID: "id1", Reason: policy.ReasonDeclined}}},
			events: []wisp.Event{
				verdict("id1", list()), requested("id1", list(), "once", "session"),
				decided("id1", "person", "refused", "none", "reason", policy.ReasonDeclined),
			},
		},
		{
			name:    "a threshold above dangerous still asks about dangerous commands",
			opts:    policy.GateOptions{Threshold: policy.Rating(9)},
			answers: []answer{{d: wisp.Decision{Provenance: wisp.FromPerson}}},
			steps:   []step{{r: with(list(), func(r *policy.Request) { r.Command = "models trust p" }), want: policy.Outcome{ID: "id1", Reason: policy.ReasonDeclined}}},
			events: []wisp.Event{
				verdict("id1", with(list(), func(r *policy.Request) { r.Command = "models trust p" })),
				requested("id1", with(list(), func(r *policy.Request) { r.Command = "models trust p" }), "once"),
				decided("id1", "person", "refused", "none", "reason", policy.ReasonDeclined),
			},
		},
		{
			name:    "answering wisp's approvals or questions is refused outright: nobody is asked, nothing covers it",
			opts:    policy.GateOptions{Threshold: policy.Rating(9)},
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: enable("a"), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeSession}},
				{r: with(enable("b"), func(r *policy.Request) { r.Command = "wisp approvals approve 7f3a2c1d --scope session" }), want: policy.Outcome{ID: "id2", Reason: policy.ReasonPersonsAlone}},
				{r: with(list(), func(r *policy.Request) { r.Command = "questions answer a1b2c3d4" }), want: policy.Outcome{ID: "id3", Reason: policy.ReasonPersonsAlone}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "session"), decided("id1", "person", "approved", "session"),
				verdict("id2", with(enable("b"), func(r *policy.Request) { r.Command = "wisp approvals approve 7f3a2c1d --scope session" })),
				decided("id2", "wisp", "refused", "none", "reason", policy.ReasonPersonsAlone),
				verdict("id3", with(list(), func(r *policy.Request) { r.Command = "questions answer a1b2c3d4" })),
				decided("id3", "wisp", "refused", "none", "reason", policy.ReasonPersonsAlone),
			},
		},
		{
			name: "running a face or changing the settings is refused outright too, in its own words",
			opts: policy.GateOptions{Threshold: policy.Rating(9)},
			steps: []step{
				{r: with(list(), func(r *policy.Request) { r.Command = "wisp chat --json" }), want: policy.Outcome{ID: "id1", Reason: policy.ReasonPersonsAlone}},
				{r: with(list(), func(r *policy.Request) { r.Command = "wisp config set approval.threshold safe" }), want: policy.Outcome{ID: "id2", Reason: policy.ReasonSettingsAlone}},
			},
			events: []wisp.Event{
				verdict("id1", with(list(), func(r *policy.Request) { r.Command = "wisp chat --json" })),
				decided("id1", "wisp", "refused", "none", "reason", policy.ReasonPersonsAlone),
				verdict("id2", with(list(), func(r *policy.Request) { r.Command = "wisp config set approval.threshold safe" })),
				decided("id2", "wisp", "refused", "none", "reason", "changing wisp's settings is the person's alone"),
			},
		},
		{
			name:   "the person's alone is refused in its own words even with no approver",
			noFace: true,
			steps:  []step{{r: with(list(), func(r *policy.Request) { r.Command = "approvals deny 7f3a2c1d" }), want: policy.Outcome{ID: "id1", Reason: policy.ReasonPersonsAlone}}},
			events: []wisp.Event{
				verdict("id1", with(list(), func(r *policy.Request) { r.Command = "approvals deny 7f3a2c1d" })),
				decided("id1", "wisp", "refused", "none", "reason", "answering wisp's questions and approvals is the person's alone"),
			},
		},
		{
			name:    "no pattern: only once is offered, and a session answer is narrowed and not remembered",
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}}, {d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps: []step{
				{r: with(enable("a"), func(r *policy.Request) { r.Pattern = "" }), want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeOnce, DowngradedFrom: wisp.ScopeSession}},
				{r: with(enable("a"), func(r *policy.Request) { r.Pattern = "" }), want: policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", with(enable("a"), func(r *policy.Request) { r.Pattern = "" }), "once"),
				decided("id1", "person", "approved", "once", "downgradedFrom", "session"),
				verdict("id2", enable("a")), requested("id2", with(enable("a"), func(r *policy.Request) { r.Pattern = "" }), "once"),
				decided("id2", "person", "approved", "once"),
			},
		},
		{
			name:    "scopes are put in order, without repeats or non-scopes; none given means once",
			opts:    policy.GateOptions{Keeper: &memKeeper{}, Project: "/w"},
			answers: []answer{{d: wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromPerson}}, {d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}},
			steps: []step{
				{
					r: with(enable("a"), func(r *policy.Request) {
						r.Scopes = []wisp.Scope{wisp.ScopeProject, wisp.ScopeNone, wisp.ScopeOnce, wisp.Scope(7), wisp.ScopeProject}
					}),
					want: policy.Outcome{Approved: true, ID: "id1", Scope: wisp.ScopeProject, DowngradedFrom: wisp.ScopeAlways},
				},
				{r: with(disable("a"), func(r *policy.Request) { r.Scopes = nil }), want: policy.Outcome{Approved: true, ID: "id2", Scope: wisp.ScopeOnce}},
			},
			events: []wisp.Event{
				verdict("id1", enable("a")), requested("id1", enable("a"), "once", "project"),
				decided("id1", "person", "approved", "project", "downgradedFrom", "always"),
				verdict("id2", disable("a")), requested("id2", disable("a"), "once"), decided("id2", "person", "approved", "once"),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			face := newScript(t, tc.answers...)
			opts := tc.opts
			opts.Events, opts.Session, opts.Now, opts.NewID = rec, "s1", func() time.Time { return now }, ids()
			if !tc.noFace {
				opts.Approver = face
			}
			g := newGate(&opts)
			for i, s := range tc.steps {
				got, err := g.Ask(context.Background(), s.r)
				if !errors.Is(err, s.wantErr) || (err != nil) != (s.wantErr != nil) {
					t.Errorf("step %d: Ask(%q) error = %v, want %v", i+1, s.r.Command, err, s.wantErr)
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d: Ask(%q) (-want +got):\n%s", i+1, s.r.Command, diff)
				}
			}
			if diff := cmp.Diff(tc.events, rec.all()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if n := face.left(); n != 0 {
				t.Errorf("%d scripted answers left: a request that should have been asked was not", n)
			}
		})
	}
}

// The person sees the request as the gate was given it, with the scopes it
// allows and its deadline.
func TestGateRequestToThePerson(t *testing.T) {
	face := newScript(t, answer{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}}, answer{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}})
	g := newGate(&policy.GateOptions{
		Approver: face, Session: "s1", Timeout: 5 * time.Minute,
		Now: func() time.Time { return now }, NewID: ids(),
	})
	for _, r := range []policy.Request{enable("ollama:qwen3:4b"), pull("mlx-community/Qwen3-4B-4bit")} {
		if _, err := g.Ask(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	want := []wisp.ApprovalRequest{{
		ID: "id1", Session: "s1", Thread: "t1", Turn: 3, Kind: "modelAction",
		Command: "models enable ollama:qwen3:4b", Pattern: "models enable *", Text: "turns ollama:qwen3:4b on in config.json",
		Scopes: onceSession, Deadline: now.Add(5 * time.Minute),
	}, {
		ID: "id2", Session: "s1", Thread: "t1", Turn: 3, Kind: "modelAction",
		Command: "models pull mlx-community/Qwen3-4B-4bit", Pattern: "models pull *", Text: "downloads 2.3 GB in 4 of 7 files from Hugging Face",
		Scopes: onceOnly, Deadline: now.Add(5 * time.Minute),
	}}
	if diff := cmp.Diff(want, face.requests()); diff != "" {
		t.Errorf("requests to the person (-want +got):\n%s", diff)
	}
}

// A request's diff reaches the person and approval.requested as it was
// given.
func TestGateDiff(t *testing.T) {
	face := newScript(t, answer{d: wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}})
	rec := &recorder{}
	g := newGate(&policy.GateOptions{Approver: face, Events: rec, Session: "s1", Now: func() time.Time { return now }, NewID: ids()})
	r := policy.Request{Thread: "t1", Turn: 3, Kind: "fileEdit", Command: "edit_file write notes.md", Pattern: "edit_file write *",
		Text: "writes notes.md", Diff: "--- a/notes.md\n+++ b/notes.md\n@@ -1 +1 @@\n-old\n+new\n", Scopes: onceSession}
	if out, err := g.Ask(context.Background(), r); err != nil || !out.Approved {
		t.Fatalf("Ask = %+v, %v; want approved", out, err)
	}
	if got := face.requests(); len(got) != 1 || got[0].Diff != r.Diff {
		t.Errorf("the person was asked %+v; want the request with its diff %q", got, r.Diff)
	}
	var recorded []string
	for _, e := range rec.all() {
		if d, ok := e.Data.(wisp.ApprovalRequestedData); ok {
			recorded = append(recorded, d.Diff)
		}
	}
	if diff := cmp.Diff([]string{r.Diff}, recorded); diff != "" {
		t.Errorf("approval.requested's diff (-want +got):\n%s", diff)
	}
}

// A new Gate is a new session: what "this session" allowed is gone.
func TestGateSessionEndsWithTheGate(t *testing.T) {
	face := newScript(t, answer{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}}, answer{d: wisp.Decision{Provenance: wisp.FromPerson}})
	first := newGate(&policy.GateOptions{Approver: face, NewID: ids()})
	if out, err := first.Ask(context.Background(), enable("a")); err != nil || out.Scope != wisp.ScopeSession {
		t.Fatalf("first session: Ask = %+v, %v; want approved for the session", out, err)
	}
	if out, _ := first.Ask(context.Background(), enable("b")); !out.Covered {
		t.Fatalf("first session: second Ask = %+v, want covered", out)
	}
	second := newGate(&policy.GateOptions{Approver: face, NewID: ids()})
	out, err := second.Ask(context.Background(), enable("b"))
	if err != nil || out.Approved || out.Covered {
		t.Errorf("second session: Ask = %+v, %v; want asked again and refused", out, err)
	}
	if n := len(face.requests()); n != 2 {
		t.Errorf("the person was asked %d times, want 2", n)
	}
}

func TestGateTimeout(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		late    wisp.Decision // what the face says once the deadline has passed
		reason  string
	}{
		{"no answer within 5 min", 5 * time.Minute, wisp.Decision{}, "no answer within 5 min"},
		{"an approval after the deadline does not count", 10 * time.Second, wisp.Decision{Scope: wisp.ScopeSession}, "no answer within 10 s"},
		{"hours", 2 * time.Hour, wisp.Decision{}, "no answer within 2 h"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{}
				face := newScript(t, answer{d: tc.late, wait: true}, answer{d: wisp.Decision{Provenance: wisp.FromPerson}})
				g := newGate(&policy.GateOptions{Approver: face, Events: rec, Timeout: tc.timeout, NewID: ids()})
				start := time.Now()
				out, err := g.Ask(context.Background(), enable("a"))
				if err != nil {
					t.Fatalf("Ask = %v; a timeout is a refusal, not an error", err)
				}
				if elapsed := time.Since(start); elapsed != tc.timeout {
					t.Errorf("the request waited %v, want %v", elapsed, tc.timeout)
				}
				if diff := cmp.Diff(policy.Outcome{ID: "id1", Reason: tc.reason}, out); diff != "" {
					t.Errorf("Ask (-want +got):\n%s", diff)
				}
				events := rec.all()
				last := events[len(events)-1]
				want := wisp.ApprovalDecidedData{ApprovalID: "id1", Decision: "refused", Scope: "none", Reason: tc.reason}
				if diff := cmp.Diff(want, last.Data); diff != "" || last.Source != wisp.SourceWisp {
					t.Errorf("approval.decided from %q (-want +got):\n%s", last.Source, diff)
				}
				if got, want := events[1].Data.(wisp.ApprovalRequestedData).Deadline, start.Add(tc.timeout).UTC().Format(time.RFC3339); got != want {
					t.Errorf("approval.requested deadline = %v, want %v", got, want)
				}
				// Nothing refused is remembered: the same pattern is asked again.
				if out, _ := g.Ask(context.Background(), enable("b")); out.Covered {
					t.Errorf("after a timeout, the same pattern was covered: %+v", out)
				}
			})
		})
	}
}

func TestGateCancelled(t *testing.T) {
	t.Run("while the person is asked", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rec := &recorder{}
			// The face approves as the turn is cancelled: it must not count.
			face := newScript(t, answer{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}, wait: true}, answer{d: wisp.Decision{Provenance: wisp.FromPerson}})
			g := newGate(&policy.GateOptions{Approver: face, Events: rec, NewID: ids()})
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				synctest.Wait()
				cancel()
			}()
			out, err := g.Ask(ctx, enable("a"))
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Ask error = %v, want context.Canceled", err)
			}
			if diff := cmp.Diff(policy.Outcome{ID: "id1", Reason: context.Canceled.Error()}, out); diff != "" {
				t.Errorf("Ask (-want +got):\n%s", diff)
			}
			kinds := []string{}
			for _, e := range rec.all() {
				kinds = append(kinds, e.Kind())
			}
			if diff := cmp.Diff([]string{wisp.KindClassifierVerdict, wisp.KindApprovalRequested, wisp.KindApprovalDecided}, kinds); diff != "" {
				t.Errorf("event kinds (-want +got):\n%s", diff)
			}
			if got := rec.all()[2].Data.(wisp.ApprovalDecidedData).Decision; got != "refused" {
				t.Errorf("approval.decided decision = %v, want refused", got)
			}
			if out, _ := g.Ask(context.Background(), enable("b")); out.Covered || out.Approved {
				t.Errorf("after a cancelled request, the same pattern was allowed: %+v", out)
			}
		})
	})
	t.Run("before Ask", func(t *testing.T) {
		rec := &recorder{}
		face := newScript(t)
		g := newGate(&policy.GateOptions{Approver: face, Events: rec, Threshold: policy.Dangerous})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out, err := g.Ask(ctx, list())
		if !errors.Is(err, context.Canceled) || out.Approved {
			t.Errorf("Ask = %+v, %v; want refused with context.Canceled", out, err)
		}
		if n := len(rec.all()); n != 0 {
			t.Errorf("%d events recorded for a request cancelled before it began, want 0", n)
		}
	})
}

func TestGateAuditFailure(t *testing.T) {
	tests := []struct {
		failOn string
		r      policy.Request
		asked  int
	}{
		{wisp.KindClassifierVerdict, enable("a"), 0},
		{wisp.KindApprovalRequested, enable("a"), 0},
		{wisp.KindApprovalDecided, enable("a"), 1},
	}
	for _, tc := range tests {
		t.Run(tc.failOn, func(t *testing.T) {
			face := newScript(t, answer{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}}, answer{d: wisp.Decision{Provenance: wisp.FromPerson}})
			g := newGate(&policy.GateOptions{Approver: face, Events: &recorder{failOn: tc.failOn}, NewID: ids()})
			out, err := g.Ask(context.Background(), tc.r)
			if !errors.Is(err, wisp.ErrNotRecorded) {
				t.Fatalf("Ask = %v, want an error wrapping wisp.ErrNotRecorded, which ends the turn", err)
			}
			want := policy.Outcome{ID: "id1", Reason: "the audit could not record it: the audit log could not be written: disk full"}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("Ask (-want +got):\n%s", diff)
			}
			if n := len(face.requests()); n != tc.asked {
				t.Errorf("the person was asked %d times, want %d", n, tc.asked)
			}
		})
	}
	t.Run("an unrecorded session answer covers nothing", func(t *testing.T) {
		face := newScript(t, answer{d: wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}}, answer{d: wisp.Decision{Provenance: wisp.FromPerson}})
		rec := &recorder{failOn: wisp.KindApprovalDecided}
		g := newGate(&policy.GateOptions{Approver: face, Events: rec, NewID: ids()})
		g.Ask(context.Background(), enable("a"))
		rec.failOn = ""
		if out, _ := g.Ask(context.Background(), enable("b")); out.Approved {
			t.Errorf("second Ask = %+v, want asked and refused", out)
		}
	})
}

// Many requests at once: each is decided once, and a session answer given
// under contention is remembered.
func TestGateConcurrent(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	face := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		asked++
		return wisp.Decision{Scope: wisp.ScopeSession, Provenance: wisp.FromPerson}, nil
	})
	var idMu sync.Mutex
	next := ids()
	g := newGate(&policy.GateOptions{Approver: face, NewID: func() string { idMu.Lock(); defer idMu.Unlock(); return next() }})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if out, err := g.Ask(context.Background(), enable(fmt.Sprint(i))); err != nil || !out.Approved {
				t.Errorf("Ask = %+v, %v; want approved", out, err)
			}
		})
	}
	wg.Wait()
	if out, _ := g.Ask(context.Background(), enable("last")); !out.Covered {
		t.Errorf("after %d session answers, Ask = %+v; want covered", asked, out)
	}
}

func TestReasonTimedOut(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Second, "no answer within 10 s"},
		{90 * time.Second, "no answer within 90 s"},
		{5 * time.Minute, "no answer within 5 min"},
		{2 * time.Hour, "no answer within 2 h"},
		{90 * time.Minute, "no answer within 90 min"},
	}
	for _, tc := range tests {
		if got := policy.ReasonTimedOut(tc.d); got != tc.want {
			t.Errorf("ReasonTimedOut(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := policy.LineNotApproved + policy.ReasonDeclined; got != "error: not approved: the person declined" {
		t.Errorf("refusal line = %q", got)
	}
}

// A decision taken from a file another process filed names the file in
// approval.decided, approved or not, so the audit pairs it with the
// approval.answered of who gave it.
func TestGateRecordsTheDecisionsFile(t *testing.T) {
	sum := "5e1f" + fmt.Sprintf("%060d", 0)
	for _, d := range []wisp.Decision{
		{Scope: wisp.ScopeOnce, FileSHA256: sum},
		{Reason: policy.ReasonDeclined, FileSHA256: sum},
	} {
		var rec []wisp.Event
		g := newGate(&policy.GateOptions{
			Approver: newScript(t, answer{d: d}), NewID: ids(),
			Events: wisp.EventSinkFunc(func(_ context.Context, e wisp.Event) error {
				if e.Kind() == wisp.KindApprovalDecided {
					rec = append(rec, e)
				}
				return nil
			}),
		})
		out, err := g.Ask(context.Background(), enable("ollama:qwen3:4b"))
		if err != nil || out.FileSHA256 != sum || out.Approved != d.Approved() {
			t.Errorf("Ask with %+v = %+v, %v; want the file's sum kept", d, out, err)
		}
		if len(rec) != 1 || rec[0].Data.(wisp.ApprovalDecidedData).FileSHA256 != sum {
			t.Errorf("approval.decided %+v; want fileSHA256 %s", rec, sum)
		}
	}
	// An answer given in the face itself names no file.
	var rec []wisp.Event
	g := newGate(&policy.GateOptions{
		Approver: newScript(t, answer{d: wisp.Decision{Scope: wisp.ScopeOnce}}), NewID: ids(),
		Events: wisp.EventSinkFunc(func(_ context.Context, e wisp.Event) error { rec = append(rec, e); return nil }),
	})
	if _, err := g.Ask(context.Background(), enable("ollama:qwen3:4b")); err != nil {
		t.Fatal(err)
	}
	for _, e := range rec {
		if d, ok := e.Data.(wisp.ApprovalDecidedData); ok && d.FileSHA256 != "" {
			t.Errorf("%s has fileSHA256 %v for an answer given in the face", e.Kind(), d.FileSHA256)
		}
	}
}

// memKeeper is a Keeper in memory; err, when set, is every call's.
type memKeeper struct {
	mu   sync.Mutex
	kept []policy.Kept
	err  error
}

func (m *memKeeper) Kept(ctx context.Context, project string) ([]policy.Kept, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	var out []policy.Kept
	for _, k := range m.kept {
		if k.Scope == wisp.ScopeAlways || project != "" && k.Project == project {
			out = append(out, k)
		}
	}
	return out, nil
}

func (m *memKeeper) Keep(ctx context.Context, k policy.Kept) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.kept = append(m.kept, k)
	return nil
}

func (m *memKeeper) all() []policy.Kept {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.kept
}
