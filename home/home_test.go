//go:build unix

package home_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// Open makes the home, its locks and its audit folder, each 0700, and the
// stores it returns live where the layout says.
func TestOpenLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wisp")
	h, err := home.Open(dir)
	if err != nil {
		t.Fatalf("Open(%q) = %v", dir, err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "locks"), filepath.Join(dir, "audit")} {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want a folder of mode 0700", d, fi, err)
		}
	}
	rel := func(p string) string {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	got := map[string]string{
		"dir":         rel(h.Dir()),
		"config":      rel(h.Settings().Path),
		"config lock": rel(h.Settings().LockPath),
		"audit":       rel(h.AuditDir()),
		"threads":     rel(h.Threads(nil).Path),
		"thread lock": rel(h.Threads(nil).Locks),
		"pending":     rel(h.Questions(nil).Dir),
		"approvals":   rel(h.Approvals(nil).Dir),
	}
	want := map[string]string{
		"dir": ".", "config": "config.json", "config lock": "locks/config.lock", "audit": "audit",
		"threads": "threads", "thread lock": "locks", "pending": "pending", "approvals": "approvals",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// Open refuses a home that is a symbolic link or that others can write
// to, with one line that names the fix.
func TestOpenRefusesUnsafe(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{link, open} {
		if _, err := home.Open(dir); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%q) = %v, want one line refusing it", dir, err)
		}
	}
}

// Find takes WISP_HOME as it is when it is absolute, refuses it when it is
// not, and otherwise uses .wisp in the person's home folder.
func TestFind(t *testing.T) {
	user := func() (string, error) { return "/home/p", nil }
	for _, c := range []struct {
		wispHome string
		want     string
		fails    bool
	}{
		{"/srv/wisp/", "/srv/wisp", false},
		{"", "/home/p/.wisp", false},
		{"wisp", "", true},
	} {
		got, err := home.Find(c.wispHome, user)
		if (err != nil) != c.fails || got != c.want {
			t.Errorf("Find(%q) = %q, %v; want %q (fails: %v)", c.wispHome, got, err, c.want, c.fails)
		}
	}
	if _, err := home.Find("", func() (string, error) { return "", errors.New("no home") }); err == nil {
		t.Error("Find with no user home = nil error")
	}
}

// Events appends each event to the audit log with its credentials
// replaced by markers, and the chain verifies.
func TestEventsRedacts(t *testing.T) {
	h, err := home.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cases := secretstest.Corpus()
	for _, c := range cases[:min(len(cases), 8)] {
		e := wisp.Event{Session: "s", Source: wisp.SourcePerson, Data: wisp.TurnStartedData{Input: c.Text}}
		if err := h.Events().Record(context.Background(), e); err != nil {
			t.Fatalf("Record = %v", err)
		}
	}
	b, err := os.ReadFile(filepath.Join(h.AuditDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if l := secretstest.Leaks(b, cases); l != nil {
		t.Errorf("the audit log holds %v", l)
	}
	if r, err := audit.Verify(h.AuditDir()); err != nil || r.Break != nil || r.Records != min(len(cases), 8) {
		t.Errorf("Verify = %+v, %v; want every record intact", r, err)
	}
}

// A change to a security setting that the home's audit log cannot record
// is not made, and says so as every record that fails does:
// wisp.ErrNotRecorded.
func TestUnrecordedChangeIsNotMade(t *testing.T) {
	h, err := home.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(h.AuditDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.AuditDir(), []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = h.Settings().Set(context.Background(), "tools.ask", "on", &config.SetOptions{Events: h.Events(), Session: "s"})
	if !errors.Is(err, wisp.ErrNotRecorded) || !strings.HasPrefix(err.Error(), "the audit log could not record the change (") {
		t.Errorf("Set(tools.ask, on) with no audit log = %v, want wisp.ErrNotRecorded", err)
	}
	if c, err := h.Settings().Load(); err != nil || c.Tools.Ask {
		t.Errorf("tools.ask = %v (%v) after the refused change, want false", c.Tools.Ask, err)
	}
}

// The home's Witness opens the audit log only to record an answer: the
// record is in its session, and vouches for that answer's file alone.
func TestWitness(t *testing.T) {
	h, err := home.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := h.Witness("s1")
	log := filepath.Join(h.AuditDir(), "audit.jsonl")
	ctx := context.Background()
	if ok, err := w.Vouched(ctx, wisp.KindInquiryAnswered, "q1", "sum"); ok || err != nil {
		t.Errorf("Vouched before any record = %v, %v; want false, nil", ok, err)
	}
	if _, err := os.Stat(log); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the audit log is there before anything was recorded: %v", err)
	}
	e := wisp.Event{Session: "other", Source: wisp.SourcePerson, Data: wisp.InquiryAnsweredData{ID: "q1", FileSHA256: "sum", From: "terminal", Outcome: "answered"}}
	if err := w.Record(ctx, e); err != nil {
		t.Fatalf("Record = %v", err)
	}
	recs, err := audit.Read(h.AuditDir(), audit.Filter{})
	if err != nil || len(recs) != 1 || recs[0].Session != "s1" || recs[0].Kind != wisp.KindInquiryAnswered {
		t.Fatalf("the log holds %+v, %v; want one inquiry.answered in session s1", recs, err)
	}
	for _, tc := range []struct {
		id, sum string
		want    bool
	}{{"q1", "sum", true}, {"q1", "other", false}, {"q2", "sum", false}} {
		if ok, err := w.Vouched(ctx, wisp.KindInquiryAnswered, tc.id, tc.sum); ok != tc.want || err != nil {
			t.Errorf("Vouched(%q, %q) = %v, %v; want %v", tc.id, tc.sum, ok, err, tc.want)
		}
	}
}
