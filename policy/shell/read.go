package shell

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/policy"
)

// Limits of what the judge reads. Past any of them a line is dangerous:
// no limit ever relaxes a rating.
const (
	maxLine  = 16 << 10 // bytes in a line
	maxDepth = 3        // strings read again as command lines, one inside another
	maxParts = 512      // parts of a line
	maxText  = 80       // runes of a part's text
	maxWords = 4096     // words of a command, after brace expansion
	maxField = 1024     // words one word expands to
)

// ReasonWispHome is the reason a line that changes anything in wisp's
// own folder is the person's alone.
const ReasonWispHome = "changing wisp's own files is the person's alone"

// Reasons of the judge's own, for what the table's rows do not say.
const (
	reasonEmpty     = "runs nothing: the line is empty"
	reasonNothing   = "runs nothing"
	reasonLong      = "is too long to read"
	reasonDeep      = "runs a command line inside another too deeply to read"
	reasonMany      = "has too many parts to read"
	reasonParse     = "cannot be read as a bash command line"
	reasonNode      = "uses a part of the shell's language wisp does not read"
	reasonFunction  = "defines a shell function, which can take another command's name"
	reasonHidden    = "makes bash evaluate a variable's value, which can hide a command"
	reasonIndirect  = "uses a variable named by another variable"
	reasonBack      = "runs in the background"
	reasonDir       = "runs in a folder outside the workspace"
	reasonDynName   = "runs a command whose name is only known when it runs"
	reasonGlobName  = "runs a command whose name is a file pattern"
	reasonDynTarget = "writes where a variable or substitution says"
)

// A reader reads one line: it walks the syntax tree and gathers the
// parts.
type reader struct {
	j     *Judge
	table *policy.Classifier
	parts []Part
	// opaque is set when a part runs code that is in the line but that
	// the judge cannot read: a command named by a variable, a shell fed
	// from a pipe, inline python. The line is then searched for the
	// person-only commands as text (policy.Classifier.PersonOnlyText).
	opaque bool
	cwd    cwds
}

// ctx is where in the line the reader is.
type ctx struct {
	src   string // the text being read, which positions index
	depth int    // how many strings inside strings
	loop  bool   // inside a loop's body
	stdin input  // what the command reads from its input
}

// input is what a command's standard input is, when code may be read
// from it.
type input struct {
	kind inputKind
	text string // inText: what it reads
	file arg    // inFile: the file
}

type inputKind int

const (
	inNone    inputKind = iota // nothing, or nothing known to matter
	inPipe                     // another command's output
	inText                     // a here-document or here-string known as written
	inDynamic                  // a here-document or here-string with expansions
	inFile                     // a file: < FILE
)

// cwds are the folders a command may run in: the line's folder and any a
// cd may have changed to. They only grow as the line is read, so a
// command is judged in every folder it may run in.
type cwds struct {
	dirs    []string
	unknown bool // a cd went where the judge cannot tell
}

func (w *cwds) add(dir string) {
	switch {
	case w.unknown:
	case len(w.dirs) >= 16:
		w.unknown = true
	case !slices.Contains(w.dirs, dir):
		w.dirs = append(w.dirs, dir)
	}
}

// read reads inv into a Line.
func (j *Judge) read(table *policy.Classifier, inv Invocation) *Line {
	r := &reader{j: j, table: table}
	dir := j.opts.Workspace
	if inv.Dir != "" {
		dir = resolve(filepath.Clean(filepath.Join(j.opts.Workspace, inv.Dir)))
		if filepath.IsAbs(inv.Dir) {
			dir = resolve(filepath.Clean(inv.Dir))
		}
		if !within(dir, j.opts.Workspace) {
			r.add(Part{Text: "-C " + inv.Dir, Rating: policy.Dangerous, Reason: reasonDir})
		}
	}
	r.cwd.add(dir)
	for _, name := range inv.Env {
		p := Part{Text: "-e " + name, Rating: policy.Safe, Reason: "the runner sets it", Pattern: []string{"-e", name}}
		if why := envName(name); why != "" {
			p.Rating, p.Reason, p.Pattern = policy.Dangerous, why, nil
		}
		r.add(p)
	}
	if strings.TrimSpace(inv.Line) == "" {
		r.add(Part{Text: inv.Line, Rating: policy.Dangerous, Reason: reasonEmpty})
	} else {
		r.text(ctx{}, inv.Line)
	}
	if r.opaque {
		if reason := table.PersonOnlyText(inv.Line); reason != "" {
			r.add(Part{Text: inv.Line, Rating: policy.Dangerous, Reason: reason, PersonOnly: true})
		}
	}
	return fold(inv, r.parts)
}

