package models_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/hf"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/mlx/mlxtest"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/wisptest"
)

// hubRepo turns an MLX fixture into a repository on the fake Hub.
func hubRepo(r mlxtest.Repo, licence string) hubtest.Repo {
	h := hubtest.Repo{ID: r.Org + "/" + r.Name, License: licence}
	for _, f := range r.Files {
		h.Files = append(h.Files, hubtest.File{Path: f.Path, Data: f.Data, LFS: f.LFS})
	}
	return h
}

type pullFixture struct {
	actions   *models.Actions
	hub       *hubtest.Server
	home      string
	approvals *approvals
	events    *wisptest.Recorder
	failKind  string // events of this kind are not recorded
	onEvent   func(wisp.Event)
	mu        sync.Mutex
	notes     map[string][]string
	noted     chan struct{}
}

func newPullFixture(t *testing.T, trusted ...string) *pullFixture {
	t.Helper()
	home := t.TempDir()
	hub := hubtest.NewServer(t, hubRepo(mlxtest.Qwen3Tools("mlx-community", "Qwen3-4B-4bit"), "apache-2.0"),
		hubRepo(mlxtest.NoTools("mlx-community", "SmolLM-135M-4bit"), "apache-2.0"))
	client, err := hf.NewClient(&hf.ClientOptions{Endpoint: hub.URL})
	if err != nil {
		t.Fatal(err)
	}
	store := config.Store{Path: filepath.Join(home, "config.json"), LockPath: filepath.Join(home, "config.lock")}
	if len(trusted) > 0 {
		if err := store.Update(context.Background(), func(c *config.Config) error {
			return c.Set("models.trusted", strings.Join(trusted, ","))
		}); err != nil {
			t.Fatal(err)
		}
	}
	f := &pullFixture{hub: hub, home: home, events: &wisptest.Recorder{}, notes: map[string][]string{}, noted: make(chan struct{}, 10),
		approvals: &approvals{answer: policy.Outcome{Approved: true, ID: "7f3a2c1d", Scope: wisp.ScopeOnce}}}
	f.actions = models.New(&models.Options{
		Backends: []models.Backend{mlx.New(home)},
		Settings: store,
		Events: wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
			if e.Kind() == f.failKind {
				return errors.New("disk full")
			}
			if f.onEvent != nil {
				f.onEvent(e)
			}
			return f.events.Record(ctx, e)
		}),
		Pull: &models.PullOptions{Hub: client, Store: hf.Store{Home: home}, Notify: func(thread, note string) {
			f.mu.Lock()
			f.notes[thread] = append(f.notes[thread], note)
			f.mu.Unlock()
			f.noted <- struct{}{}
		}},
	})
	t.Cleanup(f.actions.Close)
	return f
}

// modelPull is the model's pull of repo on thread at turn, asked of the
// person as the models tool's guard asks it.
func (f *pullFixture) modelPull(ctx context.Context, thread string, turn int, repo string) (wisp.PullStarted, error) {
	return pullAs(ctx, f.approvals, f.actions, thread, turn, repo)
}

// pullAs is the model's pull of repo, asked of person.
func pullAs(ctx context.Context, person asker, a *models.Actions, thread string, turn int, repo string) (wisp.PullStarted, error) {
	var p wisp.PullStarted
	err := guard(models.WithCall(ctx, thread, turn), person, a, thread, turn, "pull", repo, func(ctx context.Context) error {
		var err error
		p, err = a.Pull(ctx, repo, wisp.ActorModel)
		return err
	})
	return p, err
}

