package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ReaderOptions configure a Reader. A nil *ReaderOptions or a zero field
// means the default given beside the field.
type ReaderOptions struct {
	// MaxLine is the most bytes a line may hold, its newline excluded
	// (MaxLine, 64 KiB). A negative value sets no limit, as suits a
	// client reading wisp's lines.
	MaxLine int
}

// A Reader reads lines of the protocol from a stream, one at a time. It
// is not safe for concurrent use.
type Reader struct {
	r   *bufio.Reader
	max int
	n   int  // lines read
	eof bool // the stream has ended
}

// NewReader returns a Reader that reads from r.
func NewReader(r io.Reader, opts *ReaderOptions) *Reader {
	max := MaxLine
	if opts != nil && opts.MaxLine != 0 {
		max = opts.MaxLine
	}
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// LineNumber returns the number of the line Next or ReadLine last read,
// from 1, counting every line, blank and refused ones too.
func (r *Reader) LineNumber() int { return r.n }

// Next reads the next line that is not blank and decodes it. A line that
// does not decode, or is too long, is an *InputError (wrapping ErrTooLong
// or one of Decode's errors): the Reader has consumed it and the next
// call reads the line after it. At the end of the stream Next returns
// io.EOF; another error of the stream is returned as it is.
func (r *Reader) Next() (Line, error) {
	for {
		b, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		l, err := Decode(b)
		if err != nil {
			return nil, &InputError{Line: r.n, Err: err}
		}
		return l, nil
	}
}

// ReadLine reads the next line, without its newline. A last line with no
// newline is a line. A line over the limit is skipped to its end and
// reported as an *InputError wrapping ErrTooLong. The slice is valid
// until the next call.
func (r *Reader) ReadLine() ([]byte, error) {
	if r.eof {
		return nil, io.EOF
	}
	var line []byte
	long := false
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(chunk) > 0 && !long {
			line = append(line, chunk...)
			if r.max >= 0 && len(bytes.TrimSuffix(line, []byte("\n"))) > r.max {
				long, line = true, nil
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
			r.n++
			if long {
				return nil, r.tooLong()
			}
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, io.EOF):
			r.eof = true
			if !long && len(line) == 0 {
				return nil, io.EOF
			}
			r.n++
			if long {
				return nil, r.tooLong()
			}
			return line, nil
		default:
			return nil, err
		}
	}
}

func (r *Reader) tooLong() error {
	return &InputError{Line: r.n, Err: fmt.Errorf("%w: it holds more than %d bytes; the rest of it was skipped: send a shorter line", ErrTooLong, r.max)}
}
