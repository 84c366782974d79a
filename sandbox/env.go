package sandbox

import "strings"

// baseEnv names the variables Environ always keeps.
var baseEnv = []string{"PATH", "HOME", "LANG", "LC_*", "TERM", "TZ", "USER", "LOGNAME"}

// Environ returns the entries of environ (KEY=VALUE, as os.Environ gives
// them) that a command may see: PATH, HOME, LANG, every LC_*, TERM, TZ,
// USER and LOGNAME, and those named in allow, the names the person allows in config. A name in allow
// may end in * to allow a prefix. Nothing named WISP_* passes, allowed or
// not. The order of environ is kept; an entry without "=" is dropped.
func Environ(environ []string, allow []string) []string {
	var out []string
	for _, e := range environ {
		name, _, ok := strings.Cut(e, "=")
		if !ok || name == "" || strings.HasPrefix(strings.ToUpper(name), "WISP_") {
			continue
		}
		if allowed(name, baseEnv) || allowed(name, allow) {
			out = append(out, e)
		}
	}
	return out
}

// allowed reports whether name matches one of patterns, each a name or a
// prefix ending in *.
func allowed(name string, patterns []string) bool {
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if prefix != "" && strings.HasPrefix(name, prefix) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}
