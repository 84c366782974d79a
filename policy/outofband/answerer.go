package outofband

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wisp-agent/wisp"
)

// ErrNoPerson: an Answerer has no way to ask a person to confirm, so
// nobody can answer here.
var ErrNoPerson = errors.New("no person can answer an approval request here")

// ErrNoWitness: an Answerer's Store has no Witness to record who answers,
// so no answer is filed: the gate takes only answers recorded.
var ErrNoWitness = errors.New("nothing records who answers an approval request here, so no answer is filed")

// ErrNotOffered: an approval is wider than nothing the request offers
// can be narrowed from; it is not filed.
var ErrNotOffered = errors.New("approval scope not offered")

// An Answerer files a person's answer to an approval request, with the
// rules every face that answers one shares: it looks the request up,
// refuses where no person can answer, shows the request, leaves a wider
// scope for the gate to narrow (and says so), files an approval only once
// the person confirms it, and files through Store, whose Witness records
// who answered before the decision's file appears. What a face shows and
// how it reads the confirmation are its own, in Show, Confirm and Say.
//
// Set the fields before the first call and do not change them after.
type Answerer struct {
	// Store is the approvals folder. It must have a Witness (the audit
	// log); without one every answer is refused (ErrNoWitness).
	Store Store
	// Confirm asks the person to confirm approving r for scope, and
	// reports whether they did. It returns io.EOF when the input ends, and
	// ctx's error when ctx ends (at r's deadline, or when the person
	// stops). nil: every answer is refused (ErrNoPerson), after Refuse.
	Confirm func(ctx context.Context, r Request, scope wisp.Scope) (bool, error)
	// From names the face in the decision: FromTerminal.
	From string
	// Terminal names the terminal the person answers at, such as
	// /dev/pts/3, for the record of who answered.
	Terminal string
	// Refuse, when set, is asked once the ID and the request have been
	// checked whether verb ("approvals approve", "approvals deny") on
	// request id may go on here: an error, which says why no person can
	// answer here, refuses it.
	Refuse func(verb, id string) error
	// Commands is how the person runs these commands, for the lines that
	// say what to do next: "wisp approvals".
	Commands string
	// Show, when set, shows r before it is answered.
	Show func(r Request)
	// Say tells the person one line about r: a scope narrowed, what was
	// filed. nil: nothing is told.
	Say func(r Request, line string)
}

// Answer shows request id and files the person's answer: an approval of
// scope, or a denial when scope is wisp.ScopeNone. An approval is filed
// only once the person confirms it; an approval wider than the request
// offers is filed as given, and the gate narrows it. Nothing is filed
// when the person stops (ctx ends), the input ends, or the request's
// deadline passes: the error says so. An answer to a request answered,
// withdrawn or filed again meanwhile is refused.
func (a *Answerer) Answer(ctx context.Context, id string, scope wisp.Scope) error {
	r, err := a.lookup(id, scope)
	if err != nil {
		return err
	}
	if a.Show != nil {
		a.Show(r)
	}
	if scope != wisp.ScopeNone {
		ok, err := a.confirm(ctx, r, scope)
		if err != nil || !ok {
			return err
		}
	}
	if err := a.decide(ctx, r, scope); err != nil {
		return err
	}
	if scope == wisp.ScopeNone {
		a.say(r, fmt.Sprintf("approval %s: denied; the request is refused and nothing changes", r.ID))
	} else {
		a.say(r, fmt.Sprintf("approval %s: approved %s; the request goes ahead", r.ID, r.Narrowed(scope)))
	}
	return nil
}

// lookup returns the waiting request id, or why it cannot be answered
// here.
func (a *Answerer) lookup(id string, scope wisp.Scope) (Request, error) {
	r, err := a.Store.Get(id)
	switch {
	case errors.Is(err, ErrDecided):
		return Request{}, fmt.Errorf("%w; the first answer wins", err)
	case err != nil:
		return Request{}, err
	}
	verb := a.verb(scope)
	if a.Refuse != nil {
		if err := a.Refuse(verb, r.ID); err != nil {
			return Request{}, err
		}
	}
	switch {
	case a.Confirm == nil:
		return Request{}, fmt.Errorf("%s %s: %w", verb, r.ID, ErrNoPerson)
	case a.Store.Witness == nil:
		return Request{}, fmt.Errorf("%s %s: %w", verb, r.ID, ErrNoWitness)
	}
	return r, nil
}

