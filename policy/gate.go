package policy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/wisp-agent/wisp"
)

// GateOptions configure a Gate. A nil *GateOptions or a zero field means
// the default given beside the field.
type GateOptions struct {
	// Approver puts requests to the person. nil: no person can approve
	// here, and every request that must be asked is refused.
	Approver wisp.Approver
	// Events receives classifier.verdict, approval.requested and
	// approval.decided; nil drops them.
	Events wisp.EventSink
	// Session names the session in events and requests. Answers of "this
	// session" last as long as the Gate.
	Session string
	// Threshold is approval.threshold: a request whose command is rated
	// below it is allowed without asking, unless Request.AlwaysAsk. The
	// zero value, Safe, asks about everything; Dangerous is always asked.
	Threshold Rating
	// Timeout is how long a request waits for the person before it is
	// refused; 0 (the default) or less waits for ever.
	Timeout time.Duration
	// Classifier rates each request's command, with the rows of the
	// tools whose actions the gate judges (models.Rules). nil: the
	// person-only rows alone (Classify), so every other command is
	// dangerous and asked.
	Classifier *Classifier
	// Keeper keeps the person's answers of scope project and always,
	// and finds them for later requests, in later sessions too. nil:
	// nothing is kept, so an answer of project or always is narrowed to
	// the session.
	Keeper Keeper
	// Project names the workspace answers of scope project hold in: its
	// path, every link resolved. Empty: no answer is kept for a project,
	// and one of project is narrowed to the session.
	Project string
	// Now and NewID make time and approval ids injectable; nil: the clock
	// and 32 random bits in hex.
	Now   func() time.Time
	NewID func() string
}

// A Gate decides whether what the model asks for may go ahead: it rates
// the command, lets an earlier answer whose pattern covers it (one of
// this session, or one the Keeper kept for this project or always) let
// it through, allows what is rated below the threshold, and otherwise
// asks the person through the Approver, narrowing the answer to the
// scopes the request and the command's rating allow (WidestScope: a
// dangerous command once only). Answers of project and always are kept through the Keeper.
// Every step is recorded.
//
// A Gate is one session: what the person allowed for the session is
// forgotten with it. It is safe for concurrent use; it does not serialise
// requests (the face does, if it must).
type Gate struct {
	opts GateOptions

	mu      sync.Mutex
	session map[answered]remembered
}

// answered is what an answer of the session was given about: a request's
// kind and pattern.
type answered struct{ kind, pattern string }

// remembered is an answer that covers a pattern for the session.
type remembered struct {
	id    string
	scope wisp.Scope
}

// NewGate returns a gate with the given options.
func NewGate(opts *GateOptions) *Gate {
	g := &Gate{session: make(map[answered]remembered)}
	if opts != nil {
		g.opts = *opts
	}
	if g.opts.Threshold > Dangerous {
		// Nothing is rated above Dangerous; a higher threshold must not let
		// dangerous commands through unasked.
		g.opts.Threshold = Dangerous
	}
	if g.opts.Now == nil {
		g.opts.Now = time.Now
	}
	if g.opts.NewID == nil {
		g.opts.NewID = randomID
	}
	if g.opts.Classifier == nil {
		g.opts.Classifier = plain
	}
	return g
}

