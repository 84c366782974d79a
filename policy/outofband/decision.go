package outofband

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
)

// The faces a decision can come from, as Decision.From names them.
const (
	// FromTerminal: wisp approvals approve or deny, at a terminal.
	FromTerminal = "terminal"
	// FromElicitation: the MCP client's dialog.
	FromElicitation = "elicitation"
)

// A Decision is the person's answer to an approval request, as filed in
// the approvals folder.
type Decision struct {
	// ID names the request decided.
	ID string
	// Digest is the Digest of the request the person was shown. Decide
	// refuses it when it is not the request's current Digest.
	Digest string
	// Scope is the answer: wisp.ScopeNone denies; wisp.ScopeOnce or
	// wisp.ScopeSession approves, and must be among the request's Scopes
	// or wider than one of them (Request.Narrows): the gate narrows a
	// wider answer and records it as downgradedFrom.
	Scope wisp.Scope
	// From names the face the person answered in: FromTerminal or
	// FromElicitation.
	From string
	// At is when the person answered; Decide sets it when it is zero. It
	// is kept in UTC.
	At time.Time
	// Terminal names the terminal the person answered at, such as
	// /dev/pts/3, for the record of who answered (Store.Witness); it is
	// not filed.
	Terminal string
	// FileSHA256 is the SHA-256, in lower-case hex, of the decision's
	// file, set on a decision read from the folder; Decide ignores it.
	FileSHA256 string
}

// decisionFile is the JSON form of a Decision: <id>.decision.json.
type decisionFile struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Digest  string    `json:"digest"`
	Scope   string    `json:"scope"`
	From    string    `json:"from"`
	At      time.Time `json:"at"`
}

// decisionScopes are the scopes a decision may carry; decisionFaces the
// faces it may come from.
var (
	decisionScopes = [...]wisp.Scope{wisp.ScopeNone, wisp.ScopeOnce, wisp.ScopeSession}
	decisionFaces  = [...]string{FromTerminal, FromElicitation}
)

// checkDecision applies the rules a decision obeys on its own.
func checkDecision(d Decision) error {
	if !slices.Contains(decisionScopes[:], d.Scope) {
		return fmt.Errorf("scope %s is not one a decision gives; use none (deny), once or session", d.Scope)
	}
	if !slices.Contains(decisionFaces[:], d.From) {
		return fmt.Errorf("from %q names no face; use terminal or elicitation", d.From)
	}
	if d.At.IsZero() || !spool.InRange(d.At) {
		return errors.New("no time answered, or one before year 1 or after 9999")
	}
	return nil
}

// encodeDecision writes d's file.
func encodeDecision(d Decision) ([]byte, error) {
	return spool.EncodeJSON(decisionFile{
		Version: formatVersion,
		ID:      d.ID,
		Digest:  d.Digest,
		Scope:   d.Scope.String(),
		From:    d.From,
		At:      d.At,
	})
}

// parseDecision reads a decision file, refusing what encodeDecision could
// not have written for a valid decision.
func parseDecision(data []byte) (Decision, error) {
	var f decisionFile
	if err := spool.DecodeJSON(data, &f); err != nil {
		return Decision{}, err
	}
	if err := spool.CheckVersion(f.Version, formatVersion); err != nil {
		return Decision{}, err
	}
	if !ValidID(f.ID) {
		return Decision{}, errors.New("bad approval ID")
	}
	scope, ok := parseScope(f.Scope)
	if !ok {
		return Decision{}, fmt.Errorf("unknown scope %q", f.Scope)
	}
	d := Decision{ID: f.ID, Digest: f.Digest, Scope: scope, From: f.From, At: f.At.UTC(), FileSHA256: spool.Sum(data)}
	if err := checkDecision(d); err != nil {
		return Decision{}, err
	}
	return d, nil
}

// parseWithdrawn reads a withdrawal file, which must say when the
// request was withdrawn: Sweep keeps a withdrawn request for a while
// after.
func parseWithdrawn(data []byte) (spool.Withdrawal, error) {
	w, err := spool.ParseWithdrawal(data, formatVersion, "approval ID")
	if err != nil {
		return w, err
	}
	if w.At.IsZero() || !spool.InRange(w.At) {
		return w, errors.New("no time withdrawn")
	}
	w.At = w.At.UTC()
	return w, nil
}
