package plural_test

import (
	"testing"

	"github.com/wisp-agent/wisp/internal/plural"
)

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "no arguments"}, {1, "1 argument"}, {2, "2 arguments"}, {12, "12 arguments"}}
	for _, tc := range tests {
		if got := plural.Count(tc.n, "argument"); got != tc.want {
			t.Errorf("Count(%d, argument) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
