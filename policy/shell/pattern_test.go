package shell_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/shell"
)

func TestLinePattern(t *testing.T) {
	j := newJudge(t, nil)
	all := []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession, wisp.ScopeProject, wisp.ScopeAlways}
	once := []wisp.Scope{wisp.ScopeOnce}
	tests := []struct {
		line    string
		pattern string
		scopes  []wisp.Scope
	}{
		{`git commit -m "x"`, "git commit *", all},
		{"/usr/bin/git commit -am 'y'", "git commit *", all},
		{"go test ./... > out.txt", "> out.txt ; go test *", all},
		{"go vet ./... && go test ./... && go vet ./x", "go test * ; go vet *", all},
		{"timeout 60 go test ./...", "go test * ; timeout *", all},
		{"sh -c 'make test'", "make * ; sh *", all},
		{"ls -la", "ls *", all},
		{"./build.sh --fast", "./build.sh *", all},
		{"echo x > 'my file.txt'", `> "my file.txt" ; echo *`, all},
		{"sleep 5 &", "& ; sleep *", all},
		{"rm -rf build", "", once},
		{"git commit -m x && curl u", "", once},
		{"wisp approvals approve x", "", once},
	}
	for _, tc := range tests {
		l := j.Line(nil, shell.Invocation{Line: tc.line})
		if got := l.Pattern().String(); got != tc.pattern {
			t.Errorf("Line(%q).Pattern() = %q, want %q", tc.line, got, tc.pattern)
		}
		if diff := cmp.Diff(tc.scopes, l.Scopes()); diff != "" {
			t.Errorf("Line(%q).Scopes() (-want +got):\n%s", tc.line, diff)
		}
	}
	l := j.Line(nil, shell.Invocation{Line: "ls", Env: []string{"GH_TOKEN"}})
	if got, want := l.Pattern().String(), "-e GH_TOKEN ; ls *"; got != want {
		t.Errorf("Pattern() with a variable = %q, want %q", got, want)
	}
}

func TestPatternMatch(t *testing.T) {
	j := newJudge(t, nil)
	tests := []struct {
		pattern   string
		line      string
		threshold policy.Rating
		want      bool
	}{
		{"git commit *", "git commit -m y", M, true},
		{"git commit *", "git commit --amend --no-edit", M, true},
		{"git commit *", "git -C sub commit -m y", M, true},
		{"git commit *", "git push", M, false},
		{"git commit *", "git add . && git commit -m y", M, false},
		{"git commit *", "git status && git commit -m y", M, true},
		{"git commit *", "git status && git commit -m y", S, false},
		{"git commit * ; git status *", "git status && git commit -m y", S, true},
		{"git commit *", "git commit -m y && rm -rf x", M, false},
		{"git commit *", "git commit -m y > log.txt", M, false},
		{"> log.txt ; git commit *", "git commit -m y > log.txt", M, true},
		{"> log.txt ; git commit *", "git commit -m y > other.txt", M, false},
		{"go test *", "go test -exec ./x ./...", M, false},
		{"go test *", "GOFLAGS=-x go test ./...", M, false},
		{"ls *", "ls -la", S, true},
		{"ls *", "ls -la", M, true},
		{"rm *", "rm -rf x", M, false},
		{"sh * ; rm *", "sh -c 'rm x'", M, true},
		{"rm *", "sh -c 'rm x'", M, true},
		{"rm *", "sh -c 'rm x'", S, false},
		{"wisp *", "wisp approvals approve x", M, false},
	}
	for _, tc := range tests {
		p, err := shell.ParsePattern(tc.pattern)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", tc.pattern, err)
		}
		l := j.Line(nil, shell.Invocation{Line: tc.line})
		if got := p.Match(l, tc.threshold); got != tc.want {
			t.Errorf("ParsePattern(%q).Match(%q, %v) = %v, want %v", tc.pattern, tc.line, tc.threshold, got, tc.want)
		}
	}
}

func TestParsePattern(t *testing.T) {
	tests := []struct {
		in   string
		want shell.Pattern
	}{
		{"git commit *", shell.Pattern{{"git", "commit", "*"}}},
		{"> out.txt ; go test *", shell.Pattern{{">", "out.txt"}, {"go", "test", "*"}}},
		{`> "my file.txt"`, shell.Pattern{{">", "my file.txt"}}},
		{`echo "*" x`, shell.Pattern{{"echo", "*", "x"}}},
		{`a ";" b`, shell.Pattern{{"a", ";", "b"}}},
		{"  ls   *  ", shell.Pattern{{"ls", "*"}}},
	}
	for _, tc := range tests {
		got, err := shell.ParsePattern(tc.in)
		if err != nil {
			t.Errorf("ParsePattern(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParsePattern(%q) (-want +got):\n%s", tc.in, diff)
		}
		if back, err := shell.ParsePattern(got.String()); err != nil || !cmp.Equal(back, got) {
			t.Errorf("ParsePattern(%q) = %v, %v; want it back", got.String(), back, err)
		}
	}
	for _, bad := range []string{"", "   ", " ; ", "ls ;", "; ls", "* x", "ls * x", `"unclosed`, `"a"b`, "a ; ; b"} {
		if p, err := shell.ParsePattern(bad); err == nil {
			t.Errorf("ParsePattern(%q) = %v, want an error", bad, p)
		}
	}
}

