package agent

import (
	"context"
	"regexp"

	"github.com/wisp-agent/wisp"
)

// claims are phrasings by which a reply says the person chose, confirmed or
// answered something. English only.
var claims = regexp.MustCompile(`(?i)\b(?:you(?:'ve| have)? (?:chose|chosen|picked|selected|confirmed|agreed|approved|answered|replied|said yes|told me)|as you (?:chose|picked|selected|confirmed|agreed|answered)|per your (?:choice|answer|confirmation|selection|reply)|your (?:choice|answer|confirmation|selection|reply) (?:of|was|is)|based on your (?:choice|answer|confirmation|selection|reply)|(?:thanks|thank you) for (?:confirming|choosing|answering|your answer))\b`)

// FlagUnansweredClaim is the verification pass's finding for a reply that
// claims an answer the person never gave this turn.
const FlagUnansweredClaim = "the reply says the person chose or confirmed something, but no question was answered in this turn"

// verify is the verification pass: silence is never an answer, so a final
// reply that claims the person chose or confirmed something when no
// question was answered in the turn is flagged, to the person and in the
// events.
func (a *Agent) verify(ctx context.Context, threadID string, turn int, text string, answered bool) ([]string, error) {
	if answered {
		return nil, nil
	}
	m := claims.FindString(text)
	if m == "" {
		return nil, nil
	}
	if err := a.record(ctx, wisp.Event{Thread: threadID, Turn: turn, Source: wisp.SourceWisp,
		Data: wisp.VerificationFlaggedData{Flag: FlagUnansweredClaim, Claim: m}}); err != nil {
		return nil, err
	}
	a.notify(ctx, wisp.Notice{Kind: wisp.NoticeUnverifiedClaim, Thread: threadID, Text: FlagUnansweredClaim + ` ("` + m + `")`})
	return []string{FlagUnansweredClaim}, nil
}