// fold makes the line's verdict from its parts: the person's alone if any
// part is; otherwise the highest rating, the first part at it naming the
// reason.
func fold(inv Invocation, parts []Part) *Line {
	l := &Line{Invocation: inv, Parts: parts, Rating: policy.Safe, Reason: reasonNothing}
	var top *Part
	for i := range parts {
		p := &parts[i]
		if p.PersonOnly && !l.PersonOnly {
			l.PersonOnly, l.Rating, l.Reason = true, policy.Dangerous, p.Reason
		}
		if top == nil || p.Rating > top.Rating {
			top = p
		}
	}
	if top != nil && !l.PersonOnly {
		l.Rating, l.Reason = top.Rating, top.Reason
		if top.Text != "" {
			l.Reason = top.Text + ": " + top.Reason
		}
	}
	return l
}

// add records a part. Past maxParts, the line is dangerous, and only the
// parts only the person may run are recorded still.
func (r *reader) add(p Part) {
	switch {
	case p.PersonOnly:
	case len(r.parts) == maxParts:
		p = Part{Text: p.Text, Rating: policy.Dangerous, Reason: reasonMany}
	case len(r.parts) > maxParts:
		return
	}
	if p.Rating >= policy.Dangerous || p.PersonOnly {
		p.Pattern = nil
	}
	p.Text = shorten(p.Text)
	r.parts = append(r.parts, p)
}

// danger records a dangerous part.
func (r *reader) danger(text, reason string) {
	r.add(Part{Text: text, Rating: policy.Dangerous, Reason: reason})
}

// shorten makes a part's text one line of at most maxText runes.
func shorten(s string) string {
	runes := []rune(strings.TrimSpace(s))
	cut := len(runes) > maxText
	if cut {
		runes = runes[:maxText-1]
	}
	var b strings.Builder
	for _, r := range runes {
		if policy.Hidden(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// text reads s, a command line: the line itself, or a string it runs as
// one (sh -c, eval).
func (r *reader) text(c ctx, s string) {
	switch {
	case c.depth > maxDepth:
		r.danger(s, reasonDeep)
		return
	case len(s) > maxLine:
		r.danger(s, reasonLong)
		return
	}
	for _, ch := range s {
		if ch != '\t' && ch != '\n' && policy.Hidden(ch) {
			r.danger(s, policy.ReasonControl)
			return
		}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)).Parse(strings.NewReader(s), "")
	if err != nil {
		r.danger(s, fmt.Sprintf("%s (%v)", reasonParse, err))
		return
	}
	c.src = s
	r.stmts(c, f.Stmts)
}

// source returns the text of n as written.
func (c ctx) source(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(c.src) || start > end {
		return ""
	}
	return c.src[start:end]
}

func (r *reader) stmts(c ctx, list []*syntax.Stmt) {
	for _, st := range list {
		r.stmt(c, st)
	}
}

func (r *reader) stmt(c ctx, st *syntax.Stmt) {
	if st.Background || st.Coprocess || st.Disown {
		r.add(Part{Text: c.source(st), Rating: policy.Moderate, Reason: reasonBack, Pattern: []string{"&"}})
	}
	for _, rd := range st.Redirs {
		if in, ok := r.redirect(c, rd); ok {
			c.stdin = in
		}
	}
	r.command(c, st.Cmd)
}

func (r *reader) command(c ctx, cmd syntax.Command) {
	switch x := cmd.(type) {
	case nil:
		// Redirections alone: > file.
	case *syntax.CallExpr:
		r.call(c, x)
	case *syntax.BinaryCmd:
		r.stmt(c, x.X)
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			c.stdin = input{kind: inPipe}
		}
		r.stmt(c, x.Y)
	case *syntax.Block:
		r.stmts(c, x.Stmts)
	case *syntax.Subshell:
		r.stmts(c, x.Stmts)
	case *syntax.IfClause:
		for cl := x; cl != nil; cl = cl.Else {
			r.stmts(c, cl.Cond)
			r.stmts(c, cl.Then)
		}
	case *syntax.WhileClause:
		c.loop = true
		r.stmts(c, x.Cond)
		r.stmts(c, x.Do)
	case *syntax.ForClause:
		c.loop = true
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			r.words(c, l.Items)
		case *syntax.CStyleLoop:
			for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				if e != nil {
					r.arith(c, e, c.source(l))
				}
			}
		default:
			r.danger(c.source(x), reasonNode)
		}
		r.stmts(c, x.Do)
	case *syntax.CaseClause:
		r.words(c, []*syntax.Word{x.Word})
		for _, item := range x.Items {
			r.words(c, item.Patterns)
			r.stmts(c, item.Stmts)
		}
	case *syntax.FuncDecl:
		r.danger(c.source(x), reasonFunction)
		r.stmt(c, x.Body)
	case *syntax.ArithmCmd:
		r.arith(c, x.X, c.source(x))
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			r.arith(c, e, c.source(x))
		}
	case *syntax.TestClause:
		r.test(c, x.X, c.source(x))
	case *syntax.DeclClause:
		r.decl(c, x)
	case *syntax.TimeClause:
		if x.Stmt != nil {
			r.stmt(c, x.Stmt)
		}
	case *syntax.CoprocClause:
		r.add(Part{Text: c.source(x), Rating: policy.Moderate, Reason: reasonBack, Pattern: []string{"&"}})
		r.stmt(c, x.Stmt)
	default:
		r.danger(c.source(cmd), reasonNode)
	}
}

