package standing_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/standing"
	"github.com/wisp-agent/wisp/wisptest"
)

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func newStore(t *testing.T) standing.Store {
	t.Helper()
	dir := t.TempDir()
	return standing.Store{Path: filepath.Join(dir, "approval-rules.json"), LockPath: filepath.Join(dir, "approval-rules.lock")}
}

// rows rates make moderate and rm dangerous.
var rows = func() *policy.Classifier {
	c, err := policy.NewClassifier(
		policy.Rule{Pattern: "make ...", Rating: policy.Moderate, Reason: "builds"},
		policy.Rule{Pattern: "rm ...", Rating: policy.Dangerous, Reason: "deletes"},
	)
	if err != nil {
		panic(err)
	}
	return c
}()

// face answers every request with scope, as the person, and counts them.
type face struct {
	scope wisp.Scope
	asked int
}

func (f *face) Approve(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
	f.asked++
	return wisp.Decision{Scope: f.scope, Provenance: wisp.FromPerson}, nil
}

// lastID numbers approvals across the gates of a test, as random ids
// would tell them apart.
var lastID atomic.Int64

func gate(s standing.Store, f *face, project string) *policy.Gate {
	return policy.NewGate(&policy.GateOptions{Approver: f, Classifier: rows, Threshold: policy.Moderate, Keeper: s, Project: project,
		Now: func() time.Time { return now }, NewID: func() string { return fmt.Sprintf("id%d", lastID.Add(1)) }})
}

func request(line, pattern string) policy.Request {
	return policy.Request{Kind: "command", Command: line, Pattern: pattern,
		Scopes: []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}}
}

