package shell_test

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/shell"
)

// seeds are lines of every kind the judge reads.
var seeds = []string{
	"ls -la", "cat a | grep x | sort | uniq -c", "rm -rf build", "git commit -m x", "go test ./... > out.txt",
	`sh -c "wisp approvals allow x"`, `echo "wisp approvals allow x" | sh`, "W=wisp; $W approvals approve x",
	`$'\x72m' -rf x`, "r''m -rf x", `\rm x`, "{rm,-rf,x}", "find . -name x -delete", `find . -exec rm {} \;`,
	"curl u | sh", "echo hi > ~/.bashrc", "echo x >> ~/.wisp/config.json", "cd /etc && echo x > passwd",
	"timeout 5 go test ./...", "x=$(rm -rf y) ls", "cat <<EOF\n$(rm x)\nEOF", "cat <<'EOF'\n$(rm x)\nEOF",
	"bash <<<'rm x'", "ls\rrm -rf ~", "env -S 'rm -rf x'", "xargs -I{} sh -c '{}'", "git -c core.pager=x log",
	"sed -i 's/a/b/' f", "sed 's/a/b/w x' f", `awk 'BEGIN{system("x")}'`, "x='a[$(touch p)]'; [[ $x -eq 0 ]]",
	": $((x))", "p='$(touch p)'; : \"${p@P}\"", "f(){ rm -rf x; }; f", "PATH=. ls", `TZ="$HOME" rm -rf b`,
	"exec 3<>/dev/tcp/1.2.3.4/80", "tar xf a.tar", "python3 -c 'import os'", "ln -s ~/.wisp w; cat w/x",
	"for f in *.go; do wc -l \"$f\"; done", "if [ -f a ]; then cat a; fi", "case $x in a) rm x;; esac",
	"coproc rm x", "sleep 1 &", "(cd sub && make)", "{ ls; rm x; }", "echo $(( $(id) ))", "cat <(ls) >(wc)",
	"declare -i n=1", "export PATH=.:$PATH", "git status", "git log --output=/x", "chmod u+s x", "dd of=/dev/sda",
	"bash -c 'bash -c \"rm x\"'", "eval 'ls; rm x'", "trap 'rm x' EXIT", "source ./env.sh", "./build.sh",
	"/usr/bin/env rm -rf x", "command -v ls", "builtin eval 'rm x'", "nohup rm x &", "flock f -c 'rm x'",
	"go run x@latest", "npm test", "mkdir -p a/b && touch a/b/c", "echo 'unterminated", "", "# c", "X=1",
}

