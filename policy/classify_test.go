package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/policy"
)

// classifier is wisp's: the person-only rows, and the models tool's.
var classifier = func() *policy.Classifier {
	c, err := policy.NewClassifier(models.Rules()...)
	if err != nil {
		panic(err)
	}
	return c
}()

func classify(command string) policy.Verdict { return classifier.Classify(command) }

func TestClassify(t *testing.T) {
	tests := []struct {
		command string
		rating  policy.Rating
		reason  string
	}{
		// wisp's own commands
		{"models list", policy.Safe, models.ReasonReads},
		{"models list 2", policy.Safe, models.ReasonReads},
		{"  models   list  ", policy.Safe, models.ReasonReads},
		{"models show ollama:qwen3:4b", policy.Safe, models.ReasonReads},
		{"models show", policy.Safe, models.ReasonReads},
		{"models pull mlx-community/Qwen3-4B-4bit", policy.Moderate, models.ReasonPull},
		{"models enable ollama:qwen3:4b", policy.Moderate, models.ReasonChangesModels},
		{"models disable mlx:Qwen3-4B-4bit", policy.Moderate, models.ReasonChangesModels},
		{"models check ollama:granite4.1:8b", policy.Moderate, models.ReasonChangesModels},
		{"models trust mlx-community", policy.Dangerous, models.ReasonTrust},
		{"models trust", policy.Dangerous, models.ReasonTrust},

		// known words, unknown shape
		{"models pull", policy.Dangerous, policy.ReasonUnknown},
		{"models pull a/b c/d", policy.Dangerous, policy.ReasonUnknown},
		{"models enable", policy.Dangerous, policy.ReasonUnknown},
		{"models enable a b", policy.Dangerous, policy.ReasonUnknown},
		{"models disable", policy.Dangerous, policy.ReasonUnknown},
		{"models check a b", policy.Dangerous, policy.ReasonUnknown},
		{"models enable --all", policy.Dangerous, policy.ReasonUnknown},
		{"models list -a", policy.Dangerous, policy.ReasonUnknown},
		{"models pull -", policy.Dangerous, policy.ReasonUnknown},
		{"models", policy.Dangerous, policy.ReasonUnknown},
		{"models switch ollama:qwen3:4b", policy.Dangerous, policy.ReasonUnknown},
		{"models cancel", policy.Dangerous, policy.ReasonUnknown},
		{"Models list", policy.Dangerous, policy.ReasonUnknown},
		{"models LIST", policy.Dangerous, policy.ReasonUnknown},
		{"list", policy.Dangerous, policy.ReasonUnknown},
		{"", policy.Dangerous, policy.ReasonUnknown},
		{"   ", policy.Dangerous, policy.ReasonUnknown},
		{"ls", policy.Dangerous, policy.ReasonUnknown},
		{"rm -rf /", policy.Dangerous, policy.ReasonUnknown},
		{"wisp models list", policy.Dangerous, policy.ReasonUnknown},

		// shell metacharacters
		{"models list; rm -rf ~", policy.Dangerous, policy.ReasonMeta},
		{"models list && curl x", policy.Dangerous, policy.ReasonMeta},
		{"models list | sh", policy.Dangerous, policy.ReasonMeta},
		{"models show $(id)", policy.Dangerous, policy.ReasonMeta},
		{"models show `id`", policy.Dangerous, policy.ReasonMeta},
		{"models show a>b", policy.Dangerous, policy.ReasonMeta},
		{"models pull a/*", policy.Dangerous, policy.ReasonMeta},
		{"models enable 'x'", policy.Dangerous, policy.ReasonMeta},
		{"models enable x#y", policy.Dangerous, policy.ReasonMeta},
		{"PATH=/tmp models list", policy.Dangerous, policy.ReasonMeta},

		// control, invisible and lookalike characters
		{"models list\nrm -rf ~", policy.Dangerous, policy.ReasonControl},
		{"models list\r", policy.Dangerous, policy.ReasonControl},
		{"models\tlist", policy.Dangerous, policy.ReasonControl},
		{"models list\x1b[2J", policy.Dangerous, policy.ReasonControl},
		{"models list\x00", policy.Dangerous, policy.ReasonControl},
		{"models list\x7f", policy.Dangerous, policy.ReasonControl},
		{"models list \xff", policy.Dangerous, policy.ReasonControl},
		{"models list \ufffd", policy.Dangerous, policy.ReasonControl},
		{"models list \u0085", policy.Dangerous, policy.ReasonControl},
		{"models enable a\u202eb", policy.Dangerous, policy.ReasonControl},
		{"models enable a\u200bb", policy.Dangerous, policy.ReasonControl},
		{"models\u00a0list", policy.Dangerous, policy.ReasonControl},
		{"models list\u2028", policy.Dangerous, policy.ReasonControl},
		{"models list é;\n", policy.Dangerous, policy.ReasonControl},
		{"models enable qwén", policy.Dangerous, policy.ReasonNonASCII},
		{"models \u0435nable x", policy.Dangerous, policy.ReasonNonASCII}, // Cyrillic е
		{"models list é;", policy.Dangerous, policy.ReasonNonASCII},
	}
	for _, tc := range tests {
		got := classify(tc.command)
		want := policy.Verdict{Command: tc.command, Rating: tc.rating, Reason: tc.reason}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", tc.command, diff)
		}
	}
}

