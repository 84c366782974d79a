package shell

import (
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/policy"
)

// access is what a command does with a path it names.
type access int

const (
	accessRead   access = iota // reads it
	accessWrite                // writes or makes it
	accessDelete               // deletes it
	accessRun                  // runs it as a program or script
	accessWork                 // works in it (git -C, make -C)
)

// A verdict is how a path, or a flag, rates a command.
type verdict struct {
	rating     policy.Rating
	reason     string
	personOnly bool
	where      string // the path for a pattern: relative to the workspace, or absolute
}

func (v verdict) worse(than verdict) bool {
	return v.personOnly && !than.personOnly || !than.personOnly && v.rating > than.rating
}

// Reasons of the paths.
const (
	reasonWispRead     = "reads wisp's own files"
	reasonWispRun      = "runs a program from wisp's own folder"
	reasonNetwork      = "reaches the network"
	reasonGitDir       = "changes the repository's own files, where git finds programs to run"
	reasonWrites       = "writes files in the workspace"
	reasonDeletes      = "deletes files in the workspace"
	reasonDeleteWS     = "deletes the workspace"
	reasonRunsWS       = "runs a program or script from the workspace"
	reasonWritesTemp   = "writes files in the private temporary folder"
	reasonDevice       = "writes to a device"
	reasonOutside      = "writes outside the workspace"
	reasonDeleteOut    = "deletes outside the workspace"
	reasonRunsOutside  = "runs a program or script from outside the workspace"
	reasonHiddenHome   = "reads the person's hidden files, where keys and tokens are kept"
	reasonUnknownCwd   = "writes in a folder a cd changed to that wisp cannot tell"
	reasonDynRun       = "runs a file a variable or substitution names"
	reasonDynWork      = "works in a folder a variable or substitution names"
	reasonDeletesMatch = "deletes every file a pattern matches"
	reasonGlobRun      = "runs a file a pattern names"
)

// path rates a command's access to a path it names, in every folder the
// command may run in.
func (r *reader) path(a arg, how access) verdict {
	none := verdict{rating: policy.Safe}
	if a.dynamic {
		switch how {
		case accessRead:
			return none
		case accessRun:
			return verdict{rating: policy.Dangerous, reason: reasonDynRun}
		case accessWork:
			return verdict{rating: policy.Dangerous, reason: reasonDynWork}
		}
		return verdict{rating: policy.Dangerous, reason: reasonDynTarget}
	}
	s := a.s
	if a.glob {
		if how == accessRun {
			return verdict{rating: policy.Dangerous, reason: reasonGlobRun}
		}
		// Judge the folder the pattern looks in.
		elems := strings.Split(s, "/")
		for i, e := range elems {
			if hasGlob(e) {
				if how == accessDelete && i == len(elems)-1 && strings.Trim(e, "*?.") == "" {
					return verdict{rating: policy.Dangerous, reason: reasonDeletesMatch}
				}
				s = strings.Join(append(elems[:i:i], "x"), "/")
				break
			}
		}
	}
	var paths []string
	switch {
	case filepath.IsAbs(s):
		paths = []string{s}
	case r.cwd.unknown:
		if how == accessRead {
			return none
		}
		return verdict{rating: policy.Dangerous, reason: reasonUnknownCwd}
	default:
		for _, d := range r.cwd.dirs {
			paths = append(paths, filepath.Join(d, s))
		}
	}
	worst := none
	for _, p := range paths {
		if v := r.place(resolve(filepath.Clean(p)), how); v.worse(worst) {
			worst = v
		}
	}
	return worst
}

// place rates an access to an absolute, cleaned path.
func (r *reader) place(p string, how access) verdict {
	o := r.j.opts
	none := verdict{rating: policy.Safe}
	switch {
	case o.WispHome != "" && within(p, o.WispHome):
		switch how {
		case accessWrite, accessDelete:
			return verdict{rating: policy.Dangerous, reason: ReasonWispHome, personOnly: true}
		case accessRun:
			return verdict{rating: policy.Dangerous, reason: reasonWispRun}
		}
		return verdict{rating: policy.Dangerous, reason: reasonWispRead}
	case within(p, "/dev/tcp") || within(p, "/dev/udp"):
		return verdict{rating: policy.Dangerous, reason: reasonNetwork}
	case within(p, o.Workspace):
		rel, _ := filepath.Rel(o.Workspace, p)
		switch {
		case how == accessRead || how == accessWork:
			return none
		case how == accessRun:
			return verdict{rating: policy.Moderate, reason: reasonRunsWS, where: rel}
		case within(p, filepath.Join(o.Workspace, ".git")):
			return verdict{rating: policy.Dangerous, reason: reasonGitDir}
		case how == accessDelete && p == o.Workspace:
			return verdict{rating: policy.Dangerous, reason: reasonDeleteWS}
		case how == accessDelete:
			return verdict{rating: policy.Moderate, reason: reasonDeletes, where: rel}
		}
		return verdict{rating: policy.Moderate, reason: reasonWrites, where: rel}
	case o.Temp != "" && within(p, o.Temp):
		switch how {
		case accessRead, accessWork:
			return none
		case accessRun:
			return verdict{rating: policy.Moderate, reason: reasonRunsWS, where: p}
		}
		return verdict{rating: policy.Moderate, reason: reasonWritesTemp, where: p}
	case how == accessWrite && (p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty" || within(p, "/dev/fd")):
		return none
	case how == accessWrite && within(p, "/dev"):
		return verdict{rating: policy.Dangerous, reason: reasonDevice}
	}
	switch how {
	case accessWrite:
		return verdict{rating: policy.Dangerous, reason: reasonOutside}
	case accessDelete:
		return verdict{rating: policy.Dangerous, reason: reasonDeleteOut}
	case accessRun:
		return verdict{rating: policy.Dangerous, reason: reasonRunsOutside}
	case accessWork:
		return verdict{rating: policy.Dangerous, reason: reasonDir}
	}
	if o.Home != "" && within(p, o.Home) && p != o.Home {
		rel, _ := filepath.Rel(o.Home, p)
		if strings.HasPrefix(rel, ".") {
			return verdict{rating: policy.Dangerous, reason: reasonHiddenHome}
		}
	}
	return none
}

// within reports whether p is root or inside it; both are clean and
// absolute.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}
