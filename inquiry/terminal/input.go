package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/wisp-agent/wisp"
)

// MaxLine bounds one line of input, in bytes. A longer line is read to its
// end and dropped, never cut and passed on: ReadLine returns
// ErrLineTooLong for it, so a runaway paste cannot exhaust memory and the
// person is told.
const MaxLine = 1 << 20

// ErrLineTooLong is returned by ReadLine for a line longer than MaxLine,
// once the whole line has been read and dropped.
var ErrLineTooLong = errors.New("the line is longer than 1 MiB, the most wisp reads as one line")

// An Input reads lines from a reader, one reader at a time, in a way a
// context can end.
//
// Nothing is read ahead: the Input reads only while a ReadLine (or the
// face's read of a secret) owns it, and only as much as that line needs.
// On a terminal, which hands over one line a read, a line typed while
// nobody reads stays in the terminal's queue, where flushing it (as
// turning the echo off and on again does) drops it; nothing the Input has
// taken can outlive its reader and answer a later one.
//
// On Unix, when the reader is an *os.File (a terminal, a pipe, a file),
// a read that ends early (the context, Interrupt) stops before it takes
// anything. From any other reader a read cannot be stopped: it goes on in
// a goroutine of its own, and what it brings goes to the next ReadLine,
// unless it was asked for while the echo was off (see Face.AskCard), in
// which case it is dropped. That goroutine exits when its read returns.
//
// Everything that reads the same stream (the chat prompt and the face)
// must share one Input. Its methods are safe for concurrent use; reads
// take turns.
type Input struct {
	file  *os.File // the reader, when it is a file: a terminal's echo can be turned off
	src   source
	owner chan struct{} // holds a token while a read owns the Input

	mu   sync.Mutex
	stop context.CancelCauseFunc // the read waiting for a line, for Interrupt

	// The rest belongs to the owner.
	buf      []byte // read and not yet taken: the rest of a chunk, from a pipe or a file
	dropping bool   // within a line longer than MaxLine
	err      error  // the reader's error or io.EOF, once it has ended
}

// A source reads chunks for the Input's owner.
type source interface {
	// read returns the next bytes the reader gives, valid until the next
	// call, with the reader's error; once ctx is done it returns an ended
	// error instead.
	read(ctx context.Context) ([]byte, error)
	// forget drops what a read that ended early may still bring.
	forget()
}

// NewInput returns an Input that reads r. When r is an *os.File that is
// a terminal, the face can turn its echo off to read a secret.
func NewInput(r io.Reader) *Input {
	in := &Input{owner: make(chan struct{}, 1)}
	in.file, _ = r.(*os.File)
	in.src = newSource(r)
	return in
}

// ReadLine returns the next line, without its line ending. It returns
// io.EOF when the input has ended, ErrLineTooLong for a line longer than
// MaxLine, wisp.ErrInterrupted when Interrupt stopped the read, and ctx's
// cause when ctx ends first.
func (in *Input) ReadLine(ctx context.Context) (string, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if err := in.acquire(ctx, stop); err != nil {
		return "", err
	}
	defer in.release()
	return in.line(ctx)
}

// acquire waits until the Input is the caller's, and lets Interrupt stop
// the caller's read with stop.
func (in *Input) acquire(ctx context.Context, stop context.CancelCauseFunc) error {
	select {
	case in.owner <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	in.mu.Lock()
	in.stop = stop
	in.mu.Unlock()
	return nil
}

func (in *Input) release() {
	in.mu.Lock()
	in.stop = nil
	in.mu.Unlock()
	<-in.owner
}

// line reads the next line; the caller owns the Input.
func (in *Input) line(ctx context.Context) (string, error) {
	for {
		if i := bytes.IndexByte(in.buf, '\n'); i >= 0 {
			l := in.buf[:i]
			in.buf = in.buf[i+1:]
			l = bytes.TrimSuffix(l, []byte("\r"))
			if in.dropping || len(l) > MaxLine {
				in.dropping = false
				return "", ErrLineTooLong
			}
			return string(l), nil
		}
		if in.err != nil {
			switch {
			case in.dropping:
				in.dropping, in.buf = false, nil
				return "", ErrLineTooLong
			case len(in.buf) > MaxLine:
				in.buf = nil
				return "", ErrLineTooLong
			case len(in.buf) > 0:
				// The last line, without a line ending.
				l := string(bytes.TrimSuffix(in.buf, []byte("\r")))
				in.buf = nil
				return l, nil
			}
			return "", in.err
		}
		if len(in.buf) > MaxLine+1 { // +1 for a CR before the LF
			in.dropping, in.buf = true, in.buf[:0]
		}
		chunk, err := in.src.read(ctx)
		var e ended
		if errors.As(err, &e) {
			return "", e.cause
		}
		in.buf = append(in.buf, chunk...)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			in.err = err
		}
	}
}

