package spool_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/spool"
	"github.com/wisp-agent/wisp/internal/spool/spooltest"
)

// errMine and errBroken stand for a caller's own sentinels.
var (
	errMine   = errors.New("mine unsafe")
	errBroken = errors.New("mine malformed")
)

var sp = spool.Spool{
	Folder: "test folder", File: "test file", Keeps: "tests", MaxFileBytes: 16,
	ErrUnsafe: errMine, ErrMalformed: errBroken,
}

func TestValidIDAndIDOf(t *testing.T) {
	for id, want := range map[string]bool{
		"a1b2c3d4": true, "00000000": true, "ffffffff": true,
		"": false, "A1B2C3D4": false, "a1b2c3d": false, "a1b2c3d4e": false, "a1b2c3g4": false,
		"../x": false, "a1b2/3d4": false, "a1b2c3d\x00": false, ".lock": false,
	} {
		if got := spool.ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
	tests := []struct {
		name, id string
		ok       bool
	}{
		{"a1b2c3d4.request.json", "a1b2c3d4", true},
		{".a1b2c3d4.request.json.tmp-123", "a1b2c3d4", true},
		{"a1b2c3d4.", "a1b2c3d4", true},
		{"a1b2c3d4", "", false},
		{"a1b2c3d4x.json", "", false},
		{".lock", "", false},
		{"..a1b2c3d4.x", "", false},
		{"A1B2C3D4.x", "", false},
	}
	for _, tt := range tests {
		id, ok := spool.IDOf(tt.name)
		if id != tt.id || ok != tt.ok {
			t.Errorf("IDOf(%q) = %q, %v; want %q, %v", tt.name, id, ok, tt.id, tt.ok)
		}
	}
}

func TestUnsafe(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir, file string)
		want  string
	}{
		{"symlinked file", func(t *testing.T, dir, file string) {
			os.Remove(file)
			if err := os.Symlink("/etc/hostname", file); err != nil {
				t.Fatal(err)
			}
		}, "test file " + "%f is a symbolic link, which wisp never follows there; remove it (rm %f)"},
		{"group-writable file", func(t *testing.T, dir, file string) {
			os.Chmod(file, 0o620)
		}, "test file %f is writable by others; remove it (rm %f) or run chmod 600 %f"},
		{"folder in the file's place", func(t *testing.T, dir, file string) {
			os.Remove(file)
			os.Mkdir(file, 0o700)
		}, "test file %f is not a regular file; remove it (rm -r %f)"},
		{"world-writable folder", func(t *testing.T, dir, file string) {
			os.Chmod(dir, 0o777)
		}, "test folder %d is writable by others; run chmod 700 %d"},
		{"symlinked folder", func(t *testing.T, dir, file string) {
			moved := filepath.Join(t.TempDir(), "moved")
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			os.Symlink(moved, dir)
		}, "test folder %d is a symbolic link; wisp keeps tests only in a real folder: remove the link (rm %d)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "spool")
			if err := sp.UseDir(dir, true); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "a1b2c3d4.x.json")
			if err := spool.WriteFile(file, []byte("{}\n")); err != nil {
				t.Fatal(err)
			}
			tt.spoil(t, dir, file)
			want := strings.NewReplacer("%f", file, "%d", dir).Replace(tt.want)
			var err error
			if strings.Contains(tt.name, "folder") && !strings.Contains(tt.name, "file") {
				err = sp.UseDir(dir, false)
			} else {
				_, err = sp.ReadFile(file)
				if _, perr := sp.Present(file); perr == nil || perr.Error() != want {
					t.Errorf("Present = %v, want %q", perr, want)
				}
			}
			if err == nil || err.Error() != want {
				t.Fatalf("error = %v, want %q", err, want)
			}
			if !errors.Is(err, spool.ErrUnsafe) || !errors.Is(err, errMine) {
				t.Errorf("error %v wraps neither spool.ErrUnsafe nor the caller's sentinel", err)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	if err := sp.UseDir(dir, true); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a1b2c3d4.x.json")
	if _, err := sp.ReadFile(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v, want fs.ErrNotExist", err)
	}
	if there, err := sp.Present(path); there || err != nil {
		t.Errorf("Present of a missing file = %v, %v", there, err)
	}
	for _, data := range []string{"", "sixteen bytes ok"} {
		if err := spool.WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := sp.ReadFile(path); err != nil || string(got) != data {
			t.Errorf("ReadFile = %q, %v; want %q", got, err, data)
		}
	}
	if err := spool.WriteFile(path, []byte("seventeen bytes!!")); err != nil {
		t.Fatal(err)
	}
	_, err := sp.ReadFile(path)
	want := fmt.Sprintf("test file %s is not one wisp wrote (it is larger than 16 bytes); remove it (rm %s)", path, path)
	if err == nil || err.Error() != want || !errors.Is(err, spool.ErrMalformed) || !errors.Is(err, errBroken) {
		t.Errorf("ReadFile of a long file = %v, want %q wrapping both sentinels", err, want)
	}
}

func TestUseDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "spool")
	if err := sp.UseDir(dir, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("UseDir(create false) of a missing folder = %v, want fs.ErrNotExist", err)
	}
	if err := sp.UseDir(dir, true); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode() != fs.ModeDir|0o700 {
		t.Errorf("created folder: %v, %v; want mode 0700", fi, err)
	}
	if err := sp.UseDir("", true); err == nil || err.Error() != "the test folder is an empty path" {
		t.Errorf("UseDir(\"\") = %v", err)
	}
}

