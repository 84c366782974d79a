package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// RefPrefix starts every reference to a secret a Vault holds:
// "session:GH_TOKEN".
const RefPrefix = "session:"

// Limits of what a Vault holds.
const (
	// MaxNameBytes bounds a secret's name.
	MaxNameBytes = 64
	// MinValueBytes and MaxValueBytes bound a secret's value. A shorter
	// value is refused: every occurrence of it would be redacted from
	// every output, and a value that short is no credential.
	MinValueBytes = 4
	MaxValueBytes = 16 << 10
	// MaxValues bounds the values a Vault holds, counting those a later
	// Put replaced, which it keeps for redaction.
	MaxValues = 64
)

// The Vault's errors. Each comes wrapped in one line the model can read
// and act on; branch on these with errors.Is.
var (
	// ErrBadName: a name that is not an environment variable's name.
	ErrBadName = errors.New("bad secret name")
	// ErrBadValue: an empty, too short or too long value, or one with a
	// NUL byte, which no command's environment can hold.
	ErrBadValue = errors.New("bad secret value")
	// ErrBadRef: a reference that is not "session:NAME".
	ErrBadRef = errors.New("not a secret reference")
	// ErrUnknownRef: a reference to a secret the Vault does not hold.
	ErrUnknownRef = errors.New("unknown secret")
	// ErrVaultFull: the Vault holds MaxValues values already.
	ErrVaultFull = errors.New("the session's vault is full")
)

// A Vault holds one session's secrets: the credentials the person gave in
// answer to a secret question. The model is given a reference to each
// ("session:GH_TOKEN"), never the value; a tool resolves the reference
// when it runs, for instance into a command's environment ([Vault.Environ]).
//
// Each value is sealed with AES-256-GCM, under a fresh random nonce, with
// its name as additional data, under a random key made for the Vault and
// held in memory only, for the Vault's life. Nothing is written anywhere:
// the secrets end with the process, or sooner when the Vault is dropped.
//
// Every value put is also one the session's [Redactor] replaces wherever
// it appears, whatever it looks like, with the marker
// "[REDACTED:session:NAME]" ([VaultMarker]): in a tool's output, the
// audit log, a saved thread. The Redactor reads the values sealed from the
// Vault each time it redacts and wipes its copies when done, so it still
// keeps no value of its own. A value that Put replaced under the same name
// is kept, sealed, for redaction only.
//
// What this does not do, because Go cannot: a Go string cannot be wiped,
// so the value given to Put, and the strings Resolve and Environ return,
// stay in the process's memory until the garbage collector reuses it; the
// cipher's key schedule cannot be wiped either; and the operating system
// may swap any of the process's memory to disk. The Vault keeps only
// ciphertext, wipes the byte copies it makes, and hands plaintext out only
// on request. It keeps secrets out of the model's context, the disk that
// wisp writes, logs and printing; it does not keep them from anyone who
// can read the process's memory, nor from a command that is given one and
// chooses to send it elsewhere.
//
// Printing a Vault with any verb of package fmt, marshalling it to JSON
// or logging it with log/slog shows only how many secrets it holds.
//
// A Vault is safe for concurrent use. The zero value is not usable; call
// [NewVault].
type Vault struct {
	aead cipher.AEAD

	mu      sync.RWMutex
	current map[string]int // by name: the index in boxes of its value
	boxes   []box          // every value put, the replaced ones too
}

// A box is one sealed value: the random nonce, then the ciphertext and tag.
type box struct {
	name   string
	sealed []byte
}

// NewVault returns an empty Vault whose values r replaces wherever they
// appear. r is the session's Redactor, the one the audit log, the thread
// files and the tools' output go through; NewVault panics if it is nil, as
// a vault whose values nothing redacts would leak them.
func NewVault(r *Redactor) *Vault {
	if r == nil {
		panic("secrets: NewVault needs the session's Redactor")
	}
	key := make([]byte, 32)
	rand.Read(key) // never returns an error; on failure it ends the program
	block, err := aes.NewCipher(key)
	clear(key) // the cipher keeps its own key schedule
	if err != nil {
		panic("secrets: " + err.Error()) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		panic("secrets: " + err.Error()) // aes blocks always have GCM
	}
	v := &Vault{aead: aead, current: map[string]int{}}
	r.watch(v)
	return v
}

