package unattended_test

import (
	"testing"

	"github.com/wisp-agent/wisp/inquiry/facetest"
	"github.com/wisp-agent/wisp/inquiry/unattended"
)

func TestFaceContract(t *testing.T) {
	facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
		return facetest.Harness{Face: unattended.Face{}}
	}, &facetest.Options{Unattended: true})
}
