package policy_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/policy"
)

// A package adds rows to the table; the strictest row that matches wins,
// a wildcard never matches a flag, and no row outranks the person's alone.
func TestClassifierRows(t *testing.T) {
	c, err := policy.NewClassifier(
		policy.Rule{Pattern: "edit_file replace *", Rating: policy.Moderate, Reason: "changes a file in the workspace"},
		policy.Rule{Pattern: "edit_file ...", Rating: policy.Safe, Reason: "reads a file"},
		policy.Rule{Pattern: "edit_file replace .git/config", Rating: policy.Dangerous, Reason: "changes git's settings"},
		policy.Rule{Pattern: "ls -l ...", Rating: policy.Safe, Reason: "lists"},
		policy.Rule{Pattern: "sudo ...", Rating: policy.Dangerous, Reason: "runs as another user", PersonOnly: true},
		// A row cannot make the person's alone anything else.
		policy.Rule{Pattern: "wisp approvals ...", Rating: policy.Safe, Reason: "lists approvals"},
	)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command    string
		rating     policy.Rating
		reason     string
		personOnly bool
	}{
		{"edit_file replace main.go", policy.Moderate, "changes a file in the workspace", false},
		{"edit_file show main.go", policy.Safe, "reads a file", false},
		{"edit_file", policy.Safe, "reads a file", false},
		{"edit_file replace .git/config", policy.Dangerous, "changes git's settings", false},
		{"edit_file replace -r x", policy.Dangerous, policy.ReasonUnknown, false},
		{"edit_file --force", policy.Dangerous, policy.ReasonUnknown, false},
		{"edit_file replace", policy.Safe, "reads a file", false},
		{"EDIT_FILE show x", policy.Dangerous, policy.ReasonUnknown, false},
		{"ls -l", policy.Safe, "lists", false},
		{"ls -l src", policy.Safe, "lists", false},
		{"ls -l -a", policy.Dangerous, policy.ReasonUnknown, false},
		{"ls", policy.Dangerous, policy.ReasonUnknown, false},
		{"sudo ls", policy.Dangerous, "runs as another user", true},
		{"env X=1 /usr/bin/SUDO ls", policy.Dangerous, "runs as another user", true},
		{"ls; s''udo rm x", policy.Dangerous, "runs as another user", true},
		{"wisp approvals list", policy.Dangerous, policy.ReasonPersonsAlone, true},
		{"approvals", policy.Dangerous, policy.ReasonPersonsAlone, true},
		{"models list", policy.Dangerous, policy.ReasonUnknown, false},
	}
	for _, tc := range tests {
		want := policy.Verdict{Command: tc.command, Rating: tc.rating, Reason: tc.reason, PersonOnly: tc.personOnly}
		if diff := cmp.Diff(want, c.Classify(tc.command)); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", tc.command, diff)
		}
	}
}

// A path pattern matches a path element by element, "**" any number of
// elements, in either case, and never a flag; the strictest row still
// wins.
func TestClassifierPathPatterns(t *testing.T) {
	c, err := policy.NewClassifier(
		policy.Rule{Pattern: "edit_file * *", Rating: policy.Moderate, Reason: "changes a file"},
		policy.Rule{Pattern: "edit_file * **/.git/**", Rating: policy.Dangerous, Reason: "steers git"},
		policy.Rule{Pattern: "edit_file * .github/workflows/**", Rating: policy.Dangerous, Reason: "runs in CI"},
		policy.Rule{Pattern: "edit_file * **/.envrc", Rating: policy.Dangerous, Reason: "runs in the shell"},
		policy.Rule{Pattern: "read_file *.go", Rating: policy.Safe, Reason: "reads Go"},
		policy.Rule{Pattern: "read_file src/*/x*y", Rating: policy.Safe, Reason: "reads x…y"},
	)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command string
		rating  policy.Rating
		reason  string
	}{
		{"edit_file write main.go", policy.Moderate, "changes a file"},
		{"edit_file write .git", policy.Dangerous, "steers git"},
		{"edit_file write .git/config", policy.Dangerous, "steers git"},
		{"edit_file write .git/hooks/pre-commit", policy.Dangerous, "steers git"},
		{"edit_file write vendor/lib/.git/config", policy.Dangerous, "steers git"},
		{"edit_file write .GIT/Config", policy.Dangerous, "steers git"},
		{"edit_file write .gitignore", policy.Moderate, "changes a file"},
		{"edit_file write a.git/config", policy.Moderate, "changes a file"},
		{"edit_file write .github/workflows/ci.yml", policy.Dangerous, "runs in CI"},
		{"edit_file write .github/ISSUE_TEMPLATE.md", policy.Moderate, "changes a file"},
		{"edit_file write sub/.github/workflows/ci.yml", policy.Moderate, "changes a file"},
		{"edit_file append .envrc", policy.Dangerous, "runs in the shell"},
		{"edit_file append deep/down/.envrc", policy.Dangerous, "runs in the shell"},
		{"edit_file append .envrc.example", policy.Moderate, "changes a file"},
		{"edit_file write -x/.git/config", policy.Dangerous, policy.ReasonUnknown},
		{"read_file main.go", policy.Safe, "reads Go"},
		{"read_file cmd/main.go", policy.Dangerous, policy.ReasonUnknown},
		{"read_file src/a/xzy", policy.Safe, "reads x…y"},
		{"read_file src/a/b/xy", policy.Dangerous, policy.ReasonUnknown},
		{"read_file src/xy", policy.Dangerous, policy.ReasonUnknown},
		{"read_file -.go", policy.Dangerous, policy.ReasonUnknown},
		{"read_file *.go", policy.Dangerous, policy.ReasonMeta},
	}
	for _, tc := range tests {
		want := policy.Verdict{Command: tc.command, Rating: tc.rating, Reason: tc.reason}
		if diff := cmp.Diff(want, c.Classify(tc.command)); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", tc.command, diff)
		}
	}
}