// A Request is something the model asked for that needs the gate.
type Request struct {
	// Thread and Turn say where it was asked.
	Thread string
	Turn   int
	// Kind names the request's kind, such as "modelAction".
	Kind string
	// Command is what the classifier judges and the person sees, such as
	// "models enable ollama:qwen3:4b".
	Command string
	// Pattern is what an answer of "this session" covers, such as
	// "models enable *"; later requests of the same Kind are covered by
	// it when their Pattern is the same, or when the classifier finds it
	// covers their Command (Classifier.Covers, which a shell line's
	// pattern answers part by part). A request without one is never covered and may be
	// answered only once.
	Pattern string
	// Text is what the person needs to know, in lines.
	Text string
	// Diff, when set, is the change to a file the request would allow,
	// as a unified diff (wisp.Action.Diff): the person is shown it, and
	// approval.requested records it.
	Diff string
	// Scopes are the answers the request allows, such as
	// {ScopeOnce, ScopeSession}. nil or empty means {ScopeOnce}; unknown
	// scopes and ScopeNone are dropped, and so are those wider than the
	// command's rating allows (WidestScope), ScopeProject and ScopeAlways
	// when the gate cannot keep them (GateOptions.Keeper, Project), and
	// every scope but ScopeOnce when there is no Pattern. A request that
	// allows only ScopeOnce is always asked, never covered.
	Scopes []wisp.Scope
	// AlwaysAsk asks the person whatever the threshold says (model
	// actions). An earlier answer of "this session" still covers it.
	AlwaysAsk bool
}

// An Outcome is how the gate decided a request.
type Outcome struct {
	// Approved reports whether the request may go ahead.
	Approved bool
	// ID is the approval's id, which records of what the change does
	// carry; for a covered request, the id of the answer that covered it.
	ID string
	// Scope is how far the approval reaches after narrowing; ScopeNone
	// when refused.
	Scope wisp.Scope
	// DowngradedFrom is the answer the person gave when it was wider than
	// the request allows and Scope is what it was narrowed to.
	DowngradedFrom wisp.Scope
	// Covered reports that an earlier answer (of this session, or one
	// kept for this project or always) allowed the request without
	// asking.
	Covered bool
	// Reason says why a request was refused (for the model, after
	// LineNotApproved), or why it was allowed without asking.
	Reason string
	// FileSHA256 is the Decision's: set when the person's answer was
	// taken from a file another process filed (wisp.Decision.FileSHA256).
	FileSHA256 string
}

