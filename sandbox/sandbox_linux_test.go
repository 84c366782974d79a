package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
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

	"github.com/wisp-agent/wisp/sandbox"
)

var probe = sync.OnceValue(func() sandbox.Support { return sandbox.Probe(context.Background()) })

// needSandbox skips t where this machine cannot confine commands, saying
// why.
func needSandbox(t *testing.T) {
	t.Helper()
	if s := probe(); !s.Confined {
		t.Skipf("no sandbox here: %s", s.Reason)
	}
}

const testPath = "PATH=/usr/local/bin:/usr/bin:/bin"

// testEnv is the environment of the tests' commands. A helper built with
// the race detector would otherwise sleep a second as it exits.
var testEnv = []string{testPath, "GORACE=atexit_sleep_ms=0"}

// fixture is a workspace and a wisp home outside /tmp, with a config file.
type fixture struct {
	ws, home, config string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	parent, err := os.MkdirTemp("/var/tmp", "wisp-test-")
	if err != nil {
		t.Skipf("no folder for a wisp home outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	home := filepath.Join(parent, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	f := fixture{ws: t.TempDir(), home: home, config: filepath.Join(home, "config.json")}
	if err := os.WriteFile(f.config, []byte(`{"secret":"hunter2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) runner(t *testing.T, p sandbox.Policy) *sandbox.Runner {
	t.Helper()
	if p.Workspace == "" {
		p.Workspace = f.ws
	}
	if p.Home == "" {
		p.Home = f.home
	}
	r, err := sandbox.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func run(t *testing.T, r *sandbox.Runner, line string) *sandbox.Result {
	t.Helper()
	res, err := r.Run(context.Background(), sandbox.Command{Line: line, Env: testEnv})
	if err != nil {
		t.Fatalf("Run(%q): %v", line, err)
	}
	return res
}

func TestProbe(t *testing.T) {
	s := probe()
	t.Logf("support: %+v", s)
	if !s.Confined {
		t.Skipf("no sandbox here: %s", s.Reason)
	}
	if s.Method != "landlock+namespaces" || s.LandlockABI < 1 {
		t.Errorf("Probe() = %+v, want method landlock+namespaces and an ABI", s)
	}
}

func TestWorkspaceWritableElsewhereNot(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	outside, err := os.MkdirTemp("/var/tmp", "outside-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(outside)
	os.Chmod(outside, 0o777)
	r := f.runner(t, sandbox.Policy{})
	for _, tc := range []struct {
		line   string
		ok     bool
		create string
	}{
		{"echo hi > in.txt", true, filepath.Join(f.ws, "in.txt")},
		{"mkdir -p a/b && mv in.txt a/b/moved.txt", true, filepath.Join(f.ws, "a/b/moved.txt")},
		{"echo hi > " + outside + "/x", false, filepath.Join(outside, "x")},
		{"mkdir " + outside + "/d", false, filepath.Join(outside, "d")},
		{"cp /etc/hostname " + outside + "/", false, filepath.Join(outside, "hostname")},
		{"echo x >> /etc/hostname", false, ""},
		{"ln -s /etc " + outside + "/l", false, filepath.Join(outside, "l")},
	} {
		res := run(t, r, tc.line)
		if got := res.ExitCode == 0; got != tc.ok {
			t.Errorf("Run(%q) exit %d, want success %v; stderr %q", tc.line, res.ExitCode, tc.ok, res.Stderr)
		}
		if tc.create != "" {
			_, err := os.Lstat(tc.create)
			if exists := err == nil; exists != tc.ok {
				t.Errorf("after Run(%q), %s exists: %v, want %v", tc.line, tc.create, exists, tc.ok)
			}
		}
	}
}

// Landlock alone lets stat, chmod and utimes through; the sandbox must not.
func TestChmodAndTouchOutsideWorkspaceFail(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	target, err := os.CreateTemp("/var/tmp", "target-")
	if err != nil {
		t.Skip(err)
	}
	target.Close()
	defer os.Remove(target.Name())
	os.Chmod(target.Name(), 0o644)
	before, _ := os.Stat(target.Name())
	r := f.runner(t, sandbox.Policy{})
	for _, line := range []string{
		"chmod 666 " + target.Name(),
		"touch -d 2001-01-01 " + target.Name(),
		"truncate -s 0 /etc/hostname",
	} {
		if res := run(t, r, line); res.ExitCode == 0 {
			t.Errorf("Run(%q) succeeded; want it refused", line)
		}
	}
	after, _ := os.Stat(target.Name())
	if after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("%s changed: mode %v→%v, time %v→%v", target.Name(), before.Mode(), after.Mode(), before.ModTime(), after.ModTime())
	}
}

// Nothing of the wisp home can be read, listed, stat'ed, written, touched,
// chmod'ed, renamed or removed, whatever the command is: the sandbox does
// not care whether the person approved it.
func TestHomeUntouchable(t *testing.T) {
	needSandbox(t)
	for _, inside := range []bool{false, true} {
		t.Run(fmt.Sprintf("inside workspace %v", inside), func(t *testing.T) {
			f := newFixture(t)
			p := sandbox.Policy{}
			if inside {
				// A home inside the workspace stays hidden.
				p.Home = filepath.Join(f.ws, ".wisp")
				os.Mkdir(p.Home, 0o700)
				f.home, f.config = p.Home, filepath.Join(p.Home, "config.json")
				os.WriteFile(f.config, []byte(`{"secret":"hunter2"}`), 0o600)
			}
			before := snapshot(t, f.home)
			r := f.runner(t, p)
			lines := []string{
				"cat " + f.config,
				"ls " + f.home,
				"stat " + f.config,
				"test -e " + f.config,
				"echo x > " + f.config,
				"echo x >> " + f.home + "/new",
				"touch " + f.config,
				"touch -d 2001-01-01 " + f.home,
				"chmod 777 " + f.home,
				"chmod 644 " + f.config,
				"rm -rf " + f.home,
				"mv " + f.home + " " + f.home + ".moved",
				"mkdir " + f.home + "/d",
				"find " + filepath.Dir(f.home) + " -name config.json | grep .",
				"grep -r hunter2 " + filepath.Dir(f.home),
				"ln -s " + f.home + " link; cat link/config.json",
			}
			if _, err := exec.LookPath("unshare"); err == nil {
				// Namespaces of its own give no way past the mask:
				// Landlock refuses every mount change.
				lines = append(lines,
					"unshare -Urm sh -c 'umount "+f.home+"; cat "+f.config+"'",
					"unshare -Um --propagation unchanged sh -c 'umount -l "+f.home+"; cat "+f.config+"'")
			}
			for _, line := range lines {
				res := run(t, r, line)
				if res.ExitCode == 0 {
					t.Errorf("Run(%q) succeeded; want it to fail. stdout %q", line, res.Stdout)
				}
				if strings.Contains(res.Stdout.String()+res.Stderr.String(), "hunter2") {
					t.Errorf("Run(%q) showed the config's content", line)
				}
			}
			if diff := cmp.Diff(before, snapshot(t, f.home)); diff != "" {
				t.Errorf("the wisp home changed (-before +after):\n%s", diff)
			}
		})
	}
}

// A wisp home that does not exist yet cannot be made by a command.
func TestMissingHomeCannotBePlanted(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	home := filepath.Join(f.ws, "sub", ".wisp")
	r := f.runner(t, sandbox.Policy{Home: home})
	res := run(t, r, "mkdir -p sub/.wisp; echo '{}' > sub/.wisp/config.json")
	if res.ExitCode == 0 {
		t.Errorf("planting a config in the missing home succeeded")
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); err == nil {
		t.Errorf("a config was planted in the wisp home")
	}
}

// snapshot lists every file under dir with its mode, time and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b, _ := os.ReadFile(p)
		got[p] = fmt.Sprintf("%v %v %q", fi.Mode(), fi.ModTime().UnixNano(), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestHiddenPaths(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	secret, err := os.CreateTemp("/var/tmp", "netrc-")
	if err != nil {
		t.Skip(err)
	}
	secret.WriteString("machine x password hunter2")
	secret.Close()
	defer os.Remove(secret.Name())
	r := f.runner(t, sandbox.Policy{Hide: []string{secret.Name(), "/var/tmp/no-such-secret"}})
	res := run(t, r, "cat "+secret.Name()+"; echo x > "+secret.Name()+"; cat "+secret.Name())
	if strings.Contains(res.Stdout.String(), "hunter2") {
		t.Errorf("a hidden file was read: %q", res.Stdout)
	}
	if b, _ := os.ReadFile(secret.Name()); string(b) != "machine x password hunter2" {
		t.Errorf("a hidden file changed to %q", b)
	}
}

func TestReadOnlyMode(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.ws, "kept"), []byte("kept"), 0o644)
	r := f.runner(t, sandbox.Policy{Mode: sandbox.ReadOnly})
	if res := run(t, r, "cat kept && echo x > $TMPDIR/scratch && cat $TMPDIR/scratch"); res.ExitCode != 0 || res.Stdout.String() != "keptx\n" {
		t.Errorf("reading the workspace and writing temp: exit %d, stdout %q, stderr %q; want 0 and %q", res.ExitCode, res.Stdout, res.Stderr, "keptx\n")
	}
	for _, line := range []string{"echo x > new", "echo x >> kept", "rm kept", "touch kept", "mkdir d"} {
		if res := run(t, r, line); res.ExitCode == 0 {
			t.Errorf("Run(%q) in read-only mode succeeded", line)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "kept")); string(b) != "kept" {
		t.Errorf("kept = %q after read-only runs", b)
	}
}

func TestReadOnlyPathsInWorkspace(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.ws, ".git/hooks"), 0o755)
	r := f.runner(t, sandbox.Policy{ReadOnly: []string{".git", ".wisp"}})
	if res := run(t, r, "echo x > .git/hooks/pre-commit"); res.ExitCode == 0 {
		t.Errorf("writing .git/hooks succeeded")
	}
	if res := run(t, r, "echo x > ok.txt"); res.ExitCode != 0 {
		t.Errorf("writing the workspace failed: %q", res.Stderr)
	}
}

// The command's /tmp is its own folder, empty at the start and gone at the
// end; the host's temp files are out of sight.
func TestPrivateTemp(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	hostFile, err := os.CreateTemp("", "host-secret-")
	if err != nil {
		t.Fatal(err)
	}
	hostFile.Close()
	defer os.Remove(hostFile.Name())
	r := f.runner(t, sandbox.Policy{})
	res := run(t, r, `echo "$TMPDIR"; test -e `+hostFile.Name()+` && echo visible; echo x > /tmp/mine && cat /tmp/mine; ls /tmp`)
	want := "/tmp\nx\n" + filepath.Base(filepath.Dir(f.ws)) + "\nmine\n"
	if !strings.HasPrefix(f.ws, os.TempDir()) {
		want = "/tmp\nx\nmine\n"
	}
	if res.Stdout.String() != want {
		t.Errorf("stdout = %q, want %q (stderr %q)", res.Stdout, want, res.Stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), "wisp-run-*", "mine"))
	if len(matches) != 0 {
		t.Errorf("the private temp folder was left: %v", matches)
	}
}

func TestNetwork(t *testing.T) {
	needSandbox(t)
	if helperBin == "" {
		t.Skip("no helper binary")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	f := newFixture(t)
	for _, tc := range []struct {
		network bool
		line    string
		ok      bool
	}{
		{false, helperBin + " sandbox-test-helper dial tcp " + addr, false},
		{false, helperBin + " sandbox-test-helper dial mptcp " + addr, false},
		{false, helperBin + " sandbox-test-helper dial tcp 192.0.2.1:80", false},
		{false, helperBin + " sandbox-test-helper send udp 192.0.2.1:53", false},
		{false, helperBin + " sandbox-test-helper loopback", true},
		{true, helperBin + " sandbox-test-helper dial tcp " + addr, true},
	} {
		r := f.runner(t, sandbox.Policy{Network: tc.network})
		res := run(t, r, tc.line)
		if got := res.ExitCode == 0; got != tc.ok {
			t.Errorf("network %v: Run(%q) exit %d (%q), want success %v", tc.network, tc.line, res.ExitCode, res.Stdout.String()+res.Stderr.String(), tc.ok)
		}
		if !tc.network && strings.Contains(tc.line, "192.0.2.1") && !slices.Contains(res.Denied, "network") {
			t.Errorf("network %v: Run(%q).Denied = %q, want it to name the network", tc.network, tc.line, res.Denied)
		}
	}
	// A datagram sent offline to the host's loopback never arrives.
	r := f.runner(t, sandbox.Policy{})
	run(t, r, helperBin+" sandbox-test-helper send udp "+udp.LocalAddr().String())
	udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, _, err := udp.ReadFrom(make([]byte, 16)); err == nil {
		t.Errorf("a UDP datagram left the offline sandbox")
	}
	if _, err := exec.LookPath("curl"); err == nil {
		r := f.runner(t, sandbox.Policy{})
		if res := run(t, r, "curl -sS --max-time 2 "+srv.URL); res.ExitCode == 0 {
			t.Errorf("curl %s succeeded offline", srv.URL)
		}
	}
}

// A command sees its own processes only, and holds no capability, even
// when wisp runs as root.
func TestOwnProcessesNoCapabilities(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{})
	res := run(t, r, "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; ls /proc | grep -c '^[0-9]'")
	lines := strings.Split(strings.TrimSpace(res.Stdout.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("stdout = %q, want five capability lines and a count", res.Stdout)
	}
	for _, l := range lines[:5] {
		if !strings.HasSuffix(l, "0000000000000000") {
			t.Errorf("capability line %q, want none", l)
		}
	}
	if n, _ := strconv.Atoi(lines[5]); n < 1 || n > 4 {
		t.Errorf("the command saw %s processes in /proc, want its own few", lines[5])
	}
}

// Ending a command ends everything it started, even a process that left
// its group with setsid.
func TestCancelEndsSetsidChild(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{Limits: sandbox.Limits{Grace: 200 * time.Millisecond}})
	marker := fmt.Sprintf("%d.%d", 900+os.Getpid()%99, time.Now().UnixNano()%1000000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	res, err := r.Run(ctx, sandbox.Command{
		Line: "setsid sleep " + marker + " & sleep 0.05; echo started; wait",
		Env:  testEnv,
		OnOutput: func(s sandbox.Stream, p []byte) {
			if bytes.Contains(p, []byte("started")) {
				once.Do(cancel)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.ExitCode != -1 {
		t.Errorf("Run = exit %d canceled %v, want -1 and canceled", res.ExitCode, res.Canceled)
	}
	if pids := processesWith(t, marker); len(pids) != 0 {
		t.Errorf("processes %v outlived the command", pids)
	}
}

// processesWith returns the host processes whose command line holds s.
func processesWith(t *testing.T, s string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if bytes.Contains(b, []byte(s)) {
			got = append(got, e.Name())
		}
	}
	return got
}

func TestTimeout(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{Limits: sandbox.Limits{Grace: 100 * time.Millisecond}})
	res, err := r.Run(context.Background(), sandbox.Command{Line: "trap '' TERM; sleep 30", Env: testEnv, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal != "killed" || res.Duration > 10*time.Second {
		t.Errorf("Run = timed out %v, signal %q, after %v; want timed out, killed, soon", res.TimedOut, res.Signal, res.Duration)
	}
}

func TestOutputCutHeadAndTail(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{Limits: sandbox.Limits{Output: 1000}})
	var streamed int64
	res, err := r.Run(context.Background(), sandbox.Command{
		Line:     "echo START; head -c 2000000 /dev/zero | tr '\\0' a; echo; echo END; echo err >&2",
		Env:      testEnv,
		OnOutput: func(s sandbox.Stream, p []byte) { streamed += int64(len(p)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	out := res.Stdout
	if out.Bytes != 2000011 || streamed != 2000015 {
		t.Errorf("stdout bytes %d, streamed %d; want 2000011 and 2000015", out.Bytes, streamed)
	}
	if len(out.Head) != 500 || len(out.Tail) != 500 || out.Cut != out.Bytes-1000 {
		t.Errorf("kept head %d, tail %d, cut %d; want 500, 500, %d", len(out.Head), len(out.Tail), out.Cut, out.Bytes-1000)
	}
	if !strings.HasPrefix(out.String(), "START\naaa") || !strings.HasSuffix(out.String(), "aaa\nEND\n") || !strings.Contains(out.String(), "[… 1999011 bytes cut …]") {
		t.Errorf("stdout kept as %q…%q", out.String()[:20], out.String()[len(out.String())-40:])
	}
	if res.Stderr.String() != "err\n" {
		t.Errorf("stderr = %q, want %q", res.Stderr, "err\n")
	}
}

// A command cannot have more processes than the limit, and a fork bomb
// ends with the command while the caller carries on.
func TestProcessLimit(t *testing.T) {
	needSandbox(t)
	for _, w := range probe().Weaknesses {
		if strings.Contains(w, "processes is bounded only by the timeout") {
			t.Skip(w)
		}
	}
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{Limits: sandbox.Limits{Processes: 24, Grace: 100 * time.Millisecond}})
	if helperBin == "" {
		t.Skip("no helper binary")
	}
	res := run(t, r, helperBin+" sandbox-test-helper spawn 60")
	n, err := strconv.Atoi(strings.TrimSpace(res.Stdout.String()))
	t.Logf("started %d of 60 under a limit of 24", n)
	if err != nil || n >= 24 || n < 1 {
		t.Errorf("the command started %q processes of 60, want fewer than 24 (stderr %q)", res.Stdout, res.Stderr)
	}

	bomb, err := r.Run(context.Background(), sandbox.Command{Line: "f() { f | f & }; f; wait", Env: testEnv, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if bomb.Duration > 10*time.Second {
		t.Errorf("the fork bomb ran %v", bomb.Duration)
	}
	if out, err := exec.Command("/bin/true").CombinedOutput(); err != nil {
		t.Errorf("after the fork bomb, starting a process: %v %s", err, out)
	}
}

// The command gets exactly the environment given, with TMPDIR, and an
// empty stdin.
func TestEnvironmentAndStdin(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{})
	res, err := r.Run(context.Background(), sandbox.Command{
		Line: "cat; env | grep -v '^PWD=' | sort",
		Env:  []string{testPath, "FOO=bar", "TMPDIR=/elsewhere"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "FOO=bar\n" + testPath + "\nTMPDIR=/tmp\n"
	if res.Stdout.String() != want {
		t.Errorf("stdout = %q, want %q", res.Stdout, want)
	}
}

func TestExitStatusAndDenied(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{})
	for _, tc := range []struct {
		line   string
		exit   int
		denied []string
	}{
		{"exit 3", 3, nil},
		{"true", 0, nil},
		{"echo x > /etc/x", 2, []string{"write outside the writable folders"}},
		{"cat " + f.config, 1, []string{"file access"}},
	} {
		res := run(t, r, tc.line)
		if res.ExitCode != tc.exit || !cmp.Equal(res.Denied, tc.denied) || res.Mode != sandbox.WorkspaceWrite {
			t.Errorf("Run(%q) = exit %d, denied %q, mode %q; want %d, %q, workspace-write", tc.line, res.ExitCode, res.Denied, res.Mode, tc.exit, tc.denied)
		}
	}
}

// Mode off confines nothing but still bounds and ends the command's group.
func TestModeOff(t *testing.T) {
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{Mode: sandbox.Off, Limits: sandbox.Limits{Grace: 100 * time.Millisecond}})
	res := run(t, r, "cat "+f.config)
	if res.Stdout.String() != `{"secret":"hunter2"}` || res.Mode != sandbox.Off {
		t.Errorf("mode off: stdout %q, mode %q; want the file and off", res.Stdout, res.Mode)
	}
	marker := fmt.Sprintf("%d.%d", 800+os.Getpid()%99, time.Now().UnixNano()%1000000)
	res, err := r.Run(context.Background(), sandbox.Command{Line: "sleep " + marker + " & wait", Env: testEnv, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Errorf("mode off: not timed out: %+v", res)
	}
	if pids := processesWith(t, marker); len(pids) != 0 {
		t.Errorf("processes %v outlived the command", pids)
	}
}

// The launcher refuses to go on when it cannot hide what it must.
func TestLauncherReportsSetupFailure(t *testing.T) {
	needSandbox(t)
	f := newFixture(t)
	r := f.runner(t, sandbox.Policy{})
	_, err := r.Run(context.Background(), sandbox.Command{Line: "true", Dir: "missing"})
	if err == nil || errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("Run in a missing folder: %v, want a setup error", err)
	}
}