func (f *pullFixture) waitNote(t *testing.T, thread string) string {
	t.Helper()
	select {
	case <-f.noted:
	case <-time.After(20 * time.Second):
		t.Fatal("no note arrived")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.notes[thread]
	if len(n) == 0 {
		t.Fatalf("notes = %v; none for thread %s", f.notes, thread)
	}
	return n[len(n)-1]
}

func TestPullPlanWords(t *testing.T) {
	f := newPullFixture(t)
	pp, err := f.actions.PlanPull(context.Background(), "mlx-community/Qwen3-4B-4bit")
	if err != nil {
		t.Fatal(err)
	}
	n := len(pp.Plan.Files)
	if len(pp.Missing) != n-2 {
		t.Errorf("after the plan %d of %d files are missing, want all but config.json and tokenizer_config.json", len(pp.Missing), n)
	}
	want := []string{
		"downloads " + models.Size(pp.Bytes) + " in " + strconv.Itoa(n-2) + " of " + strconv.Itoa(n) + " files from Hugging Face, as mlx:Qwen3-4B-4bit",
		"its files say it can call tools and think: chat template supports tool calls (json_tools parser, inferred from the chat template)",
		"publisher mlx-community: not trusted: approving pulls it this once, and only the person can trust it (wisp models trust mlx-community, or /models trust in a chat)",
		"licence: apache-2.0",
	}
	if diff := cmp.Diff(want, strings.Split(pp.Text(), "\n")); diff != "" {
		t.Errorf("approval text (-want +got):\n%s", diff)
	}
	f2 := newPullFixture(t, "mlx-community")
	pp2, _ := f2.actions.PlanPull(context.Background(), "mlx-community/Qwen3-4B-4bit")
	if pp2.Publisher() != "publisher mlx-community: trusted" {
		t.Errorf("trusted publisher line = %q", pp2.Publisher())
	}
}

// The model's pull asks the person (once only), returns at once with the
// spec's words, runs in the background, and ends with a note to the
// conversation that asked.
func TestModelPullInTheBackground(t *testing.T) {
	f := newPullFixture(t)
	p, err := f.modelPull(context.Background(), "t1", 2, "mlx-community/qwen3-4b-4bit")
	if err != nil {
		t.Fatal(err)
	}
	line := models.LinePullStarted(p)
	wantPrefix := "pulling mlx-community/Qwen3-4B-4bit in the background (approval 7f3a2c1d): about "
	if !strings.HasPrefix(line, wantPrefix) || !strings.HasSuffix(line, "files. Its end will arrive as a note in this conversation; do not call models to check on it.") {
		t.Errorf("started line = %q", line)
	}
	req := f.approvals.requests[0]
	if req.Command != "models pull mlx-community/Qwen3-4B-4bit" || !cmp.Equal(req.Scopes, []wisp.Scope{wisp.ScopeOnce}) || !req.AlwaysAsk || req.Thread != "t1" {
		t.Errorf("approval request = %+v", req)
	}
	note := f.waitNote(t, "t1")
	want := "[wisp: the pull of mlx-community/Qwen3-4B-4bit you asked for (approval 7f3a2c1d) finished: fetched " + models.Size(p.Bytes) +
		"; it is mlx:Qwen3-4B-4bit. Its files say it can call tools and think: models enable mlx:Qwen3-4B-4bit asks to turn it on and check it]"
	if note != want {
		t.Errorf("note =\n %q\nwant\n %q", note, want)
	}
	m, err := f.actions.Show(context.Background(), "mlx:Qwen3-4B-4bit")
	if err != nil || !m.Usable || m.Enabled {
		t.Errorf("after the pull, Show = %+v, %v; want a usable, disabled model", m, err)
	}
	pulls := f.events.Events("model.pull")
	if len(pulls) != 1 || pulls[0].Approval != "7f3a2c1d" || pulls[0].Source != wisp.SourceTool || pulls[0].Data.(wisp.ModelPullData).Outcome != "finished" {
		t.Errorf("model.pull events = %+v", pulls)
	}
	// The publisher is not trusted: that the pull went ahead on the
	// model's request is on record, with the approval that allowed it.
	pubs := f.events.Events("model.publisher")
	wantData := wisp.ModelPublisherData{Publisher: "mlx-community", Trusted: false, Repo: "mlx-community/Qwen3-4B-4bit"}
	if len(pubs) != 1 || pubs[0].Approval != "7f3a2c1d" || pubs[0].Source != wisp.SourceTool || pubs[0].Thread != "t1" || !cmp.Equal(pubs[0].Data, wantData) {
		t.Errorf("model.publisher events = %+v; want one from the tool under approval 7f3a2c1d on t1 with %v", pubs, wantData)
	}
	// Again: nothing needs fetching.
	pp, _ := f.actions.PlanPull(context.Background(), "mlx-community/Qwen3-4B-4bit")
	if !strings.HasPrefix(pp.Download(), "nothing needs fetching") {
		t.Errorf("second plan = %q", pp.Download())
	}
}

func TestModelPullDeclined(t *testing.T) {
	f := newPullFixture(t)
	f.approvals.answer = policy.Outcome{Reason: "the person declined"}
	_, err := f.modelPull(context.Background(), "", 0, "mlx-community/Qwen3-4B-4bit")
	if err == nil || err.Error() != "not approved: the person declined" {
		t.Errorf("Pull declined = %v", err)
	}
	// Only the small files that say what the model can do were fetched,
	// to ask; no weights.
	for _, r := range f.hub.Requests() {
		if strings.Contains(r.Path, "/resolve/") && !strings.HasSuffix(r.Path, "/config.json") && !strings.HasSuffix(r.Path, "/tokenizer_config.json") || r.Host == "cdn" {
			t.Errorf("a declined pull fetched %s %s", r.Host, r.Path)
		}
	}
}

func TestPullCancelledKeepsWhatArrived(t *testing.T) {
	f := newPullFixture(t)
	// A weight file goes silent part-way, so the pull runs until it is
	// cancelled, however busy the machine.
	f.hub.Stall("mlx-community/Qwen3-4B-4bit/model-00002-of-00002.safetensors", 1)
	if _, err := f.modelPull(context.Background(), "t9", 1, "mlx-community/Qwen3-4B-4bit"); err != nil {
		t.Fatal(err)
	}
	// A second asker while it runs gets the answer that one is running.
	_, err := f.actions.Pull(context.Background(), "mlx-community/Qwen3-4B-4bit", wisp.ActorPerson)
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second pull = %v, want already running", err)
	}
	time.Sleep(100 * time.Millisecond)
	if !f.actions.Cancel("mlx-community/qwen3-4b-4bit") {
		t.Fatal("Cancel found no pull")
	}
	note := f.waitNote(t, "t9")
	if !strings.Contains(note, "was cancelled; what arrived is kept, and pulling it again resumes]") {
		t.Errorf("note = %q", note)
	}
	pp, err := f.actions.PlanPull(context.Background(), "mlx-community/Qwen3-4B-4bit")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.actions.RunPull(context.Background(), pp, false); err != nil {
		t.Fatalf("resumed pull = %v", err)
	}
}

