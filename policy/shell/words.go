package shell

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// An arg is one word of a command as bash would pass it, when it can be
// known before the command runs.
type arg struct {
	s string // the word, when it is static
	// dynamic: bash computes it when the command runs (a variable, a
	// substitution), so it may be any number of words, flags among them.
	dynamic bool
	// glob: it has an unquoted * ? or [, so bash may turn it into the
	// names of files.
	glob bool
	w    *syntax.Word // the word it came from; nil when a wrapper made it
}

// statics returns the args' words, with "" for a dynamic one.
func statics(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if !a.dynamic {
			out[i] = a.s
		}
	}
	return out
}

func (r *reader) words(c ctx, ws []*syntax.Word) []arg {
	var out []arg
	for _, w := range ws {
		out = append(out, r.word(c, w)...)
	}
	return out
}

// word reads a word: it walks what the word runs (substitutions) and
// what can hide code (arithmetic, indirection), and returns the words
// bash would make of it: its fields when it is static (after quote
// removal, $'…' escapes and brace expansion, as bash does), or one
// dynamic arg.
func (r *reader) word(c ctx, w *syntax.Word) []arg {
	dynamic, glob := r.wordParts(c, w.Parts, false)
	if dynamic {
		return []arg{{dynamic: true, w: w}}
	}
	expanded, ok := r.tilde(w)
	if !ok {
		return []arg{{dynamic: true, w: w}}
	}
	fields, ok := fields(expanded)
	if !ok || len(fields) > maxField {
		// Brace expansion past any use: judged as a word only known
		// when the command runs.
		return []arg{{dynamic: true, w: w}}
	}
	out := make([]arg, len(fields))
	for i, f := range fields {
		out[i] = arg{s: f, glob: glob, w: w}
	}
	return out
}

// fields expands a static word as bash would, with no environment, no
// globbing and no substitutions; false if the expander fails or panics.
func fields(w *syntax.Word) (out []string, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	out, err := expand.Fields(nil, w)
	return out, err == nil
}

// tilde replaces a leading unquoted ~ or ~/ with the person's home, as
// bash does; any other ~ form (~user, ~+) is only known when the command
// runs, and so is ~ when the judge was given no home.
func (r *reader) tilde(w *syntax.Word) (*syntax.Word, bool) {
	first, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(first.Value, "~") {
		return w, true
	}
	rest := first.Value[1:]
	if home := r.j.opts.Home; home == "" || rest != "" && !strings.HasPrefix(rest, "/") {
		return w, false
	}
	parts := []syntax.WordPart{&syntax.SglQuoted{Value: r.j.opts.Home}}
	if rest != "" {
		parts = append(parts, &syntax.Lit{Value: rest})
	}
	return &syntax.Word{Parts: append(parts, w.Parts[1:]...)}, true
}

// wordParts walks a word's parts; it reports whether bash computes any of
// them when the command runs, and whether any unquoted one is a pattern.
func (r *reader) wordParts(c ctx, parts []syntax.WordPart, quoted bool) (dynamic, glob bool) {
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if !quoted && hasGlob(x.Value) {
				glob = true
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			d, g := r.wordParts(c, x.Parts, true)
			dynamic, glob = dynamic || d, glob || g
		case *syntax.ParamExp:
			dynamic = true
			r.param(c, x)
		case *syntax.CmdSubst:
			dynamic = true
			r.subst(c, x.Stmts)
		case *syntax.ProcSubst:
			dynamic = true
			r.subst(c, x.Stmts)
		case *syntax.ArithmExp:
			dynamic = true
			r.arith(c, x.X, c.source(x))
		case *syntax.ExtGlob:
			glob = true
		default:
			dynamic = true
			r.danger(c.source(p), reasonNode)
		}
	}
	return dynamic, glob
}

// hasGlob reports whether a literal has an unescaped * ? or [.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			// A bracket only makes a pattern when it is closed.
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// subst reads the command lines of a substitution, which run before the
// command around them and read nothing the judge knows of.
func (r *reader) subst(c ctx, stmts []*syntax.Stmt) {
	c.stdin = input{}
	r.stmts(c, stmts)
}

// param reads a parameter expansion: what can hide code in it (an
// indirection, ${x@P}, an index or slice that bash evaluates), and the
// words inside it.
func (r *reader) param(c ctx, pe *syntax.ParamExp) {
	text := c.source(pe)
	switch {
	case pe.Excl && pe.Names == 0:
		r.danger(text, reasonIndirect)
	case pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps:
		r.danger(text, reasonHidden)
	case pe.NestedParam != nil || pe.Flags != nil || len(pe.Modifiers) > 0:
		r.danger(text, reasonNode)
	}
	if pe.Index != nil {
		r.arith(c, pe.Index, text)
	}
	if pe.Slice != nil {
		for _, e := range []syntax.ArithmExpr{pe.Slice.Offset, pe.Slice.Length} {
			if e != nil {
				r.arith(c, e, text)
			}
		}
	}
	if pe.Repl != nil {
		for _, w := range []*syntax.Word{pe.Repl.Orig, pe.Repl.With} {
			if w != nil {
				r.word(c, w)
			}
		}
	}
	if pe.Exp != nil && pe.Exp.Word != nil {
		r.word(c, pe.Exp.Word)
	}
}

// document reads an unquoted here-document's body: its text when it has
// no expansions.
func (r *reader) document(c ctx, w *syntax.Word) (s string, ok bool) {
	if dynamic, _ := r.wordParts(c, w.Parts, true); dynamic {
		return "", false
	}
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	s, err := expand.Document(nil, w)
	return s, err == nil
}
