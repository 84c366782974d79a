package config_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/internal/fsx"
)

// Environment of a re-executed test binary that plays another wisp
// process running `wisp config set` again and again.
const childEnv = "CONFIG_TEST_UPDATE_CHILD" // "path|lockPath|prefix|count"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(updateChild(spec))
	}
	os.Exit(m.Run())
}

// updateChild adds count tool names beginning with prefix, one Update
// each.
func updateChild(spec string) int {
	parts := strings.Split(spec, "|")
	path, lockPath, prefix := parts[0], parts[1], parts[2]
	n, _ := strconv.Atoi(parts[3])
	for i := range n {
		if err := config.Update(context.Background(), path, lockPath, addTool(fmt.Sprintf("%s%02d", prefix, i))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// addTool returns an Update function that disables one more tool.
func addTool(name string) func(*config.Config) error {
	return func(c *config.Config) error {
		return c.Set("tools.disabled", strings.Join(append(slices.Clone(c.Tools.Disabled), name), ","))
	}
}

// paths returns a config path and a lock path in a fresh home.
func paths(t *testing.T) (path, lockPath string) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "locks"), 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, "config.json"), filepath.Join(home, "locks", "config.lock")
}

func loadDisabled(t *testing.T, path string) []string {
	t.Helper()
	c, err := config.Load(path)
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	return c.Tools.Disabled
}

func TestUpdateFromGoroutines(t *testing.T) {
	path, lockPath := paths(t)
	const workers, each = 8, 5
	var want []string
	var wg sync.WaitGroup
	for w := range workers {
		for i := range each {
			want = append(want, fmt.Sprintf("g%d_%d", w, i))
		}
		wg.Go(func() {
			for i := range each {
				if err := config.Update(t.Context(), path, lockPath, addTool(fmt.Sprintf("g%d_%d", w, i))); err != nil {
					t.Errorf("Update = %v", err)
				}
			}
		})
	}
	wg.Wait()
	slices.Sort(want)
	if diff := cmp.Diff(want, loadDisabled(t, path)); diff != "" {
		t.Errorf("disabled after %d concurrent updates (-want +got):\n%s", workers*each, diff)
	}
}

func TestUpdateFromProcesses(t *testing.T) {
	path, lockPath := paths(t)
	const each = 15
	var cmds []*exec.Cmd
	var want []string
	for _, prefix := range []string{"p", "q"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%d", childEnv, path, lockPath, prefix, each))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		for i := range each {
			want = append(want, fmt.Sprintf("%s%02d", prefix, i))
		}
	}
	// This process joins in too.
	for i := range each {
		name := fmt.Sprintf("r%02d", i)
		want = append(want, name)
		if err := config.Update(t.Context(), path, lockPath, addTool(name)); err != nil {
			t.Errorf("Update = %v", err)
		}
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child process: %v", err)
		}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, loadDisabled(t, path)); diff != "" {
		t.Errorf("disabled after updates from 3 processes (-want +got):\n%s", diff)
	}
}

func TestUpdateKeepsFileWhenFnFails(t *testing.T) {
	path, lockPath := paths(t)
	const old = "{\"tools\": {\"ask\": true}}\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		fn      func(*config.Config) error
		wantErr func(error) bool
	}{
		{"fn fails", func(c *config.Config) error {
			c.Tools.Ask = false
			return errFn
		}, func(err error) bool { return err == errFn }},
		{"fn leaves a bad value", func(c *config.Config) error {
			c.Inquiry.TimeoutSeconds = 5
			return nil
		}, func(err error) bool { return errors.Is(err, config.ErrBadValue) }},
		{"fn changes nothing", func(c *config.Config) error {
			return c.Set("tools.ask", "on")
		}, func(err error) bool { return err == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := config.Update(t.Context(), path, lockPath, tt.fn)
			if !tt.wantErr(err) {
				t.Errorf("Update = %v", err)
			}
			if got, _ := os.ReadFile(path); string(got) != old {
				t.Errorf("file after Update = %q, want it untouched %q", got, old)
			}
		})
	}
}

var errFn = errors.New("fn failed")

func TestUpdateRefusesBadFile(t *testing.T) {
	path, lockPath := paths(t)
	const bad = `{"tools":{"ask":"maybe"}}`
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	called := false
	err := config.Update(t.Context(), path, lockPath, func(*config.Config) error { called = true; return nil })
	want := path + `: tools.ask takes true, false, on or off; got "maybe"`
	if err == nil || err.Error() != want || !errors.Is(err, config.ErrBadFile) {
		t.Errorf("Update of a bad file = %v, want %q matching ErrBadFile", err, want)
	}
	if called {
		t.Error("Update called fn on a file that does not load")
	}
	if got, _ := os.ReadFile(path); string(got) != bad {
		t.Errorf("file after Update = %q, want it untouched", got)
	}
}

func TestUpdateSweepsTemps(t *testing.T) {
	path, lockPath := paths(t)
	temp := filepath.Join(filepath.Dir(path), ".config.json.tmp-12345")
	if err := os.WriteFile(temp, []byte(`{"half":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := config.Update(t.Context(), path, lockPath, addTool("ask")); err != nil {
		t.Fatalf("Update = %v", err)
	}
	if _, err := os.Lstat(temp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp file left by a crash still there after Update: %v", err)
	}
	if diff := cmp.Diff([]string{"ask"}, loadDisabled(t, path)); diff != "" {
		t.Errorf("disabled (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("mode after Update = %v, want %v", fi.Mode(), os.FileMode(0o600))
	}
}

func TestUpdateHonoursContext(t *testing.T) {
	path, lockPath := paths(t)
	unlock, err := fsx.Lock(t.Context(), lockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	called := false
	err = config.Update(ctx, path, lockPath, func(*config.Config) error { called = true; return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Update while the lock is held = %v, want %v", err, context.DeadlineExceeded)
	}
	if called {
		t.Error("Update called fn without the lock")
	}
}

// A settings file that cannot be written is ErrNotSaved, a failed write
// and not a refusal, with one line that names the file; nothing is left
// behind.
func TestUpdateNotSaved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gone", "config.json") // a folder that does not exist
	err := config.Update(context.Background(), path, filepath.Join(dir, "lock"), func(c *config.Config) error {
		return c.Set("tools.ask", "true")
	})
	if !errors.Is(err, config.ErrNotSaved) || errors.Is(err, config.ErrBadValue) || errors.Is(err, config.ErrBadFile) {
		t.Fatalf("Update into a missing folder = %v, want only config.ErrNotSaved", err)
	}
	if want := "cannot save " + path + ": "; !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Update error = %q, want one line starting %q", err, want)
	}
	if _, serr := os.Stat(path); !os.IsNotExist(serr) {
		t.Errorf("Update left %s behind: %v", path, serr)
	}
}
