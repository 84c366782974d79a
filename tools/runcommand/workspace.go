package runcommand

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Workspace returns dir as the workspace the tool takes: absolute, every
// symbolic link in it resolved, and a folder. The error says what is
// wrong in one line.
func Workspace(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no workspace given: name the folder commands run in (the folder wisp was started in, or --workspace DIR)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", strconv.Quote(dir), err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s cannot be used: %w", strconv.Quote(dir), unwrapPath(err))
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("workspace %s cannot be used: %w", strconv.Quote(dir), unwrapPath(err))
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a folder", strconv.Quote(dir))
	}
	return real, nil
}

// resolveCwd returns the folder a call asks to run in, cwd (relative to
// the workspace, or absolute; "" is the workspace), as an absolute path
// with every link resolved, and that path relative to the workspace ("."
// for the workspace itself). A cwd that is missing, not a folder, or
// outside the workspace once links are resolved is refused with a line
// the model can act on, which never names the workspace's path.
func resolveCwd(workspace, cwd string) (dir, rel, problem string) {
	if cwd == "" {
		return workspace, ".", ""
	}
	q := strconv.Quote(cwd)
	path := cwd
	if !filepath.IsAbs(path) {
		path = filepath.Join(workspace, path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Sprintf("cwd %s does not exist; give a folder inside the workspace, relative to it, or leave cwd out to run in the workspace", q)
		}
		return "", "", fmt.Sprintf("cwd %s cannot be used (%v); give another folder inside the workspace, or leave cwd out", q, unwrapPath(err))
	}
	r, err := filepath.Rel(workspace, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", "", fmt.Sprintf("cwd %s is outside the workspace (links resolved); commands run only inside it: give a folder inside it, relative to it, or leave cwd out", q)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", "", fmt.Sprintf("cwd %s is not a folder; give a folder inside the workspace, or leave cwd out", q)
	}
	return real, filepath.ToSlash(r), ""
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