// A cancel asked for from another process once a pull holds its lock, but
// before it fetches (here: while it records the publisher), stops it; it
// is not taken for one an earlier pull left.
func TestPullCancelledBeforeItFetches(t *testing.T) {
	f := newPullFixture(t)
	f.hub.Throttle(2_000) // the fetch outlasts the pull's first look for a cancel
	other := models.New(&models.Options{Pull: &models.PullOptions{Store: hf.Store{Home: f.home}}})
	stale, err := other.RequestCancel("mlx-community/Qwen3-4B-4bit")
	if err != nil || stale {
		t.Fatalf("RequestCancel with no pull running = %v, %v; want false", stale, err)
	}
	var asked bool
	f.onEvent = func(e wisp.Event) {
		if e.Kind() == "model.publisher" {
			asked, err = other.RequestCancel("mlx-community/qwen3-4b-4bit")
		}
	}
	pp, perr := f.actions.PlanPull(context.Background(), "mlx-community/Qwen3-4B-4bit")
	if perr != nil {
		t.Fatal(perr)
	}
	if _, perr = f.actions.RunPull(context.Background(), pp, false); !errors.Is(perr, context.Canceled) {
		t.Errorf("RunPull cancelled from elsewhere before it fetched = %v, want it cancelled", perr)
	}
	if err != nil || !asked {
		t.Errorf("RequestCancel while the pull held its lock = %v, %v; want true", asked, err)
	}
}

