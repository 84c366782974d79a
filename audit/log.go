package audit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gofrs/flock"
)

// Options configure a Log. A nil *Options, and each zero field, mean the
// documented default.
type Options struct {
	// Redact is applied to every string inside an entry's Data (object keys,
	// object values and array items, at any depth) before the line is
	// written, so raw secrets never reach the disk. Keys that redaction
	// makes equal get " (2)", " (3)" … to stay apart. Each string is
	// redacted on its own: to have a value that only its name shows to be
	// secret ({"password": "…"}) replaced, redact the data first (the agent
	// does so for a model's tool calls). nil: no redaction.
	Redact func(string) string
	// Now gives the time of each record. nil: time.Now.
	Now func() time.Time
	// Sync says whether an append of a record of this kind waits for the
	// disk (fsync). nil: every append does. A record written without its
	// own fsync is in the file at once, safe from a crash of the process,
	// and reaches the disk with the next synced append (an fsync flushes
	// the whole file) or Close; only a power loss before then can lose it.
	Sync func(kind string) bool
	// Waiting, when set, is called once by an append that has waited
	// Patience for the log's lock and goes on waiting: another process
	// holds it, such as a wisp audit --verify that was stopped. ctx is the
	// append's. nil: nobody is told.
	Waiting func(ctx context.Context)
	// Patience is how long an append waits for the lock before it calls
	// Waiting, and before a done ctx may end its wait (DefaultPatience).
	Patience time.Duration
	// Append calls Redact before it takes the log's locks, Now while it
	// holds them and Waiting while it waits for them; none may use the
	// log.
}

// DefaultPatience is Options.Patience's default: far longer than any
// append holds the lock, far shorter than a person waits without a word.
const DefaultPatience = time.Second

// lockPoll is how often a waiting append tries the lock again.
const lockPoll = 5 * time.Millisecond

// A Log appends records to the log in one directory. Its methods are safe
// for concurrent use, and any number of Log values, in any number of
// processes, may append to the same directory at once: each append holds
// an exclusive lock on the directory's lock file.
type Log struct {
	dir      string
	redact   func(string) string
	now      func() time.Time
	lock     *flock.Flock
	waiting  func(ctx context.Context)
	patience time.Duration

	turn   chan struct{} // holds a token while an append or Close runs; guards what follows
	closed bool
	err    error // set by a failed fsync; see ErrSyncFailed

	sync     func(kind string) bool
	unsynced bool // records written since the last fsync
}

