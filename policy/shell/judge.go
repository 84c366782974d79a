package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp/policy"
)

// Prefix is the word the command of a run_command call starts with: the
// classifier hands what follows it and a space to the Judge (Rule).
const Prefix = "run_command"

// ReasonRule is the reason of the classifier's row for run_command.
const ReasonRule = "runs a shell command line, rated by every command in it"

// Options configure a Judge. Workspace is required; every other zero
// field means the default given beside it.
type Options struct {
	// Workspace is the folder a command runs in and may change: an
	// absolute path. Writing in it is moderate; writing anywhere else is
	// dangerous.
	Workspace string
	// Home is the person's home folder, which "~" names in a command.
	// Reading its hidden files and folders (~/.ssh, ~/.aws) is dangerous.
	// "": a word that starts with ~ is only known when it runs.
	Home string
	// WispHome is wisp's own folder: reading in it is dangerous, and
	// changing anything in it is the person's alone. "": Home/.wisp.
	WispHome string
	// Temp is the private temporary folder the sandbox gives each
	// command (in place of /tmp): writing in it is moderate, as in the
	// workspace. "": none, so writing in /tmp is writing outside.
	Temp string
	// GitProtected says that the command runs where the workspace's .git
	// cannot be written (the sandbox's workspace-write mode) and with
	// GitEnv, so that the programs a repository's settings name
	// (core.fsmonitor, a pager, a diff driver) are the person's own and
	// git's reading commands (status, log, diff, show, …) are safe.
	// false: they are moderate, since git status may run such a program.
	GitProtected bool
}

// GitEnv returns the variables the runner sets for every command so that
// git runs none of the programs a repository's settings may name for its
// reading commands: no file-system monitor, no pager, no hooks.
func GitEnv() []string {
	settings := [][2]string{
		{"core.fsmonitor", "false"},
		{"core.pager", "cat"},
		{"core.hooksPath", os.DevNull},
	}
	env := []string{"GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_COUNT=" + strconv.Itoa(len(settings))}
	for i, kv := range settings {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return env
}

// A Judge rates shell command lines for one workspace. It is safe for
// concurrent use.
type Judge struct {
	opts  Options // absolute, cleaned, symbolic links resolved
	table byProgram
}

var (
	_ policy.Judge   = (*Judge)(nil)
	_ policy.Matcher = (*Judge)(nil)
)

// New returns a judge for the workspace and folders opts names. It
// refuses a workspace that is missing or not an absolute path, and any
// other folder that is set but not absolute.
func New(opts *Options) (*Judge, error) {
	if opts == nil || opts.Workspace == "" {
		return nil, errors.New("shell: no workspace; set Options.Workspace to the folder commands run in")
	}
	o := *opts
	if o.WispHome == "" && o.Home != "" {
		o.WispHome = filepath.Join(o.Home, ".wisp")
	}
	for _, f := range []struct {
		name string
		p    *string
	}{{"Workspace", &o.Workspace}, {"Home", &o.Home}, {"WispHome", &o.WispHome}, {"Temp", &o.Temp}} {
		if *f.p == "" {
			continue
		}
		if !filepath.IsAbs(*f.p) {
			return nil, fmt.Errorf("shell: Options.%s %q is not an absolute path", f.name, *f.p)
		}
		*f.p = resolve(filepath.Clean(*f.p))
	}
	return &Judge{opts: o, table: index(rows)}, nil
}

// Rule returns the classifier's row for run_command, which j judges:
// pass it to policy.NewClassifier beside the other rows.
func (j *Judge) Rule() policy.Rule {
	return policy.Rule{Pattern: Prefix + " ...", Rating: policy.Safe, Reason: ReasonRule, Judge: j}
}

// An Invocation is a command line and where it runs: what a run_command
// call asks for.
type Invocation struct {
	// Line is the shell command line, run by bash.
	Line string
	// Dir is the folder it runs in: relative to the workspace, or
	// absolute; "" is the workspace.
	Dir string
	// Env names the variables the runner sets for it, such as the
	// secrets a call names; their values are the runner's.
	Env []string
}

// Command returns the invocation as the classifier reads it and the
// person sees it, after the Prefix: "run_command LINE", or, with a folder
// or variables, "run_command -C DIR -e NAME -- LINE". DIR and NAME are
// written bare when they are plain, and in Go's double quotes otherwise.
// ParseInvocation reads it back.
func (inv Invocation) Command() string {
	return Prefix + " " + inv.text()
}

// text is the Command after the Prefix and its space.
func (inv Invocation) text() string {
	if inv.Dir == "" && len(inv.Env) == 0 && !strings.HasPrefix(inv.Line, "-") {
		return inv.Line
	}
	var b strings.Builder
	if inv.Dir != "" {
		b.WriteString("-C " + quoteToken(inv.Dir) + " ")
	}
	for _, name := range inv.Env {
		b.WriteString("-e " + quoteToken(name) + " ")
	}
	b.WriteString("-- " + inv.Line)
	return b.String()
}

// quoteToken writes s bare when it is plain, and Go-quoted otherwise.
func quoteToken(s string) string {
	plain := s != "" && !strings.HasPrefix(s, "-") && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/+,:@%=-", r))
	}) < 0
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// ParseInvocation reads the text of a command after the Prefix and its
// space (see Invocation.Command): a line that does not start with "-" is
// the whole line; otherwise -C DIR and -e NAME come first, and "-- "
// before the line.
func ParseInvocation(text string) (Invocation, error) {
	if !strings.HasPrefix(text, "-") {
		return Invocation{Line: text}, nil
	}
	var inv Invocation
	rest := text
	for {
		var opt string
		opt, rest, _ = strings.Cut(rest, " ")
		if opt == "--" {
			inv.Line = rest
			return inv, nil
		}
		if opt != "-C" && opt != "-e" {
			return Invocation{}, fmt.Errorf("shell: %q is not -C DIR, -e NAME or --; a line that starts with - follows --", opt)
		}
		var val string
		var err error
		val, rest, err = token(rest)
		if err != nil {
			return Invocation{}, fmt.Errorf("shell: %s: %w", opt, err)
		}
		if opt == "-C" {
			if inv.Dir != "" {
				return Invocation{}, errors.New("shell: -C twice; give one folder")
			}
			inv.Dir = val
		} else {
			inv.Env = append(inv.Env, val)
		}
	}
}