// Interrupt stops a ReadLine in progress with wisp.ErrInterrupted, as
// Ctrl-C does, and reports whether one was waiting. With no read waiting
// it does nothing: no interrupt is kept for a later read.
func (in *Input) Interrupt() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stop == nil {
		return false
	}
	in.stop(wisp.ErrInterrupted)
	return true
}

// Discard drops what the Input has read that nobody has taken yet (the
// rest of a chunk read from a pipe or a file, or what a read that ended
// early may still bring) and returns how many lines that held, so that
// keys typed before a prompt appeared cannot answer it. It waits for a
// read in progress to end.
//
// Lines the operating system still holds are not the Input's: on a
// terminal, flush its input queue first (TCIFLUSH), then call Discard.
func (in *Input) Discard() int {
	in.owner <- struct{}{}
	defer func() { <-in.owner }()
	return in.drop()
}

// DropTypeAhead drops what was typed before a prompt appeared, so that
// it cannot answer the prompt: the terminal's input queue (TCIFLUSH, on
// Linux), then what the Input holds (Discard). It does nothing unless
// the Input reads a terminal: what a pipe or a file holds is the person's
// script, read as it comes.
func (in *Input) DropTypeAhead() {
	if !isTerminal(in.file) {
		return
	}
	flushQueue(in.file)
	in.Discard()
}

// drop is Discard for the owner.
func (in *Input) drop() int {
	n := bytes.Count(in.buf, []byte("\n"))
	if len(in.buf) > 0 && in.buf[len(in.buf)-1] != '\n' {
		n++
	}
	in.buf, in.dropping = nil, false
	in.src.forget()
	return n
}

// readHidden reads one line with the echo off: it owns the Input from
// before hide turns the echo off until after the echo is back on, so that
// no other read can take a line typed while the echo was off. shown is
// called once the echo is off, to show the prompt.
//
// What the Input holds when the echo goes off was typed before, and seen:
// it is dropped. What it holds when the read ends, and what a read that
// ended early may still bring, was typed with the echo off: it is dropped
// too (the rest of a pasted key, a secret typed as the deadline passed).
// It returns errCannotHide, wrapped, when hide fails.
func (in *Input) readHidden(ctx context.Context, hide func() (restore func(), err error), shown func() error) (string, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if err := in.acquire(ctx, stop); err != nil {
		return "", err
	}
	defer in.release()
	restore, err := hide()
	if err != nil {
		return "", fmt.Errorf("%w: %w", errCannotHide, err)
	}
	defer func() {
		restore()
		in.drop()
	}()
	in.drop()
	if err := shown(); err != nil {
		return "", err
	}
	return in.line(ctx)
}

// errCannotHide says the Input cannot turn off the echo of what is typed.
var errCannotHide = errors.New("the input is not a terminal whose echo wisp can turn off")

// hideEcho turns off the echo of the Input's terminal and drops what was
// typed there but not yet read, and returns the function that turns the
// echo back on and drops what was typed with the echo off and not read.
// It fails when the Input does not read a terminal.
func (in *Input) hideEcho() (restore func(), err error) {
	if in.file == nil {
		return nil, errCannotHide
	}
	return hideEcho(in.file)
}

// readerSource reads a reader that cannot be stopped, one read at a time,
// each in a goroutine of its own; a read that ended early is kept for the
// next, or dropped once forgotten.
type readerSource struct {
	r       io.Reader
	buf     []byte
	pending chan chunk // the read in progress, if any
	forgot  bool       // what pending brings is dropped
}

// ended is a source's error for a read that ctx ended early.
type ended struct{ cause error }

func (e ended) Error() string { return "the read ended early: " + e.cause.Error() }

type chunk struct {
	n   int
	err error
}

func newReaderSource(r io.Reader) *readerSource {
	return &readerSource{r: r, buf: make([]byte, 32<<10)}
}

func (s *readerSource) read(ctx context.Context) ([]byte, error) {
	for {
		if s.pending == nil {
			ch := make(chan chunk, 1)
			s.pending = ch
			go func() {
				n, err := s.r.Read(s.buf)
				ch <- chunk{n, err}
			}()
		}
		select {
		case c := <-s.pending:
			s.pending = nil
			if s.forgot {
				s.forgot = false
				if c.err == nil {
					continue
				}
				c.n = 0
			}
			return s.buf[:c.n], c.err
		case <-ctx.Done():
			return nil, ended{context.Cause(ctx)}
		}
	}
}

func (s *readerSource) forget() { s.forgot = s.pending != nil }
