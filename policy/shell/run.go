package shell

import (
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/policy"
)

// systemBin are the folders whose programs are judged by their names
// (/usr/bin/rm is rm); a program anywhere else is judged by where it is.
var systemBin = []string{"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin"}

// Reasons of the commands themselves.
const (
	reasonDynArg   = "has an argument only known when it runs, which could be any of its flags"
	reasonDynSub   = "runs a subcommand only known when it runs"
	reasonBadName  = "runs a program whose name has characters no command wisp knows has"
	reasonUnknownS = "is not a subcommand wisp knows (it may be an alias, which runs anything)"
)

// A call is one command being judged against its row.
type call struct {
	r    *reader
	c    ctx
	row  *row
	args []arg // every word, the command's name first
	rest []arg // the words after the row's words
	seen []seen
	ops  []arg
	dyn  bool // a word that could be a flag is only known when it runs
	// writes: a flag made the operands files the command writes.
	writes bool

	rating     policy.Rating
	reason     string
	personOnly string
	// after are read once the command's own part is recorded: the
	// command lines it runs (sh -c, eval, find -exec).
	after []func()
}

// seen is a flag found in a command's words.
type seen struct {
	f   *flag
	val *arg // its value, if it takes one
}

func (k *call) raise(rating policy.Rating, reason string) {
	if rating > k.rating {
		k.rating, k.reason = rating, reason
	}
}

// raiseBy applies a path's verdict; at the row's own rating, its reason
// says better than the row's where the command writes.
func (k *call) raiseBy(v verdict) {
	if v.personOnly && k.personOnly == "" {
		k.personOnly = v.reason
	}
	if v.rating == k.rating && v.rating > policy.Safe && k.reason == k.row.reason {
		k.reason = v.reason
	}
	k.raise(v.rating, v.reason)
}

// has reports whether a flag of the given name was found.
func (k *call) has(names ...string) bool {
	for _, s := range k.seen {
		for _, n := range names {
			if s.f.name == n {
				return true
			}
		}
	}
	return false
}

// value returns the value of the last flag of one of the names found.
func (k *call) value(names ...string) (arg, bool) {
	var v arg
	found := false
	for _, s := range k.seen {
		for _, n := range names {
			if s.f.name == n && s.val != nil {
				v, found = *s.val, true
			}
		}
	}
	return v, found
}

// text returns the command as written.
func (c ctx) text(args []arg) string {
	var first, last *arg
	for i := range args {
		if args[i].w != nil {
			if first == nil {
				first = &args[i]
			}
			last = &args[i]
		}
	}
	if first == nil {
		return strings.Join(statics(args), " ")
	}
	start, end := int(first.w.Pos().Offset()), int(last.w.End().Offset())
	if start < 0 || end > len(c.src) || start > end {
		return strings.Join(statics(args), " ")
	}
	return c.src[start:end]
}

// run judges one command, its words as bash would pass them.
func (r *reader) run(c ctx, args []arg) {
	text := c.text(args)
	if reason := r.table.PersonOnly(statics(args)); reason != "" {
		r.add(Part{Text: text, Rating: policy.Dangerous, Reason: reason, PersonOnly: true})
		return
	}
	name := args[0]
	switch {
	case name.dynamic:
		r.opaque = true
		r.danger(text, reasonDynName)
		return
	case name.glob:
		r.opaque = true
		r.danger(text, reasonGlobName)
		return
	}
	prog := name.s
	if strings.Contains(prog, "/") {
		dir := filepath.Dir(prog)
		if !filepath.IsAbs(prog) || !containsDir(systemBin, filepath.Clean(dir)) {
			// A program the workspace or another folder holds: judged by
			// where it is, since any code may be there.
			v := r.path(name, accessRun)
			p := Part{Text: text, Rating: v.rating, Reason: v.reason}
			if v.rating < policy.Moderate {
				p.Rating, p.Reason = policy.Moderate, reasonRunsWS
			}
			if v.where != "" {
				p.Pattern = []string{"./" + filepath.ToSlash(v.where), "*"}
			}
			if !r.runsPersonOnly(text, args) {
				r.add(p)
			}
			return
		}
		prog = filepath.Base(prog)
	}
	if !plainName(prog) {
		r.danger(text, reasonBadName)
		return
	}
	prog = alias(prog)
	rows := r.j.table.rows[prog]
	if rows == nil {
		if !r.runsPersonOnly(text, args) {
			r.danger(text, policy.ReasonUnknown)
		}
		return
	}
	k := &call{r: r, c: c, args: args}
	if !k.match(rows) {
		return
	}
	k.judge()
}

