package policy

import (
	"fmt"
	"strings"
	"time"
)

// LineNotApproved starts the line a tool returns to the model when the gate
// refused its request; Outcome.Reason follows it:
// "error: not approved: the person declined".
const LineNotApproved = "error: not approved: "

// The gate's reasons, as Outcome.Reason and approval.decided carry them.
// A refusal's reason is read by the model after LineNotApproved.
const (
	// ReasonDeclined: the person answered no.
	ReasonDeclined = "the person declined"
	// ReasonNoPerson: the gate has no Approver, or the face has no person.
	ReasonNoPerson = "no person can approve here"
	// ReasonBelowThreshold: the command was rated below approval.threshold
	// and allowed without asking.
	ReasonBelowThreshold = "below approval.threshold"
	// ReasonNotOffered: the answer was narrower than any scope the request
	// allows, or not a scope at all.
	ReasonNotOffered = "the answer was not one the request allows"
	// ReasonUnknownProvenance: the face's answer did not say who gave it
	// (wisp.FromUnknown, the zero Provenance), so it is no person's.
	ReasonUnknownProvenance = "the face did not say who answered, so no person approved"
)

// LineKeptUnread starts the last line of the text of a request that the
// person's kept answers could not cover because they could not be read
// (GateOptions.Keeper); why follows.
const LineKeptUnread = "kept approvals do not apply: "

// ReasonNotKept is the reason an answer of project or always was narrowed
// (approval.decided's reason): it could not be kept.
func ReasonNotKept(err error) string { return "the answer could not be kept: " + oneLine(err.Error()) }

// oneLine puts text on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ReasonTimedOut is the reason for a request nobody answered in time:
// "no answer within 5 min".
func ReasonTimedOut(wait time.Duration) string { return "no answer within " + waitText(wait) }

// ReasonAuditFailed is the reason for a request the audit could not
// record: an approval that is not on record is refused.
func ReasonAuditFailed(err error) string { return "the audit could not record it: " + err.Error() }

// waitText writes a duration the way the reasons speak of it, as the
// inquiry lines do: "10 s", "5 min", "2 h".
func waitText(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	default:
		return fmt.Sprintf("%d s", d/time.Second)
	}
}
