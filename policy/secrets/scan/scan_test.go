package scan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/policy/secrets/scan"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// fake returns a fake credential of rule, the same for the same seed.
func fake(t testing.TB, rule string, seed uint64) string {
	t.Helper()
	f, ok := secretstest.Generate(rule, rand.New(rand.NewPCG(seed, 7)))
	if !ok {
		t.Fatalf("no fake %s", rule)
	}
	return f.Text
}

// write makes the files of tree under dir, their folders with them.
func write(t testing.TB, dir string, tree map[string]string) {
	t.Helper()
	for name, content := range tree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// chdir makes dir the current folder for the test.
func chdir(t *testing.T, dir string) {
	t.Helper()
	t.Chdir(dir)
}

// planted is a repository with credentials at known places, and the
// values planted, for the checks that none is ever shown:
//
//	repo/.git/config (a token: never scanned)
//	repo/.gitignore (*.log, build/), app.log, build/out.txt (tokens: ignored)
//	repo/config/app.env (a GitHub token on line 3, column 14; an AWS key on line 4)
//	repo/config/.gitignore (local.env), config/local.env (ignored)
//	repo/src/main.go (the same GitHub token, a Slack token)
//	repo/keys/id_rsa (a private key on line 2)
//	repo/pay.yaml (a Stripe key)
//	repo/image.bin (a token after a NUL byte: binary)
//	repo/clean.txt (nothing)
type planted struct {
	repo   string
	values []string
}

func plant(t *testing.T) planted {
	t.Helper()
	pat, aws, slack := fake(t, "github-pat", 1), fake(t, "aws-access-key", 2), fake(t, "slack-bot-token", 3)
	key, stripe, other := fake(t, "private-key", 4), fake(t, "stripe-secret-key", 5), fake(t, "github-pat", 6)
	p := planted{repo: filepath.Join(t.TempDir(), "repo"), values: []string{pat, aws, slack, key, stripe, other}}
	write(t, p.repo, map[string]string{
		".git/config":       "[remote]\n\ttoken = " + other + "\n",
		".gitignore":        "*.log\nbuild/\n",
		"app.log":           "token " + other + "\n",
		"build/out.txt":     other + "\n",
		"config/app.env":    "# settings\nNAME=demo\nGITHUB_TOKEN=" + pat + "\nAWS_KEY=" + aws + "\n",
		"config/.gitignore": "local.env\n",
		"config/local.env":  "T=" + other + "\n",
		"src/main.go":       "package main\n\nconst token = \"" + pat + "\"\n\n// slack: " + slack + "\n",
		"keys/id_rsa":       "\n" + key,
		"pay.yaml":          "stripe:\n  key: " + stripe + "\n",
		"image.bin":         "\x89PNG\x00\x00" + other + "\n",
		"clean.txt":         "nothing to see\n",
	})
	return p
}

// The findings of a planted repository, scanned from its top.
var plantedFindings = []scan.Finding{
	{Rule: "github-pat", File: "config/app.env", Line: 3, Column: 14, Marker: "[REDACTED:github-pat#1]"},
	{Rule: "aws-access-key", File: "config/app.env", Line: 4, Column: 9, Marker: "[REDACTED:aws-access-key#1]"},
	{Rule: "private-key", File: "keys/id_rsa", Line: 2, Column: 1, Marker: "[REDACTED:private-key#1]"},
	{Rule: "stripe-secret-key", File: "pay.yaml", Line: 2, Column: 8, Marker: "[REDACTED:stripe-secret-key#1]"},
	{Rule: "github-pat", File: "src/main.go", Line: 3, Column: 16, Marker: "[REDACTED:github-pat#1]"},
	{Rule: "slack-bot-token", File: "src/main.go", Line: 5, Column: 11, Marker: "[REDACTED:slack-bot-token#1]"},
}

// Paths finds every planted credential with its rule, file, line and
// column, numbers the same value alike wherever it is, and leaves out
// .git, what .gitignore ignores (nested files too) and binary files.
func TestPathsFindsPlanted(t *testing.T) {
	p := plant(t)
	chdir(t, p.repo)
	r, err := scan.Paths(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plantedFindings, r.Findings); diff != "" {
		t.Errorf("Paths(.) findings (-want +got):\n%s", diff)
	}
	// .gitignore, config/.gitignore, app.env, main.go, id_rsa, pay.yaml, clean.txt
	if r.Files != 7 || r.Binary != 1 || len(r.Skipped) != 0 || r.Cut {
		t.Errorf("Paths(.) = %d files, %d binary, skipped %v, cut %v; want 7, 1, none, false", r.Files, r.Binary, r.Skipped, r.Cut)
	}
}

// With All, what .gitignore ignores is scanned too; .git never is.
func TestPathsAll(t *testing.T) {
	p := plant(t)
	r, err := scan.Paths(context.Background(), []string{p.repo}, &scan.Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, strings.TrimPrefix(f.File, filepath.ToSlash(p.repo)+"/")+" "+f.Marker)
	}
	want := []string{
		"app.log [REDACTED:github-pat#1]",
		"build/out.txt [REDACTED:github-pat#1]",
		"config/app.env [REDACTED:github-pat#2]",
		"config/app.env [REDACTED:aws-access-key#1]",
		"config/local.env [REDACTED:github-pat#1]",
		"keys/id_rsa [REDACTED:private-key#1]",
		"pay.yaml [REDACTED:stripe-secret-key#1]",
		"src/main.go [REDACTED:github-pat#2]",
		"src/main.go [REDACTED:slack-bot-token#1]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Paths(repo, All) (-want +got):\n%s", diff)
	}
}

