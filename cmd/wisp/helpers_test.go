package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp/audit"
)

// testEnv is the environment of wisp run in a test: home is WISP_HOME,
// there is no user home, and no Ctrl-C comes.
func testEnv(home string) environ {
	return environ{
		getenv:     func(k string) string { return map[string]string{"WISP_HOME": home}[k] },
		userHome:   func() (string, error) { return "", errors.New("no home in tests") },
		interrupts: make(chan os.Signal),
	}
}

// unquoteArg reads s, an argument of the script command cmd, as the inside
// of a Go string literal, so that \x1b is ESC and \u202e a bidi override.
func unquoteArg(ts *testscript.TestScript, cmd, s string) string {
	u, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		ts.Fatalf("%s: %q is not the inside of a Go string literal: %v", cmd, s, err)
	}
	return u
}

// answerRecord is an audit record of a person's answer, but for its
// session and time.
type answerRecord struct {
	Thread   string
	Turn     int
	Source   string
	Approval string
	Data     map[string]any
}

// answerRecords returns the records of kind (inquiry.answered,
// approval.answered) in the audit log of home, and the sessions they were
// recorded in.
func answerRecords(t *testing.T, home, kind string) (recs []answerRecord, sessions []string) {
	t.Helper()
	all, err := audit.Read(filepath.Join(home, "audit"), audit.Filter{KindPrefix: kind})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		var data map[string]any
		if err := json.Unmarshal(r.Data, &data); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, answerRecord{Thread: r.Thread, Turn: r.Turn, Source: r.Source, Approval: r.Approval, Data: data})
		sessions = append(sessions, r.Session)
	}
	return recs, sessions
}

// checkExit runs wisp with args in env, stdin its standard input, and
// checks that it exits with status want and that a failure is one line.
func checkExit(t *testing.T, env environ, stdin string, args []string, want int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	got := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, env)
	if got != want {
		t.Errorf("wisp %s = exit %d, want %d (stderr %q)", strings.Join(args, " "), got, want, stderr.String())
	}
	if got != 0 && strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("wisp %s printed %q; want one line", strings.Join(args, " "), stderr.String())
	}
}
