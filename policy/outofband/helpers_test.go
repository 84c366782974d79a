package outofband

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wisp-agent/wisp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// racerEnv, set in a re-executed test binary, makes it one of the
// processes racing to decide: "dir|id|digest|scope".
const racerEnv = "OUTOFBAND_TEST_RACER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(racerEnv); spec != "" {
		os.Exit(racer(spec))
	}
	os.Exit(m.Run())
}

// racer says "ready", waits for a line on stdin, decides, and says "won",
// "decided" or the error.
func racer(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 4 {
		fmt.Println("error: bad spec", spec)
		return 2
	}
	scope, ok := parseScope(f[3])
	if !ok {
		fmt.Println("error: bad scope", f[3])
		return 2
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Println("error:", err)
		return 2
	}
	err := Store{Dir: f[0]}.Decide(context.Background(), Decision{ID: f[1], Digest: f[2], Scope: scope, From: FromTerminal})
	switch {
	case err == nil:
		fmt.Println("won")
	case errors.Is(err, ErrDecided):
		fmt.Println("decided")
	default:
		fmt.Println("error:", err)
	}
	return 0
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

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

// names lists the folder's entries, or nil when it does not exist.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// tree describes every path under root with its mode and size, to show
// that nothing changed.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		out = append(out, p+" "+fi.Mode().String()+" "+strconv.FormatInt(fi.Size(), 10))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
