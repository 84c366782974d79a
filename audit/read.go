package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
)

// A Filter picks records. Its zero value picks all.
type Filter struct {
	// Thread, when not empty, picks the records of that thread only.
	Thread string
	// KindPrefix, when not empty, picks the records whose kind begins with
	// it: "inquiry." picks inquiry.requested and inquiry.settled.
	KindPrefix string
	// After, when not 0, picks the records whose seq is greater: those
	// that follow line After, as Report.AnchorLine names a line.
	After int64
}

// Match reports whether f picks r.
func (f Filter) Match(r Record) bool {
	return (f.Thread == "" || r.Thread == f.Thread) && strings.HasPrefix(r.Kind, f.KindPrefix) && r.Seq > f.After
}

// Read returns the records of the log in dir that f picks, in the order of
// the file. A torn last line is skipped, not an error. A complete line that
// is not a record gives an error wrapping ErrCorrupt; Read does not check
// the chain, which is Verify's work. A missing log gives an error wrapping
// fs.ErrNotExist. A filter with a negative After names no record and is
// an error wrapping ErrBadFilter.
func Read(dir string, f Filter) ([]Record, error) {
	if f.After < 0 {
		return nil, fmt.Errorf("after %d: %w", f.After, ErrBadFilter)
	}
	var recs []Record
	err := readLog(dir, func(br *bufio.Reader) error {
		var err error
		recs, err = readRecords(br, f)
		return err
	})
	return recs, err
}

// readRecords is Read on a stream of the log's bytes.
func readRecords(br *bufio.Reader, f Filter) ([]Record, error) {
	var recs []Record
	n := 0
	_, err := scanLines(br, func(line []byte) error {
		n++
		rec, err := parseLine(line)
		if err != nil {
			return fmt.Errorf("%w: line %d: %v", ErrCorrupt, n, err)
		}
		if f.Match(rec) {
			recs = append(recs, rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// Find returns the last record of the log in dir whose kind is kind and
// whose data holds each key of want with that string as its value; ok is
// false when no record does, or there is no log. It passes over lines
// that are not records (Verify names them) and does not check the chain.
// Like Read, it reads under a shared lock; it parses only the lines that
// hold every value sought.
func Find(dir, kind string, want map[string]string) (rec Record, ok bool, err error) {
	needles := [][]byte{appendString([]byte(`"kind":`), kind)}
	for _, v := range want {
		needles = append(needles, appendString(nil, v))
	}
	err = readLog(dir, func(br *bufio.Reader) error {
		_, err := scanLines(br, func(line []byte) error {
			for _, n := range needles {
				if !bytes.Contains(line, n) {
					return nil
				}
			}
			r, perr := parseLine(line)
			if perr != nil || r.Kind != kind || !holds(r.Data, want) {
				return nil
			}
			rec, ok = r, true
			return nil
		})
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, err
	}
	return rec, ok, nil
}

// holds reports whether the JSON object data has each key of want with
// that string as its value.
func holds(data json.RawMessage, want map[string]string) bool {
	var d map[string]json.RawMessage
	if json.Unmarshal(data, &d) != nil {
		return false
	}
	for k, v := range want {
		var s string
		if raw, there := d[k]; !there || json.Unmarshal(raw, &s) != nil || s != v {
			return false
		}
	}
	return true
}

// readLog opens the log in dir and passes it to read under a shared lock,
// so that no append is half done while read runs. Without a lock file
// (nothing has opened the log for writing) it reads without a lock.
func readLog(dir string, read func(*bufio.Reader) error) error {
	lockPath := filepath.Join(dir, lockName)
	lk := flock.New(lockPath, flock.SetFlag(os.O_RDONLY|noFollow))
	switch err := lk.RLock(); {
	case err == nil:
		defer lk.Unlock()
	case errors.Is(err, fs.ErrNotExist):
	default:
		return lockError(lockPath, err)
	}
	f, err := openFile(filepath.Join(dir, logName), os.O_RDONLY)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(bufio.NewReaderSize(f, readBuffer))
}

// readBuffer is the size of the buffer Read and Verify read through.
const readBuffer = 64 << 10

// scanLines calls fn with each complete line of br, without its newline;
// the slice is valid only during the call. It returns the number of bytes
// after the last newline (a torn line), and the first error of br or fn.
func scanLines(br *bufio.Reader, fn func(line []byte) error) (torn int64, err error) {
	var long []byte // a line longer than br's buffer, gathered
	for {
		frag, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			long = append(long, frag...)
			continue
		case errors.Is(err, io.EOF):
			return int64(len(long) + len(frag)), nil
		case err != nil:
			return 0, fmt.Errorf("audit: read: %w", err)
		}
		line := frag[:len(frag)-1]
		if len(long) > 0 {
			long = append(long, line...)
			line = long
		}
		if err := fn(line); err != nil {
			return 0, err
		}
		long = long[:0]
	}
}