// Ask decides r. It records classifier.verdict, then either approval.decided
// at once (the person's alone, covered, or below the threshold), or
// approval.requested, the question to the Approver under
// GateOptions.Timeout, and approval.decided.
//
// A command the classifier finds is the person's alone (Verdict.PersonOnly:
// wisp's own questions and approvals are answered through it, or its
// settings changed) is refused outright with the verdict's reason: no one
// is asked, and no earlier answer covers it.
//
// A refusal (declined, timed out, no person, an Approver that failed, an
// answer the request does not allow) is an Outcome with Approved false and
// a nil error. Ask returns an error only when the turn cannot go on: ctx
// was cancelled by the caller (its cause), the person stopped the turn at
// the prompt (wisp.ErrInterrupted), or the audit could not record the
// request (wisp.ErrNotRecorded: nothing unrecorded goes ahead). The
// Outcome then says the request was refused. A cancelled request is never
// an approval, and nothing refused is remembered.
func (g *Gate) Ask(ctx context.Context, r Request) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{Reason: context.Cause(ctx).Error()}, context.Cause(ctx)
	}
	v := g.opts.Classifier.Classify(r.Command)
	if v.PersonOnly {
		// Only the person may do this: nobody is asked, nothing covers it.
		id := g.opts.NewID()
		out := Outcome{ID: id, Reason: v.Reason}
		if err := g.record(ctx, r, wisp.SourceWisp, id, verdictData(v)); err != nil {
			return auditFailed(id, err)
		}
		if err := g.record(ctx, r, wisp.SourceWisp, id, decidedData(out)); err != nil {
			return auditFailed(id, err)
		}
		return out, nil
	}
	pattern, scopes := g.reach(r, v)
	r.Pattern = pattern

	earlier, ok := g.covering(r, scopes)
	var keptErr error
	if !ok {
		earlier, ok, keptErr = g.kept(ctx, r, scopes)
	}
	if ok {
		out := Outcome{Approved: true, ID: earlier.id, Scope: min(earlier.scope, scopes[len(scopes)-1]), Covered: true}
		if err := g.record(ctx, r, wisp.SourceWisp, out.ID, verdictData(v)); err != nil {
			return auditFailed(out.ID, err)
		}
		data := decidedData(out)
		data.Covered = true
		if err := g.record(ctx, r, wisp.SourceWisp, out.ID, data); err != nil {
			return auditFailed(out.ID, err)
		}
		return out, nil
	}

	id := g.opts.NewID()
	if err := g.record(ctx, r, wisp.SourceWisp, id, verdictData(v)); err != nil {
		return auditFailed(id, err)
	}
	if v.Rating < g.opts.Threshold && !r.AlwaysAsk {
		out := Outcome{Approved: true, ID: id, Scope: wisp.ScopeOnce, Reason: ReasonBelowThreshold}
		if err := g.record(ctx, r, wisp.SourceWisp, id, decidedData(out)); err != nil {
			return auditFailed(id, err)
		}
		return out, nil
	}

	req := wisp.ApprovalRequest{
		ID: id, Session: g.opts.Session, Thread: r.Thread, Turn: r.Turn,
		Kind: r.Kind, Command: r.Command, Pattern: r.Pattern, Text: r.Text, Diff: r.Diff, Scopes: slices.Clone(scopes),
	}
	if keptErr != nil {
		// The person is told why no kept answer covered the request.
		if req.Text != "" {
			req.Text += "\n"
		}
		req.Text += LineKeptUnread + oneLine(keptErr.Error())
	}
	askCtx := ctx
	if g.opts.Timeout > 0 {
		req.Deadline = g.opts.Now().Add(g.opts.Timeout)
		var cancel context.CancelFunc
		askCtx, cancel = context.WithTimeout(ctx, g.opts.Timeout)
		defer cancel()
	}
	if err := g.record(ctx, r, wisp.SourceWisp, id, requestedData(req, v, g.opts.Timeout > 0)); err != nil {
		return auditFailed(id, err)
	}

	out, source, stop := g.decide(ctx, askCtx, req)
	if out.Approved && out.Scope >= wisp.ScopeProject {
		out = g.keep(ctx, r, out, scopes)
	}
	if err := g.record(ctx, r, source, id, decidedData(out)); err != nil {
		return auditFailed(id, err)
	}
	if out.Approved && out.Scope >= wisp.ScopeSession {
		g.remember(answered{r.Kind, r.Pattern}, remembered{id: id, scope: out.Scope})
	}
	return out, stop
}

