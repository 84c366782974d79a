package prompt_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
	"github.com/wisp-agent/wisp/prompt"
)

// write writes files under dir, each path slash-separated; a path ending
// in / is a folder.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every AGENTS.md from the repository root down to the workspace, root
// first and nearest last, each named relative to the workspace; none
// above the root, none below the workspace, no empty one.
func TestReadProjectFindsTheFiles(t *testing.T) {
	for _, c := range []struct {
		name      string
		files     map[string]string
		workspace string
		want      prompt.Project
	}{
		{
			name: "repository root above",
			files: map[string]string{
				"AGENTS.md": "above the root", "repo/.git/": "", "repo/AGENTS.md": "root",
				"repo/a/AGENTS.md": "", "repo/a/b/AGENTS.md": "workspace", "repo/a/b/c/AGENTS.md": "below",
			},
			workspace: "repo/a/b",
			want: prompt.Project{Root: "../..", Files: []prompt.File{
				{Path: "../../AGENTS.md", Text: "root"}, {Path: "AGENTS.md", Text: "workspace"},
			}},
		},
		{
			name:      "a worktree's .git file",
			files:     map[string]string{"wt/.git": "gitdir: /elsewhere", "wt/AGENTS.md": "root", "wt/x/AGENTS.md": "x"},
			workspace: "wt/x",
			want: prompt.Project{Root: "..", Files: []prompt.File{
				{Path: "../AGENTS.md", Text: "root"}, {Path: "AGENTS.md", Text: "x"},
			}},
		},
		{
			name:      "the workspace is the root",
			files:     map[string]string{"AGENTS.md": "above", "r/.git/": "", "r/AGENTS.md": "here"},
			workspace: "r",
			want:      prompt.Project{Root: ".", Files: []prompt.File{{Path: "AGENTS.md", Text: "here"}}},
		},
		{
			name:      "no repository: the workspace alone",
			files:     map[string]string{"AGENTS.md": "above", "w/AGENTS.md": "here"},
			workspace: "w",
			want:      prompt.Project{Files: []prompt.File{{Path: "AGENTS.md", Text: "here"}}},
		},
		{
			name:      "none at all",
			files:     map[string]string{"r/.git/": "", "r/w/": ""},
			workspace: "r/w",
			want:      prompt.Project{Root: ".."},
		},
		{
			name:      "a folder named AGENTS.md",
			files:     map[string]string{"r/.git/": "", "r/AGENTS.md/": ""},
			workspace: "r",
			want:      prompt.Project{Root: "."},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The temp folder is no repository; git's own tests run in
			// one, so the tree starts in a fresh folder with a .git of
			// its own only where the case puts one.
			dir := t.TempDir()
			write(t, dir, c.files)
			got, err := prompt.ReadProject(filepath.Join(dir, c.workspace), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("ReadProject(%s) (-want +got):\n%s", c.workspace, diff)
			}
		})
	}
}

// A file over MaxFileBytes is cut at its last line break within the cap,
// and says how much was cut; files that together pass MaxProjectBytes
// are cut farthest first, the nearest served in full.
func TestReadProjectCaps(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	big := strings.Repeat(line, prompt.MaxFileBytes/100+10)
	dir := t.TempDir()
	files := map[string]string{".git/": ""}
	ws := ""
	for i := range 5 {
		files[ws+"AGENTS.md"] = big
		if i < 4 {
			ws += "d/"
		}
	}
	write(t, dir, files)
	got, err := prompt.ReadProject(filepath.Join(dir, ws), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != 5 {
		t.Fatalf("ReadProject found %d files, want 5", len(got.Files))
	}
	keep := prompt.MaxFileBytes / 100 * 100 // whole lines within the cap
	total := 0
	for i, f := range got.Files {
		total += len(f.Text)
		want := keep
		if i == 0 { // the farthest, served last
			want = prompt.MaxProjectBytes - 4*keep
			want -= want % 100
		}
		if len(f.Text) != want || int(f.Omitted) != len(big)-want || (f.Text != "" && !strings.HasSuffix(f.Text, "\n")) {
			t.Errorf("file %s: %d bytes kept, %d omitted; want %d kept at a line break, %d omitted", f.Path, len(f.Text), f.Omitted, want, len(big)-want)
		}
	}
	if total > prompt.MaxProjectBytes {
		t.Errorf("the files keep %d bytes in all, more than MaxProjectBytes (%d)", total, prompt.MaxProjectBytes)
	}
	built := prompt.Build(&prompt.Options{Project: got})
	if !strings.Contains(built, "[truncated: ") {
		t.Errorf("Build does not say what was cut:\n%s", built[:200])
	}
}

// A file of one long line is cut at a rune boundary.
func TestReadProjectCutsAtARune(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"AGENTS.md": "a" + strings.Repeat("é", prompt.MaxFileBytes)})
	got, err := prompt.ReadProject(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := got.Files[0]
	if len(f.Text) != prompt.MaxFileBytes-1 || f.Text != prompt.Text(f.Text) {
		t.Errorf("ReadProject kept %d bytes (%q…), want %d, whole runes", len(f.Text), f.Text[len(f.Text)-4:], prompt.MaxFileBytes-1)
	}
}

// Credentials become markers, with the redactor given; control, bidi and
// invisible characters are escaped.
func TestReadProjectRedactsAndEscapes(t *testing.T) {
	fake, _ := secretstest.Generate("github-pat", rand.New(rand.NewPCG(1, 2)))
	token := fake.Text
	dir := t.TempDir()
	write(t, dir, map[string]string{"AGENTS.md": "Use " + token + " to push.\r\nThen \x1b[8mhide\u202e.\n"})
	r := secrets.NewRedactor()
	got, err := prompt.ReadProject(dir, &prompt.ProjectOptions{Redact: r.Replace})
	if err != nil {
		t.Fatal(err)
	}
	want := "Use " + r.Replace(token) + " to push.\nThen \\e[8mhide\\u{202E}.\n"
	if len(got.Files) != 1 || got.Files[0].Text != want || strings.Contains(got.Files[0].Text, token) {
		t.Errorf("ReadProject = %+v, want the text %q", got.Files, want)
	}
}

// An AGENTS.md that is a link is followed inside the repository and
// refused when it leads out, with a line that says so; the workspace
// itself may be reached through a link.
func TestReadProjectLinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"secret.txt": "outside", "r/.git/": "", "r/shared.md": "shared", "r/a/": "", "r/a/b/": "",
	})
	r := filepath.Join(dir, "r")
	for target, link := range map[string]string{
		filepath.Join(dir, "secret.txt"): filepath.Join(r, "AGENTS.md"),
		"../shared.md":                   filepath.Join(r, "a", "AGENTS.md"),
		filepath.Join(r, "a", "b"):       filepath.Join(dir, "ws"),
		"../../../secret.txt":            filepath.Join(r, "a", "b", "AGENTS.md"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	got, err := prompt.ReadProject(filepath.Join(dir, "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := "it is a link that leads out of the repository, which is not followed"
	want := prompt.Project{Root: "../..", Files: []prompt.File{
		{Path: "../../AGENTS.md", Problem: out},
		{Path: "../AGENTS.md", Text: "shared"},
		{Path: "AGENTS.md", Problem: out},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadProject (-want +got):\n%s", diff)
	}
}

// A workspace that is missing or not a folder is an error of one line.
func TestReadProjectBadWorkspace(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"file": "x"})
	for _, ws := range []string{filepath.Join(dir, "none"), filepath.Join(dir, "file")} {
		_, err := prompt.ReadProject(ws, nil)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ReadProject(%s) = %v, want one line", ws, err)
		}
	}
}