// Open opens the log in dir for appending, creating dir (mode 0700), the
// log file and the lock file (mode 0600) when they are missing. It refuses
// a log or lock file that is a symbolic link (ErrSymlink) or not a regular
// file (ErrNotRegular), and sets an existing one's mode to 0600. Open does
// not read the log; Verify does.
func Open(dir string, opts *Options) (*Log, error) {
	if dir == "" {
		return nil, errors.New("audit: empty directory name")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	f, err := openLog(dir)
	if err != nil {
		return nil, err
	}
	f.Close()
	lockPath := filepath.Join(dir, lockName)
	lf, err := openFile(lockPath, os.O_RDONLY|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	lf.Close()
	if o.Patience <= 0 {
		o.Patience = DefaultPatience
	}
	return &Log{
		dir:      dir,
		redact:   o.Redact,
		now:      o.Now,
		sync:     o.Sync,
		waiting:  o.Waiting,
		patience: o.Patience,
		turn:     make(chan struct{}, 1),
		lock:     flock.New(lockPath, flock.SetFlag(os.O_RDONLY|os.O_CREATE|noFollow), flock.SetPermissions(fileMode)),
	}, nil
}

// Append records e and returns the stored record. It returns only after
// the line is written and, unless Options.Sync says otherwise for its
// kind, fsynced.
//
// The record is written even when ctx is done, since an audit record must
// not be lost to a cancelled turn: Append waits for the log's lock, which
// other appends (in this process or another) and readers hold a moment
// each, at least Options.Patience. Only a longer wait, for a lock another
// process keeps (a wisp audit --verify that was stopped, say), ends when
// ctx is done: Append then writes nothing and returns an error wrapping
// ErrLocked and context.Cause(ctx). Such a wait is told once through
// Options.Waiting, after Patience.
//
// If the file ends with a torn line, Append first cuts it off and records
// an audit.recovered record. An invalid entry gives ErrInvalidEntry and
// writes nothing. A failed fsync gives ErrSyncFailed, for this append and
// every later one on this Log.
func (l *Log) Append(ctx context.Context, e Entry) (Record, error) {
	if err := e.validate(); err != nil {
		return Record{}, err
	}
	data, err := encodeData(e.Data, l.redact)
	if err != nil {
		return Record{}, err
	}
	w := l.newWait(ctx)
	defer w.stop()
	if err := w.take(l.turn); err != nil {
		return Record{}, err
	}
	defer func() { <-l.turn }()
	switch {
	case l.closed:
		return Record{}, ErrClosed
	case l.err != nil:
		return Record{}, l.err
	}
	if err := w.lock(l.lock); err != nil {
		return Record{}, err
	}
	rec, err := l.appendLocked(e, data)
	if uerr := l.lock.Unlock(); uerr != nil && err == nil {
		err = fmt.Errorf("audit: unlock: %w", uerr)
	}
	return rec, err
}

// A lockWait is one append's wait for the log: for the appends before it
// in this process, then for the lock file. It is patient (see Append).
type lockWait struct {
	l      *Log
	ctx    context.Context
	timer  *time.Timer
	late   bool // Patience has passed
	lockAt string
}

func (l *Log) newWait(ctx context.Context) *lockWait {
	return &lockWait{l: l, ctx: ctx, timer: time.NewTimer(l.patience), lockAt: l.lock.Path()}
}

func (w *lockWait) stop() { w.timer.Stop() }

// lateness is the channel that ends the wait: none until Patience has
// passed, then ctx's.
func (w *lockWait) lateness() <-chan struct{} {
	if w.late {
		return w.ctx.Done()
	}
	return nil
}

// pass marks Patience passed and tells Options.Waiting.
func (w *lockWait) pass() {
	w.late = true
	if w.l.waiting != nil {
		w.l.waiting(w.ctx)
	}
}

// gaveUp is the error of a wait that ctx ended.
func (w *lockWait) gaveUp() error {
	return fmt.Errorf("%w: %s is held by another process, and the wait for it was stopped (%w); nothing was recorded",
		ErrLocked, w.lockAt, context.Cause(w.ctx))
}

// take takes a token of turn.
func (w *lockWait) take(turn chan struct{}) error {
	for {
		select {
		case turn <- struct{}{}:
			return nil
		case <-w.timer.C:
			w.pass()
		case <-w.lateness():
			return w.gaveUp()
		}
	}
}

// lock takes the exclusive lock of fl.
func (w *lockWait) lock(fl *flock.Flock) error {
	var tick *time.Ticker
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return lockError(fl.Path(), err)
		}
		if ok {
			return nil
		}
		if tick == nil {
			tick = time.NewTicker(lockPoll)
			defer tick.Stop()
		}
		select {
		case <-tick.C:
		case <-w.timer.C:
			w.pass()
		case <-w.lateness():
			return w.gaveUp()
		}
	}
}

