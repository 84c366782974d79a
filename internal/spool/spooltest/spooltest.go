// Package spooltest holds what the tests of wisp's spool folders share:
// golden files, listings of a folder, the ways to spoil a folder, and
// processes racing to answer one record.
package spooltest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// GoldenFile compares the file at path with testdata/name, first
// rewriting testdata/name with it when update is set (the caller's
// -update flag).
func GoldenFile(t *testing.T, name, path string, update bool) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

// Names lists the entries of the folder dir, or nil when it does not
// exist.
func Names(t *testing.T, dir string) []string {
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

// Tree describes every path under root with its mode and size, to show
// that nothing changed.
func Tree(t *testing.T, root string) []string {
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

// Untouched runs each of ops, which must fail with an error that wraps
// want, and checks that they changed nothing under root, where it first
// writes a file of its own.
func Untouched(t *testing.T, root string, want error, ops map[string]func() error) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "x"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := Tree(t, root)
	for name, op := range ops {
		if err := op(); !errors.Is(err, want) {
			t.Errorf("%s = %v, want %v", name, err, want)
		}
	}
	if diff := cmp.Diff(before, Tree(t, root)); diff != "" {
		t.Errorf("files changed (-before +after):\n%s", diff)
	}
}

// Modes checks that the folder dir is mode 0700 and holds exactly the
// files named, each mode 0600.
func Modes(t *testing.T, dir string, names ...string) {
	t.Helper()
	want := map[string]os.FileMode{dir: fs.ModeDir | 0o700}
	for _, name := range names {
		want[filepath.Join(dir, name)] = 0o600
	}
	for path, mode := range want {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Errorf("mode of %s = %v, want %v", filepath.Base(path), fi.Mode(), mode)
		}
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(names)), Names(t, dir)); diff != "" {
		t.Errorf("folder %s holds (-want +got):\n%s", dir, diff)
	}
}

// Racer is the body of one racing process that Race starts: spec is the
// value of Race's environment variable, which Racer splits at "|" into
// fields, as many as it must hold. Racer says "ready" on out, waits for a
// line on in, and says what race says for the fields: "won", the word of
// a racer that lost, or "error: …". It returns the process's exit code,
// 2 when spec or in fails it.
//
// Call it from TestMain when the variable is set:
//
//	if spec := os.Getenv(racerEnv); spec != "" {
//		os.Exit(spooltest.Racer(os.Stdin, os.Stdout, spec, 4, race))
//	}
func Racer(in io.Reader, out io.Writer, spec string, fields int, race func(f []string) string) int {
	f := strings.Split(spec, "|")
	if len(f) != fields {
		fmt.Fprintln(out, "error: bad spec", spec)
		return 2
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		fmt.Fprintln(out, "error:", err)
		return 2
	}
	fmt.Fprintln(out, race(f))
	return 0
}

// Race runs the test binary again as n processes, the racer i with the
// environment variable env set to spec(i) (see Racer). Once every racer
// is ready it lets them all go at once, and returns the index of the one
// that says "won". It fails the test unless exactly one racer won and
// every other says lost.
func Race(t *testing.T, env string, n int, spec func(i int) string, lost string) (winner int) {
	t.Helper()
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
		err   bytes.Buffer
	}
	procs := make([]*proc, n)
	for i := range procs {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		p.cmd.Env = append(os.Environ(), env+"="+spec(i))
		p.cmd.Stderr = &p.err
		var err error
		if p.stdin, err = p.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		stdout, err := p.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.out = bufio.NewReader(stdout)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
		if line, err := p.out.ReadString('\n'); line != "ready\n" {
			t.Fatalf("racer %d: %q, %v; stderr: %s", i, line, err, p.err.String())
		}
		procs[i] = p
	}
	for _, p := range procs {
		io.WriteString(p.stdin, "go\n")
	}
	winner = -1
	for i, p := range procs {
		line, _ := p.out.ReadString('\n')
		switch line = strings.TrimSpace(line); {
		case line == "won" && winner >= 0:
			t.Errorf("racers %d and %d both won", winner, i)
		case line == "won":
			winner = i
		case line != lost:
			t.Errorf("racer %d said %q, want won or %s; stderr: %s", i, line, lost, p.err.String())
		}
	}
	if winner < 0 {
		t.Fatal("no racer won")
	}
	return winner
}
