//go:build unix

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Run runs c under the runner's policy and returns how it ended. A command
// that fails, times out or is cancelled is a Result; an error means the
// command could not be run: c is wrong, the policy asks for a sandbox this
// machine lacks ([ErrUnavailable]), or the sandbox could not be set up.
func (r *Runner) Run(ctx context.Context, c Command) (*Result, error) {
	if isLauncher() {
		return nil, errors.New("this program was started as a sandbox launcher but did not call sandbox.Main first thing in main")
	}
	dir, timeout, err := r.command(c)
	if err != nil {
		return nil, err
	}
	p := r.policy
	if p.Mode != Off {
		if s := r.Support(ctx); !s.Confined {
			return nil, fmt.Errorf("%w: %s", ErrUnavailable, s.Reason)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "wisp-run-")
	if err != nil {
		return nil, fmt.Errorf("making the command's temp folder: %w", err)
	}
	defer removeAll(tmp)
	sp := &spec{
		Confine:   p.Mode != Off,
		Mode:      p.Mode,
		Dir:       dir,
		Workspace: p.Workspace,
		Temp:      tmp,
		ReadOnly:  p.ReadOnly,
		Network:   p.Network,
		Processes: p.Limits.Processes,
		FileSize:  p.Limits.FileSize,
		OpenFiles: p.Limits.OpenFiles,
	}
	if p.Home != "" {
		sp.Hide = append(sp.Hide, p.Home)
		// A missing home inside the workspace is made, so that it is
		// covered: else the command could make it and plant settings.
		if sp.Confine && within(p.Home, p.Workspace) {
			if err := os.MkdirAll(p.Home, 0o700); err != nil {
				return nil, fmt.Errorf("making the wisp home to hide it: %w", err)
			}
		}
	}
	sp.Hide = append(sp.Hide, p.Hide...)
	if err := commandArgv(sp, c.Line, c.Env); err != nil {
		return nil, err
	}
	o, err := execute(ctx, sp, runOptions{timeout: timeout, grace: p.Limits.Grace, output: p.Limits.Output, onOutput: c.OnOutput})
	if err != nil {
		return nil, err
	}
	res := &Result{
		ExitCode: o.exitCode,
		Signal:   o.signal,
		TimedOut: o.timedOut,
		Canceled: o.canceled,
		Duration: o.duration,
		Stdout:   o.stdout,
		Stderr:   o.stderr,
		Mode:     p.Mode,
	}
	res.Denied = denials(p.Mode, p.Network, o.stdout, o.stderr)
	return res, nil
}

// withEnv returns env with name set to value, in place of any entry for it.
func withEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if n, _, _ := strings.Cut(e, "="); n != name {
			out = append(out, e)
		}
	}
	return append(out, name+"="+value)
}

// removeAll removes the command's temp folder, first making writable any
// folder the command made read-only.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

type runOptions struct {
	timeout, grace time.Duration
	output         int
	onOutput       func(Stream, []byte)
}

// outcome is how the launched process ended.
type outcome struct {
	exitCode           int
	signal             string
	timedOut, canceled bool
	duration           time.Duration
	stdout, stderr     Output
	probe              []byte // a probing launcher's report
}

// execute starts the launcher with sp, waits for it, and ends its whole
// process group when the timeout passes or ctx is done.
func execute(ctx context.Context, sp *spec, o runOptions) (*outcome, error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	specR, specW, err := pipe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	defer closeAll()
	self, err := selfExe()
	if err != nil {
		return nil, err
	}
	limit := newProcLimit(sp)
	defer limit.close()
	cmd := &exec.Cmd{
		Path:        self,
		Args:        []string{"wisp-sandbox", launcherArg},
		Env:         []string{},
		Dir:         "/",
		Stdout:      outW,
		Stderr:      errW,
		ExtraFiles:  []*os.File{specR, statusW},
		SysProcAttr: launchAttr(sp),
	}
	// The launcher dies with the thread that started it (Pdeathsig), so
	// start it from a thread that lives until it is reaped.
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting the sandbox launcher: %w", err)
	}
	begin := time.Now()
	for _, f := range []*os.File{specR, statusW, outW, errW} {
		f.Close()
	}
	pid := cmd.Process.Pid
	if err := limit.add(pid); err != nil {
		signalGroup(pid, syscall.SIGKILL)
		<-waited
		return nil, err
	}
	go func() {
		json.NewEncoder(specW).Encode(sp)
		specW.Close()
	}()

	var (
		mu       sync.Mutex
		captures = [...]*capture{newCapture(o.output), newCapture(o.output)}
		readers  sync.WaitGroup
	)
	read := func(f *os.File, s Stream) {
		defer readers.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				mu.Lock()
				captures[s-1].Write(buf[:n])
				if o.onOutput != nil {
					o.onOutput(s, buf[:n])
				}
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}
	readers.Add(2)
	go read(outR, Stdout)
	go read(errR, Stderr)
	status := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(statusR, 1<<20))
		status <- b
	}()

	var out outcome
	exited := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		timer := time.NewTimer(o.timeout)
		defer timer.Stop()
		select {
		case <-exited:
			return
		case <-timer.C:
			out.timedOut = true
		case <-ctx.Done():
			out.canceled = true
		}
		signalGroup(pid, syscall.SIGTERM)
		grace := time.NewTimer(o.grace)
		defer grace.Stop()
		select {
		case <-exited:
			return
		case <-grace.C:
		}
		signalGroup(pid, syscall.SIGKILL)
		limit.kill()
	}()
	werr := <-waited
	out.duration = time.Since(begin)
	close(exited)
	<-stopped
	// Whatever is left of the group; in a PID namespace nothing is.
	signalGroup(pid, syscall.SIGKILL)
	limit.kill()
	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(o.grace):
		// A process outside the group holds the pipes (mode off).
		outR.Close()
		errR.Close()
		<-drained
	}
	out.stdout, out.stderr = captures[0].output(), captures[1].output()

	st := <-status
	switch {
	case len(st) == 0:
		return nil, errors.New("the program did not become a sandbox launcher; it must call sandbox.Main first thing in main")
	case len(st) > 1 && st[1] == statusError:
		return nil, fmt.Errorf("setting up the sandbox: %s", st[2:])
	case len(st) > 1 && st[1] == statusProbe:
		out.probe = st[2:]
	}
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) {
		return nil, fmt.Errorf("waiting for the command: %w", werr)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		out.exitCode, out.signal = -1, ws.Signal().String()
	default:
		out.exitCode = ws.ExitStatus()
	}
	return &out, nil
}

// signalGroup sends sig to the process group pid leads.
func signalGroup(pid int, sig syscall.Signal) {
	syscall.Kill(-pid, sig)
}

// procLimit bounds and ends a command's processes where the launcher's own
// limit does not (a pids cgroup, for root on Linux).
type procLimit interface {
	add(pid int) error // takes the launcher in before it reads its spec
	kill()             // kills every process in it
	close()            // removes it, once they are gone
}

type noLimit struct{}

func (noLimit) add(int) error { return nil }
func (noLimit) kill()         {}
func (noLimit) close()        {}
