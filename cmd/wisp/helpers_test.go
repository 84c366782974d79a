package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
		checkWho(t, home, kind, data)
		recs = append(recs, answerRecord{Thread: r.Thread, Turn: r.Turn, Source: r.Source, Approval: r.Approval, Data: data})
		sessions = append(sessions, r.Session)
	}
	return recs, sessions
}

// checkWho checks, and takes out of data, what a record of an answer says
// of who gave it and of its file: this process's uid, a pid, the
// terminal when it came from one, and the SHA-256 of the answer's file,
// which must match the file while it is on record in home.
func checkWho(t *testing.T, home, kind string, data map[string]any) {
	t.Helper()
	if uid, ok := data["uid"].(float64); !ok || int(uid) != os.Geteuid() {
		t.Errorf("%s %v: uid %v, want %d", kind, data["id"], data["uid"], os.Geteuid())
	}
	if pid, ok := data["pid"].(float64); !ok || pid <= 0 {
		t.Errorf("%s %v: pid %v, want the answering process's", kind, data["id"], data["pid"])
	}
	if term, _ := data["terminal"].(string); (data["from"] == "terminal" || data["from"] == "chat") && !strings.HasPrefix(term, "/dev/") {
		t.Errorf("%s %v from %v: terminal %q, want the terminal's name", kind, data["id"], data["from"], term)
	}
	sum, _ := data["fileSHA256"].(string)
	if len(sum) != 64 {
		t.Errorf("%s %v: fileSHA256 %q, want the SHA-256 of the answer's file", kind, data["id"], sum)
	}
	folder, file := "pending", ".answer.json"
	if strings.HasPrefix(kind, "approval.") {
		folder, file = "approvals", ".decision.json"
	}
	id, _ := data["id"].(string)
	if b, err := os.ReadFile(filepath.Join(home, folder, id+file)); err == nil {
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s %v: fileSHA256 %s, but the file on record has another", kind, id, sum)
		}
	}
	for _, k := range []string{"uid", "pid", "terminal", "fileSHA256"} {
		delete(data, k)
	}
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
