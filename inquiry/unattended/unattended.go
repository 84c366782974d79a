// Package unattended is the face for runs with no person: wisp respond
// and --yes. Every question ends at once with "no person can answer here".
package unattended

import (
	"context"

	"github.com/wisp-agent/wisp"
)

// Face answers every question at once that no person can answer.
type Face struct{}

var _ wisp.Inquirer = Face{}

// Ask returns OutcomeNoPerson at once, or ctx's error if ctx is already
// done.
func (Face) Ask(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
	if err := ctx.Err(); err != nil {
		return wisp.Answer{}, context.Cause(ctx)
	}
	return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
}
