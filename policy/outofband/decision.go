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
	// wisp.ScopeSession approves, and must be among the request's
	// Scopes.
	Scope wisp.Scope
	// From names the face the person answered in: FromTerminal or
	// FromElicitation.
	From string
	// At is when the person answered; Decide sets it when it is zero. It
	// is kept in UTC.
	At time.Time
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
	if d.At.IsZero() || !inRange(d.At) {
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
	if f.Version != formatVersion {
		return Decision{}, fmt.Errorf("version %d; this wisp reads version %d", f.Version, formatVersion)
	}
	if !ValidID(f.ID) {
		return Decision{}, errors.New("bad approval ID")
	}
	scope, ok := parseScope(f.Scope)
	if !ok {
		return Decision{}, fmt.Errorf("unknown scope %q", f.Scope)
	}
	d := Decision{ID: f.ID, Digest: f.Digest, Scope: scope, From: f.From, At: f.At.UTC()}
	if err := checkDecision(d); err != nil {
		return Decision{}, err
	}
	return d, nil
}

// withdrawnFile is the JSON form of a withdrawal: <id>.withdrawn.json.
type withdrawnFile struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Why     string    `json:"why"`
	At      time.Time `json:"at"`
}

// checkWhy checks the reason given to Withdraw.
func checkWhy(why string) error {
	return spool.CheckLine("the reason for withdrawing", why, maxWhyBytes)
}

// parseWithdrawn reads a withdrawal file.
func parseWithdrawn(data []byte) (withdrawnFile, error) {
	var f withdrawnFile
	if err := spool.DecodeJSON(data, &f); err != nil {
		return f, err
	}
	if f.Version != formatVersion || !ValidID(f.ID) {
		return f, errors.New("bad version or approval ID")
	}
	if err := checkWhy(f.Why); err != nil {
		return f, err
	}
	if f.At.IsZero() || !inRange(f.At) {
		return f, errors.New("no time withdrawn")
	}
	f.At = f.At.UTC()
	return f, nil
}