// call reads a simple command: its assignments, its words, then the
// command they run.
func (r *reader) call(c ctx, x *syntax.CallExpr) {
	for _, as := range x.Assigns {
		r.assign(c, as)
	}
	args := r.words(c, x.Args)
	switch {
	case len(args) > maxWords:
		r.danger(c.source(x), "expands to too many words to read")
	case len(args) > 0:
		r.run(c, args)
	}
}

// assign reads an assignment, before a command (X=1 cmd, for the command
// alone) or alone (X=1, for the rest of the line): a name that changes
// what runs (PATH, LD_PRELOAD) is dangerous either way.
func (r *reader) assign(c ctx, as *syntax.Assign) {
	if as.Name != nil {
		if why := envName(as.Name.Value); why != "" {
			r.danger(c.source(as), why)
		}
	}
	if as.Index != nil {
		r.arith(c, as.Index, c.source(as))
	}
	if as.Value != nil {
		r.word(c, as.Value)
	}
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if el.Index != nil {
				r.arith(c, el.Index, c.source(as))
			}
			if el.Value != nil {
				r.word(c, el.Value)
			}
		}
	}
}

// decl reads declare, local, export, readonly, typeset and nameref.
func (r *reader) decl(c ctx, d *syntax.DeclClause) {
	if d.Variant.Value == "nameref" {
		r.danger(c.source(d), reasonIndirect)
	}
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			// An option, or a word whose value bash reads as options or
			// assignments when it runs.
			args := r.word(c, as.Value)
			for _, a := range args {
				switch {
				case a.dynamic:
					r.danger(c.source(as), "declares what a variable or substitution says")
				case strings.HasPrefix(a.s, "-") || strings.HasPrefix(a.s, "+"):
					if strings.ContainsAny(a.s[1:], "in") {
						r.danger(c.source(d), "declares a variable whose value bash evaluates or follows, which can hide a command")
					}
				default:
					if strings.ContainsAny(a.s, "[=") {
						r.danger(c.source(as), reasonHidden)
					}
				}
			}
			continue
		}
		r.assign(c, as)
	}
}