// verb is the command that gives an answer of scope: "approvals approve".
func (a *Answerer) verb(scope wisp.Scope) string {
	return strings.TrimPrefix(a.command(scope), "wisp ")
}

// command is how the person runs the command that gives an answer of
// scope: "wisp approvals approve".
func (a *Answerer) command(scope wisp.Scope) string {
	if scope == wisp.ScopeNone {
		return a.Commands + " deny"
	}
	return a.Commands + " approve"
}

// confirm checks that the request can take an approval of scope, says
// when the gate will narrow it, and asks the person to confirm it until
// r's deadline. It returns an error when nothing is to be filed.
func (a *Answerer) confirm(ctx context.Context, r Request, scope wisp.Scope) (bool, error) {
	if !r.Narrows(scope) {
		return false, notOffered{fmt.Sprintf("approval request %s does not offer %s or a narrower scope; it offers %s, so run %s approve %s --scope %s", r.ID, scope, r.Offered(), a.Commands, r.ID, r.Scopes[0])}
	}
	takes := r.Narrowed(scope)
	if takes != scope {
		a.say(r, fmt.Sprintf("approval request %s does not offer %s; it is narrowed to %s", r.ID, scope, takes))
	}
	if !r.Deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, r.Deadline)
		defer cancel()
	}
	ok, err := a.Confirm(ctx, r, takes)
	switch {
	case errors.Is(err, io.EOF):
		return false, fmt.Errorf("the input ended; nothing was filed for approval request %s (%s approve %s asks again)", r.ID, a.Commands, r.ID)
	case errors.Is(err, context.DeadlineExceeded):
		return false, fmt.Errorf("approval request %s ran out of time; nothing was filed, and the request is refused", r.ID)
	case err != nil:
		return false, fmt.Errorf("stopped; nothing was filed for approval request %s (%s approve %s asks again)", r.ID, a.Commands, r.ID)
	case !ok:
		a.say(r, fmt.Sprintf("not approved; nothing was filed (%s deny %s refuses it; it is refused anyway if nobody answers in time)", a.Commands, r.ID))
	}
	return ok, nil
}

// decide files the answer scope to r. Filing waits for the folder's
// lock; ctx may still stop it. The store's Witness records
// approval.answered before the decision appears.
func (a *Answerer) decide(ctx context.Context, r Request, scope wisp.Scope) error {
	d := Decision{ID: r.ID, Digest: r.Digest, Scope: scope, From: a.From, Terminal: a.Terminal}
	switch err := a.Store.Decide(ctx, d); {
	case errors.Is(err, ErrStale):
		return fmt.Errorf("approval request %s was filed again while you answered, so your answer to what you were shown was not filed; run %s %s to see it as it is now", r.ID, a.command(scope), r.ID)
	case errors.Is(err, ErrDecided):
		return fmt.Errorf("%w; the first answer wins, so yours was not filed", err)
	case errors.Is(err, ErrWithdrawn), errors.Is(err, ErrNoRequest):
		return fmt.Errorf("%w; your answer was not filed", err)
	case errors.Is(err, wisp.ErrInterrupted), errors.Is(err, context.Canceled):
		return fmt.Errorf("stopped; nothing was filed for approval request %s", r.ID)
	case err != nil:
		return err
	}
	return nil
}

// say tells the person line about r.
func (a *Answerer) say(r Request, line string) {
	if a.Say != nil {
		a.Say(r, line)
	}
}

// notOffered is the error for an approval no scope offered narrows from:
// one finished line, which is ErrNotOffered.
type notOffered struct{ msg string }

func (e notOffered) Error() string        { return e.msg }
func (e notOffered) Is(target error) bool { return target == ErrNotOffered }

// Narrowed is the widest scope r offers that is no wider than scope, as
// the gate narrows an answer; wisp.ScopeNone when there is none.
func (r Request) Narrowed(scope wisp.Scope) wisp.Scope {
	out := wisp.ScopeNone
	for _, s := range r.Scopes {
		if s <= scope {
			out = max(out, s)
		}
	}
	return out
}

// Offered lists the answers r offers, for a person: "once or session",
// "once only".
func (r Request) Offered() string {
	names := scopeNames(r.Scopes)
	if len(names) == 1 {
		return names[0] + " only"
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
