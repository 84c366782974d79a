package wisp_test

import (
	"testing"

	"github.com/wisp-agent/wisp"
)

// The provenances' names are what the audit log and the JSON lines carry:
// they must not change, and the zero value must never read as the person.
func TestProvenanceNames(t *testing.T) {
	tests := []struct {
		p    wisp.Provenance
		want string
	}{
		{wisp.Provenance(0), "unknown"},
		{wisp.FromUnknown, "unknown"},
		{wisp.FromPerson, "person"},
		{wisp.FromTimeout, "timeout"},
		{wisp.FromUnattended, "unattended"},
		{wisp.FromDefault, "default"},
		{wisp.Provenance(-1), "unknown"},
		{wisp.Provenance(99), "unknown"},
	}
	for _, tc := range tests {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("Provenance(%d).String() = %q, want %q", int(tc.p), got, tc.want)
		}
	}
	var zero wisp.Provenance
	if zero == wisp.FromPerson {
		t.Errorf("the zero Provenance is FromPerson; a face that forgets to set it must not speak for the person")
	}
	if got := (wisp.Answer{}).Provenance; got != wisp.FromUnknown {
		t.Errorf("the zero Answer's provenance = %v, want unknown", got)
	}
}

// Only the person approves: a decision that does not say so approves
// nothing, whatever its scope.
func TestDecisionApproved(t *testing.T) {
	tests := []struct {
		d    wisp.Decision
		want bool
	}{
		{wisp.Decision{}, false},
		{wisp.Decision{Scope: wisp.ScopeSession}, false},
		{wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromDefault}, false},
		{wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromUnattended}, false},
		{wisp.Decision{Provenance: wisp.FromPerson}, false},
		{wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, true},
	}
	for _, tc := range tests {
		if got := tc.d.Approved(); got != tc.want {
			t.Errorf("%+v.Approved() = %v, want %v", tc.d, got, tc.want)
		}
	}
}