// Put stores value as the secret name and returns its reference,
// "session:NAME", which is what the model may be told. Putting a name
// again replaces its value; the old value stays sealed in the Vault, and
// redacted, for the Vault's life.
//
// name is an environment variable's name: a capital letter, then up to 63
// capital letters, digits or underscores (GH_TOKEN), and not one that
// steers how commands run (PATH, LD_PRELOAD; see [CheckName]). value is 4 bytes to
// 16 KiB with no NUL byte, kept exactly as given (no trimming). The errors
// match ErrBadName, ErrBadValue or ErrVaultFull.
func (v *Vault) Put(name, value string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	switch {
	case len(value) < MinValueBytes:
		return "", lineError{fmt.Sprintf("the secret %s is too short: a secret is %d bytes at least", name, MinValueBytes), ErrBadValue}
	case len(value) > MaxValueBytes:
		return "", lineError{fmt.Sprintf("the secret %s is too long: a secret is %d KiB at most", name, MaxValueBytes>>10), ErrBadValue}
	case strings.IndexByte(value, 0) >= 0:
		return "", lineError{fmt.Sprintf("the secret %s holds a NUL byte, which no command's environment can hold", name), ErrBadValue}
	}
	plain := []byte(value)
	defer clear(plain)
	sealed := v.aead.Seal(nil, nil, plain, []byte(name))

	v.mu.Lock()
	defer v.mu.Unlock()
	if i, ok := v.current[name]; ok {
		old, err := v.open(v.boxes[i])
		same := err == nil && subtle.ConstantTimeCompare(old, plain) == 1
		clear(old)
		if same {
			// The same value again: keep one box of it, freshly sealed.
			v.boxes[i].sealed = sealed
			return RefPrefix + name, nil
		}
	}
	if len(v.boxes) >= MaxValues {
		return "", lineError{fmt.Sprintf("the session's vault holds %d secrets already and takes no more", MaxValues), ErrVaultFull}
	}
	v.boxes = append(v.boxes, box{name: name, sealed: sealed})
	v.current[name] = len(v.boxes) - 1
	return RefPrefix + name, nil
}

// Resolve returns the value a reference ("session:GH_TOKEN") names, for a
// tool to use as it runs. Never give the value to the model, and pass
// whatever a command given it prints through the session's Redactor
// before the model sees it. The errors match ErrBadRef or ErrUnknownRef,
// in one line that says what the model may send instead.
func (v *Vault) Resolve(ref string) (string, error) {
	plain, err := v.resolve(ref)
	if err != nil {
		return "", err
	}
	defer clear(plain)
	return string(plain), nil
}

// Environ returns an environment entry "NAME=value" for each reference in
// refs, in order and without repeats, ready to append to a command's
// environment: cmd.Env = append(os.Environ(), entries...) (for a repeated
// name, os/exec uses the last entry). The variable is named after the
// secret, so "session:GH_TOKEN" sets GH_TOKEN; a tool that needs another
// name resolves the reference itself. If any reference fails, Environ
// returns nil and the first error, as Resolve words it.
func (v *Vault) Environ(refs []string) ([]string, error) {
	var env []string
	var seen []string
	for _, ref := range refs {
		if slices.Contains(seen, ref) {
			continue
		}
		plain, err := v.resolve(ref)
		if err != nil {
			clear(env) // drops the references; the strings are the GC's
			return nil, err
		}
		name := strings.TrimPrefix(ref, RefPrefix)
		env = append(env, name+"="+string(plain))
		clear(plain)
		seen = append(seen, ref)
	}
	return env, nil
}

