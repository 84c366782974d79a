package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// Home resolves wisp's home folder: wispHome when it is not empty (the
// caller passes the WISP_HOME environment variable), otherwise ".wisp" in
// the folder userHome returns (the caller passes os.UserHomeDir). Either
// way the result must be an absolute path; it is returned cleaned. Home
// neither creates nor checks the folder; [EnsureDir] does.
func Home(wispHome string, userHome func() (string, error)) (string, error) {
	if wispHome != "" {
		if !filepath.IsAbs(wispHome) {
			return "", fmt.Errorf("WISP_HOME must be an absolute path; got %s", QuotePath(wispHome))
		}
		return filepath.Clean(wispHome), nil
	}
	if userHome == nil {
		return "", errors.New("cannot find your home folder; set WISP_HOME to the folder wisp should use")
	}
	h, err := userHome()
	if err != nil {
		return "", fmt.Errorf("cannot find your home folder (%w); set WISP_HOME to the folder wisp should use", err)
	}
	if h == "" || !filepath.IsAbs(h) {
		return "", fmt.Errorf("your home folder %s is not an absolute path; set WISP_HOME to the folder wisp should use", QuotePath(h))
	}
	return filepath.Join(h, ".wisp"), nil
}

// EnsureDir makes sure dir is a folder only the current user controls.
//
// When dir is missing, EnsureDir creates it and any missing folders above
// it with mode 0700, set with an explicit chmod so the umask plays no part.
// It then refuses, with one line that says how to mend it and wraps
// [ErrUnsafe], a dir that
//
//   - is a symbolic link, or is not a folder;
//   - is not owned by the current user;
//   - is writable by its group or by everyone;
//
// or that sits below a folder someone else could use to swap it: a folder
// passed through on the way to dir, links followed, that belongs to a user
// other than the current one or root, or that others can write to without
// the sticky bit (as /tmp has). Symbolic links above dir are followed and
// allowed when every folder they pass through passes that test.
//
// The messages call dir "wisp home". An existing dir that is readable by
// others is accepted; EnsureDir changes no existing folder's mode.
func EnsureDir(dir string) error {
	if dir == "" {
		return errors.New("wisp home is an empty path; set WISP_HOME to the folder wisp should use")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return cannotUse(dir, err)
	}
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		if err := createDirs(dir, abs); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return cannotUse(dir, err)
	}
	if err := checkDir(dir, abs, fi); err != nil {
		return err
	}
	return checkAbove(dir, abs)
}

// cannotUse reports an error met on the way to dir.
func cannotUse(dir string, err error) error {
	return fmt.Errorf("cannot use wisp home %s (%w); set WISP_HOME to another path", QuotePath(dir), err)
}

// createDirs checks the deepest folder of abs that exists, then creates
// the missing ones below it, each 0700. dir is abs as the caller named it.
func createDirs(dir, abs string) error {
	var missing []string
	p := abs
	for {
		_, err := os.Lstat(p)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return cannotUse(dir, err)
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if len(missing) == 0 {
		return nil // another process, or goroutine, made it meanwhile
	}
	// Refuse before creating anything inside a folder others control.
	if err := checkAbove(dir, missing[len(missing)-1]); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		m := missing[i]
		if err := os.Mkdir(m, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return cannotUse(dir, err)
		}
		if err := os.Chmod(m, 0o700); err != nil {
			return cannotUse(dir, err)
		}
	}
	return nil
}

// checkDir applies the rules for dir itself; fi is its Lstat.
func checkDir(dir, abs string, fi fs.FileInfo) error {
	q := QuotePath(dir)
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(abs)
		return unsafe("wisp home %s is a symbolic link to %s; wisp needs a real folder: set WISP_HOME to the link's target or replace the link with a folder", q, QuotePath(target))
	}
	if !fi.IsDir() {
		return unsafe("wisp home %s is not a folder; move it aside (mv %s %s.old) or set WISP_HOME to another path", q, q, q)
	}
	me, known := CurrentUID()
	if uid, ok := Owner(fi); known && ok && uid != me {
		return unsafe("wisp home %s belongs to uid %d, not to you (uid %d); run chown %d %s as root, or set WISP_HOME to a folder of your own", q, uid, me, me, q)
	}
	if known && fi.Mode().Perm()&0o022 != 0 {
		return unsafe("wisp home %s is writable by others; run chmod 700 %s", q, q)
	}
	return nil
}

// checkAbove applies the rules for the folders passed through on the way
// to path: none may belong to another user (root aside), and none may be
// writable by others unless it has the sticky bit. home names the folder
// the caller wants, for the message.
func checkAbove(home, path string) error {
	me, known := CurrentUID()
	if !known {
		return nil
	}
	dirs, err := lookupDirs(path)
	if err != nil {
		return cannotUse(home, err)
	}
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil {
			return cannotUse(home, err)
		}
		uid, ok := Owner(fi)
		if ok && uid != me && uid != 0 {
			return unsafe("wisp home %s is inside %s, which belongs to uid %d; set WISP_HOME to a folder inside one of your own", QuotePath(home), QuotePath(d), uid)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return unsafe("wisp home %s is inside %s, which others can write to; run chmod go-w %s or set WISP_HOME to a folder inside a private one", QuotePath(home), QuotePath(d), QuotePath(d))
		}
	}
	return nil
}

// maxLinks bounds how many symbolic links lookupDirs follows, as the
// kernel does.
const maxLinks = 40

// lookupDirs lists the folders the kernel looks names up in on its way to
// the absolute path abs, following symbolic links as it does: for /a/l/b
// with l -> /c/d, that is /, /a, /c and /c/d. A link in the last part of
// abs is not followed.
func lookupDirs(abs string) ([]string, error) {
	var dirs []string
	seen := map[string]bool{}
	rest := splitPath(abs)
	cur := string(filepath.Separator)
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		if !seen[cur] {
			seen[cur] = true
			dirs = append(dirs, cur)
		}
		if len(rest) == 0 {
			break
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return nil, fmt.Errorf("%s: too many symbolic links", QuotePath(abs))
		}
		target, err := os.Readlink(next)
		if err != nil {
			return nil, err
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest = append(splitPath(target), rest...)
	}
	return dirs, nil
}

// splitPath splits p at its separators without cleaning it: cleaning
// before links are followed would get ".." wrong.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, filepath.VolumeName(p))
	return strings.Split(p, string(filepath.Separator))
}

// unsafe builds a one-line refusal that wraps ErrUnsafe.
func unsafe(format string, args ...any) error {
	return &lineError{fmt.Sprintf(format, args...), ErrUnsafe}
}

// QuotePath renders p so that it can be pasted into a shell command and
// stays on one line: as is when it holds only plain characters, in single
// quotes when it holds spaces or shell syntax, and Go-quoted when it holds
// control characters.
func QuotePath(p string) string {
	if p == "" {
		return `""`
	}
	plain := true
	for _, r := range p {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%~", r)) {
			plain = false
		}
	}
	if plain {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