// appendLocked does the work of Append under both locks.
func (l *Log) appendLocked(e Entry, data json.RawMessage) (Record, error) {
	f, err := openLog(l.dir)
	if err != nil {
		return Record{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Record{}, fmt.Errorf("audit: %w", err)
	}
	t, err := readTail(f, fi.Size())
	if err != nil {
		return Record{}, err
	}
	buf, rec, err := t.lines(l.now, e, data)
	if err != nil {
		return Record{}, err
	}
	if t.torn > 0 {
		if err := f.Truncate(t.end); err != nil {
			return Record{}, fmt.Errorf("audit: cutting a torn line: %w", err)
		}
	}
	// One write call; os.File.Write only loops on a short write, which the
	// next append sees as a torn line.
	if _, err := f.Write(buf); err != nil {
		return Record{}, fmt.Errorf("audit: write: %w", err)
	}
	if l.sync != nil && !l.sync(e.Kind) && t.torn == 0 {
		l.unsynced = true
		return rec, nil
	}
	if err := f.Sync(); err != nil {
		l.err = fmt.Errorf("%w: %v", ErrSyncFailed, err)
		return Record{}, l.err
	}
	l.unsynced = false
	return rec, nil
}

// Close marks the log closed; later appends return ErrClosed. It waits for
// an append in progress. Closing twice is harmless.
func (l *Log) Close() error {
	l.turn <- struct{}{}
	defer func() { <-l.turn }()
	if l.closed {
		return nil
	}
	l.closed = true
	var err error
	if l.unsynced {
		// Records written without their own fsync reach the disk now.
		if f, oerr := openLog(l.dir); oerr == nil {
			err = f.Sync()
			f.Close()
		}
	}
	return errors.Join(err, l.lock.Close())
}

// tailWindow is how much of the file's end Append reads at first; it
// doubles until it holds the last complete line.
const tailWindow = 4 << 10

// A tail is what Append needs to know of the file: where its complete
// lines end, the last one's seq and hash, and the torn bytes after them.
type tail struct {
	end     int64  // offset just past the last newline
	seq     int64  // seq of the last complete line; 0 if none
	hash    string // hash of the last complete line; genesis if none
	torn    int64  // number of bytes after end
	tornSum string // their SHA-256, when torn > 0
}

// readTail reads the end of a log of the given size, growing its window
// until it holds the last complete line (or the whole file).
func readTail(r io.ReaderAt, size int64) (tail, error) {
	t := tail{hash: genesis}
	for win := int64(tailWindow); ; win *= 2 {
		start := max(0, size-win)
		buf := make([]byte, size-start)
		if n, err := r.ReadAt(buf, start); n < len(buf) {
			return tail{}, fmt.Errorf("audit: reading the log's tail: %w", err)
		}
		nl := bytes.LastIndexByte(buf, '\n')
		if nl < 0 && start > 0 {
			continue
		}
		var line []byte
		if nl >= 0 {
			prev := bytes.LastIndexByte(buf[:nl], '\n')
			if prev < 0 && start > 0 {
				continue
			}
			line = buf[prev+1 : nl]
		}
		t.end = start + int64(nl+1)
		if torn := buf[nl+1:]; len(torn) > 0 {
			sum := sha256.Sum256(torn)
			t.torn, t.tornSum = int64(len(torn)), hex.EncodeToString(sum[:])
		}
		if nl < 0 {
			return t, nil
		}
		t.hash = hashLine(line)
		if seq, ok := lineSeq(line); ok {
			t.seq = seq
			return t, nil
		}
		// The last line has no seq to go on: it is corrupt, which Verify
		// reports. Number on from the last line that has one.
		seq, err := seqByScan(bufio.NewReaderSize(io.NewSectionReader(r, 0, t.end), readBuffer))
		t.seq = seq
		return t, err
	}
}

// seqByScan reads every complete line and returns the seq the last one
// would have if the numbering ran on from the last line with a readable seq
// (or from 0 if none has one).
func seqByScan(br *bufio.Reader) (int64, error) {
	var seq int64
	_, err := scanLines(br, func(line []byte) error {
		if s, ok := lineSeq(line); ok {
			seq = s
		} else {
			seq++
		}
		return nil
	})
	return seq, err
}

// lines builds the bytes Append writes after the tail t: an
// audit.recovered record when t has torn bytes, then e's record. It
// returns e's record.
func (t tail) lines(now func() time.Time, e Entry, data json.RawMessage) ([]byte, Record, error) {
	var buf []byte
	seq, prev := t.seq, t.hash
	if t.torn > 0 {
		ts, err := recordTime(now)
		if err != nil {
			return nil, Record{}, err
		}
		d := `{"droppedBytes":` + strconv.FormatInt(t.torn, 10) + `,"droppedSHA256":"` + t.tornSum + `"}`
		seq++
		buf = appendLine(buf, Record{Seq: seq, Time: ts, Kind: KindRecovered, Source: SourceWisp, Data: json.RawMessage(d), Prev: prev})
		prev = hashLine(buf[:len(buf)-1])
	}
	ts, err := recordTime(now)
	if err != nil {
		return nil, Record{}, err
	}
	rec := Record{
		Seq:      seq + 1,
		Time:     ts,
		Kind:     e.Kind,
		Session:  e.Session,
		Thread:   e.Thread,
		Turn:     e.Turn,
		Source:   e.Source,
		Approval: e.Approval,
		Data:     data,
		Prev:     prev,
	}
	return appendLine(buf, rec), rec, nil
}

// recordTime calls now and gives the time as a record holds it: UTC, with
// no monotonic reading, within the years RFC 3339 can write.
func recordTime(now func() time.Time) (time.Time, error) {
	t := now().UTC().Round(0)
	if y := t.Year(); y < 0 || y > 9999 {
		return time.Time{}, fmt.Errorf("audit: time %v is outside the years 0 to 9999", t)
	}
	return t, nil
}