// reach returns the pattern an answer to r may cover and the scopes it
// allows, narrowest first: the request's own, less those wider than the
// command's rating allows (WidestScope) and those the gate cannot keep.
//
// The pattern is the request's: the tool says it, over the parts of the
// command where a classifier parses it (a shell line's, from
// policy/shell), and covers compares it.
func (g *Gate) reach(r Request, v Verdict) (string, []wisp.Scope) {
	widest := WidestScope(v.Rating)
	if g.opts.Keeper == nil {
		widest = min(widest, wisp.ScopeSession)
	}
	var out []wisp.Scope
	for _, s := range allowed(r) {
		if s <= widest && (s != wisp.ScopeProject || g.opts.Project != "") {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = []wisp.Scope{wisp.ScopeOnce}
	}
	return r.Pattern, out
}

// kept returns the widest answer the Keeper kept that covers r here, no
// wider than r allows.
func (g *Gate) kept(ctx context.Context, r Request, scopes []wisp.Scope) (remembered, bool, error) {
	widest := scopes[len(scopes)-1]
	if g.opts.Keeper == nil || r.Pattern == "" || widest < wisp.ScopeProject {
		return remembered{}, false, nil
	}
	ks, err := g.opts.Keeper.Kept(ctx, g.opts.Project)
	if err != nil {
		return remembered{}, false, err
	}
	var found remembered
	ok := false
	for _, k := range ks {
		here := k.Scope == wisp.ScopeAlways && k.Project == "" ||
			k.Scope == wisp.ScopeProject && g.opts.Project != "" && k.Project == g.opts.Project
		if here && k.Scope <= widest && (!ok || k.Scope > found.scope) && g.covers(k.Kind, k.Pattern, r) {
			found, ok = remembered{id: k.ID, scope: k.Scope}, true
		}
	}
	return found, ok, nil
}

// keep keeps an approval of scope project or always. One that cannot be
// kept is narrowed to the widest scope below project that the request
// allows, the person's answer kept as DowngradedFrom and why in Reason.
func (g *Gate) keep(ctx context.Context, r Request, out Outcome, scopes []wisp.Scope) Outcome {
	k := Kept{ID: out.ID, Kind: r.Kind, Command: r.Command, Pattern: r.Pattern, Scope: out.Scope, Time: g.opts.Now()}
	if k.Scope == wisp.ScopeProject {
		k.Project = g.opts.Project
	}
	err := g.opts.Keeper.Keep(context.WithoutCancel(ctx), k)
	if err == nil {
		return out
	}
	if out.DowngradedFrom == wisp.ScopeNone {
		out.DowngradedFrom = out.Scope
	}
	out.Scope = wisp.ScopeOnce
	for _, s := range scopes {
		if s < wisp.ScopeProject {
			out.Scope = s
		}
	}
	out.Reason = ReasonNotKept(err)
	return out
}

// decide puts req to the Approver and turns what comes back into an
// Outcome, the source of the approval.decided record, and the error that
// ends the turn, if any.
func (g *Gate) decide(ctx, askCtx context.Context, req wisp.ApprovalRequest) (Outcome, string, error) {
	var sum string // the file the answer was taken from, if any
	refused := func(reason string) Outcome { return Outcome{ID: req.ID, Reason: reason, FileSHA256: sum} }
	if g.opts.Approver == nil {
		return refused(ReasonNoPerson), wisp.SourceWisp, nil
	}
	d, err := g.opts.Approver.Approve(askCtx, req)
	if err == nil {
		sum = d.FileSHA256
	}
	switch {
	case ctx.Err() != nil:
		// The caller gave up; whatever the face said, it is not an approval.
		cause := context.Cause(ctx)
		return refused(cause.Error()), wisp.SourceWisp, cause
	case askCtx.Err() != nil:
		// The deadline passed; an answer that raced it does not count.
		return refused(ReasonTimedOut(g.opts.Timeout)), wisp.SourceWisp, nil
	case errors.Is(err, wisp.ErrInterrupted):
		return refused(err.Error()), wisp.SourcePerson, wisp.ErrInterrupted
	case err != nil:
		return refused(err.Error()), wisp.SourceWisp, nil
	}
	source := wisp.SourceWisp
	if d.Provenance == wisp.FromPerson {
		source = wisp.SourcePerson
	}
	switch {
	case d.Provenance == wisp.FromUnknown:
		// The zero provenance: a face that does not say who answered
		// speaks for nobody, whatever its answer.
		return refused(ReasonUnknownProvenance), source, nil
	case d.Scope <= wisp.ScopeNone:
		reason := d.Reason
		if reason == "" {
			reason = ReasonDeclined
		}
		return refused(reason), source, nil
	case d.Scope > wisp.ScopeAlways:
		return refused(ReasonNotOffered), source, nil
	case d.Provenance != wisp.FromPerson:
		// Only a person approves: a face's default or fallback never does.
		return refused(ReasonNoPerson), source, nil
	}
	// Narrow to the widest allowed scope no wider than the answer.
	var scope wisp.Scope
	for _, s := range req.Scopes {
		if s <= d.Scope {
			scope = s
		}
	}
	if scope == wisp.ScopeNone {
		return refused(ReasonNotOffered), source, nil
	}
	out := Outcome{Approved: true, ID: req.ID, Scope: scope, FileSHA256: sum}
	switch {
	case scope != d.Scope:
		out.DowngradedFrom = d.Scope
	case d.DowngradedFrom > d.Scope && d.DowngradedFrom <= wisp.ScopeAlways:
		// The face narrowed it already; keep what the person said.
		out.DowngradedFrom = d.DowngradedFrom
	}
	return out, source, nil
}

// covering returns the widest earlier answer of the session that covers
// r, if r allows an answer that could have covered it.
func (g *Gate) covering(r Request, scopes []wisp.Scope) (remembered, bool) {
	if r.Pattern == "" || scopes[len(scopes)-1] < wisp.ScopeSession {
		return remembered{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var found remembered
	ok := false
	for a, m := range g.session {
		if (!ok || m.scope > found.scope) && g.covers(a.kind, a.pattern, r) {
			found, ok = m, true
		}
	}
	return found, ok
}

// covers reports whether an earlier answer given for pattern, about a
// request of kind, covers r: r is of the same kind and offers a pattern,
// and either its pattern is the same or the classifier finds that the
// pattern covers r's command, whose parts rated below the threshold need
// no cover (Classifier.Covers: "git commit *" covers git commit -m x; a
// shell line is covered when every part of it that needs an answer is).
// It is the one place the gate compares patterns.
func (g *Gate) covers(kind, pattern string, r Request) bool {
	if r.Pattern == "" || pattern == "" || kind != r.Kind {
		return false
	}
	return pattern == r.Pattern || g.opts.Classifier.Covers(pattern, r.Command, g.opts.Threshold)
}

func (g *Gate) remember(a answered, m remembered) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.session[a] = m
}

// auditFailed refuses a request the audit could not record, and ends the
// turn: err wraps wisp.ErrNotRecorded (record).
func auditFailed(id string, err error) (Outcome, error) {
	return Outcome{ID: id, Reason: ReasonAuditFailed(err)}, err
}

// record writes one event. Audit is lossless: a cancelled turn still
// records how its request ended (the log waits out other writers whatever
// ctx says). An event that was not recorded is an error wrapping
// wisp.ErrNotRecorded.
func (g *Gate) record(ctx context.Context, r Request, source, id string, data wisp.EventData) error {
	return wisp.Record(ctx, g.opts.Events, wisp.Event{
		Time: g.opts.Now(), Session: g.opts.Session, Thread: r.Thread, Turn: r.Turn,
		Source: source, Approval: id, Data: data,
	})
}

// allowed returns the scopes r allows, narrowest first, without repeats.
func allowed(r Request) []wisp.Scope {
	var out []wisp.Scope
	for s := wisp.ScopeOnce; s <= wisp.ScopeAlways; s++ {
		if slices.Contains(r.Scopes, s) && (s == wisp.ScopeOnce || r.Pattern != "") {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = []wisp.Scope{wisp.ScopeOnce}
	}
	return out
}

func verdictData(v Verdict) wisp.ClassifierVerdictData {
	return wisp.ClassifierVerdictData{Command: v.Command, Rating: v.Rating.String(), Reason: v.Reason}
}

func requestedData(req wisp.ApprovalRequest, v Verdict, deadline bool) wisp.ApprovalRequestedData {
	names := make([]string, len(req.Scopes))
	for i, s := range req.Scopes {
		names[i] = s.String()
	}
	d := wisp.ApprovalRequestedData{
		ID: req.ID, Kind: req.Kind, Command: req.Command, Pattern: req.Pattern,
		Text: req.Text, Diff: req.Diff, Scopes: names, Rating: v.Rating.String(),
	}
	if deadline {
		d.Deadline = req.Deadline.UTC().Format(time.RFC3339)
	}
	return d
}

func decidedData(out Outcome) wisp.ApprovalDecidedData {
	d := wisp.ApprovalDecidedData{ApprovalID: out.ID, Decision: "refused", Scope: out.Scope.String(),
		Reason: out.Reason, FileSHA256: out.FileSHA256}
	if out.Approved {
		d.Decision = "approved"
	}
	if out.DowngradedFrom != wisp.ScopeNone {
		d.DowngradedFrom = out.DowngradedFrom.String()
	}
	return d
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