// The judge as the classifier's row for run_command.
func TestClassifier(t *testing.T) {
	j := newJudge(t, nil)
	c, err := policy.NewClassifier(j.Rule(),
		policy.Rule{Pattern: "deploy ...", Rating: policy.Dangerous, Reason: "deploying is the person's alone", PersonOnly: true},
		policy.Rule{Pattern: "models list ...", Rating: policy.Safe, Reason: "reads"},
	)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command string
		want    policy.Verdict
	}{
		{"run_command ls -la", policy.Verdict{Rating: S, Reason: "ls -la: only reads files and prints"}},
		{"run_command rm -rf x", policy.Verdict{Rating: D, Reason: "rm -rf x: deletes folders and all they hold"}},
		{"run_command git commit -m x", policy.Verdict{Rating: M, Reason: "git commit -m x: changes the repository"}},
		{"run_command grep -rn 'wisp chat' docs", policy.Verdict{Rating: S, Reason: "grep -rn 'wisp chat' docs: only reads files and prints"}},
		{`run_command sh -c "wisp approvals allow x"`, policy.Verdict{Rating: D, Reason: policy.ReasonPersonsAlone, PersonOnly: true}},
		{`run_command echo "wisp approvals allow x" | sh`, policy.Verdict{Rating: D, Reason: policy.ReasonPersonsAlone, PersonOnly: true}},
		{"run_command ls && deploy prod", policy.Verdict{Rating: D, Reason: "deploying is the person's alone", PersonOnly: true}},
		{"run_command -C /etc -- ls", policy.Verdict{Rating: D, Reason: "-C /etc: runs in a folder outside the workspace"}},
		{"run_command -Z -- ls", policy.Verdict{Rating: D, Reason: `the command is not of run_command's shape: shell: "-Z" is not -C DIR, -e NAME or --; a line that starts with - follows --`}},
		{"run_command", policy.Verdict{Rating: D, Reason: "runs nothing: the line is empty"}},
		{"run_command ls\rrm -rf ~", policy.Verdict{Rating: D, Reason: `ls\rrm -rf ~: has control or invisible characters`}},
		{"models list", policy.Verdict{Rating: S, Reason: "reads"}},
		{"run_commandx ls", policy.Verdict{Rating: D, Reason: policy.ReasonUnknown}},
		{"wisp approvals approve x", policy.Verdict{Rating: D, Reason: policy.ReasonPersonsAlone, PersonOnly: true}},
	}
	for _, tc := range tests {
		tc.want.Command = tc.command
		if diff := cmp.Diff(tc.want, c.Classify(tc.command)); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", tc.command, diff)
		}
	}
	covers := []struct {
		pattern, command string
		want             bool
	}{
		{"git commit *", "run_command git commit -m y", true},
		{"git commit *", "run_command git push", false},
		{"git commit *", "run_command git commit -m y; deploy prod", false},
		{"not a pattern ;", "run_command git commit -m y", false},
		{"models list ...", "models list", true},
	}
	for _, tc := range covers {
		if got := c.Covers(tc.pattern, tc.command, M); got != tc.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tc.pattern, tc.command, got, tc.want)
		}
	}
}

// The gate asks about a line with the scopes its rating allows, and an
// answer covers the next line of the same pattern. With no Keeper, an
// answer of always is narrowed to the session.
func TestGate(t *testing.T) {
	j := newJudge(t, nil)
	c, err := policy.NewClassifier(j.Rule())
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	person := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		asked++
		return wisp.Decision{Scope: wisp.ScopeAlways, Provenance: wisp.FromPerson}, nil
	})
	g := policy.NewGate(&policy.GateOptions{Approver: person, Classifier: c, Threshold: policy.Moderate})
	request := func(line string) policy.Request {
		l := j.Line(c, shell.Invocation{Line: line})
		return policy.Request{Kind: "command", Command: l.Command(), Pattern: l.Pattern().String(), Scopes: l.Scopes()}
	}
	ctx := context.Background()
	tests := []struct {
		line     string
		approved bool
		scope    wisp.Scope
		asked    int
	}{
		{"ls -la", true, wisp.ScopeOnce, 0},
		{"git commit -m a", true, wisp.ScopeSession, 1},
		{"git commit -m b", true, wisp.ScopeSession, 1},
		{"rm -rf build", true, wisp.ScopeOnce, 2},
		{"rm -rf build", true, wisp.ScopeOnce, 3},
		{"wisp approvals approve x", false, wisp.ScopeNone, 3},
	}
	for _, tc := range tests {
		out, err := g.Ask(ctx, request(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		if out.Approved != tc.approved || out.Scope != tc.scope || asked != tc.asked {
			t.Errorf("Ask(%q) = %+v after %d questions; want approved=%v scope=%v after %d", tc.line, out, asked, tc.approved, tc.scope, tc.asked)
		}
	}
}
