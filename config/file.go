package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/fsx"
)

// configFile is what the checks of config.json call it. Settings are worth
// keeping, so a file that is not the person's own is mended before it is
// removed.
var configFile = fsx.Kind{File: "config file", Chown: true}

// maxFileSize caps config.json: a settings file is a few hundred bytes,
// and anything near this is not one.
const maxFileSize = 1 << 20

// Load reads the settings in the file at path (config.json in wisp's
// home). A missing file gives [Default]; settings the file leaves out keep
// their defaults.
//
// Callers read the settings once, when a conversation starts, and keep
// that Config for the conversation's life: a change applies from the next
// conversation.
//
// The file must be the person's own: a file another user owns, or that
// its group or others can write to, is refused before it is read, with a
// line that says how to mend it (matching [ErrBadFile] and [ErrNotYours]),
// so settings planted by someone else are never obeyed.
//
// The file must be a regular file (a symbolic link is refused) holding one
// JSON object whose keys are the settings' dotted names, nested. A value
// may be a JSON value of the setting's kind or a string spelled as on the
// command line ("on", "30", "ask,shell"). Anything else is refused with a
// one-line error that names the file and matches [ErrBadFile]: text that
// is not JSON (with the line and column), a key that names no setting
// (also [ErrUnknownKey]), a key given twice, or a value of the wrong kind
// or out of range (also [ErrBadValue], with the text [Config.Set] gives).
// Load never returns a half-read Config: on error it returns the zero
// Config.
func Load(path string) (Config, error) {
	data, err := configFile.ReadFile(path, maxFileSize)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		return Default(), nil
	case errors.Is(err, fsx.ErrNotRegular):
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return Config{}, badFile(fmt.Sprintf(msgSymlink, showPath(path)))
		}
		return Config{}, badFile(fmt.Sprintf(msgNotRegular, showPath(path)))
	case errors.Is(err, fsx.ErrUnsafe):
		return Config{}, &lineError{msg: err.Error(), errs: []error{ErrBadFile, ErrNotYours}}
	case errors.Is(err, fsx.ErrTooLarge):
		return Config{}, badFile(fmt.Sprintf(msgTooLarge, showPath(path), maxFileSize))
	default:
		return Config{}, fmt.Errorf(msgCannotRead, showPath(path), unwrapPath(err))
	}
	c, err := decode(data)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se)
			return Config{}, badFile(fmt.Sprintf(msgBadJSON, showPath(path), line, col, oneLine(se.Error())))
		}
		if errors.Is(err, errNotObject) {
			return Config{}, badFile(fmt.Sprintf(msgNotObject, showPath(path)))
		}
		return Config{}, inFile(path, err)
	}
	return c, nil
}

// Save replaces the file at path with c, atomically and durably, as
// indented JSON ending in a newline, with mode 0600. The folder must
// exist. Save first checks every value as [Config.Set] would (the error
// matches [ErrBadValue]) and writes lists sorted without duplicates.
//
// Two processes saving at once may lose one change; use [Update] to change
// the file a running wisp may also change.
func Save(path string, c Config) error {
	data, err := encode(c)
	if err != nil {
		return err
	}
	if err := fsx.WriteFile(path, data, 0o600); err != nil {
		return notSaved(path, err)
	}
	return nil
}

// Update changes the settings in the file at path under an exclusive lock
// on lockPath (a separate file, whose folder must exist): it takes the
// lock, removes temp files a crashed save left beside path, loads the
// file, calls fn, and saves the result unless fn returns an error (which
// Update returns as is) or left the settings as they were. Concurrent
// updates, in one process or several, never lose one another's changes,
// provided every writer of path goes through Update.
//
// Waiting for the lock honours ctx. A file that does not load is not
// changed: Update returns the error from [Load].
func Update(ctx context.Context, path, lockPath string, fn func(*Config) error) error {
	unlock, err := fsx.Lock(ctx, lockPath)
	if err != nil {
		return err
	}
	released := false
	defer func() { // should fn panic
		if !released {
			unlock()
		}
	}()
	err = update(path, fn)
	released = true
	if uerr := unlock(); uerr != nil && err == nil {
		err = fmt.Errorf(msgLockRelease, showPath(lockPath), uerr)
	}
	return err
}

