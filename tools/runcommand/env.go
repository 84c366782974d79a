package runcommand

import (
	"slices"
	"strings"
)

// defaultEnv are the variables of wisp's own environment every command
// gets when wisp has them: where the person's programs and files are,
// who they are, and how text is written. Nothing else of wisp's
// environment reaches a command, so no token of the person's shell does,
// unless the person allows its name (Options.Allow, commands.env).
var defaultEnv = []string{
	"HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_MESSAGES", "LC_MONETARY",
	"LC_NUMERIC", "LC_TIME", "LOGNAME", "PATH", "TZ", "USER",
}

// fixedEnv are set for every command, whatever wisp's environment says:
// a command has no terminal, so nothing may wait on a pager or a prompt.
var fixedEnv = []string{"GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "NO_COLOR=1", "PAGER=cat", "TERM=dumb"}

// DefaultEnv returns the names of the variables of wisp's environment
// every command gets when wisp has them: HOME, LANG, LANGUAGE, the LC_*
// of the locale, LOGNAME, PATH, TZ and USER.
func DefaultEnv() []string { return slices.Clone(defaultEnv) }

// FixedEnv returns the entries every command's environment has, whatever
// wisp's says: GIT_PAGER=cat, GIT_TERMINAL_PROMPT=0, NO_COLOR=1,
// PAGER=cat and TERM=dumb.
func FixedEnv() []string { return slices.Clone(fixedEnv) }

// environ returns a command's environment: the entries of from whose
// names are in defaultEnv or allow (the last entry of a name wins, as in
// a shell), the fixed ones, then secrets, which replace any entry of the
// same name. No WISP_* entry is ever kept.
func environ(from, allow, secrets []string) []string {
	keep := map[string]string{}
	for _, e := range from {
		name, value, ok := strings.Cut(e, "=")
		if !ok || strings.HasPrefix(strings.ToUpper(name), "WISP_") {
			continue
		}
		if slices.Contains(defaultEnv, name) || slices.Contains(allow, name) {
			keep[name] = value
		}
	}
	for _, e := range slices.Concat(fixedEnv, secrets) {
		name, value, _ := strings.Cut(e, "=")
		keep[name] = value
	}
	env := make([]string, 0, len(keep))
	for name, value := range keep {
		env = append(env, name+"="+value)
	}
	slices.Sort(env)
	return env
}
