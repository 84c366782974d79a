package policy_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/policy"
)

// A judged row hands the text after its words to its Judge, with the
// classifier that asks; its rating is the least the verdict can be, and a
// verdict that is not one is dangerous.
func TestJudgedRows(t *testing.T) {
	var gotTable *policy.Classifier
	var gotText []string
	judge := func(rating policy.Rating, reason string, personOnly bool) policy.Judge {
		return policy.JudgeFunc(func(c *policy.Classifier, text string) policy.Verdict {
			gotTable, gotText = c, append(gotText, text)
			return policy.Verdict{Command: "ignored", Rating: rating, Reason: reason, PersonOnly: personOnly}
		})
	}
	c, err := policy.NewClassifier(
		policy.Rule{Pattern: "run ...", Rating: policy.Safe, Reason: "runs", Judge: judge(policy.Safe, "only reads", false)},
		policy.Rule{Pattern: "run sh ...", Rating: policy.Moderate, Reason: "runs a shell", Judge: judge(policy.Safe, "only reads", false)},
		policy.Rule{Pattern: "bad ...", Rating: policy.Safe, Reason: "r", Judge: judge(policy.Rating(9), "x", false)},
		policy.Rule{Pattern: "mute ...", Rating: policy.Safe, Reason: "r", Judge: judge(policy.Safe, "", false)},
		policy.Rule{Pattern: "own ...", Rating: policy.Safe, Reason: "r", Judge: judge(policy.Safe, "the person's alone", true)},
	)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command string
		want    policy.Verdict
		text    string
	}{
		{"run ls -la", policy.Verdict{Rating: policy.Safe, Reason: "only reads"}, "ls -la"},
		{"run", policy.Verdict{Rating: policy.Safe, Reason: "only reads"}, ""},
		{"run  two spaces", policy.Verdict{Rating: policy.Safe, Reason: "only reads"}, " two spaces"},
		{"run sh -c x", policy.Verdict{Rating: policy.Moderate, Reason: "runs a shell"}, "-c x"},
		{"bad x", policy.Verdict{Rating: policy.Dangerous, Reason: "x"}, "x"},
		{"mute x", policy.Verdict{Rating: policy.Dangerous, Reason: policy.ReasonUnknown}, "x"},
		{"own x", policy.Verdict{Rating: policy.Dangerous, Reason: "the person's alone", PersonOnly: true}, "x"},
	}
	for _, tc := range tests {
		gotText = nil
		tc.want.Command = tc.command
		if diff := cmp.Diff(tc.want, c.Classify(tc.command)); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", tc.command, diff)
		}
		if gotTable != c || len(gotText) != 1 || gotText[0] != tc.text {
			t.Errorf("Classify(%q) judged %q with %p, want %q with %p", tc.command, gotText, gotTable, tc.text, c)
		}
	}
	// Text that does not start with the row's words and a space is not the
	// row's; the person-only rows still come first for it.
	for _, command := range []string{"runx ls", "RUN ls", " run ls", "run\tls"} {
		gotText = nil
		if v := c.Classify(command); len(gotText) != 0 || v.Rating != policy.Dangerous {
			t.Errorf("Classify(%q) = %+v, judged %q; want dangerous, not judged", command, v, gotText)
		}
	}
}

func TestJudgedRowsRefused(t *testing.T) {
	j := policy.JudgeFunc(func(*policy.Classifier, string) policy.Verdict { return policy.Verdict{} })
	tests := []struct {
		rule policy.Rule
		why  string
	}{
		{policy.Rule{Pattern: "run", Rating: policy.Safe, Reason: "r", Judge: j}, `"..." last`},
		{policy.Rule{Pattern: "run *", Rating: policy.Safe, Reason: "r", Judge: j}, `"..." last`},
		{policy.Rule{Pattern: "run * ...", Rating: policy.Safe, Reason: "r", Judge: j}, `"..." last`},
		{policy.Rule{Pattern: "run ...", Rating: policy.Dangerous, Reason: "r", Judge: j, PersonOnly: true}, "cannot be PersonOnly"},
		{policy.Rule{Pattern: "run ...", Rating: policy.Safe, Judge: j}, "gives no reason"},
	}
	for _, tc := range tests {
		if _, err := policy.NewClassifier(tc.rule); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("NewClassifier(%q) = %v, want an error that it %s", tc.rule.Pattern, err, tc.why)
		}
	}
}

