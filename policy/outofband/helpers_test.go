package outofband

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// racerEnv, set in a re-executed test binary, makes it one of the
// processes racing to decide: "dir|id|digest|scope".
const racerEnv = "OUTOFBAND_TEST_RACER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(racerEnv); spec != "" {
		os.Exit(spooltest.Racer(os.Stdin, os.Stdout, spec, 4, race))
	}
	os.Exit(m.Run())
}

// race decides with the scope it is given and says "won", "decided" or
// the error.
func race(f []string) string {
	scope, ok := parseScope(f[3])
	if !ok {
		return "error: bad scope " + f[3]
	}
	err := Store{Dir: f[0]}.Decide(context.Background(), Decision{ID: f[1], Digest: f[2], Scope: scope, From: FromTerminal})
	switch {
	case err == nil:
		return "won"
	case errors.Is(err, ErrDecided):
		return "decided"
	}
	return "error: " + err.Error()
}

// t0 is the fixed clock of the tests.
var t0 = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// testStore returns a Store in a fresh folder whose clock reads t0.
func testStore(t *testing.T) Store {
	t.Helper()
	return Store{
		Dir: filepath.Join(t.TempDir(), "approvals"),
		Now: func() time.Time { return t0 },
	}
}

// enable and pull are the requests the tests file.
var (
	enable = wisp.ApprovalRequest{
		ID: "7f3a2c1d", Session: "3f2a9c1d", Thread: "t-81b2c3d4", Turn: 3,
		Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
		Text:     "turns ollama:qwen3:4b on in config.json",
		Scopes:   []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession},
		Deadline: t0.Add(time.Minute),
	}
	pull = wisp.ApprovalRequest{
		ID: "0a0b0c0d", Session: "3f2a9c1d", Thread: "t-81b2c3d4", Turn: 4,
		Kind: "modelAction", Command: "models pull mlx-community/Qwen3-4B-4bit", Pattern: "models pull *",
		Text:   "downloads 2.3 GB in 4 of 7 files from Hugging Face\npublisher mlx-community: trusted\nlicence apache-2.0",
		Scopes: []wisp.Scope{wisp.ScopeOnce},
	}
	// sessionOnly offers nothing narrower than the session.
	sessionOnly = wisp.ApprovalRequest{
		ID: "5e5e5e5e", Session: "3f2a9c1d", Thread: "t-81b2c3d4", Turn: 5,
		Kind: "modelAction", Command: "models enable ollama:qwen3:4b", Pattern: "models enable *",
		Text: "turns ollama:qwen3:4b on in config.json", Scopes: []wisp.Scope{wisp.ScopeSession},
	}
)

// withID returns r under another ID.
func withID(r wisp.ApprovalRequest, id string) wisp.ApprovalRequest {
	r.ID = id
	return r
}

// mustFile files r or fails the test.
func mustFile(t *testing.T, s Store, r wisp.ApprovalRequest) Request {
	t.Helper()
	fr, err := s.File(t.Context(), r)
	if err != nil {
		t.Fatalf("File(%q) = %v", r.Command, err)
	}
	return fr
}

// decide files a decision on r or fails the test.
func decide(t *testing.T, s Store, r Request, scope wisp.Scope, from string) {
	t.Helper()
	if err := s.Decide(t.Context(), Decision{ID: r.ID, Digest: r.Digest, Scope: scope, From: from}); err != nil {
		t.Fatalf("Decide(%s, %v) = %v", r.ID, scope, err)
	}
}
