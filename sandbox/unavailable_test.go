//go:build unix

package sandbox

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// Where no sandbox can be had, every mode but off is refused with the
// reason, and the probe is not repeated; mode off still runs.
func TestRunRefusesWithoutSandbox(t *testing.T) {
	ws := t.TempDir()
	probes := 0
	none := func(context.Context) Support {
		probes++
		return Support{Reason: "no user namespaces"}
	}
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		r, err := New(Policy{Mode: mode, Workspace: ws, Home: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		r.probe = none
		for range 2 {
			_, err := r.Run(context.Background(), Command{Line: "true"})
			if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no user namespaces") {
				t.Errorf("Run in %s without a sandbox = %v, want ErrUnavailable with the reason", mode, err)
			}
		}
		if s := r.Support(context.Background()); s.Confined || s.Reason != "no user namespaces" {
			t.Errorf("Support() = %+v, want the probe's", s)
		}
	}
	if probes != 2 {
		t.Errorf("probed %d times for two runners, want once each", probes)
	}
	r, err := New(Policy{Mode: Off, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	r.probe = none
	res, err := r.Run(context.Background(), Command{Line: "echo ran", Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil || res.Stdout.String() != "ran\n" {
		t.Errorf("Run in off without a sandbox = %v, %v; want it to run", res, err)
	}
}
