package outofband

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// A credential in what a request shows the person (a command a model
// asked to run, its pattern, the text that explains it) is redacted
// before the request is filed: no file in the folder holds one raw, and a
// decision bound to the request as filed is taken.
func TestRedactedCorpus(t *testing.T) {
	cases := secretstest.Corpus()
	s := testStore(t)
	// As few requests as hold every case in their text; their commands
	// and patterns hold as many as fit.
	var requests []wisp.ApprovalRequest
	r := enable
	for _, c := range cases {
		if len(r.Text)+len(c.Text)+1 > MaxTextBytes {
			requests = append(requests, r)
			r = enable
		}
		r.Text += "\n" + c.Text
		if len(r.Command)+len(c.Text)+1 <= MaxCommandBytes {
			r.Command += " " + c.Text
			r.Pattern += " " + c.Text
		}
	}
	for i, r := range append(requests, r) {
		r.ID = fmt.Sprintf("%08x", i+1)
		fr := mustFile(t, s, r)
		for _, got := range []string{fr.Command, fr.Pattern, fr.Text} {
			if !strings.Contains(got, "[REDACTED:") {
				t.Errorf("filed %q, want markers", got)
			}
		}
		decide(t, s, fr, wisp.ScopeOnce, FromTerminal)
		if d, ok, err := s.Decided(fr.ID); err != nil || !ok || d.Scope != wisp.ScopeOnce {
			t.Errorf("Decided(%s) = %v, %v, %v; want once", fr.ID, d, ok, err)
		}
	}
	var all []byte
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(s.Dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if leaks := secretstest.Leaks(all, cases); leaks != nil {
		t.Errorf("the approvals folder holds %d cases of the corpus: %v", len(leaks), leaks)
	}
}