func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a1b2c3d4.answer.json")
	const n = 32
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = spool.CreateExclusive(path, []byte(fmt.Sprint(i))) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, spool.ErrExists):
			t.Errorf("CreateExclusive %d = %v", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers won, want 1", won)
	}
	if diff := cmp.Diff([]string{"a1b2c3d4.answer.json"}, spooltest.Names(t, dir)); diff != "" {
		t.Errorf("folder (-want +got):\n%s", diff)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", fi, err)
	}
	// A symbolic link at the name counts as taken, and is not followed.
	link := filepath.Join(dir, "0000000a.answer.json")
	target := filepath.Join(dir, "target")
	os.Symlink(target, link)
	if err := spool.CreateExclusive(link, []byte("x")); !errors.Is(err, spool.ErrExists) {
		t.Errorf("CreateExclusive over a link = %v, want ErrExists", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CreateExclusive followed a link: %v", err)
	}
}

func TestSweepAndRemoveID(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		".lock", "notes.txt",
		"a1b2c3d4.request.json", "a1b2c3d4.decision.json", ".a1b2c3d4.decision.json.tmp-1",
		"0000000b.decision.json", "0000000b.withdrawn.json", "0000000b.other.json",
		".0000000c.request.json.tmp-22",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	used, err := spool.UsedIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"a1b2c3d4": true, "0000000b": true, "0000000c": true}, used); diff != "" {
		t.Errorf("UsedIDs (-want +got):\n%s", diff)
	}
	if err := spool.Sweep(dir, "request", "decision", "withdrawn"); err != nil {
		t.Fatal(err)
	}
	want := []string{".lock", "0000000b.other.json", "a1b2c3d4.decision.json", "a1b2c3d4.request.json", "notes.txt"}
	if diff := cmp.Diff(want, spooltest.Names(t, dir)); diff != "" {
		t.Errorf("after Sweep (-want +got):\n%s", diff)
	}
	if err := spool.RemoveID(dir, "a1b2c3d4"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".lock", "0000000b.other.json", "notes.txt"}, spooltest.Names(t, dir)); diff != "" {
		t.Errorf("after RemoveID (-want +got):\n%s", diff)
	}
}