// token reads one bare or Go-quoted token and the space after it.
func token(s string) (tok, rest string, err error) {
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", errors.New("a quoted value is not closed")
		}
		tok, _ = strconv.Unquote(q)
		rest, ok := strings.CutPrefix(s[len(q):], " ")
		if !ok {
			return "", "", errors.New("want a space after the quoted value")
		}
		return tok, rest, nil
	}
	tok, rest, ok := strings.Cut(s, " ")
	if !ok || tok == "" || strings.HasPrefix(tok, "-") {
		return "", "", errors.New("want a value and a space after it")
	}
	return tok, rest, nil
}

// Line reads inv and rates every part of it. table gives the person-only
// rows (policy.Classifier.PersonOnly); nil: the classifier's own alone.
func (j *Judge) Line(table *policy.Classifier, inv Invocation) *Line {
	return j.read(table, inv)
}

// Judge rates the text after "run_command " as a policy.Judge: the
// Verdict of Line.
func (j *Judge) Judge(table *policy.Classifier, text string) policy.Verdict {
	inv, err := ParseInvocation(text)
	if err != nil {
		return policy.Verdict{Rating: policy.Dangerous, Reason: "the command is not of run_command's shape: " + err.Error()}
	}
	return j.Line(table, inv).Verdict()
}

// Match reports whether pattern (Pattern.String) covers the text after
// "run_command ", whose parts rated below threshold need no cover; see
// Pattern.Match.
func (j *Judge) Match(table *policy.Classifier, pattern, text string, threshold policy.Rating) bool {
	inv, err := ParseInvocation(text)
	if err != nil {
		return false
	}
	p, err := ParsePattern(pattern)
	return err == nil && p.Match(j.Line(table, inv), threshold)
}

// resolve returns p with the symbolic links of its longest existing
// ancestor resolved, so that a link in the workspace to a folder outside
// it is judged where it leads.
func resolve(p string) string {
	rest := []string{}
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			slices.Reverse(rest)
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if parent := filepath.Dir(dir); parent == dir {
			return p
		}
		rest = append(rest, filepath.Base(dir))
	}
}
