package shell

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readLater reads, after the command's own part, a string the command runs
// as a command line.
func (k *call) readLater(a arg) {
	c := k.c
	c.depth++
	c.stdin = input{}
	k.after = append(k.after, func() { k.r.text(c, a.s) })
}

// code rates a value the command runs as a command line: read later if
// it is known, dangerous otherwise.
func (k *call) code(a arg) {
	if a.dynamic {
		k.r.opaque = true
		k.raise(dangerous, reasonCode)
		return
	}
	k.readLater(a)
}

// values returns the values of every flag of the names found.
func (k *call) values(names ...string) []arg {
	var out []arg
	for _, s := range k.seen {
		if s.val != nil && slices.Contains(names, s.f.name) {
			out = append(out, *s.val)
		}
	}
	return out
}

// checkFind reads find's expression: the starting points, then the
// tests and actions, some of which run commands, delete or write.
func checkFind(k *call, _ []arg) []arg {
	args := k.rest
	i := 0
	for i < len(args) && !args[i].dynamic && (slices.Contains([]string{"-H", "-L", "-P"}, args[i].s) || strings.HasPrefix(args[i].s, "-O")) {
		i++
	}
	if i < len(args) && !args[i].dynamic && args[i].s == "-D" {
		i += 2
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !a.dynamic && (strings.HasPrefix(a.s, "-") || a.s == "(" || a.s == "!" || a.s == ")") {
			break
		}
		if a.dynamic {
			k.raise(dangerous, reasonDynArg)
		}
		k.raiseBy(k.r.path(a, accessRead))
	}
	valued := []string{"-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-type", "-xtype", "-maxdepth", "-mindepth",
		"-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-perm", "-user", "-group", "-uid", "-gid",
		"-printf", "-lname", "-ilname", "-wholename", "-iwholename", "-links", "-inum", "-fstype", "-used", "-context",
		"-regextype", "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"}
	for ; i < len(args); i++ {
		a := args[i]
		if a.dynamic {
			k.raise(dangerous, reasonDynArg)
			continue
		}
		switch {
		case slices.Contains([]string{"-exec", "-execdir", "-ok", "-okdir"}, a.s):
			k.raise(dangerous, reasonEachFile)
			j := i + 1
			for j < len(args) && (args[j].dynamic || args[j].s != ";" && args[j].s != "+") {
				j++
			}
			cmd := slices.Clone(args[i+1 : j])
			for n := range cmd {
				if strings.Contains(cmd[n].s, "{}") {
					cmd[n].dynamic = true
				}
			}
			if len(cmd) > 0 {
				c := k.c
				c.stdin = input{}
				k.after = append(k.after, func() { k.r.run(c, cmd) })
			}
			i = j
		case a.s == "-delete":
			k.raise(dangerous, reasonDeletesFind)
		case a.s == "-fprint" || a.s == "-fprint0" || a.s == "-fls" || a.s == "-fprintf":
			if i+1 < len(args) {
				k.raise(moderate, reasonWrites)
				k.raiseBy(k.r.path(args[i+1], accessWrite))
			}
			i++
			if a.s == "-fprintf" {
				i++
			}
		case slices.Contains(valued, a.s):
			i++
		}
	}
	return nil
}

// files rates the files a command names: read, or written when a flag
// made them so (sed -i, yq -i).
func (k *call) files(ops []arg) {
	how := accessRead
	if k.writes {
		how = accessWrite
	}
	for _, a := range ops {
		k.raiseBy(k.r.path(a, how))
	}
}

// checkJQ reads jq's filter (its first operand) and the files it reads or,
// with -i, writes.
func checkJQ(k *call, _ []arg) []arg {
	ops := k.ops
	if len(ops) > 0 && !k.has("-f", "--from-file") {
		ops = ops[1:]
	}
	k.files(ops)
	return nil
}