// redirect reads a redirection: a write is rated by where it writes, a
// read of a network address is dangerous. For one that feeds the
// command's standard input, it returns what that input is.
func (r *reader) redirect(c ctx, rd *syntax.Redirect) (input, bool) {
	text := c.source(rd)
	stdin := rd.N == nil || rd.N.Value == "0"
	if rd.N != nil && strings.HasPrefix(rd.N.Value, "{") {
		r.danger(text, "opens a file on a descriptor a variable names")
	}
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if !stdin {
			return input{}, false
		}
		if rd.Hdoc == nil {
			return input{kind: inText}, true
		}
		if quotedDelimiter(rd.Word) {
			var b strings.Builder
			for _, p := range rd.Hdoc.Parts {
				if l, ok := p.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
			return input{kind: inText, text: b.String()}, true
		}
		if s, ok := r.document(c, rd.Hdoc); ok {
			return input{kind: inText, text: s}, true
		}
		return input{kind: inDynamic}, true
	case syntax.WordHdoc:
		args := r.word(c, rd.Word)
		if !stdin {
			return input{}, false
		}
		if len(args) != 1 || args[0].dynamic {
			return input{kind: inDynamic}, true
		}
		return input{kind: inText, text: args[0].s + "\n"}, true
	}
	args := r.word(c, rd.Word)
	if len(args) != 1 {
		r.danger(text, "redirects to more than one word, or none")
		return input{}, false
	}
	a := args[0]
	switch rd.Op {
	case syntax.RdrIn:
		r.target(a, accessRead, text)
		return input{kind: inFile, file: a}, stdin
	case syntax.DplIn, syntax.DplOut:
		if a.dynamic || a.s == "-" || isNumber(a.s) {
			if a.dynamic {
				r.danger(text, "duplicates a descriptor a variable names")
			}
			return input{}, false
		}
		if rd.Op == syntax.DplIn {
			r.danger(text, "reads from a descriptor that is not a number")
			return input{}, false
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
	default:
		r.danger(text, reasonNode)
		return input{}, false
	}
	r.target(a, accessWrite, text)
	return input{}, false
}

// target records the part a redirection's target makes, if it matters:
// a write anywhere but /dev/null and its kin, a read of wisp's files or
// of the network.
func (r *reader) target(a arg, how access, text string) {
	v := r.path(a, how)
	if v.rating == policy.Safe && !v.personOnly {
		return
	}
	p := Part{Text: text, Rating: v.rating, Reason: v.reason, PersonOnly: v.personOnly}
	if v.where != "" {
		p.Pattern = []string{">", filepath.ToSlash(v.where)}
	}
	r.add(p)
}

// quotedDelimiter reports whether a here-document's delimiter is quoted,
// so that its body is read as written.
func quotedDelimiter(w *syntax.Word) bool {
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.Contains(l.Value, `\`) {
			return true
		}
	}
	return false
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// test reads [[ … ]]: its words, and the arithmetic comparisons, which
// evaluate a variable's value as code.
func (r *reader) test(c ctx, e syntax.TestExpr, text string) {
	switch x := e.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); !ok || !numberWord(w) {
					r.danger(text, reasonHidden)
					break
				}
			}
		}
		r.test(c, x.X, text)
		r.test(c, x.Y, text)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet {
			if w, ok := x.X.(*syntax.Word); !ok || !nameWord(w) {
				r.danger(text, reasonHidden)
			}
		}
		r.test(c, x.X, text)
	case *syntax.ParenTest:
		r.test(c, x.X, text)
	case *syntax.Word:
		r.word(c, x)
	default:
		r.danger(text, reasonNode)
	}
}

// numberWord reports whether w is a number written out, nothing bash
// would evaluate.
func numberWord(w *syntax.Word) bool {
	s := w.Lit()
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if base, digits, ok := strings.Cut(s, "#"); ok {
		// BASE#DIGITS, such as 16#ff or 2#101.
		return isNumber(base) && digits != "" && strings.IndexFunc(digits, func(r rune) bool {
			return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '@' || r == '_')
		}) < 0
	}
	return isNumber(s) || len(s) > 2 && strings.HasPrefix(strings.ToLower(s), "0x") && isHex(s[2:])
}

func isHex(s string) bool {
	for _, c := range strings.ToLower(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// nameWord reports whether w is a plain variable name.
func nameWord(w *syntax.Word) bool {
	s := w.Lit()
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// arith reads an arithmetic expression: any operand that is not a number
// written out makes bash evaluate a variable's value, which may hold a
// command (a[$(cmd)]).
func (r *reader) arith(c ctx, e syntax.ArithmExpr, text string) {
	switch x := e.(type) {
	case *syntax.BinaryArithm:
		r.arith(c, x.X, text)
		r.arith(c, x.Y, text)
	case *syntax.UnaryArithm:
		r.arith(c, x.X, text)
	case *syntax.ParenArithm:
		r.arith(c, x.X, text)
	case *syntax.Word:
		r.word(c, x)
		if !numberWord(x) && x.Lit() != "@" && x.Lit() != "*" {
			r.danger(text, reasonHidden)
		}
	default:
		r.danger(text, reasonNode)
	}
}