// runsPersonOnly looks for a command only the person may run among the
// words of a program that may run them (sudo, watch, a program wisp does
// not know) and records it; it reports whether it found one.
func (r *reader) runsPersonOnly(text string, args []arg) bool {
	words := statics(args)
	for i := 1; i < len(words); i++ {
		if reason := r.table.PersonOnly(words[i:]); reason != "" {
			r.add(Part{Text: text, Rating: policy.Dangerous, Reason: reason, PersonOnly: true})
			return true
		}
	}
	return false
}

func containsDir(list []string, dir string) bool {
	for _, d := range list {
		if d == dir {
			return true
		}
	}
	return false
}

// plainName reports whether a program's name has only the characters
// the table's names have.
func plainName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._+-[:", c))
	}) < 0
}

// match finds the command's row among a program's: for a program with
// subcommands, after the program's own flags, the longest row whose
// words follow. It records a dangerous part and returns false for a
// subcommand no row names.
func (k *call) match(rows []*row) bool {
	top := rows[0]
	if !top.sub {
		k.row, k.rest = top, k.args[1:]
		return true
	}
	// The program's own flags, up to its subcommand.
	seen, ops, dyn := scan(top.flags, k.args[1:], true, false)
	k.seen, k.dyn = seen, dyn
	at := len(k.args) - len(ops)
	var best *row
	for _, rw := range rows[1:] {
		words := strings.Fields(rw.name)[1:]
		if len(words) > len(ops) || best != nil && len(words) <= len(strings.Fields(best.name))-1 {
			continue
		}
		ok := true
		for i, w := range words {
			if ops[i].dynamic || ops[i].s != w {
				ok = false
				break
			}
		}
		if ok {
			best = rw
		}
	}
	switch {
	case best != nil:
		k.row, k.rest = best, k.args[at+len(strings.Fields(best.name))-1:]
	case len(ops) > 0 && ops[0].dynamic:
		k.r.opaque = true
		k.r.danger(k.c.text(k.args), reasonDynSub)
		return false
	case len(ops) > 0:
		if !k.r.runsPersonOnly(k.c.text(k.args), k.args) {
			k.r.danger(k.c.text(k.args), reasonUnknownS)
		}
		return false
	default:
		k.row, k.rest = top, nil
	}
	return true
}

// judge rates the command by its row, adds its part, and reads the
// command it runs, if it runs one.
func (k *call) judge() {
	rw := k.row
	k.rating, k.reason = rw.rating, rw.reason
	if rw.repo && !k.r.j.opts.GitProtected {
		k.raise(policy.Moderate, reasonGitOpen)
	}
	// The program's own flags (git -c) were found by match.
	seen, ops, dyn := scan(rw.flags, k.rest, rw.stop, rw.plus)
	k.seen, k.ops, k.dyn = append(k.seen, seen...), ops, k.dyn || dyn
	for _, s := range k.seen {
		k.flag(s)
	}
	ops = k.ops
	if rw.ops == opCommand {
		ops = ops[:min(rw.wrap, len(ops))]
	}
	k.operands(ops)
	var inner []arg
	if rw.ops == opCommand && len(k.ops) > rw.wrap {
		inner = k.ops[rw.wrap:]
	}
	if rw.check != nil {
		inner = rw.check(k, inner)
	}
	if k.dyn && (rw.raises() || rw.ops != opRead && rw.ops != opText && rw.ops != opNone && rw.ops != opCommand) {
		k.raise(policy.Dangerous, reasonDynArg)
	}
	if rw.rating >= policy.Dangerous && k.r.runsPersonOnly(k.c.text(k.args), k.args) {
		// sudo wisp chat: the person's alone, which outranks the rest.
		return
	}
	p := Part{Text: k.c.text(k.args), Rating: k.rating, Reason: k.reason, Pattern: append(strings.Fields(rw.name), "*")}
	if k.personOnly != "" {
		p.Rating, p.Reason, p.PersonOnly = policy.Dangerous, k.personOnly, true
	}
	k.r.add(p)
	if len(inner) > 0 {
		c := k.c
		c.stdin = input{}
		if rw.ops == opCommand || rw.ops == opNone {
			c.stdin = k.c.stdin
		}
		k.r.run(c, inner)
	}
	for _, f := range k.after {
		f()
	}
}

// flag applies a flag found: its rating, and its value by kind.
func (k *call) flag(s seen) {
	f := s.f
	k.raise(f.rating, f.reason)
	if f.writes {
		k.writes = true
	}
	if s.val == nil {
		return
	}
	v := *s.val
	switch f.value {
	case valRead:
		k.raiseBy(k.r.path(v, accessRead))
	case valWrite:
		k.raiseBy(k.r.path(v, accessWrite))
	case valRun:
		k.raiseBy(k.r.path(v, accessRun))
	case valWork:
		k.raiseBy(k.r.path(v, accessWork))
		k.cd(v)
	case valCode:
		k.r.opaque = true
		k.raise(policy.Dangerous, reasonCode)
	}
}