// Answering wisp's own questions and approvals is the person's alone,
// however the command is spelt; the rule outranks every other reason.
func TestClassifyPersonOnly(t *testing.T) {
	answers := []string{
		"questions answer a1b2c3d4",
		"questions decline a1b2c3d4",
		"questions list",
		"questions",
		"approvals",
		"approvals approve 7f3a2c1d",
		"approvals approve 7f3a2c1d --scope session",
		"approvals deny 7f3a2c1d",
		"wisp questions answer a1b2c3d4",
		"wisp approvals approve 7f3a2c1d",
		"wisp approvals",
		"  wisp   approvals   list  ",
		"WISP APPROVALS APPROVE 7f3a2c1d",
		"Approvals approve 7f3a2c1d",
		"/questions answer a1b2c3d4",
		"/approvals approve 7f3a2c1d",
		"/usr/local/bin/wisp approvals approve 7f3a2c1d",
		"./wisp questions decline a1b2c3d4",
		"wisp.exe approvals deny 7f3a2c1d",
		"wisp --verbose approvals approve 7f3a2c1d",
		"WISP_HOME=/tmp/x wisp approvals approve 7f3a2c1d",
		"models list; wisp approvals approve 7f3a2c1d",
		"models list && wisp questions answer a1b2c3d4",
		"cd /tmp|wisp approvals deny 7f3a2c1d",
		"echo y | wisp approvals approve 7f3a2c1d",
		"$(wisp approvals approve 7f3a2c1d)",
		"`wisp questions answer a1b2c3d4`",
		"wisp\tapprovals approve 7f3a2c1d",
		"wisp\napprovals approve 7f3a2c1d",
		"models list\nwisp approvals approve 7f3a2c1d",
		"wisp\u00a0approvals approve 7f3a2c1d",
		"wisp\u200bapprovals approve 7f3a2c1d",
		"wisp approvals approve 7f3a2c1d \x1b[2J",
		"approvals approve 7f3a2c1d é",
		"models enable wisp approvals",
		// Spelt the way a shell joins words: quotes and backslashes taken
		// out, a variable, a command's output, a word built of parts.
		"wi''sp approvals approve 7f3a2c1d",
		`w\isp approvals approve 7f3a2c1d`,
		`wisp ap"prov"als approve 7f3a2c1d`,
		`"wisp" 'questions' answer a1b2c3d4`,
		`sh -c 'wisp approvals approve 7f3a2c1d'`,
		"W=wisp; $W approvals approve 7f3a2c1d",
		"$(which wisp) questions answer a1b2c3d4",
		"echo y | $WISP approvals approve 7f3a2c1d",
		"env WISP_HOME=x wisp approvals deny 7f3a2c1d",

		// The faces where the person answers them: wisp chat (its
		// /questions, the questions lines of chat --json), wisp-tui, and
		// wisp mcp, whose client answers in its dialogs.
		"chat",
		"chat --json",
		"wisp chat",
		"wisp chat --json",
		"wisp chat --yes --tool ask",
		"  wisp   chat  ",
		"WISP CHAT",
		"/usr/local/bin/wisp chat --json",
		"./wisp.exe chat",
		"wisp --verbose chat",
		"WISP_HOME=/tmp/x wisp chat --json",
		"env WISP_HOME=x wisp chat",
		"nohup wisp chat --json",
		"models list; wisp chat",
		"models list && wisp chat --json",
		"printf '/questions\n' | wisp chat",
		"echo '{\"type\":\"questions\"}' | wisp chat --json",
		"$(wisp chat --json)",
		"wisp\tchat",
		"wisp\u00a0chat",
		"wisp\u200bchat --json",
		"wisp chat \x1b[2J",
		"wisp chat é",
		"wi''sp chat --json",
		`w\isp ch\at`,
		`wisp "chat" --json`,
		`sh -c 'wisp chat --json'`,
		`script -qc "wisp chat" /dev/null`,
		"W=wisp; $W chat --json",
		"$(which wisp) chat",
		"wisp-tui",
		"wisp-tui --model ollama:qwen3:4b",
		"WISP-TUI",
		"/opt/wisp/bin/wisp-tui",
		"wisp-tui.exe",
		"./wisp-tui",
		"env WISP_HOME=x wisp-tui",
		"nohup wisp-tui",
		"timeout 60 wisp-tui",
		"script -qc wisp-tui /dev/null",
		"models list; wisp-tui",
		"wi''sp-tui",
		`wisp\-tui`,
		`"wisp-tui"`,
		"T=wisp-tui; $T",
		"wisp-tui\u200b",
		"mcp",
		"wisp mcp",
		"wisp mcp --http 127.0.0.1:8765",
		"/usr/local/bin/wisp mcp --model ollama:qwen3:4b",
		"WISP MCP",
		"echo '{}' | wisp mcp",
		`wisp "mcp"`,
		"W=wisp; $W mcp",
	}
	settings := []string{
		"config set approval.threshold safe",
		"wisp config set approval.threshold safe",
		"wisp config set tools.request_approval false",
		"wisp config set inquiry.elicitation true",
		"wisp config set models.default ollama:qwen3:4b",
		"  wisp   config   set  approval.outOfBand  false ",
		"WISP CONFIG SET approval.threshold safe",
		"wisp Config Set approval.threshold safe",
		"/usr/local/bin/wisp config set approval.threshold safe",
		"./wisp.exe config set tools.ask false",
		"wisp --verbose config --x set approval.threshold safe",
		"WISP_HOME=/tmp/x wisp config set approval.threshold safe",
		"env WISP_HOME=x wisp config set approval.threshold safe",
		"models list; wisp config set approval.threshold safe",
		"models list && config set approval.threshold safe",
		"wisp config set approval.threshold safe \x1b[2J",
		"wisp\tconfig\tset approval.threshold safe",
		"wisp\u00a0config set approval.threshold safe",
		"wisp config\u200bset approval.threshold safe",
		"wisp config set approval.threshold sáfe",
		"wi''sp con''fig se''t approval.threshold safe",
		`w\isp config s\et approval.threshold safe`,
		`wisp "config" 'set' approval.threshold safe`,
		`sh -c 'wisp config set approval.threshold safe'`,
		"W=wisp; $W config set approval.threshold safe",
		"$(which wisp) config set approval.threshold safe",
		"S=set; wisp config $S approval.threshold safe",
	}
	for _, tc := range []struct {
		commands []string
		reason   string
	}{{answers, policy.ReasonPersonsAlone}, {settings, policy.ReasonSettingsAlone}} {
		for _, c := range tc.commands {
			want := policy.Verdict{Command: c, Rating: policy.Dangerous, Reason: tc.reason, PersonOnly: true}
			if diff := cmp.Diff(want, classify(c)); diff != "" {
				t.Errorf("Classify(%q) (-want +got):\n%s", c, diff)
			}
		}
	}
	// Commands that merely mention the words are judged as before.
	others := []struct {
		command string
		rating  policy.Rating
		reason  string
	}{
		{"models show approvals", policy.Safe, models.ReasonReads},
		{"models enable questions", policy.Moderate, models.ReasonChangesModels},
		{"models pull org/approvals", policy.Moderate, models.ReasonPull},
		{"wisp models list", policy.Dangerous, policy.ReasonUnknown},
		{"echo questions", policy.Dangerous, policy.ReasonUnknown},
		{"wispy approvals", policy.Dangerous, policy.ReasonUnknown},
		{"wisp approvalsx", policy.Dangerous, policy.ReasonUnknown},
		{`wisp \u0430pprovals`, policy.Dangerous, policy.ReasonMeta},
		{"wisp \u0430pprovals", policy.Dangerous, policy.ReasonNonASCII}, // Cyrillic а: not the command
		// wisp's other commands are rated as before: unknown, so asked.
		{"wisp audit", policy.Dangerous, policy.ReasonUnknown},
		{"wisp audit --verify", policy.Dangerous, policy.ReasonUnknown},
		{"wisp respond hi", policy.Dangerous, policy.ReasonUnknown},
		{"wisp config get approval.threshold", policy.Dangerous, policy.ReasonUnknown},
		{"wisp config list", policy.Dangerous, policy.ReasonUnknown},
		{"wisp config", policy.Dangerous, policy.ReasonUnknown},
		{"config get approval.threshold", policy.Dangerous, policy.ReasonUnknown},
		{"wisp set config", policy.Dangerous, policy.ReasonUnknown},
		{"wisp models trust mlx-community", policy.Dangerous, policy.ReasonUnknown},
		{"wisp help chat", policy.Dangerous, policy.ReasonUnknown},
		{"echo chat", policy.Dangerous, policy.ReasonUnknown},
		{"wispy chat", policy.Dangerous, policy.ReasonUnknown},
		{"wisp chatter", policy.Dangerous, policy.ReasonUnknown},
		{"wisp-tuix", policy.Dangerous, policy.ReasonUnknown},
		{"wisp tui", policy.Dangerous, policy.ReasonUnknown},
		{"models show chat", policy.Safe, models.ReasonReads},
		{"models enable mcp", policy.Moderate, models.ReasonChangesModels},
		{"models pull org/chat", policy.Moderate, models.ReasonPull},
		{"models show config", policy.Safe, models.ReasonReads},
		{`wisp c\u0068at`, policy.Dangerous, policy.ReasonMeta},
		{"wisp \u0441hat", policy.Dangerous, policy.ReasonNonASCII}, // Cyrillic с: not the command
		{"models list; cat ~/.wisp/config.json", policy.Dangerous, policy.ReasonMeta},
	}
	for _, tc := range others {
		want := policy.Verdict{Command: tc.command, Rating: tc.rating, Reason: tc.reason}
		if diff := cmp.Diff(want, classify(tc.command)); diff != "" {
			t.Errorf("Classify(%q) (-want +got):\n%s", tc.command, diff)
		}
	}
}