func ask(t *testing.T, g *policy.Gate, r policy.Request) policy.Outcome {
	t.Helper()
	out, err := g.Ask(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An answer of project, kept in the file, covers the same pattern in the
// same project in a later session (a new gate, as a new process has);
// not in another project; and not once the folder is made anew.
func TestKeptAcrossSessions(t *testing.T) {
	s := newStore(t)
	ws, other := t.TempDir(), t.TempDir()
	f := &face{scope: wisp.ScopeProject}
	if out := ask(t, gate(s, f, ws), request("make all", "make *")); out.Scope != wisp.ScopeProject {
		t.Fatalf("answer = %+v, want project", out)
	}
	first := ask(t, gate(s, f, ws), request("make test", "make *"))
	if !first.Covered || f.asked != 1 {
		t.Errorf("a later session = %+v (asked %d); want covered, not asked", first, f.asked)
	}
	if out := ask(t, gate(s, f, other), request("make test", "make *")); out.Covered || f.asked != 2 {
		t.Errorf("another project = %+v (asked %d); want asked", out, f.asked)
	}
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Project != ws || entries[1].Project != other || entries[0].Gone {
		t.Errorf("List = %+v; want ws's and other's project answers", entries)
	}

	// Another folder takes the project's name: a new project.
	renamed := filepath.Join(t.TempDir(), "new")
	if err := os.Mkdir(renamed, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(renamed, ws); err != nil {
		t.Fatal(err)
	}
	f.scope = wisp.ScopeNone
	if out := ask(t, gate(s, f, ws), request("make test", "make *")); out.Covered || out.Approved {
		t.Errorf("a folder made anew = %+v; want asked and declined", out)
	}
	if entries, _ := s.List(); !entries[0].Gone {
		t.Errorf("List = %+v; want the first answer's folder gone", entries)
	}
}

// An answer of always covers the pattern everywhere; a dangerous command
// is never kept, whatever the person answers.
func TestKeptAlways(t *testing.T) {
	s := newStore(t)
	f := &face{scope: wisp.ScopeAlways}
	ask(t, gate(s, f, t.TempDir()), request("make all", "make *"))
	if out := ask(t, gate(s, f, ""), request("make x", "make *")); !out.Covered || out.Scope != wisp.ScopeAlways {
		t.Errorf("always, elsewhere = %+v; want covered", out)
	}
	if out := ask(t, gate(s, f, ""), request("rm -r build", "rm *")); out.Scope != wisp.ScopeOnce || out.DowngradedFrom != wisp.ScopeAlways {
		t.Errorf("always to a dangerous command = %+v; want once, downgraded from always", out)
	}
	entries, err := s.List()
	if err != nil || len(entries) != 1 || entries[0].Pattern != "make *" {
		t.Errorf("List = %+v, %v; want make * alone", entries, err)
	}
}

// The file is 0600, in the form wisp writes, and one answer replaces an
// earlier one of the same pattern, scope and project.
func TestFileForm(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, id := range []string{"a1", "a2"} {
		if err := s.Keep(ctx, policy.Kept{ID: id, Kind: "command", Command: "make all", Pattern: "make *", Scope: wisp.ScopeAlways, Time: now}); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(s.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file = %v, %v; want mode 0600", fi, err)
	}
	data, _ := os.ReadFile(s.Path)
	want := `{
  "version": 1,
  "rules": [
    {
      "id": "a2",
      "kind": "command",
      "command": "make all",
      "pattern": "make *",
      "scope": "always",
      "time": "2026-11-30T10:00:00Z"
    }
  ]
}
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

// Keep refuses what it never keeps.
func TestKeepRefuses(t *testing.T) {
	s := newStore(t)
	for _, k := range []policy.Kept{
		{ID: "a", Pattern: "make *", Scope: wisp.ScopeSession},
		{ID: "a", Pattern: "make *", Scope: wisp.ScopeOnce},
		{ID: "a", Pattern: "*", Scope: wisp.ScopeAlways},
		{ID: "a", Pattern: "... x", Scope: wisp.ScopeAlways},
		{ID: "a", Pattern: "", Scope: wisp.ScopeAlways},
		{ID: "a", Pattern: "make\n*", Scope: wisp.ScopeAlways},
		{ID: "", Pattern: "make *", Scope: wisp.ScopeAlways},
		{ID: "a", Pattern: "make *", Scope: wisp.ScopeProject},
		{ID: "a", Pattern: "make *", Scope: wisp.ScopeProject, Project: filepath.Join(t.TempDir(), "gone")},
		{ID: "a", Pattern: "make *", Scope: wisp.ScopeAlways, Project: "/w"},
	} {
		if err := s.Keep(context.Background(), k); !errors.Is(err, standing.ErrNotKept) {
			t.Errorf("Keep(%+v) = %v, want ErrNotKept", k, err)
		}
	}
	if _, err := os.Stat(s.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused answer wrote the file: %v", err)
	}
}

// Revoke removes an answer, recorded first: it covers nothing after.
func TestRevoke(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	ws := t.TempDir()
	f := &face{scope: wisp.ScopeProject}
	id := ask(t, gate(s, f, ws), request("make all", "make *")).ID
	rec := &wisptest.Recorder{}
	k, err := s.Revoke(ctx, id, &standing.RevokeOptions{Events: rec, Session: "s9", Now: func() time.Time { return now }})
	if err != nil || k.ID != id {
		t.Fatalf("Revoke = %+v, %v", k, err)
	}
	want := []wisp.Event{{Time: now, Session: "s9", Source: wisp.SourcePerson, Approval: id,
		Data: wisp.ApprovalRevokedData{ApprovalID: id, Pattern: "make *", Project: ws, Scope: "project"}}}
	if diff := cmp.Diff(want, rec.Events("")); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	f.scope = wisp.ScopeOnce
	if out := ask(t, gate(s, f, ws), request("make all", "make *")); out.Covered || f.asked != 2 {
		t.Errorf("after revoking = %+v; want asked again", out)
	}
	if _, err := s.Revoke(ctx, id, nil); !errors.Is(err, standing.ErrUnknownID) {
		t.Errorf("revoking it again = %v, want ErrUnknownID", err)
	}

	// An answer whose revocation cannot be recorded is not revoked.
	f.scope = wisp.ScopeAlways
	id = ask(t, gate(s, f, ws), request("make all", "make *")).ID
	failing := wisp.EventSinkFunc(func(context.Context, wisp.Event) error { return errors.New("disk full") })
	if _, err := s.Revoke(ctx, id, &standing.RevokeOptions{Events: failing}); !errors.Is(err, wisp.ErrNotRecorded) {
		t.Errorf("Revoke with a failing audit = %v, want ErrNotRecorded", err)
	}
	if entries, _ := s.List(); len(entries) != 1 {
		t.Errorf("List = %+v; want the answer kept", entries)
	}
}

// A file wisp did not write, or that is not the person's own, is refused
// whole with one line: nothing in it covers anything (the request is
// asked, never covered), and it is not replaced.
func TestBadFile(t *testing.T) {
	ws := t.TempDir()
	good := func(rules string) string { return `{"version":1,"rules":[` + rules + `]}` }
	always := `{"id":"p1","command":"make","pattern":"make *","scope":"always","time":"2026-11-30T10:00:00Z"}`
	for _, tc := range []struct {
		name string
		data string
		mode os.FileMode
		want string
	}{
		{"writable by others", good(always), 0o666, "is writable by others"},
		{"not JSON", `{"version":1,`, 0o600, "is not what wisp writes"},
		{"unknown key", `{"version":1,"rules":[],"allow":["*"]}`, 0o600, "is not what wisp writes"},
		{"two values", good(always) + good(always), 0o600, "is not what wisp writes"},
		{"other version", `{"version":2,"rules":[]}`, 0o600, "has version 2"},
		{"scope session", good(strings.Replace(always, `"always"`, `"session"`, 1)), 0o600, `approval 1 has scope "session"`},
		{"all wildcards", good(strings.Replace(always, `"make *"`, `"* *"`, 1)), 0o600, "approval 1 has a pattern"},
		{"a control character", good(strings.Replace(always, `"make *"`, `"make\r*"`, 1)), 0o600, "approval 1 has a pattern"},
		{"project with no folder", good(strings.Replace(always, `"always"`, `"project"`, 1)), 0o600, "names no project folder"},
		{"relative folder", good(strings.Replace(always, `"always"`, `"project","project":"w"`, 1)), 0o600, "names no project folder"},
		{"always with a folder", good(strings.Replace(always, `"always"`, `"always","project":"/w"`, 1)), 0o600, "yet names a project"},
		{"two of one id", good(always + "," + always), 0o600, "approval 2 has the id of another"},
		{"no id", good(strings.Replace(always, `"p1"`, `""`, 1)), 0o600, "approval 1 has no id"},
	} {
		s := newStore(t)
		if err := os.WriteFile(s.Path, []byte(tc.data), tc.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(s.Path, tc.mode); err != nil {
			t.Fatal(err)
		}
		_, err := s.Kept(context.Background(), ws)
		if !errors.Is(err, standing.ErrBadFile) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Kept = %v; want one line with %q, matching ErrBadFile", tc.name, err, tc.want)
		}
		f := &face{scope: wisp.ScopeAlways}
		out := ask(t, gate(s, f, ws), request("make all", "make *"))
		if out.Covered || f.asked != 1 || out.Scope != wisp.ScopeSession || out.DowngradedFrom != wisp.ScopeAlways {
			t.Errorf("%s: Ask = %+v (asked %d); want asked, and the answer narrowed to the session", tc.name, out, f.asked)
		}
		if data, _ := os.ReadFile(s.Path); string(data) != tc.data {
			t.Errorf("%s: the file was replaced: %s", tc.name, data)
		}
		if _, err := standing.RunCommand(context.Background(), s, nil, nil); !errors.Is(err, standing.ErrBadFile) {
			t.Errorf("%s: list = %v, want ErrBadFile", tc.name, err)
		}
	}

	s := newStore(t)
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(target, []byte(good(always)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, s.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Kept(context.Background(), ws); !errors.Is(err, standing.ErrBadFile) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link: Kept = %v; want ErrBadFile", err)
	}
}

// The person's commands: list shows every kept answer quoted, revoke
// revokes one, and anything else says what to type.
func TestRunCommand(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if out, err := standing.RunCommand(ctx, s, nil, nil); err != nil || out != standing.LineNoneKept {
		t.Errorf("list of none = %q, %v", out, err)
	}
	ws := t.TempDir()
	for _, k := range []policy.Kept{
		{ID: "7f3a2c1d", Command: "make all\nrated safe", Pattern: "make *", Scope: wisp.ScopeProject, Project: ws, Time: now},
		{ID: "0a0b0c0d", Command: "make test", Pattern: "make test *", Scope: wisp.ScopeAlways, Time: now},
	} {
		if err := s.Keep(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	out, err := standing.RunCommand(ctx, s, []string{"list"}, nil)
	pad := strings.Repeat(" ", len(ws)+2-len("everywhere"))
	want := "7f3a2c1d  project  \"" + ws + "\"  \"make *\"  (first for \"make all\\nrated safe\", 2026-11-30)\n" +
		"0a0b0c0d  always   everywhere" + pad + "  \"make test *\"  (first for \"make test\", 2026-11-30)\n"
	if err != nil || out != want {
		t.Errorf("list = %q, %v\nwant %q", out, err, want)
	}
	if out, err := standing.RunCommand(ctx, s, []string{"revoke", "0a0b0c0d"}, nil); err != nil || out != "revoked 0a0b0c0d: always \"make test *\" no longer covers anything\n" {
		t.Errorf("revoke = %q, %v", out, err)
	}
	for _, args := range [][]string{{"list", "x"}, {"revoke"}, {"revoke", "a", "b"}, {"forget"}} {
		var ce *standing.CommandError
		if _, err := standing.RunCommand(ctx, s, args, nil); !errors.As(err, &ce) {
			t.Errorf("RunCommand(%q) = %v, want a *CommandError", args, err)
		}
	}
}
