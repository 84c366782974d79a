package wisptest_test

import (
	"testing"

	"github.com/wisp-agent/wisp/inquiry/facetest"
	"github.com/wisp-agent/wisp/wisptest"
)

// The scripted person keeps the face contract, so tests built on it see
// what a real face would give them.
func TestPersonKeepsTheFaceContract(t *testing.T) {
	facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
		var r wisptest.Reply
		switch p.Act {
		case facetest.Choose:
			r = wisptest.ChoosesNth(p.Option + 1)
		case facetest.ChooseNone:
			r = wisptest.ChoosesNone()
		case facetest.Type:
			r = wisptest.Says(p.Text)
		case facetest.Decline:
			r = wisptest.Declines()
		case facetest.Silent:
			r = wisptest.StaysSilent()
		case facetest.Interrupt:
			r = wisptest.Interrupts()
		}
		return facetest.Harness{Face: wisptest.NewPerson(r)}
	}, nil)
}