// update is Update's work once the lock is held.
func update(path string, fn func(*Config) error) error {
	if err := fsx.SweepTemps(path); err != nil {
		return notSaved(path, err)
	}
	c, err := Load(path)
	if err != nil {
		return err
	}
	before, err := encode(c)
	if err != nil {
		return inFile(path, err)
	}
	if err := fn(&c); err != nil {
		return err
	}
	after, err := encode(c)
	if err != nil {
		return err
	}
	if bytes.Equal(before, after) {
		return nil
	}
	if err := fsx.WriteFile(path, after, 0o600); err != nil {
		return notSaved(path, err)
	}
	return nil
}

// encode checks c and renders it as the file holds it.
func encode(c Config) ([]byte, error) {
	for _, s := range settings() {
		if err := s.check(&c); err != nil {
			return nil, err
		}
		if rule := credential(s.format(c)); rule != "" {
			return nil, badValue(fmt.Sprintf(msgCredential, s.Name, rule))
		}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// errNotObject marks a file whose JSON is not an object.
var errNotObject = errors.New("not a JSON object")

// decode reads the file's bytes into a Config that starts as Default.
func decode(data []byte) (Config, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Config{}, err
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return Config{}, errNotObject
	}
	c := Default()
	if err := decodeObject(&c, raw, "", tree(settings())); err != nil {
		return Config{}, err
	}
	return c, nil
}

// node is one level of the settings' names: a section or a setting.
type node struct {
	children map[string]*node
	row      *setting
}

// tree arranges rows by the parts of their dotted names.
func tree(rows []setting) *node {
	root := &node{children: map[string]*node{}}
	for i := range rows {
		n := root
		for part := range strings.SplitSeq(rows[i].Name, ".") {
			child := n.children[part]
			if child == nil {
				child = &node{children: map[string]*node{}}
				n.children[part] = child
			}
			n = child
		}
		n.row = &rows[i]
	}
	return root
}

// decodeObject reads the JSON object raw, found at the dotted name prefix,
// into c, following n.
func decodeObject(c *Config, raw json.RawMessage, prefix string, n *node) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // the opening brace
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return err
		}
		name := key
		if prefix != "" {
			name = prefix + "." + key
		}
		child := n.children[key]
		switch {
		case seen[key]:
			return badFile(fmt.Sprintf(msgTwice, clip(name)))
		case child == nil && strings.Contains(key, "."):
			if _, err := lookup(name); err == nil {
				return badFile(fmt.Sprintf(msgFlatKey, clip(name), nested(clip(name))))
			}
			return unknownKey(name)
		case child == nil:
			return unknownKey(name)
		}
		seen[key] = true
		if child.row != nil {
			if rule := credential(string(val)); rule != "" {
				return badFile(fmt.Sprintf(msgCredentialFile, name, rule))
			}
			if err := child.row.decode(c, val); err != nil {
				return err
			}
			continue
		}
		if val[0] != '{' {
			return badFile(fmt.Sprintf(msgNotSection, clip(name), showJSON(val)))
		}
		if err := decodeObject(c, val, name, child); err != nil {
			return err
		}
	}
	return nil
}

// nested shows how the dotted name is written in the file: "tools.ask"
// is {"tools": {"ask": …}}.
func nested(name string) string {
	parts := strings.Split(name, ".")
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "{%q: ", p)
	}
	b.WriteString("…")
	b.WriteString(strings.Repeat("}", len(parts)))
	return b.String()
}

// position turns the offset of a JSON syntax error in data into a 1-based
// line and column, counting columns in characters. For a bad character,
// encoding/json reports the offset just past it, and that character is
// the one pointed at; for input that ends too soon, the point is the end.
func position(data []byte, se *json.SyntaxError) (line, col int) {
	off := int(min(max(se.Offset, 0), int64(len(data))))
	if strings.HasPrefix(se.Error(), "invalid character") && off > 0 {
		off--
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[start:])
}

// showPath shows a path in a message: as is, or Go-quoted when it holds
// characters that would break the line or hide themselves.
func showPath(path string) string {
	for _, r := range path {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return strconv.Quote(path)
		}
	}
	return path
}

// unwrapPath drops the operation and path an *fs.PathError repeats, since
// the message names the path already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// oneLine replaces line breaks, which encoding/json does not put in its
// messages today, so that an error stays one line whatever it quotes.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// A Store is config.json at Path, updated under the lock at LockPath. It
// is what a long-lived part of wisp holds to read the settings and to
// change them; the zero Store is not usable.
type Store struct {
	Path     string
	LockPath string
}

// Load reads the settings.
func (s Store) Load() (Config, error) { return Load(s.Path) }

// Update changes the settings under the lock, as [Update] does.
func (s Store) Update(ctx context.Context, fn func(*Config) error) error {
	return Update(ctx, s.Path, s.LockPath, fn)
}