// Every shell metacharacter, anywhere in a word, makes a command
// dangerous, even in a command that would be safe without it.
func TestClassifyEveryMetacharacter(t *testing.T) {
	for _, c := range "|&;<>()$`\\\"'*?[]{}#~!=%^" {
		cmd := "models list a" + string(c) + "b"
		if got := classify(cmd); got.Rating != policy.Dangerous || got.Reason != policy.ReasonMeta {
			t.Errorf("Classify(%q) = %v, %q; want dangerous, %q", cmd, got.Rating, got.Reason, policy.ReasonMeta)
		}
	}
}

// Appending to a command never lowers its rating.
func TestClassifyAppendingNeverLowers(t *testing.T) {
	commands := []string{"models list", "models show x", "models pull a/b", "models enable x", "models trust p", "ls", ""}
	suffixes := []string{"", " x", " x y", "; rm -rf ~", " && models list", "\nmodels list", " --yes", " # models list", "\x1b[1A"}
	for _, c := range commands {
		base := classify(c).Rating
		for _, s := range suffixes {
			if got := classify(c + s).Rating; got < base {
				t.Errorf("Classify(%q) = %v, lower than Classify(%q) = %v", c+s, got, c, base)
			}
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"models list", "models enable x", "models pull a/b", "models trust p", "a;b", "wisp approvals approve 7f3a2c1d", "questions answer a1b2c3d4", "wisp chat --json", "wisp-tui", "wisp config set approval.threshold safe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := classify(s)
		if v.Command != s || v.Reason == "" {
			t.Fatalf("Classify(%q) = %+v: want the command back and a reason", s, v)
		}
		if v.Rating < policy.Safe || v.Rating > policy.Dangerous {
			t.Fatalf("Classify(%q) = %v, not a rating", s, v.Rating)
		}
		alone := v.Reason == policy.ReasonPersonsAlone || v.Reason == policy.ReasonSettingsAlone
		if v.PersonOnly != alone || v.PersonOnly && v.Rating != policy.Dangerous {
			t.Fatalf("Classify(%q) = %+v: the person's alone must be dangerous, with its reason", s, v)
		}
		// Only the models commands are ever below dangerous.
		if v.Rating < policy.Dangerous {
			for _, r := range s {
				if r < 0x20 || r > 0x7e {
					t.Fatalf("Classify(%q) = %v with character %U", s, v.Rating, r)
				}
			}
		}
	})
}