// checkSed reads sed's scripts: safe only when every command of them
// only prints or edits what it reads (no w, r, e, or s///w and s///e).
func checkSed(k *call, _ []arg) []arg {
	scripts := k.values("-e", "--expression")
	ops := k.ops
	if len(scripts) == 0 && !k.has("-f", "--file") && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	for _, s := range scripts {
		switch {
		case s.dynamic:
			k.raise(dangerous, reasonDynArg)
		case !sedSafe(s.s):
			k.raise(dangerous, reasonScriptOpts)
		}
	}
	k.files(ops)
	return nil
}

// sedSafe reports whether a sed script only prints, deletes and edits
// the text it reads. It knows the commands of POSIX and GNU sed; any
// other text, and every command that reads or writes a file or runs one,
// is not safe.
func sedSafe(s string) bool {
	i, n := 0, len(s)
	digits := func() {
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	// delimited skips to the unescaped delimiter d and past it.
	delimited := func(d byte) bool {
		for i < n && s[i] != d {
			if s[i] == '\\' {
				i++
			}
			if i < n && s[i] == '\n' && d != '\n' {
				return false
			}
			i++
		}
		if i >= n {
			return false
		}
		i++
		return true
	}
	address := func() bool {
		switch {
		case i < n && s[i] >= '0' && s[i] <= '9':
			digits()
			if i < n && s[i] == '~' {
				i++
				digits()
			}
		case i < n && s[i] == '$':
			i++
		case i < n && s[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
		case i+1 < n && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
		case i < n && (s[i] == '+' || s[i] == '~'):
			i++
			digits()
		default:
			return true
		}
		for i < n && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return true
	}
	toLineEnd := func() {
		for i < n && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
	}
	for {
		for i < n && strings.IndexByte(" \t\n;", s[i]) >= 0 {
			i++
		}
		if i >= n {
			return true
		}
		if !address() {
			return false
		}
		if i < n && s[i] == ',' {
			i++
			if !address() {
				return false
			}
		}
		for i < n && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= n {
			return false
		}
		cmd := s[i]
		i++
		switch {
		case strings.IndexByte("{}pdDnNgGhHxPz=F", cmd) >= 0:
		case strings.IndexByte("qQlL", cmd) >= 0:
			for i < n && s[i] == ' ' {
				i++
			}
			digits()
		case cmd == 's':
			if i >= n || s[i] == '\\' || s[i] == '\n' {
				return false
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return false
			}
			for i < n && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
		case cmd == 'y':
			if i >= n || s[i] == '\\' || s[i] == '\n' {
				return false
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return false
			}
		case strings.IndexByte("aic#", cmd) >= 0:
			toLineEnd()
		case strings.IndexByte("btT:", cmd) >= 0:
			for i < n && s[i] != '\n' && s[i] != ';' {
				i++
			}
		default:
			// r R w W e v and anything else.
			return false
		}
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < n && strings.IndexByte(";\n}", s[i]) < 0 {
			return false
		}
	}
}

// checkAwk reads awk's program: it must not run commands (system, a pipe,
// getline) nor write files (>).
func checkAwk(k *call, _ []arg) []arg {
	progs := k.values("-e", "--source")
	ops := k.ops
	if len(progs) == 0 && !k.has("-f", "--file", "-E", "--exec") && len(ops) > 0 {
		progs, ops = ops[:1], ops[1:]
	}
	for _, p := range progs {
		switch {
		case p.dynamic:
			k.raise(dangerous, reasonDynArg)
		case strings.ContainsAny(p.s, "|>@") || strings.Contains(p.s, "system") || strings.Contains(p.s, "getline"):
			k.raise(dangerous, "its program can write files or run commands")
		}
	}
	k.files(ops)
	return nil
}

// checkNames returns a check of the names of variables a command sets:
// the value of the flag named (printf -v), and the operands from the
// index given (-1: none). A name bash evaluates (a[$(cmd)]) or one only
// known when it runs can hide a command.
func checkNames(valueFlag string, from int) func(*call, []arg) []arg {
	return func(k *call, _ []arg) []arg {
		var names []arg
		if valueFlag != "" {
			names = k.values(valueFlag)
		}
		if from >= 0 && from < len(k.ops) {
			names = append(names, k.ops[from:]...)
		}
		for _, a := range names {
			if a.dynamic || !identifier(a.s) {
				k.raise(dangerous, reasonHidden)
			}
		}
		return nil
	}
}

// identifier reports whether s is a variable's name.
func identifier(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// checkDate: an operand other than +FORMAT sets the clock.
func checkDate(k *call, _ []arg) []arg {
	for _, a := range k.ops {
		if a.dynamic || !strings.HasPrefix(a.s, "+") {
			k.raise(dangerous, reasonClock)
		}
	}
	return nil
}

// checkCd records the folder cd changes to, for the commands after it.
func checkCd(k *call, _ []arg) []arg {
	switch {
	case k.row.name == "popd":
		k.r.cwd.unknown = true
	case len(k.ops) == 0 && k.r.j.opts.Home != "":
		k.cd(arg{s: k.r.j.opts.Home})
	case len(k.ops) == 0:
		k.r.cwd.unknown = true
	case !k.ops[0].dynamic && (strings.HasPrefix(k.ops[0].s, "+") || strings.HasPrefix(k.ops[0].s, "-")):
		k.r.cwd.unknown = true
	default:
		k.cd(k.ops[0])
	}
	return nil
}

// checkShopt: expand_aliases lets an alias take a command's name.
func checkShopt(k *call, _ []arg) []arg {
	for _, a := range k.ops {
		if a.dynamic || a.s == "expand_aliases" || a.s == "extdebug" {
			k.raise(dangerous, reasonAlias)
		}
	}
	return nil
}

// checkAssigns reads export NAME=VALUE and its kin when they run as
// commands (builtin export …).
func checkAssigns(k *call, _ []arg) []arg {
	for _, a := range k.ops {
		if a.dynamic {
			k.raise(dangerous, "declares what a variable or substitution says")
			continue
		}
		name, _, _ := strings.Cut(a.s, "=")
		if !identifier(name) {
			k.raise(dangerous, reasonHidden)
		} else if why := envName(name); why != "" {
			k.raise(dangerous, why)
		}
	}
	return nil
}

// checkEval reads eval's words, joined, as a command line.
func checkEval(k *call, _ []arg) []arg {
	if len(k.ops) == 0 {
		return nil
	}
	words := statics(k.ops)
	for _, a := range k.ops {
		if a.dynamic {
			k.r.opaque = true
			k.raise(dangerous, reasonCode)
			return nil
		}
	}
	k.readLater(arg{s: strings.Join(words, " ")})
	return nil
}

// checkTrap reads the command line trap is given for later.
func checkTrap(k *call, _ []arg) []arg {
	if len(k.ops) < 2 || k.has("-l", "-p", "-P") || !k.ops[0].dynamic && k.ops[0].s == "-" {
		return nil
	}
	k.code(k.ops[0])
	return nil
}

// checkFirst returns the check of a command whose first operand it
// accesses so: source and . run a script in the shell itself, zip
// writes its archive.
func checkFirst(how access) func(*call, []arg) []arg {
	return func(k *call, _ []arg) []arg {
		if len(k.ops) > 0 {
			k.raiseBy(k.r.path(k.ops[0], how))
		}
		return nil
	}
}

// checkShell reads what a shell runs: the command line after -c, a
// script, or its input.
func checkShell(k *call, _ []arg) []arg {
	ops := k.ops
	switch {
	case k.has("-c"):
		if len(ops) == 0 {
			k.raise(dangerous, "has -c but no command line")
			return nil
		}
		k.code(ops[0])
	case len(ops) > 0 && !k.has("-s") && !stdinOperand(ops[0]):
		k.raiseBy(k.r.path(ops[0], accessRun))
	default:
		k.input(true)
	}
	return nil
}

// input rates a program that runs the code it reads from its input: for
// a shell, a here-document or here-string known as written is read as a
// command line; a file is a script; anything else is code wisp cannot
// read.
func (k *call) input(shell bool) {
	in := k.c.stdin
	switch {
	case in.kind == inText && shell:
		k.readLater(arg{s: in.text})
		return
	case in.kind == inFile:
		k.raiseBy(k.r.path(in.file, accessRun))
		return
	}
	k.r.opaque = true
	k.raise(dangerous, reasonCodeInput)
}

// stdinOperand reports whether an operand is "-", the standard input.
func stdinOperand(a arg) bool { return !a.dynamic && a.s == "-" }

// checkEnv reads env's NAME=VALUE operands, and -S, whose string env
// splits into words, then returns the command env runs.
func checkEnv(k *call, _ []arg) []arg {
	ops := k.ops
	for _, s := range k.values("-S", "--split-string") {
		words, ok := staticWords(s)
		if !ok {
			k.r.opaque = true
			k.raise(dangerous, "splits a string wisp cannot read into a command")
			return nil
		}
		ops = append(words, ops...)
	}
	i := 0
	for ; i < len(ops) && !ops[i].dynamic && strings.Contains(ops[i].s, "="); i++ {
		name, _, _ := strings.Cut(ops[i].s, "=")
		if why := envName(name); why != "" {
			k.raise(dangerous, why)
		}
	}
	return ops[i:]
}

// staticWords splits s into words as the shell would, when every word is
// known as written.
func staticWords(a arg) ([]arg, bool) {
	if a.dynamic {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(a.s), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Stmts[0].Redirs) > 0 {
		return nil, false
	}
	x, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(x.Assigns) > 0 {
		return nil, false
	}
	var out []arg
	for _, w := range x.Args {
		for _, p := range w.Parts {
			switch p.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			default:
				return nil, false
			}
		}
		fs, ok := fields(w)
		if !ok {
			return nil, false
		}
		for _, s := range fs {
			out = append(out, arg{s: s})
		}
	}
	return out, true
}

// checkCommand: command -v and -V only look a command up.
func checkCommand(k *call, inner []arg) []arg {
	if k.has("-v", "-V") {
		k.reason = reasonLooks
		return nil
	}
	return inner
}

// checkFlock: the lock file is made, and -c (before or after it) runs a
// command line.
func checkFlock(k *call, inner []arg) []arg {
	if len(k.ops) > 0 && !isNumber(k.ops[0].s) {
		k.raiseBy(k.r.path(k.ops[0], accessWrite))
	}
	for _, c := range k.values("-c", "--command") {
		k.code(c)
	}
	if len(inner) > 0 && !inner[0].dynamic && (inner[0].s == "-c" || inner[0].s == "--command") {
		if len(inner) > 1 {
			k.code(inner[1])
		}
		return nil
	}
	return inner
}

// checkLn: a link to a file outside the workspace lets later commands
// reach it through the workspace.
func checkLn(k *call, _ []arg) []arg {
	targets := k.ops
	if len(targets) > 1 && !k.has("-t", "--target-directory") {
		targets = targets[:len(targets)-1]
	}
	for _, a := range targets {
		if v := k.r.path(a, accessWrite); v.rating >= dangerous || v.personOnly {
			k.raise(dangerous, "links to a file outside the workspace")
		}
	}
	return nil
}

// checkXargs returns the command xargs runs, with the words it reads from
// its input: one more argument only known when it runs, or the words -I
// replaces.
func checkXargs(k *call, inner []arg) []arg {
	if len(inner) == 0 {
		inner = []arg{{s: "echo"}}
	}
	inner = slices.Clone(inner)
	if k.has("-I", "--replace", "-i") {
		repl := "{}"
		if v := k.values("-I", "--replace", "-i"); len(v) > 0 && v[len(v)-1].s != "" {
			repl = v[len(v)-1].s
		}
		for i := range inner {
			if strings.Contains(inner[i].s, repl) {
				inner[i].dynamic = true
			}
		}
		return inner
	}
	return append(inner, arg{dynamic: true})
}

// checkScript: script -c runs a command line; without it, a shell for a
// person at a terminal.
func checkScript(k *call, _ []arg) []arg {
	cmds := k.values("-c", "--command")
	if len(cmds) == 0 {
		return nil
	}
	k.rating, k.reason = safe, reasonWrap
	for _, a := range k.ops {
		k.raiseBy(k.r.path(a, accessWrite))
	}
	for _, c := range cmds {
		k.code(c)
	}
	return nil
}

// checkInterpreter reads what python, node and their kin run: inline code
// (its flag made it dangerous), a module, a script, or their input.
func checkInterpreter(k *call, _ []arg) []arg {
	for _, s := range k.seen {
		if s.f.value == valCode {
			return nil
		}
	}
	if mods := k.values("-m"); len(mods) > 0 {
		m := mods[len(mods)-1]
		switch {
		case m.dynamic:
			k.raise(dangerous, reasonDynArg)
		case slices.Contains([]string{"pip", "ensurepip", "http.server", "pipx", "uv"}, m.s):
			k.raise(dangerous, reasonInstall+", or serves the network")
		}
		return nil
	}
	switch {
	case len(k.ops) > 0 && !stdinOperand(k.ops[0]):
		k.raiseBy(k.r.path(k.ops[0], accessRun))
	case len(k.ops) == 0 && k.has("-V", "--version", "-v", "-h", "--help"):
		k.rating, k.reason = safe, reasonPrints
	default:
		k.input(false)
	}
	return nil
}

// checkMktemp: -p names the folder the file is made in.
func checkMktemp(k *call, _ []arg) []arg {
	for _, d := range k.values("-p", "--tmpdir") {
		if d.s != "" || d.dynamic {
			k.raiseBy(k.r.path(arg{s: d.s + "/x", dynamic: d.dynamic}, accessWrite))
		}
	}
	return nil
}

// checkChmod: setuid and setgid make a program run as its owner.
func checkChmod(k *call, _ []arg) []arg {
	if len(k.ops) == 0 || k.has("--reference") {
		return nil
	}
	mode := k.ops[0]
	switch {
	case mode.dynamic:
		k.raise(dangerous, reasonDynArg)
	case strings.Contains(mode.s, "s"):
		k.raise(dangerous, reasonSetuid)
	case isNumber(mode.s) && (len(mode.s) == 4 && strings.IndexByte("01", mode.s[0]) < 0 || len(mode.s) > 4):
		k.raise(dangerous, reasonSetuid)
	}
	return nil
}

// checkDD reads dd's if= and of= operands.
func checkDD(k *call, _ []arg) []arg {
	for _, a := range k.ops {
		if a.dynamic {
			k.raise(dangerous, reasonDynArg)
			continue
		}
		key, val, _ := strings.Cut(a.s, "=")
		switch key {
		case "if":
			k.raiseBy(k.r.path(arg{s: val}, accessRead))
		case "of":
			k.raise(moderate, reasonWrites)
			k.raiseBy(k.r.path(arg{s: val}, accessWrite))
		}
	}
	return nil
}

// checkTar: old-style options are not read; -f names the archive, written
// when tar makes one.
func checkTar(k *call, _ []arg) []arg {
	if len(k.rest) > 0 && !k.rest[0].dynamic && !strings.HasPrefix(k.rest[0].s, "-") {
		k.raise(dangerous, reasonOldTar)
	}
	how := accessRead
	if k.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate") {
		how = accessWrite
	}
	for _, f := range k.values("-f", "--file") {
		if f.s != "-" {
			k.raiseBy(k.r.path(f, how))
		}
	}
	return nil
}

// checkGitReflog: expire and delete change the reflog.
func checkGitReflog(k *call, _ []arg) []arg {
	if len(k.ops) > 0 && (k.ops[0].dynamic || k.ops[0].s == "expire" || k.ops[0].s == "delete") {
		k.raise(moderate, reasonGitWrites)
	}
	return nil
}

// checkGitList returns the check of git branch and git tag: they only
// list unless they are given a name without a listing flag, or a flag
// that makes, moves or deletes one.
func checkGitList(list string) func(*call, []arg) []arg {
	names := strings.Fields(list)
	return func(k *call, _ []arg) []arg {
		if len(k.ops) > 0 && !k.has(names...) {
			k.raise(moderate, reasonGitWrites)
		}
		return nil
	}
}

// checkGitRemote: listing is safe, changing the remotes moderate,
// talking to them dangerous.
func checkGitRemote(k *call, _ []arg) []arg {
	if len(k.ops) == 0 {
		return nil
	}
	switch op := k.ops[0]; {
	case op.dynamic:
		k.raise(dangerous, reasonDynSub)
	case slices.Contains([]string{"add", "remove", "rm", "rename", "set-url", "set-head", "set-branches"}, op.s):
		k.raise(moderate, reasonGitWrites)
	case op.s == "get-url":
	default:
		k.raise(dangerous, reasonNetwork)
	}
	return nil
}

// checkGitConfig: reading a setting is safe; setting one dangerous.
func checkGitConfig(k *call, _ []arg) []arg {
	ops := k.ops
	get := k.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list")
	if len(ops) > 0 && !ops[0].dynamic && (ops[0].s == "get" || ops[0].s == "list") {
		get = true
	}
	if !get && len(ops) != 1 || len(ops) > 0 && ops[0].dynamic {
		k.raise(dangerous, reasonGitSettings)
	}
	return nil
}

// checkDiscard: git checkout . and git restore . throw away every change.
func checkDiscard(k *call, _ []arg) []arg {
	for _, a := range k.ops {
		if a.dynamic || a.s == "." || a.s == ":/" || a.s == "*" {
			k.raise(dangerous, reasonDiscards)
		}
	}
	return nil
}

// checkGoRun: go run MODULE@VERSION downloads and runs code.
func checkGoRun(k *call, _ []arg) []arg {
	for _, a := range k.ops {
		if a.dynamic || strings.Contains(a.s, "@") {
			k.raise(dangerous, reasonInstall)
		}
	}
	return nil
}

// envName returns why setting a variable of that name is dangerous, or
// "" when it is not: it changes what runs (PATH, LD_PRELOAD, BASH_ENV),
// or what a program runs (GIT_*, PAGER, NODE_OPTIONS), or where files go
// (HOME, TMPDIR).
func envName(name string) string {
	if !identifier(name) {
		return fmt.Sprintf("sets %q, which is not a variable's name", name)
	}
	up := strings.ToUpper(name)
	for _, p := range dangerousPrefixes {
		if strings.HasPrefix(up, p) {
			return "sets " + name + ", which changes what runs"
		}
	}
	if slices.Contains(dangerousNames, up) {
		return "sets " + name + ", which changes what runs"
	}
	return ""
}

// The variables whose values change what runs.
var (
	dangerousNames = []string{"PATH", "BASH_ENV", "ENV", "IFS", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4",
		"GLOBIGNORE", "CDPATH", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "SHELL", "SSH_ASKPASS",
		"NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT",
		"RUBYLIB", "GEM_HOME", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "LESSOPEN", "LESSCLOSE", "HISTFILE", "TMPDIR",
		"HOME", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "CC", "CXX", "LD", "AR", "RUSTC", "RUSTC_WRAPPER", "MAKEFLAGS",
		"MFLAGS", "TERMINFO"}
	dangerousPrefixes = []string{"LD_", "DYLD_", "GIT_", "XDG_", "BASH_FUNC_", "CGO_", "CARGO_", "NPM_CONFIG_", "PIP_", "WISP_"}
)
