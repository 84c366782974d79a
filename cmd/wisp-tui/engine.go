package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// errInputClosed is returned by Send once the person has left.
var errInputClosed = errors.New("wisp's input is closed: the session is ending")

// keepStderr is how many of wisp's last standard-error lines the engine
// keeps, to show them after the screen is gone.
const keepStderr = 20

// engine runs wisp chat --json and carries its lines: standard output
// (protocol lines) and standard error (diagnostics) become messages on a
// channel, in order, ending with endedMsg; Send writes the person's lines
// to its standard input.
//
// Three goroutines run per engine: one reads standard output, one reads
// standard error, and one waits for both to end, reaps the process, sends
// endedMsg and closes the channel. They exit when the process has ended
// and its pipes are drained, or, once Stop was called, without waiting
// for anyone to take their messages.
type engine struct {
	cmd  *exec.Cmd
	msgs chan tea.Msg
	quit chan struct{} // closed by Stop: nobody reads msgs any more
	done chan struct{} // closed when the process has been reaped
	stop sync.Once

	mu     sync.Mutex
	stdin  io.WriteCloser
	closed bool
	stderr []string // the last keepStderr lines
	err    error    // how the process ended
}

// startEngine runs path with args (chat --json and the rest) and starts
// reading it.
func startEngine(path string, args []string) (*engine, error) {
	cmd := exec.Command(path, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	e := &engine{cmd: cmd, stdin: stdin, msgs: make(chan tea.Msg, 64),
		quit: make(chan struct{}), done: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		e.readStdout(stdout)
	}()
	go func() {
		defer readers.Done()
		e.readStderr(stderr)
	}()
	go func() {
		readers.Wait()
		err := cmd.Wait()
		e.mu.Lock()
		e.err = err
		e.mu.Unlock()
		close(e.done)
		e.post(endedMsg{err: err})
		close(e.msgs)
	}()
	return e, nil
}

// post hands m to the program, unless nobody reads any more.
func (e *engine) post(m tea.Msg) {
	select {
	case e.msgs <- m:
	case <-e.quit:
	}
}

// readStdout decodes wisp's lines. A line of a type this wisp-tui does
// not know is skipped, as the protocol asks of a client (a later wisp may
// add types), except a choice of a kind it does not know, which must be
// declined lest the turn wait for it; a line that is not a protocol line
// is reported.
func (e *engine) readStdout(r io.Reader) {
	rd := jsonl.NewReader(r, &jsonl.ReaderOptions{MaxLine: -1})
	for {
		b, err := rd.ReadLine()
		if err != nil {
			return
		}
		if len(b) == 0 {
			continue
		}
		l, err := jsonl.Decode(b)
		switch {
		case err == nil:
			e.post(lineMsg{line: l})
		case errors.Is(err, jsonl.ErrUnknownType):
			var c struct{ Type, Kind, ID string }
			if json.Unmarshal(b, &c) == nil && c.Type == jsonl.TypeChoice && c.ID != "" {
				e.post(unknownChoiceMsg{id: c.ID, kind: c.Kind})
			}
		default:
			e.post(badLineMsg{text: string(b), err: err})
		}
	}
}

func (e *engine) readStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		t := sc.Text()
		e.mu.Lock()
		e.stderr = append(e.stderr, t)
		if len(e.stderr) > keepStderr {
			e.stderr = e.stderr[1:]
		}
		e.mu.Unlock()
		e.post(stderrMsg{text: t})
	}
	io.Copy(io.Discard, r) // a line too long for the scanner: drain the rest
}

// next returns a command that waits for the engine's next message.
func (e *engine) next() tea.Cmd {
	return func() tea.Msg {
		m, ok := <-e.msgs
		if !ok {
			return nil
		}
		return m
	}
}

// Send writes l to wisp as one line.
func (e *engine) Send(l jsonl.Line) error {
	b, err := jsonl.Encode(l)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errInputClosed
	}
	if _, err := e.stdin.Write(b); err != nil {
		return fmt.Errorf("writing to wisp: %w", err)
	}
	return nil
}

// CloseInput closes wisp's standard input, which ends the session: wisp
// declines a waiting question, refuses a waiting approval, ends the turn,
// says bye and exits.
func (e *engine) CloseInput() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return e.stdin.Close()
}

// Stop closes wisp's input, stops delivering messages, and waits up to
// wait for the process to end, then kills it. It returns how the process
// ended.
func (e *engine) Stop(wait time.Duration) error {
	e.CloseInput()
	e.stop.Do(func() { close(e.quit) })
	select {
	case <-e.done:
	case <-time.After(wait):
		e.cmd.Process.Kill()
		select {
		case <-e.done:
		case <-time.After(wait): // a child of wisp holds its output open
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// lastStderr returns wisp's last lines of standard error.
func (e *engine) lastStderr() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.stderr...)
}
