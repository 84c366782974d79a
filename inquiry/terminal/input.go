package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wisp-agent/wisp"
)

// MaxLine bounds one line of input; a longer line is cut, and the rest of
// it read and dropped, so a runaway paste cannot exhaust memory.
const MaxLine = 1 << 20

// An Input reads lines from a reader in a way a context can end: one
// goroutine owns every read and hands lines over, so a question's deadline
// or a Ctrl-C ends the wait even though the read itself cannot be
// interrupted. Everything that reads the same stream (the chat prompt and
// the face) must share one Input.
//
// The goroutine exits when the reader returns an error or io.EOF.
type Input struct {
	file  *os.File // the reader, when it is a file: a terminal's echo can be turned off
	lines chan line
	intr  chan struct{}
	done  chan struct{}
	err   error // set before done is closed
}

type line struct {
	text string
	err  error
}

// NewInput starts reading r. When r is an *os.File that is a terminal,
// the face can turn its echo off to read a secret.
func NewInput(r io.Reader) *Input {
	in := &Input{lines: make(chan line), intr: make(chan struct{}), done: make(chan struct{})}
	in.file, _ = r.(*os.File)
	go in.pump(bufio.NewReaderSize(r, 64*1024))
	return in
}

func (in *Input) pump(r *bufio.Reader) {
	for {
		text, err := readLine(r)
		if err != nil && text == "" {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			in.err = err
			close(in.done)
			return
		}
		in.lines <- line{text: text}
		if err != nil {
			in.err = err
			close(in.done)
			return
		}
	}
}

// readLine reads up to a newline, without it, cutting at MaxLine.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		chunk, err := r.ReadSlice('\n')
		if b.Len() < MaxLine {
			room := MaxLine - b.Len()
			if len(chunk) > room {
				chunk = chunk[:room]
			}
			b.Write(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimSuffix(b.String(), "\n")
		s = strings.TrimSuffix(s, "\r")
		return s, err
	}
}

// ReadLine returns the next line, without its line ending. It returns
// io.EOF when the input has ended, wisp.ErrInterrupted when Interrupt
// stopped the read, and ctx's cause when ctx ends first.
func (in *Input) ReadLine(ctx context.Context) (string, error) {
	select {
	case l := <-in.lines:
		return l.text, l.err
	case <-in.done:
		// A line sent just before the end may still wait.
		select {
		case l := <-in.lines:
			return l.text, l.err
		default:
		}
		return "", in.err
	case <-in.intr:
		return "", wisp.ErrInterrupted
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// Interrupt stops a ReadLine in progress with wisp.ErrInterrupted, as
// Ctrl-C does, and reports whether one was waiting.
func (in *Input) Interrupt() bool {
	select {
	case in.intr <- struct{}{}:
		return true
	default:
		return false
	}
}

// Discard drops the lines the Input has read that nobody has taken yet and
// returns how many, so that keys typed before a prompt appeared cannot
// answer it. It does not block.
//
// Lines the operating system still holds are not the Input's: on a
// terminal, flush its input queue first (TCIFLUSH), then call Discard.
// On a terminal in line mode each read returns one line, so the Input holds
// at most one; from a pipe, lines read in the same chunk as a dropped one
// may still arrive.
func (in *Input) Discard() int {
	n := 0
	for {
		select {
		case <-in.lines:
			n++
		default:
			return n
		}
	}
}

// errCannotHide says the Input cannot turn off the echo of what is typed.
var errCannotHide = errors.New("the input is not a terminal whose echo wisp can turn off")

// hideEcho turns off the echo of the Input's terminal and drops what was
// typed there but not yet read, and returns the function that turns the
// echo back on. It fails when the Input does not read a terminal.
func (in *Input) hideEcho() (restore func(), err error) {
	if in.file == nil {
		return nil, errCannotHide
	}
	restore, err = hideEcho(in.file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCannotHide, err)
	}
	return restore, nil
}