// Classify knows the person-only rows alone: every other command is
// dangerous, as unknown.
func TestClassifyWithoutRows(t *testing.T) {
	for _, command := range []string{"models list", "models enable ollama:qwen3:4b", "ls"} {
		want := policy.Verdict{Command: command, Rating: policy.Dangerous, Reason: policy.ReasonUnknown}
		if diff := cmp.Diff(want, policy.Classify(command)); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", command, diff)
		}
	}
	if v := policy.Classify("wisp chat"); !v.PersonOnly {
		t.Errorf("Classify(%q) = %+v, want the person's alone", "wisp chat", v)
	}
}

// A row that is not one is refused, and the error names it.
func TestClassifierRefusesBadRows(t *testing.T) {
	tests := []struct {
		rule policy.Rule
		why  string
	}{
		{policy.Rule{Pattern: "", Rating: policy.Safe, Reason: "r"}, "is not words separated by single spaces"},
		{policy.Rule{Pattern: "models  list", Rating: policy.Safe, Reason: "r"}, "is not words separated by single spaces"},
		{policy.Rule{Pattern: " models", Rating: policy.Safe, Reason: "r"}, "is not words separated by single spaces"},
		{policy.Rule{Pattern: "* list", Rating: policy.Safe, Reason: "r"}, "starts with a wildcard"},
		{policy.Rule{Pattern: "...", Rating: policy.Safe, Reason: "r"}, "starts with a wildcard"},
		{policy.Rule{Pattern: "models ... list", Rating: policy.Safe, Reason: "r"}, `has "..." before its last word`},
		{policy.Rule{Pattern: "models list", Rating: policy.Rating(3), Reason: "r"}, "has no rating"},
		{policy.Rule{Pattern: "models list", Rating: policy.Safe}, "gives no reason"},
		{policy.Rule{Pattern: "sudo ...", Rating: policy.Moderate, Reason: "r", PersonOnly: true}, "must be rated dangerous"},
		{policy.Rule{Pattern: "models list;", Rating: policy.Safe, Reason: "r"}, "shell metacharacter"},
		{policy.Rule{Pattern: "models lïst", Rating: policy.Safe, Reason: "r"}, "outside printable ASCII"},
		{policy.Rule{Pattern: "models\tlist", Rating: policy.Safe, Reason: "r"}, "outside printable ASCII"},
		{policy.Rule{Pattern: "**/x y", Rating: policy.Safe, Reason: "r"}, "starts with a wildcard"},
		{policy.Rule{Pattern: "edit_file * a/**b", Rating: policy.Safe, Reason: "r"}, "** stands alone"},
		{policy.Rule{Pattern: "edit_file * a//*", Rating: policy.Safe, Reason: "r"}, "empty, . or .. element"},
		{policy.Rule{Pattern: "edit_file * ../*", Rating: policy.Safe, Reason: "r"}, "empty, . or .. element"},
		{policy.Rule{Pattern: "edit_file * /*", Rating: policy.Safe, Reason: "r"}, "empty, . or .. element"},
		{policy.Rule{Pattern: "edit_file * a/*?", Rating: policy.Safe, Reason: "r"}, "metacharacter other than *"},
		{policy.Rule{Pattern: "edit_file * [a]/*", Rating: policy.Safe, Reason: "r"}, "metacharacter other than *"},
		{policy.Rule{Pattern: "sudo **/x", Rating: policy.Dangerous, Reason: "r", PersonOnly: true}, "without path patterns"},
	}
	for _, tc := range tests {
		_, err := policy.NewClassifier(tc.rule)
		if err == nil || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), "rule "+`"`) {
			t.Errorf("NewClassifier(%+v) = %v, want an error naming the rule that %s", tc.rule, err, tc.why)
		}
	}
}

// No row, however it is written, makes the classifier panic, lowers the
// person's alone, or lets a command with a character no rule may name
// below dangerous.
func FuzzClassifierRow(f *testing.F) {
	for _, s := range [][2]string{
		{"models enable *", "models enable x"},
		{"models list ...", "models list 2"},
		{"wisp approvals ...", "wisp approvals approve 7f3a2c1d"},
		{"chat ...", "chat --json"},
		{"ls -l ...", "ls -l src; rm -rf ~"},
		{"a * ... b", "a x y b"},
		{"x", "x\r"},
		{"edit_file * **/.git/**", "edit_file write a/.git/b"},
		{"read_file src/**/*x*/**", "read_file src/a/bxc/d"},
	} {
		f.Add(s[0], s[1], false)
	}
	f.Fuzz(func(t *testing.T, pattern, command string, personOnly bool) {
		rating := policy.Safe
		if personOnly {
			rating = policy.Dangerous
		}
		c, err := policy.NewClassifier(policy.Rule{Pattern: pattern, Rating: rating, Reason: "a row", PersonOnly: personOnly})
		if err != nil {
			return
		}
		v := c.Classify(command)
		if plain := policy.Classify(command); plain.PersonOnly && !v.PersonOnly {
			t.Fatalf("with the row %q, Classify(%q) = %+v; without it, the person's alone", pattern, command, v)
		}
		if v.Rating < policy.Dangerous {
			for _, r := range command {
				if r < 0x20 || r > 0x7e || strings.ContainsRune("|&;<>()$`\\\"'*?[]{}#~!=%^", r) {
					t.Fatalf("with the row %q, Classify(%q) = %v with character %q", pattern, command, v.Rating, r)
				}
			}
		}
	})
}