func TestJSON(t *testing.T) {
	type v struct {
		A string `json:"a"`
	}
	data, err := spool.EncodeJSON(v{A: "<&>"})
	if err != nil || string(data) != "{\n  \"a\": \"<&>\"\n}\n" {
		t.Errorf("EncodeJSON = %q, %v", data, err)
	}
	for in, want := range map[string]string{
		`{"a":"x"}`:         "",
		`{"a":"x","b":1}`:   `not the JSON wisp writes (json: unknown field "b")`,
		`{"a":"x"} {}`:      "not the JSON wisp writes (data after the object)",
		`{"a":"x"`:          "not the JSON wisp writes (unexpected EOF)",
		"{\"a\":\"x\"}\n\n": "",
	} {
		var got v
		err := spool.DecodeJSON([]byte(in), &got)
		if msg := fmt.Sprint(err); want == "" && err != nil || want != "" && msg != want {
			t.Errorf("DecodeJSON(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestCheckLine(t *testing.T) {
	for s, ok := range map[string]bool{
		"the thread ended": true, "é ok": true, strings.Repeat("x", 20): true,
		"": false, strings.Repeat("x", 21): false, "two\nlines": false, "tab\t": false,
		"\x7f": false, "\u0085": false, "\u2028": false, "\xff": false,
	} {
		if err := spool.CheckLine("the reason", s, 20); (err == nil) != ok {
			t.Errorf("CheckLine(%q) = %v, want ok %v", s, err, ok)
		}
	}
}

// FuzzIDOf checks that IDOf only ever returns a valid ID that the name
// starts with.
func FuzzIDOf(f *testing.F) {
	for _, s := range []string{"a1b2c3d4.request.json", ".a1b2c3d4.x.tmp-1", ".lock", "", "a1b2c3d4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		id, ok := spool.IDOf(name)
		if !ok {
			return
		}
		if !spool.ValidID(id) || !strings.HasPrefix(strings.TrimPrefix(name, "."), id+".") {
			t.Fatalf("IDOf(%q) = %q", name, id)
		}
	})
}

func TestDigest(t *testing.T) {
	d := spool.NewDigest("tag v1\x00")
	d.Field("a1b2c3d4")
	d.Time(time.Date(2026, 3, 1, 10, 30, 0, 5, time.FixedZone("CET", 3600)))
	d.Count(2)
	d.Field("")
	d.Field(strings.Repeat("x", 300))
	in := "tag v1\x00" + "\x08a1b2c3d4" + "\x1e2026-03-01T09:30:00.000000005Z" + "\x02" + "\x00" + "\xac\x02" + strings.Repeat("x", 300)
	sum := sha256.Sum256([]byte(in))
	if got, want := d.Sum(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Sum = %s, want %s", got, want)
	}
}

func TestParseWithdrawal(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	data, err := spool.EncodeJSON(spool.Withdrawal{Version: 1, ID: "a1b2c3d4", Why: "the thread ended", At: at})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"version\": 1,\n  \"id\": \"a1b2c3d4\",\n  \"why\": \"the thread ended\",\n  \"at\": \"2026-03-01T09:30:00Z\"\n}\n"
	if string(data) != want {
		t.Errorf("encoded withdrawal = %q, want %q", data, want)
	}
	if w, err := spool.ParseWithdrawal(data, 1, "test ID"); err != nil || w.Why != "the thread ended" || !w.At.Equal(at) {
		t.Errorf("ParseWithdrawal = %+v, %v", w, err)
	}
	for in, msg := range map[string]string{
		`{"version":2,"id":"a1b2c3d4","why":"x","at":"2026-03-01T09:30:00Z"}`:          "bad version or test ID",
		`{"version":1,"id":"../x","why":"x","at":"2026-03-01T09:30:00Z"}`:              "bad version or test ID",
		`{"version":1,"id":"a1b2c3d4","why":"","at":"2026-03-01T09:30:00Z"}`:           "the reason for withdrawing must be 1 to 200 bytes of UTF-8",
		`{"version":1,"id":"a1b2c3d4","why":"x","at":"2026-03-01T09:30:00Z","more":1}`: `not the JSON wisp writes (json: unknown field "more")`,
	} {
		if _, err := spool.ParseWithdrawal([]byte(in), 1, "test ID"); err == nil || err.Error() != msg {
			t.Errorf("ParseWithdrawal(%s) = %v, want %q", in, err, msg)
		}
	}
}

func TestChecks(t *testing.T) {
	if err := spool.CheckVersion(2, 1); err == nil || err.Error() != "version 2; this wisp reads version 1" {
		t.Errorf("CheckVersion(2, 1) = %v", err)
	}
	if err := spool.CheckVersion(1, 1); err != nil {
		t.Errorf("CheckVersion(1, 1) = %v", err)
	}
	asked := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		asked, deadline time.Time
		want            string
	}{
		{asked, time.Time{}, ""},
		{asked, asked.Add(time.Minute), ""},
		{time.Time{}, time.Time{}, "no time asked, or one before year 1 or after 9999"},
		{far, time.Time{}, "no time asked, or one before year 1 or after 9999"},
		{asked, far, "deadline before year 1 or after 9999"},
	} {
		if err := spool.CheckTimes(tt.asked, tt.deadline); fmt.Sprint(err) != tt.want && !(err == nil && tt.want == "") {
			t.Errorf("CheckTimes(%v, %v) = %v, want %q", tt.asked, tt.deadline, err, tt.want)
		}
	}
	if got := spool.QuoteID(strings.Repeat("z", 41)); got != `"`+strings.Repeat("z", 40)+`\u2026"` {
		t.Errorf("QuoteID of a long ID = %s", got)
	}
	if got := spool.QuoteID("../x\x00"); got != `"../x\x00"` {
		t.Errorf("QuoteID = %s", got)
	}
	err := spool.Line(errMine, "one line")
	if err.Error() != "one line" || !errors.Is(err, errMine) || errors.Is(err, spool.ErrUnsafe) {
		t.Errorf("Line = %v, which must wrap only its kind", err)
	}
}
