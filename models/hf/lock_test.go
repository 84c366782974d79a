package hf_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/models/hf"
)

// Environment of a re-executed test binary that holds a lock.
const (
	lockHomeEnv = "HF_TEST_LOCK_HOME"
	lockRepoEnv = "HF_TEST_LOCK_REPO"
)

// TestLockHelperProcess is not a test: run by lockChild in a child
// process, it takes the lock, says "locked", and holds the lock until its
// stdin closes.
func TestLockHelperProcess(t *testing.T) {
	home := os.Getenv(lockHomeEnv)
	if home == "" {
		t.Skip("runs only as the child of a lock test")
	}
	unlock, err := hf.Store{Home: home}.Lock(os.Getenv(lockRepoEnv))
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
	unlock()
	os.Exit(0)
}

// lockChild starts a process that takes the lock of repo under home and
// returns once it holds it.
func lockChild(t *testing.T, home, repo string) (cmd *exec.Cmd, release io.Closer) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), lockHomeEnv+"="+home, lockRepoEnv+"="+repo)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("the child did not take the lock: %q, %v", line, err)
	}
	return cmd, stdin
}

// TestLockInProcess takes a repository's lock twice in one process: the
// second is refused with ErrBusy until the first is released.
func TestLockInProcess(t *testing.T) {
	s := hf.Store{Home: t.TempDir()}
	unlock, err := s.Lock("org/Name")
	if err != nil {
		t.Fatalf("Lock = %v", err)
	}
	for _, repo := range []string{"org/Name", "ORG/name"} {
		_, err := hf.Store{Home: s.Home}.Lock(repo)
		if want := "a pull of " + repo + " is already running"; !errors.Is(err, hf.ErrBusy) || err.Error() != want {
			t.Errorf("second Lock(%q) = %v, want %q wrapping ErrBusy", repo, err, want)
		}
	}
	other, err := s.Lock("org/Other")
	if err != nil {
		t.Errorf("Lock of another repository = %v", err)
	} else {
		other()
	}
	path := filepath.Join(s.Home, "locks", "pull-org--name.lock")
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file %s: %v, %v; want mode 0600", path, fi, err)
	}

	unlock()
	unlock() // a second call does nothing
	again, err := s.Lock("org/Name")
	if err != nil {
		t.Fatalf("Lock after unlock = %v", err)
	}
	again()
}

// TestLockRefusesLink refuses a lock file that is a symbolic link.
func TestLockRefusesLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no O_NOFOLLOW on windows")
	}
	s := hf.Store{Home: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(s.Home, "locks"), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(s.Home, "elsewhere")
	symlink(t, target, filepath.Join(s.Home, "locks", "pull-org--name.lock"))
	if unlock, err := s.Lock("org/name"); err == nil {
		unlock()
		t.Errorf("Lock through a symbolic link succeeded")
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lock created the link's target: %v", err)
	}
}

// TestLockAcrossProcesses holds the lock in a child process: Lock here is
// refused until the child releases it.
func TestLockAcrossProcesses(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no child processes to test with")
	}
	s := hf.Store{Home: t.TempDir()}
	cmd, release := lockChild(t, s.Home, "org/name")
	if _, err := s.Lock("org/name"); !errors.Is(err, hf.ErrBusy) {
		t.Fatalf("Lock while a child holds it = %v, want ErrBusy", err)
	}
	release.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	unlock, err := s.Lock("org/name")
	if err != nil {
		t.Fatalf("Lock after the child released it = %v", err)
	}
	unlock()
}

// TestLockAfterKill kills a child holding the lock with SIGKILL: the lock
// dies with it, and the next Lock succeeds at once.
func TestLockAfterKill(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no SIGKILL to test with")
	}
	s := hf.Store{Home: t.TempDir()}
	cmd, _ := lockChild(t, s.Home, "org/name")
	if _, err := s.Lock("org/name"); !errors.Is(err, hf.ErrBusy) {
		t.Fatalf("Lock while a child holds it = %v, want ErrBusy", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child ended by itself: %v", err)
	}
	unlock, err := s.Lock("org/name")
	if err != nil {
		t.Fatalf("Lock after the holder was killed = %v", err)
	}
	unlock()
}
