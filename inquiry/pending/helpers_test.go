package pending

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
// processes racing to answer: "dir|id|digest|n".
const racerEnv = "PENDING_TEST_RACER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(racerEnv); spec != "" {
		os.Exit(racer(spec))
	}
	os.Exit(m.Run())
}

// racer says "ready", waits for a line on stdin, answers, and says "won",
// "answered" or the error.
func racer(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 4 {
		fmt.Println("error: bad spec", spec)
		return 2
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Println("error:", err)
		return 2
	}
	err := Store{Dir: f[0]}.Answer(context.Background(), Answer{
		ID: f[1], Digest: f[2], Outcome: wisp.OutcomeAnswered, Text: "racer " + f[3], From: FromTerminal,
	})
	switch {
	case err == nil:
		fmt.Println("won")
	case errors.Is(err, ErrAnswered):
		fmt.Println("answered")
	default:
		fmt.Println("error:", err)
	}
	return 0
}

// t0 is the fixed clock of the tests.
var t0 = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// testStore returns a Store in a fresh folder whose clock reads t0 and
// whose IDs come from ids in turn (random ones after).
func testStore(t *testing.T, ids ...string) Store {
	t.Helper()
	return Store{
		Dir: filepath.Join(t.TempDir(), "pending"),
		Now: func() time.Time { return t0 },
		NewID: func() string {
			if len(ids) == 0 {
				return randomID()
			}
			id := ids[0]
			ids = ids[1:]
			return id
		},
	}
}

// choice and free are the questions the tests file.
var (
	choice = wisp.Question{
		Session: "s1", Thread: "t1", Turn: 3,
		Text:     "Which config did you mean?",
		Options:  []string{"~/.wisp/config.json", "./wisp.json"},
		Deadline: t0.Add(5 * time.Minute),
	}
	free = wisp.Question{Session: "s1", Thread: "t2", Turn: 1, Text: "What port should the server use?"}
)

// mustFile files q or fails the test.
func mustFile(t *testing.T, s Store, q wisp.Question) Question {
	t.Helper()
	pq, err := s.File(t.Context(), q)
	if err != nil {
		t.Fatalf("File(%q) = %v", q.Text, err)
	}
	return pq
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