// cd records a folder a command changes to, for the paths after it.
func (k *call) cd(a arg) {
	r := k.r
	switch {
	case a.dynamic || a.glob || k.c.loop || a.s == "-":
		r.cwd.unknown = true
	case filepath.IsAbs(a.s):
		r.cwd.add(resolve(filepath.Clean(a.s)))
	default:
		for _, d := range append([]string(nil), r.cwd.dirs...) {
			r.cwd.add(resolve(filepath.Clean(filepath.Join(d, a.s))))
		}
	}
}

// operands rates the command's operands by its row.
func (k *call) operands(ops []arg) {
	kind := k.row.ops
	if k.writes {
		kind = opWrite
	}
	for i, a := range ops {
		how := accessRead
		switch kind {
		case opText, opNone, opCommand:
			continue
		case opWrite:
			how = accessWrite
		case opDelete:
			how = accessDelete
		case opLastWrite:
			if i == len(ops)-1 && len(ops) > 1 && !k.has("-t", "--target-directory") {
				how = accessWrite
			}
		case opSecondWrite:
			if i == 1 {
				how = accessWrite
			}
		case opMode:
			if i == 0 && !k.has("--reference") {
				continue
			}
			how = accessWrite
		}
		k.raiseBy(k.r.path(a, how))
	}
}

// scan splits a command's words into its flags and its operands, GNU
// style: short flags bundle (-rf) and take a value attached or as the
// next word; long flags take one after = or as the next word, and any
// unambiguous start of a long flag is that flag (--rec); "--" ends the
// flags; flags may follow operands unless stop is set (a wrapper's
// operands are another command's). plus also takes words starting with
// + as flags (bash +x). A flag the row does not name is skipped: only the
// flags that matter are named. dyn reports a word only known when it runs
// where a flag may be.
func scan(specs []flag, args []arg, stop, plus bool) (found []seen, ops []arg, dyn bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dynamic {
			dyn = dyn || !stop || len(ops) == 0
			ops = append(ops, a)
			if stop {
				return found, append(ops, args[i+1:]...), dyn
			}
			continue
		}
		s := a.s
		if s == "--" {
			return found, append(ops, args[i+1:]...), dyn
		}
		if len(s) < 2 || s[0] != '-' && !(plus && s[0] == '+') {
			ops = append(ops, a)
			if stop {
				return found, append(ops, args[i+1:]...), dyn
			}
			continue
		}
		// next takes the following word as a flag's value.
		next := func() *arg {
			if i+1 < len(args) {
				i++
				return &args[i]
			}
			return nil
		}
		name, val, hasVal := strings.Cut(s, "=")
		if f := longFlag(specs, name); f != nil {
			sn := seen{f: f}
			switch {
			case f.value == valNone:
			case hasVal:
				sn.val = &arg{s: val, w: a.w, glob: a.glob}
			case f.value != valOptional:
				sn.val = next()
			}
			found = append(found, sn)
			continue
		}
		if strings.HasPrefix(s, "--") {
			continue
		}
		for j := 1; j < len(s); j++ {
			f := shortFlag(specs, s[j])
			if f == nil {
				continue
			}
			sn := seen{f: f}
			if f.value != valNone {
				switch {
				case j+1 < len(s):
					sn.val = &arg{s: s[j+1:], w: a.w, glob: a.glob}
				case f.value != valOptional:
					sn.val = next()
				}
				found = append(found, sn)
				break
			}
			found = append(found, sn)
		}
	}
	return found, ops, dyn
}

// longFlag finds the flag a word (up to any =) names: a "--" flag by its
// name or any start of it (the strongest, if several start so), or a
// one-dash flag of more than one letter (-exec) by its name, with one
// dash or two.
func longFlag(specs []flag, name string) *flag {
	var best *flag
	for i := range specs {
		f := &specs[i]
		switch {
		case len(f.name) > 2 && f.name[1] != '-' && (name == f.name || name == "-"+f.name):
			return f
		case strings.HasPrefix(f.name, "--") && len(name) > 2 && strings.HasPrefix(name, "--") && strings.HasPrefix(f.name, name):
			if name == f.name {
				return f
			}
			if best == nil || f.rating > best.rating {
				best = f
			}
		}
	}
	return best
}

// shortFlag finds a one-letter flag.
func shortFlag(specs []flag, c byte) *flag {
	for i := range specs {
		if f := &specs[i]; len(f.name) == 2 && f.name[1] == c {
			return f
		}
	}
	return nil
}
