package files

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// maxLinks bounds the symbolic links one path may go through, as the
// system's own limit does (40 on Linux).
const maxLinks = 40

// A problem is a refusal the model reads and can act on: a tool returns
// it as an error result, never as the turn's error.
type problem string

func (p problem) Error() string { return string(p) }

// problemf makes a problem.
func problemf(format string, args ...any) error { return problem(fmt.Sprintf(format, args...)) }

// quote shows a path the model gave in a line it reads back: quoted,
// and cut to 200 bytes.
func quote(name string) string {
	const max = 200
	if len(name) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "…"
	}
	return fmt.Sprintf("%q", name)
}

// resolve returns the real path of name within the workspace: relative
// to it, slash-separated, every symbolic link on the way followed, "."
// for the workspace itself. name is relative to the workspace, or
// absolute inside it; "" is the workspace. The file need not exist: the
// part of the path that does not is taken as written.
//
// A path that leads out of the workspace (by "..", as an absolute path,
// or through a symbolic link) is refused, as is one through a symbolic
// link to an absolute path (os.Root follows none), and one into the wisp
// home. What resolve checks, os.Root checks again when the file is
// opened, so a link changed in between leads nowhere outside either.
func (w *Workspace) resolve(name string) (string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return "", problemf("the path %s has a NUL byte; give the file's path as it is", quote(name))
	}
	rel := filepath.Clean(name)
	if filepath.IsAbs(rel) {
		found := false
		for _, dir := range w.dirs {
			if r, ok := relInside(dir, rel); ok {
				rel, found = r, true
				break
			}
		}
		if !found {
			return "", problemf("%s is outside the workspace; give a path inside it, relative to it (such as src/main.go)", quote(name))
		}
	}
	var done []string
	todo := strings.Split(filepath.ToSlash(rel), "/")
	links := 0
	for len(todo) > 0 {
		e := todo[0]
		todo = todo[1:]
		switch e {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", problemf("%s is outside the workspace; give a path inside it, relative to it (such as src/main.go)", quote(name))
			}
			done = done[:len(done)-1]
			continue
		}
		at := path.Join(append(done, e)...)
		fi, err := w.root.Lstat(filepath.FromSlash(at))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			done = append(done, e) // the rest does not exist: taken as written
			continue
		case err != nil:
			return "", problemf("%s: %v", quote(name), pathError(err))
		case fi.Mode()&fs.ModeSymlink == 0:
			done = append(done, e)
			continue
		}
		if links++; links > maxLinks {
			return "", problemf("%s goes through more than %d symbolic links; give the path of the file itself", quote(name), maxLinks)
		}
		target, err := w.root.Readlink(filepath.FromSlash(at))
		if err != nil {
			return "", problemf("%s: %v", quote(name), pathError(err))
		}
		if filepath.IsAbs(target) {
			return "", problemf("%s goes through %s, a symbolic link to an absolute path, which the file tools do not follow; give the path of the file it points to, relative to the workspace", quote(name), quote(at))
		}
		todo = append(strings.Split(filepath.ToSlash(target), "/"), todo...)
		// The link's target is relative to the folder the link is in;
		// done holds that folder already. A target whose ".." climbs out
		// of the workspace is refused as the loop meets it.
		if escapes(done, target) {
			return "", problemf("%s leads outside the workspace through the symbolic link %s; the file tools stay inside it", quote(name), quote(at))
		}
	}
	real := path.Join(done...)
	if real == "" {
		real = "."
	}
	if w.inHome(real) {
		return "", problemf("%s lies in wisp's own folder ($WISP_HOME), which the file tools never read or change", quote(name))
	}
	return real, nil
}

// escapes reports whether a link's relative target, read from the folder
// dir (the workspace's elements down to it), climbs above the workspace.
func escapes(dir []string, target string) bool {
	depth := len(dir)
	for _, e := range strings.Split(filepath.ToSlash(target), "/") {
		switch e {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

// inHome reports whether real, a real path relative to the workspace, is
// the wisp home or lies in it.
func (w *Workspace) inHome(real string) bool {
	switch w.home {
	case "":
		return false
	case ".":
		return true
	}
	return real == w.home || strings.HasPrefix(real, w.home+"/")
}

// pathError says what went wrong with a path in a few words, without the
// workspace's own path, which os errors carry.
func pathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or folder"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}