// A path under a repository's top is read with the .gitignore files from
// the top down, and its findings are named under the path as given.
func TestPathsSubfolder(t *testing.T) {
	p := plant(t)
	write(t, p.repo, map[string]string{"config/debug.log": "x " + fake(t, "github-pat", 9) + "\n"})
	chdir(t, filepath.Join(p.repo, "src"))
	r, err := scan.Paths(context.Background(), []string{"../config", "main.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.File+" "+f.Rule)
	}
	want := []string{"../config/app.env github-pat", "../config/app.env aws-access-key", "main.go github-pat", "main.go slack-bot-token"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Paths(../config, main.go) (-want +got):\n%s", diff)
	}
}

// A file named on its own is scanned even where .gitignore ignores it.
func TestPathsIgnoredFileNamed(t *testing.T) {
	p := plant(t)
	r, err := scan.Paths(context.Background(), []string{filepath.Join(p.repo, "app.log")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Findings[0].File != filepath.ToSlash(filepath.Join(p.repo, "app.log")) {
		t.Errorf("Paths(app.log) = %+v; want its one finding", r.Findings)
	}
}

// Symbolic links in the tree are not followed, whether they lead out of
// it or not; a path given that is a link is.
func TestPathsLinks(t *testing.T) {
	base := t.TempDir()
	tok := fake(t, "github-pat", 11)
	write(t, base, map[string]string{"outside/secret.txt": tok + "\n", "tree/a.txt": "a\n", "tree/in/b.txt": tok + "\n"})
	for link, target := range map[string]string{
		"tree/out-dir": "../outside", "tree/out-file": "../outside/secret.txt",
		"tree/abs-dir": filepath.Join(base, "outside"), "tree/in-link": "in/b.txt", "named": "outside",
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	r, err := scan.Paths(context.Background(), []string{filepath.Join(base, "tree")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || !strings.HasSuffix(r.Findings[0].File, "tree/in/b.txt") || r.Files != 2 {
		t.Errorf("Paths(tree) = %+v in %d files; want in/b.txt alone, 2 files", r.Findings, r.Files)
	}
	named := filepath.Join(base, "named")
	r, err = scan.Paths(context.Background(), []string{named}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Findings[0].File != filepath.ToSlash(named)+"/secret.txt" {
		t.Errorf("Paths(named link) = %+v; want named/secret.txt", r.Findings)
	}
}

// A file larger than MaxFileBytes is not scanned, and named.
func TestPathsTooLarge(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"big.txt": strings.Repeat("x", 100) + fake(t, "github-pat", 1) + "\n", "small.txt": "ok\n"})
	chdir(t, dir)
	r, err := scan.Paths(context.Background(), nil, &scan.Options{MaxFileBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	want := []scan.Skipped{{File: "big.txt", Reason: scan.ReasonTooLarge}}
	if diff := cmp.Diff(want, r.Skipped); diff != "" || len(r.Findings) != 0 || r.Files != 1 {
		t.Errorf("Paths with MaxFileBytes 64 = %d findings, %d files (-want +got skipped):\n%s", len(r.Findings), r.Files, diff)
	}
	if got := r.Skips(); len(got) != 1 || got[0] != "big.txt: not scanned: larger than 64 B" {
		t.Errorf("Skips() = %q", got)
	}
}

// A path that does not exist is a *PathError that says so.
func TestPathsMissing(t *testing.T) {
	chdir(t, t.TempDir())
	_, err := scan.Paths(context.Background(), []string{"nope"}, nil)
	var pe *scan.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || err.Error() != "nope: no such file or folder" {
		t.Errorf("Paths(nope) = %v; want a PathError that says no such file or folder", err)
	}
	_, err = scan.FS(context.Background(), os.DirFS(t.TempDir()), []string{"nope"}, nil)
	if !errors.As(err, &pe) || err.Error() != "nope: no such file or folder" {
		t.Errorf("FS(nope) = %v; want a PathError that says no such file or folder", err)
	}
}

// FS leaves out what Skip names, and stops at MaxEntries.
func TestFSSkipAndCut(t *testing.T) {
	p := plant(t)
	fsys := os.DirFS(p.repo)
	r, err := scan.FS(context.Background(), fsys, []string{"."}, &scan.Options{Skip: func(p string) bool { return p == "config" || p == "pay.yaml" }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.File)
	}
	if diff := cmp.Diff([]string{"keys/id_rsa", "src/main.go", "src/main.go"}, got); diff != "" {
		t.Errorf("FS with Skip (-want +got):\n%s", diff)
	}
	r, err = scan.FS(context.Background(), fsys, []string{"."}, &scan.Options{MaxEntries: 3})
	if err != nil || !r.Cut || !strings.Contains(r.Summary(), "the walk stopped early") {
		t.Errorf("FS with MaxEntries 3 = cut %v, %q, %v; want it cut and said", r.Cut, r.Summary(), err)
	}
}

// A scan stops when its context ends.
func TestCancel(t *testing.T) {
	p := plant(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := scan.Paths(ctx, []string{p.repo}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Paths with an ended context = %v; want context.Canceled", err)
	}
}

// The table, the summary and the JSON name every finding and never a
// value, nor any part of one the probes look for.
func TestOutputsHoldNoValue(t *testing.T) {
	p := plant(t)
	chdir(t, p.repo)
	r, err := scan.Paths(context.Background(), nil, &scan.Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string][]byte{"Table": []byte(r.Table()), "JSON": js} {
		for _, v := range p.values {
			for _, probe := range probes(v) {
				if bytes.Contains(out, []byte(probe)) {
					t.Errorf("%s holds %q of a planted value:\n%s", name, probe, out)
				}
			}
		}
	}
	var back struct {
		Findings []scan.Finding `json:"findings"`
		Files    int            `json:"files"`
		Skipped  []scan.Skipped `json:"skipped"`
	}
	if err := json.Unmarshal(js, &back); err != nil || len(back.Findings) != len(r.Findings) || back.Skipped == nil {
		t.Errorf("JSON() = %s (%v); want every finding and an empty skipped list", js, err)
	}
}

// probes are the parts of a value an output must not hold: the value's
// lines, and every 12 bytes of each past its fixed prefix.
func probes(v string) []string {
	var ps []string
	for _, line := range strings.Split(v, "\n") {
		if strings.HasPrefix(line, "-----") || len(line) < 12 {
			continue
		}
		for i := 5; i+12 <= len(line); i += 6 {
			ps = append(ps, line[i:i+12])
		}
	}
	return ps
}

// The table is a row per finding under a header, then the summary.
func TestTable(t *testing.T) {
	r := &scan.Report{
		Findings: []scan.Finding{
			{Rule: "github-pat", File: "a/config.env", Line: 3, Column: 14, Marker: "[REDACTED:github-pat#1]"},
			{Rule: "aws-access-key", File: "b\x1b[31m.txt", Line: 10, Column: 1, Marker: "[REDACTED:aws-access-key#1]"},
		},
		Files: 12, Bytes: 3 << 20, Binary: 2, MaxFileBytes: scan.DefaultMaxFileBytes,
		Skipped: []scan.Skipped{{File: "huge.sql", Reason: scan.ReasonTooLarge}, {File: "locked", Reason: scan.ReasonUnreadable}},
	}
	want := "FILE          LINE  COLUMN  RULE            MARKER\n" +
		"a/config.env  3     14      github-pat      [REDACTED:github-pat#1]\n" +
		"b\\e[31m.txt   10    1       aws-access-key  [REDACTED:aws-access-key#1]\n" +
		"2 credentials in 2 files; 12 files scanned (3 MiB); 2 binary files left out; 2 files not scanned\n" +
		"huge.sql: not scanned: larger than 32 MiB\n" +
		"locked: not scanned: it could not be read\n"
	if diff := cmp.Diff(want, r.Table()); diff != "" {
		t.Errorf("Table() (-want +got):\n%s", diff)
	}
	empty := &scan.Report{Files: 1, Bytes: 1536}
	if got, want := empty.Table(), "no credentials; 1 file scanned (1.5 KiB)\n"; got != want {
		t.Errorf("Table() of nothing found = %q, want %q", got, want)
	}
}

// Mark gives the markers: its own where it returns one, and an
// unnumbered one where it returns anything else, never shown.
func TestMark(t *testing.T) {
	p := plant(t)
	leak := fake(t, "slack-bot-token", 3)
	mark := func(rule, value string) string {
		switch rule {
		case "github-pat":
			return "[REDACTED:github-pat#7]"
		case "slack-bot-token":
			return value // not a marker: never shown
		}
		return "[REDACTED:" + rule + "#1] and more"
	}
	r, err := scan.Paths(context.Background(), []string{p.repo}, &scan.Options{Mark: mark})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.Marker)
	}
	want := []string{"[REDACTED:github-pat#7]", "[REDACTED:aws-access-key]", "[REDACTED:private-key]", "[REDACTED:stripe-secret-key]", "[REDACTED:github-pat#7]", "[REDACTED:slack-bot-token]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("markers with Mark (-want +got):\n%s", diff)
	}
	if strings.Contains(r.Table(), leak) {
		t.Errorf("Table() shows what Mark returned that is no marker:\n%s", r.Table())
	}
}