// PersonOnly finds the person-only rows in one command's words, as a
// shell passes them; a nil Classifier has the classifier's own rows.
func TestPersonOnlyWords(t *testing.T) {
	c, err := policy.NewClassifier(policy.Rule{Pattern: "deploy ...", Rating: policy.Dangerous, Reason: "deploys", PersonOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		words []string
		nil_  string
		own   string
	}{
		{[]string{"wisp", "approvals", "approve", "x"}, policy.ReasonPersonsAlone, policy.ReasonPersonsAlone},
		{[]string{"/usr/local/bin/wisp", "--verbose", "config", "set", "a", "b"}, policy.ReasonSettingsAlone, policy.ReasonSettingsAlone},
		{[]string{"WISP", "chat"}, policy.ReasonPersonsAlone, policy.ReasonPersonsAlone},
		{[]string{"./wisp-tui.exe", "--model", "x"}, policy.ReasonPersonsAlone, policy.ReasonPersonsAlone},
		{[]string{"sudo", "wisp", "chat"}, "", ""},
		{[]string{"go", "test", "./cmd/wisp-tui"}, "", ""},
		{[]string{"questions", "answer", "x"}, "", ""},
		{[]string{"deploy", "prod"}, "", "deploys"},
		{[]string{"grep", "wisp chat", "docs"}, "", ""},
		{[]string{"wisp", "audit"}, "", ""},
		{[]string{"echo", "approvals"}, "", ""},
		{nil, "", ""},
	}
	var none *policy.Classifier
	for _, tc := range tests {
		if got := none.PersonOnly(tc.words); got != tc.nil_ {
			t.Errorf("(nil).PersonOnly(%q) = %q, want %q", tc.words, got, tc.nil_)
		}
		if got := c.PersonOnly(tc.words); got != tc.own {
			t.Errorf("PersonOnly(%q) = %q, want %q", tc.words, got, tc.own)
		}
	}
	if got := none.PersonOnlyText(`echo "wisp approvals approve x" | sh`); got != policy.ReasonPersonsAlone {
		t.Errorf("PersonOnlyText(pipe to sh) = %q, want %q", got, policy.ReasonPersonsAlone)
	}
	if got := c.PersonOnlyText("ls; deploy prod"); got != "deploys" {
		t.Errorf("PersonOnlyText(ls; deploy prod) = %q, want deploys", got)
	}
}

// Covers reads a rule-style pattern against a command no judge rates.
func TestCovers(t *testing.T) {
	c := classifier
	tests := []struct {
		pattern, command string
		want             bool
	}{
		{"models enable *", "models enable ollama:qwen3:4b", true},
		{"models enable *", "models enable --all", false},
		{"models enable *", "models enable a b", false},
		{"models list ...", "models list 2", true},
		{"models enable *", "models disable x", false},
		{"models enable *", "models enable x; rm -rf ~", false},
		{"wisp approvals ...", "wisp approvals approve x", false},
		{"", "models list", false},
		{"* list", "models list", false},
	}
	for _, tc := range tests {
		if got := c.Covers(tc.pattern, tc.command, policy.Safe); got != tc.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tc.pattern, tc.command, got, tc.want)
		}
	}
}

func TestHidden(t *testing.T) {
	for _, r := range []rune{0, '\t', '\n', '\r', '\v', 0x1b, 0x7f, 0x85, 0xa0, 0x2028, 0x200b, 0x200d, 0x202e, 0x2066, 0xfeff, 0xfffd} {
		if !policy.Hidden(r) {
			t.Errorf("Hidden(%U) = false, want true", r)
		}
	}
	for _, r := range []rune{' ', 'a', '~', 'é', 'г', 'ｒ', '…'} {
		if policy.Hidden(r) {
			t.Errorf("Hidden(%U) = true, want false", r)
		}
	}
}