// A cancel request an earlier pull left behind (its process ended before
// it looked) does not stop the next pull.
func TestPullClearsAStaleCancel(t *testing.T) {
	f := newPullFixture(t)
	locks := filepath.Join(f.home, "locks")
	if err := os.MkdirAll(locks, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(locks, "pull-mlx-community--qwen3-4b-4bit.cancel")
	if err := os.WriteFile(stale, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pp, err := f.actions.PlanPull(context.Background(), "mlx-community/Qwen3-4B-4bit")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.actions.RunPull(context.Background(), pp, false); err != nil {
		t.Errorf("RunPull after a stale cancel request = %v, want it pulled", err)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale cancel request is still there: %v", err)
	}
}

// Only a pull of a publisher the person has not trusted, going ahead,
// records model.publisher; the person's own records it as theirs.
func TestPullPublisherRecord(t *testing.T) {
	ctx := context.Background()
	t.Run("trusted", func(t *testing.T) {
		f := newPullFixture(t, "mlx-community")
		if _, err := f.modelPull(ctx, "t1", 1, "mlx-community/Qwen3-4B-4bit"); err != nil {
			t.Fatal(err)
		}
		f.waitNote(t, "t1")
		if got := f.events.Events("model.publisher"); len(got) != 0 {
			t.Errorf("model.publisher events = %+v; want none for a trusted publisher", got)
		}
	})
	t.Run("declined", func(t *testing.T) {
		f := newPullFixture(t)
		f.approvals.answer = policy.Outcome{Reason: "the person declined"}
		if _, err := f.modelPull(ctx, "", 0, "mlx-community/Qwen3-4B-4bit"); err == nil {
			t.Fatal("a declined pull went ahead")
		}
		if got := f.events.Events("model.publisher"); len(got) != 0 {
			t.Errorf("model.publisher events = %+v; want none for a pull that did not go ahead", got)
		}
	})
	t.Run("not recorded", func(t *testing.T) {
		for _, by := range []wisp.Actor{wisp.ActorModel, wisp.ActorPerson} {
			f := newPullFixture(t)
			f.failKind = wisp.KindModelPublisher
			var err error
			if by == wisp.ActorModel {
				_, err = f.modelPull(ctx, "t1", 1, "mlx-community/Qwen3-4B-4bit")
			} else {
				pp, perr := f.actions.PlanPull(ctx, "mlx-community/Qwen3-4B-4bit")
				if perr != nil {
					t.Fatal(perr)
				}
				_, err = f.actions.RunPull(ctx, pp, false)
			}
			if !errors.Is(err, wisp.ErrNotRecorded) {
				t.Errorf("a %s's pull whose model.publisher cannot be recorded = %v, want wisp.ErrNotRecorded", by, err)
			}
			if got := f.events.Events("model.pull"); len(got) != 0 {
				t.Errorf("model.pull events = %+v; want none for a pull that did not go ahead", got)
			}
		}
	})
	t.Run("the person's own", func(t *testing.T) {
		f := newPullFixture(t)
		pp, err := f.actions.PlanPull(ctx, "mlx-community/Qwen3-4B-4bit")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.actions.RunPull(ctx, pp, false); err != nil {
			t.Fatal(err)
		}
		pubs := f.events.Events("model.publisher")
		if len(pubs) != 1 || pubs[0].Source != wisp.SourcePerson || pubs[0].Approval != "" || pubs[0].Data.(wisp.ModelPublisherData).Trusted != false {
			t.Errorf("model.publisher events = %+v; want one from the person, not trusted", pubs)
		}
	})
	t.Run("trusted since the plan", func(t *testing.T) {
		f := newPullFixture(t)
		pp, err := f.actions.PlanPull(ctx, "mlx-community/Qwen3-4B-4bit")
		if err != nil {
			t.Fatal(err)
		}
		if err := f.actions.Trust(ctx, "mlx-community", wisp.ActorPerson); err != nil {
			t.Fatal(err)
		}
		if _, err := f.actions.RunPull(ctx, pp, false); err != nil {
			t.Fatal(err)
		}
		pubs := f.events.Events("model.publisher")
		if len(pubs) != 1 || pubs[0].Data.(wisp.ModelPublisherData).Trusted != true {
			t.Errorf("model.publisher events = %+v; want only the trust", pubs)
		}
	})
}

// heldApprovals is a person who, asked, answers only when the test says;
// a request put while another waits is refused at once.
type heldApprovals struct {
	asked   chan policy.Request
	answer  chan policy.Outcome
	mu      sync.Mutex
	waiting bool
}

func (h *heldApprovals) Ask(ctx context.Context, r policy.Request) (policy.Outcome, error) {
	h.asked <- r
	h.mu.Lock()
	if h.waiting {
		h.mu.Unlock()
		return policy.Outcome{Reason: "asked while another request waits"}, nil
	}
	h.waiting = true
	h.mu.Unlock()
	out := <-h.answer
	h.mu.Lock()
	h.waiting = false
	h.mu.Unlock()
	return out, nil
}

// A second pull of a repository whose first pull waits for the person, or
// runs, is refused at once: the person is not asked about it.
func TestSecondPullRefusedBeforeAsking(t *testing.T) {
	f := newPullFixture(t)
	held := &heldApprovals{asked: make(chan policy.Request, 4), answer: make(chan policy.Outcome)}
	hub, err := hf.NewClient(&hf.ClientOptions{Endpoint: f.hub.URL})
	if err != nil {
		t.Fatal(err)
	}
	a := models.New(&models.Options{
		Backends: []models.Backend{mlx.New(f.home)}, Events: f.events,
		Settings: config.Store{Path: filepath.Join(f.home, "config.json"), LockPath: filepath.Join(f.home, "config.lock")},
		Pull:     &models.PullOptions{Hub: hub, Store: hf.Store{Home: f.home}},
	})
	t.Cleanup(a.Close)
	f.hub.Stall("mlx-community/Qwen3-4B-4bit/model-00002-of-00002.safetensors", 1)
	ctx := context.Background()
	first := make(chan error, 1)
	go func() {
		_, err := pullAs(ctx, held, a, "t1", 1, "mlx-community/Qwen3-4B-4bit")
		first <- err
	}()
	<-held.asked // the first waits for the person

	want := "a pull of mlx-community/Qwen3-4B-4bit is already running; its end arrives as a note to the conversation that asked for it, so do not ask for it again"
	second := func(when string) {
		t.Helper()
		if _, err := pullAs(ctx, held, a, "t1", 2, "MLX-Community/qwen3-4b-4bit"); err == nil || err.Error() != want || !errors.Is(err, models.ErrPullRunning) {
			t.Errorf("the model, %s: Pull = %v, want %q", when, err, want)
		}
		if _, err := a.Pull(ctx, "MLX-Community/qwen3-4b-4bit", wisp.ActorPerson); err == nil || err.Error() != want || !errors.Is(err, models.ErrPullRunning) {
			t.Errorf("the person, %s: Pull = %v, want %q", when, err, want)
		}
	}
	second("while the first waits")
	held.answer <- policy.Outcome{Approved: true, ID: "ap1", Scope: wisp.ScopeOnce}
	if err := <-first; err != nil {
		t.Fatalf("the first pull = %v", err)
	}
	second("while the first runs")
	select {
	case r := <-held.asked:
		t.Errorf("the person was asked again: %+v", r)
	default:
	}

	// A refused request lets go of the lock: the next one is asked.
	a.Close()
	go func() { held.answer <- policy.Outcome{Reason: "the person declined"} }()
	if _, err := pullAs(ctx, held, a, "t1", 3, "mlx-community/Qwen3-4B-4bit"); !errors.Is(err, wisp.ErrNotApproved) {
		t.Errorf("after the first ended: Pull = %v, want it asked and declined", err)
	}
	<-held.asked
	go func() { held.answer <- policy.Outcome{Reason: "the person declined"} }()
	if _, err := pullAs(ctx, held, a, "t1", 4, "mlx-community/Qwen3-4B-4bit"); !errors.Is(err, wisp.ErrNotApproved) {
		t.Errorf("after a declined pull: Pull = %v, want it asked again, not refused as running", err)
	}
	<-held.asked
}

// The model's pull goes ahead only under an approval of exactly it, and
// with the plan and the lock its request held while the person decided.
func TestModelPullNeedsItsApproval(t *testing.T) {
	f := newPullFixture(t)
	ctx := context.Background()
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{ctx, "not approved: no person can approve here"},
		{models.WithApproval(ctx, wisp.Approval{ID: "ap9", Command: "models pull org/other"}),
			"not approved: approval ap9 was for models pull org/other, not models pull mlx-community/Qwen3-4B-4bit; ask again"},
	} {
		if _, err := f.actions.Pull(tc.ctx, "mlx-community/Qwen3-4B-4bit", wisp.ActorModel); err == nil || err.Error() != tc.want {
			t.Errorf("Pull = %v, want %q", err, tc.want)
		}
	}
	// The lock is free: nothing refused kept it.
	act, err := f.actions.Action(ctx, "pull", "mlx-community/qwen3-4b-4bit")
	if err != nil || act.NoApproval || act.Release == nil {
		t.Fatalf("Action(pull) = %+v, %v; want the person asked", act, err)
	}
	want := wisp.Action{Kind: "modelAction", Command: "models pull mlx-community/Qwen3-4B-4bit", Pattern: "models pull *",
		Scopes: []wisp.Scope{wisp.ScopeOnce}, AlwaysAsk: true}
	// The plan is held, so a second plan cannot read the model's files:
	// it says the rest.
	pp, _ := f.actions.PlanPull(ctx, "mlx-community/Qwen3-4B-4bit")
	if pp.Verdict != nil {
		t.Errorf("a plan while the pull is held read the files again: %+v", pp.Verdict)
	}
	want.Text = strings.Join([]string{pp.Download(),
		"its files say it can call tools and think: chat template supports tool calls (json_tools parser, inferred from the chat template)",
		pp.Publisher(), pp.Licence()}, "\n")
	got := act
	got.Release = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Action(pull) (-want +got):\n%s", diff)
	}
	// Released twice, or after the pull took it: let go once.
	act.Release()
	act.Release()
	if again, err := f.actions.Action(ctx, "pull", "mlx-community/Qwen3-4B-4bit"); err != nil || again.NoApproval {
		t.Errorf("after Release, Action(pull) = %+v, %v; want the person asked again", again, err)
	} else {
		f.hub.Stall("mlx-community/Qwen3-4B-4bit/model-00002-of-00002.safetensors", 1) // it runs until cancelled
		if _, err := f.actions.Pull(models.WithApproval(models.WithCall(ctx, "t1", 1), wisp.Approval{ID: "ap2", Command: again.Command}), "mlx-community/Qwen3-4B-4bit", wisp.ActorModel); err != nil {
			t.Fatalf("the approved Pull = %v", err)
		}
		again.Release() // the pull holds the lock now; this lets go of nothing
		if _, err := f.actions.Pull(ctx, "mlx-community/Qwen3-4B-4bit", wisp.ActorPerson); !errors.Is(err, models.ErrPullRunning) {
			t.Errorf("while the approved pull runs, the person's Pull = %v, want it refused as running", err)
		}
		if !f.actions.Cancel("mlx-community/Qwen3-4B-4bit") {
			t.Error("Cancel found no pull")
		}
		f.waitNote(t, "t1")
	}
}

