package outofband_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/policy/outofband"
)

// A request whose file is damaged while it waits is refused, in a line
// that names no path of this machine (it reaches the model), and listed
// as damaged, never dropped silently.
func TestDamagedRequest(t *testing.T) {
	s := newStore(t)
	c := newClock()
	a := outofband.NewApprover(s, &outofband.ApproverOptions{
		After: c.After,
		Announce: func(ctx context.Context, r outofband.Request) {
			path := filepath.Join(s.Dir, r.ID+".request.json")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
			}
			if err := os.WriteFile(path, data[:len(data)/2], 0o600); err != nil {
				t.Error(err)
			}
		},
	})
	d, err := a.Approve(t.Context(), enable())
	if want := "approval request 7f3a2c1d cannot be read back (its file is damaged)"; !errors.Is(err, outofband.ErrMalformed) || err.Error() != want || d.Approved() {
		t.Errorf("Approve = %+v, %v; want no approval and %q", d, err, want)
	}
	if err != nil && strings.Contains(err.Error(), s.Dir) {
		t.Errorf("Approve's error %q names a path", err)
	}
	ds, err := s.Damaged()
	if err != nil || len(ds) != 1 || ds[0].ID != "7f3a2c1d" || !errors.Is(ds[0].Err, outofband.ErrMalformed) {
		t.Errorf("Damaged = %+v, %v; want the request, malformed", ds, err)
	}
	if rs, err := s.List(); err != nil || len(rs) != 0 {
		t.Errorf("List = %+v, %v; want nothing waiting", rs, err)
	}
}
