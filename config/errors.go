package config

import (
	"errors"
	"fmt"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrUnknownKey: a key names no setting.
	ErrUnknownKey = errors.New("unknown config key")
	// ErrBadValue: a value is of the wrong kind or out of range.
	ErrBadValue = errors.New("bad config value")
	// ErrBadFile: config.json cannot be used as it is: it is not JSON, has
	// an unknown key or a bad value (which also match ErrUnknownKey or
	// ErrBadValue), is not a regular file, or is not the person's own
	// (which also matches ErrNotYours).
	ErrBadFile = errors.New("bad config file")
	// ErrNotYours: config.json belongs to another user, or its group or
	// others can write to it, so its settings are not the person's.
	ErrNotYours = errors.New("config file not the person's own")
	// ErrNotSaved: config.json could not be written (a full disk, a folder
	// that is not writable). Nothing of the change was saved; whoever
	// asked for it must be told, and a turn that made it ends.
	ErrNotSaved = errors.New("config file not saved")
)

// The texts of errors, a contract people and tests rely on.
const (
	msgUnknownKey     = "unknown key %q; valid keys: %s"
	msgBadBool        = "%s takes true, false, on or off; got %s"
	msgBadInt         = "%s must be %s; got %s"
	msgBadList        = "%s takes %s; got %s"
	msgBadEnum        = "%s takes %s; got %s"
	msgBadJSON        = "%s: not valid JSON at line %d, column %d: %s; fix or remove the file"
	msgNotObject      = `%s: the file must hold one JSON object, like {"tools": {"ask": true}}; fix or remove the file`
	msgNotSection     = "%s must be a JSON object; got %s"
	msgFlatKey        = `key %q must be nested: write %s`
	msgTwice          = "key %q is set twice; keep one"
	msgSymlink        = "%s is a symbolic link; wisp keeps its settings in a regular file: replace the link with a copy of its target"
	msgNotRegular     = "%s is not a regular file; move it aside and run wisp again"
	msgTooLarge       = "%s is larger than %d bytes; fix or remove the file"
	msgCannotRead     = "cannot read %s: %w; check that the file is yours and readable (wisp writes it 0600)"
	msgCannotSave     = "cannot save %s: %w; check that its folder exists and is yours"
	msgLockRelease    = "settings saved, but releasing %s failed: %w"
	msgCredential     = "%s never holds a credential, and the value given looks like one (%s); it was not saved"
	msgCredentialFile = "%s holds what looks like a credential (%s), which no setting ever does; remove it from the file"
)

// lineError is an error whose text is one finished line and whose
// identity is one or more sentinels (and the errors it wraps).
type lineError struct {
	msg  string
	errs []error
}

func (e *lineError) Error() string   { return e.msg }
func (e *lineError) Unwrap() []error { return e.errs }

// badValue builds an ErrBadValue error with the given text.
func badValue(msg string) error {
	return &lineError{msg: msg, errs: []error{ErrBadValue}}
}

// inFile prefixes err, found in the file at path, with the path, so that
// it matches ErrBadFile as well as what it matched before.
func inFile(path string, err error) error {
	return &lineError{msg: showPath(path) + ": " + err.Error(), errs: []error{ErrBadFile, err}}
}

// notSaved builds an ErrNotSaved error: the file at path could not be
// written because of err.
func notSaved(path string, err error) error {
	err = unwrapPath(err)
	return &lineError{msg: fmt.Errorf(msgCannotSave, showPath(path), err).Error(), errs: []error{ErrNotSaved, err}}
}

// badFile builds an ErrBadFile error with the given text.
func badFile(msg string) error {
	return &lineError{msg: msg, errs: []error{ErrBadFile}}
}