// Names returns the names of the secrets the Vault holds, sorted.
func (v *Vault) Names() []string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	names := make([]string, 0, len(v.current))
	for name := range v.current {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// resolve unseals the current value of ref into a slice the caller must
// clear.
func (v *Vault) resolve(ref string) ([]byte, error) {
	name, ok := strings.CutPrefix(ref, RefPrefix)
	if !ok || CheckName(name) != nil {
		return nil, lineError{fmt.Sprintf("%s is not a secret reference: write %sNAME, as the answer to a secret question gave it (%sGH_TOKEN)",
			strconv.QuoteToASCII(clipRef(ref)), RefPrefix, RefPrefix), ErrBadRef}
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	i, ok := v.current[name]
	if !ok {
		held := "it holds none"
		if len(v.current) > 0 {
			names := make([]string, 0, len(v.current))
			for n := range v.current {
				names = append(names, RefPrefix+n)
			}
			slices.Sort(names)
			held = "it holds " + strings.Join(names, ", ")
		}
		return nil, lineError{fmt.Sprintf("there is no secret %s in this session (%s); a secret is stored only when the person answers a secret question", ref, held), ErrUnknownRef}
	}
	plain, err := v.open(v.boxes[i])
	if err != nil {
		// Only a Vault's own boxes are ever opened; this cannot happen.
		return nil, fmt.Errorf("the secret %s could not be unsealed: %w", ref, err)
	}
	return plain, nil
}

// open unseals b. The caller holds v.mu and must clear the result.
func (v *Vault) open(b box) ([]byte, error) {
	return v.aead.Open(nil, nil, b.sealed, []byte(b.name))
}

// unsealAll returns every value the Vault holds, current and replaced, for
// the Redactor, which must wipe each when done.
func (v *Vault) unsealAll(into []known) []known {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, b := range v.boxes {
		if plain, err := v.open(b); err == nil {
			into = append(into, known{name: b.name, value: plain})
		}
	}
	return into
}

// A known value is one the Redactor replaces wherever it appears: a value
// a Vault holds, unsealed for one call of Redact.
type known struct {
	name  string
	value []byte
}

// wipe clears the unsealed values.
func wipe(ks []known) {
	for _, k := range ks {
		clear(k.value)
	}
}

// VaultMarker returns the marker that takes the place of a Vault's value:
// "[REDACTED:session:NAME]". It has no number: the name tells the model
// which of its references the value was.
func VaultMarker(name string) string { return "[REDACTED:" + RefPrefix + name + "]" }

// CheckName reports whether name may name a secret: an environment
// variable's name, a capital letter then up to 63 capital letters, digits
// or underscores (GH_TOKEN), and not one that steers how a command runs
// (see [Reserved]), since a secret becomes a variable of that name in a
// command's environment. The error matches ErrBadName and says so in one
// line.
func CheckName(name string) error {
	if !validName(name) {
		return lineError{fmt.Sprintf("%s cannot name a secret: use a capital letter, then up to %d capital letters, digits or _ (GH_TOKEN)",
			strconv.QuoteToASCII(clipRef(name)), MaxNameBytes-1), ErrBadName}
	}
	if Reserved(name) {
		return lineError{fmt.Sprintf("%s cannot name a secret: in a command's environment it changes how commands run; choose a name of the secret's own (GH_TOKEN)", name), ErrBadName}
	}
	return nil
}

// reservedNames and reservedPrefixes are the environment variables that
// steer how a shell, a loader, an interpreter or git runs things.
var (
	reservedNames = []string{
		"BASH_ENV", "CDPATH", "EDITOR", "ENV", "GIT_ASKPASS", "GIT_EDITOR", "GIT_EXEC_PATH",
		"GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_SSH", "GIT_SSH_COMMAND", "HOME", "IFS",
		"NODE_OPTIONS", "PAGER", "PATH", "PERL5LIB", "PERL5OPT", "PROMPT_COMMAND", "PS4", "PWD",
		"PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "RUBYLIB", "RUBYOPT", "SHELL", "SSH_ASKPASS",
		"TERM", "TMPDIR", "VISUAL",
	}
	reservedPrefixes = []string{"BASH_FUNC_", "DYLD_", "GIT_CONFIG", "LC_", "LD_", "WISP_"}
)

// Reserved reports whether name is an environment variable that steers
// how commands run, which no secret may be named, since a secret becomes a
// variable of its name: PATH, HOME, SHELL, IFS, BASH_ENV and ENV, the
// loaders' LD_* and DYLD_*, interpreters' start-up variables
// (NODE_OPTIONS, PYTHONPATH, PERL5OPT, RUBYOPT, …), git's commands and
// configuration (GIT_SSH_COMMAND, GIT_ASKPASS, GIT_CONFIG*, …), wisp's own
// WISP_*, and a few more. The list cannot be complete; a tool that gives a
// command secrets still decides what the command may see.
func Reserved(name string) bool {
	if slices.Contains(reservedNames, name) {
		return true
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func validName(name string) bool {
	if len(name) == 0 || len(name) > MaxNameBytes || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// clipRef cuts what the model sent as a name or reference short enough to
// repeat in an error.
func clipRef(s string) string {
	const most = 80
	if len(s) <= most {
		return s
	}
	return strings.ToValidUTF8(s[:most], "") + "…"
}

// describe is what every way of printing a Vault shows.
func (v *Vault) describe() string {
	if v == nil {
		return "secrets.Vault(nil)"
	}
	v.mu.RLock()
	n := len(v.current)
	v.mu.RUnlock()
	return fmt.Sprintf("secrets.Vault(%d sealed)", n)
}

// String says how many secrets the Vault holds, and nothing of them.
func (v *Vault) String() string { return v.describe() }

// GoString is String, for %#v.
func (v *Vault) GoString() string { return v.describe() }

// Format prints String for every verb and flag of package fmt, so that no
// verb reaches the Vault's fields.
func (v *Vault) Format(f fmt.State, verb rune) { _, _ = io.WriteString(f, v.describe()) }

// MarshalJSON writes the Vault as a JSON string saying how many secrets
// it holds, and nothing of them.
func (v *Vault) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(v.describe())), nil }

// LogValue is String, for log/slog.
func (v *Vault) LogValue() slog.Value { return slog.StringValue(v.describe()) }

// lineError is an error of one line that wraps one sentinel.
type lineError struct {
	msg string
	err error
}

func (e lineError) Error() string { return e.msg }
func (e lineError) Unwrap() error { return e.err }