// A pull's plan fetches the small files that say what the model can do,
// and no weights, and says it before anything else moves: whether the
// model can call tools and think, as its check will judge it. The pulled
// model's facts and its check agree with that.
func TestPullKnowsBeforeTheWeights(t *testing.T) {
	for _, tc := range []struct {
		repo, name string
		caps       []string
		abilities  string
		agentless  bool
	}{
		{"mlx-community/Qwen3-4B-4bit", "mlx:Qwen3-4B-4bit", []string{"completion", "tools", "thinking"},
			"its files say it can call tools and think: chat template supports tool calls (json_tools parser, inferred from the chat template)", false},
		{"mlx-community/SmolLM-135M-4bit", "mlx:SmolLM-135M-4bit", []string{"completion"},
			"its files say it cannot call tools, so wisp cannot run it as an agent: chat template does not support tool calls", true},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			ctx := context.Background()
			f := newPullFixture(t)
			pp, err := f.actions.PlanPull(ctx, tc.repo)
			if err != nil {
				t.Fatal(err)
			}
			var fetched []string
			for _, r := range f.hub.Requests() {
				if i := strings.Index(r.Path, "/resolve/"); i >= 0 {
					fetched = append(fetched, r.Path[strings.LastIndex(r.Path, "/")+1:])
				}
			}
			if diff := cmp.Diff([]string{"config.json", "tokenizer_config.json"}, fetched, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("the plan fetched (-want +got):\n%s", diff)
			}
			if pp.Verdict == nil || !cmp.Equal(tc.caps, pp.Verdict.Capabilities) || pp.Abilities() != tc.abilities || pp.Agentless() != tc.agentless {
				t.Fatalf("plan: verdict %+v, abilities %q, agentless %v; want %q, %q, %v", pp.Verdict, pp.Abilities(), pp.Agentless(), tc.caps, tc.abilities, tc.agentless)
			}
			if lines := strings.Split(pp.Text(), "\n"); len(lines) < 2 || lines[1] != tc.abilities {
				t.Errorf("approval text = %q, want its second line %q", pp.Text(), tc.abilities)
			}
			if _, err := f.actions.RunPull(ctx, pp, false); err != nil {
				t.Fatal(err)
			}
			m, err := f.actions.Show(ctx, tc.name)
			if err != nil || !cmp.Equal(tc.caps, m.Capabilities) {
				t.Errorf("after the pull, show = %+v, %v; want capabilities %q", m, err, tc.caps)
			}
			_, err = f.actions.Check(ctx, tc.name, wisp.ActorPerson)
			if tc.agentless != errors.Is(err, models.ErrCheckFailed) {
				t.Errorf("after the pull, check = %v; want it to fail %v", err, tc.agentless)
			}
		})
	}
}