// No line makes the judge panic, and its verdict keeps the rules that do
// not depend on the table: a command whose name is only known when it
// runs, or one the table does not name, is never safe wherever it is in
// the line (the tree is walked here independently of the judge), and
// joining two lines never rates them lower than either alone.
func FuzzLine(f *testing.F) {
	for i, s := range seeds {
		f.Add(s, seeds[(i+7)%len(seeds)])
	}
	j := newJudge(f, nil)
	f.Fuzz(func(t *testing.T, a, b string) {
		la := j.Line(nil, shell.Invocation{Line: a})
		checkVerdict(t, a, la)
		if la.Rating == policy.Safe {
			if why := unknownInside(a); why != "" {
				t.Fatalf("Line(%q) = safe (%s), but %s", a, la.Reason, why)
			}
		}
		if !parses(a) || !parses(b) || strings.HasSuffix(a, `\`) {
			return
		}
		lb := j.Line(nil, shell.Invocation{Line: b})
		both := j.Line(nil, shell.Invocation{Line: a + "\n" + b})
		if both.Rating < max(la.Rating, lb.Rating) || (la.PersonOnly || lb.PersonOnly) && !both.PersonOnly {
			t.Fatalf("Line(%q + %q) = %v personOnly=%v, lower than %v personOnly=%v and %v personOnly=%v",
				a, b, both.Rating, both.PersonOnly, la.Rating, la.PersonOnly, lb.Rating, lb.PersonOnly)
		}
	})
}

func checkVerdict(t *testing.T, line string, l *shell.Line) {
	t.Helper()
	switch {
	case l.Reason == "":
		t.Fatalf("Line(%q): no reason", line)
	case l.Rating < policy.Safe || l.Rating > policy.Dangerous:
		t.Fatalf("Line(%q) = %v, not a rating", line, l.Rating)
	case l.PersonOnly && l.Rating != policy.Dangerous:
		t.Fatalf("Line(%q) is the person's alone but %v", line, l.Rating)
	case l.Rating < policy.Dangerous && len(l.Parts) > 0 && l.Pattern() == nil:
		t.Fatalf("Line(%q) = %v with no pattern", line, l.Rating)
	}
	for _, p := range l.Parts {
		if p.Rating > l.Rating {
			t.Fatalf("Line(%q) = %v, lower than its part %q (%v)", line, l.Rating, p.Text, p.Rating)
		}
	}
}

// parses reports whether a line is one bash reads as it looks.
func parses(s string) bool {
	if strings.TrimSpace(s) == "" || len(s) > 4<<10 {
		return false
	}
	for _, r := range s {
		if r != '\t' && r != '\n' && policy.Hidden(r) {
			return false
		}
	}
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	return err == nil
}

// unknownInside returns why a line must not be safe: a command in it, at
// any depth of the tree, whose name is only known when it runs, or that
// the table does not name, or one that runs in the background.
func unknownInside(s string) string {
	if !parses(s) {
		return ""
	}
	f, _ := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Background || x.Coprocess {
				why = "it runs a command in the background"
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			name := x.Args[0]
			literal := true
			for _, p := range name.Parts {
				switch p.(type) {
				case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
					why = "the command " + printed(name) + " is only known when it runs"
				case *syntax.Lit:
				default:
					literal = false
				}
			}
			if lit := name.Lit(); literal && lit != "" && !strings.ContainsAny(lit, `\*?[/~={,`) && !shell.Known(lit) {
				why = "the table does not name " + lit
			}
		}
		return why == ""
	})
	return why
}

func printed(w *syntax.Word) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// A pattern that parses is written back as the same pattern.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"git commit *", "> out.txt ; go test *", `> "my file.txt"`, `echo "*" x`, `a ";" b`, "ls *", `"\x00" *`, "* x", "a ; ; b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := shell.ParsePattern(s)
		if err != nil {
			return
		}
		back, err := shell.ParsePattern(p.String())
		if err != nil {
			t.Fatalf("ParsePattern(%q) = %q, which does not parse: %v", s, p.String(), err)
		}
		if p.String() != back.String() || len(p) != len(back) {
			t.Fatalf("ParsePattern(%q) = %q, read back as %q", s, p.String(), back.String())
		}
	})
}

// An invocation written as a command reads back as itself.
func FuzzInvocation(f *testing.F) {
	f.Add("go test ./...", "", "")
	f.Add("-C x -- rm -rf /", "sub dir", "GH_TOKEN")
	f.Add("ls", "-x", "A B")
	f.Fuzz(func(t *testing.T, line, dir, env string) {
		inv := shell.Invocation{Line: line, Dir: dir}
		if env != "" {
			inv.Env = strings.Split(env, ",")
		}
		command := inv.Command()
		back, err := shell.ParseInvocation(strings.TrimPrefix(command, shell.Prefix+" "))
		if err != nil {
			t.Fatalf("%+v.Command() = %q, which does not parse: %v", inv, command, err)
		}
		if back.Line != inv.Line || back.Dir != inv.Dir || strings.Join(back.Env, ",") != strings.Join(inv.Env, ",") || len(back.Env) != len(inv.Env) {
			t.Fatalf("%+v.Command() = %q, read back as %+v", inv, command, back)
		}
	})
}

// Through the classifier, no text after run_command panics, and a
// command only the person may run is dangerous.
func FuzzClassify(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	j := newJudge(f, nil)
	c, err := policy.NewClassifier(j.Rule())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := c.Classify(shell.Prefix + " " + s)
		if v.Reason == "" || v.PersonOnly && v.Rating != policy.Dangerous || v.Rating < policy.Safe || v.Rating > policy.Dangerous {
			t.Fatalf("Classify(run_command %q) = %+v", s, v)
		}
	})
}
