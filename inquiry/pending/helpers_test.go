package pending

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// racerEnv, set in a re-executed test binary, makes it one of the
// processes racing to answer: "dir|id|digest|n".
const racerEnv = "PENDING_TEST_RACER"

// lockName is the lock file in the pending folder that every change takes.
const lockName = spool.LockName

func TestMain(m *testing.M) {
	if spec := os.Getenv(racerEnv); spec != "" {
		os.Exit(spooltest.Racer(os.Stdin, os.Stdout, spec, 4, race))
	}
	os.Exit(m.Run())
}

// race answers as racer n and says "won", "answered" or the error.
func race(f []string) string {
	err := Store{Dir: f[0]}.Answer(context.Background(), Answer{
		ID: f[1], Digest: f[2], Outcome: wisp.OutcomeAnswered, Text: "racer " + f[3], From: FromTerminal,
	})
	switch {
	case err == nil:
		return "won"
	case errors.Is(err, ErrAnswered):
		return "answered"
	}
	return "error: " + err.Error()
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
