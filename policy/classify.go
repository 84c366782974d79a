package policy

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Verdict is how the classifier rated a command, and why.
type Verdict struct {
	// Command is the command as it was given.
	Command string
	Rating  Rating
	// Reason says why, in plain words, for the audit and the person.
	Reason string
	// PersonOnly is set for a command that only the person may run, so
	// that nobody is asked to allow it: one through which wisp's own
	// questions and approvals are answered, or its settings changed. It is
	// rated Dangerous, with ReasonPersonsAlone or ReasonSettingsAlone, and
	// the Gate refuses it outright, whatever the threshold and earlier
	// answers say.
	PersonOnly bool
}

// The classifier's reasons. They are recorded in classifier.verdict.
const (
	ReasonReads         = "only reads what wisp knows about models"
	ReasonPull          = "downloads a model from Hugging Face"
	ReasonChangesModels = "changes the models wisp can run"
	ReasonTrust         = "trusting a publisher is the person's alone"
	ReasonPersonsAlone  = "answering wisp's questions and approvals is the person's alone"
	ReasonSettingsAlone = "changing wisp's settings is the person's alone"
	ReasonUnknown       = "not a command wisp knows"
	ReasonControl       = "has control or invisible characters"
	ReasonNonASCII      = "has characters outside ASCII, which can pass for others"
	ReasonMeta          = "has shell metacharacters"
)

// metacharacters are the characters a shell gives a meaning to, anywhere
// in a word. No command wisp knows has any of them.
const metacharacters = "|&;<>()$`\\\"'*?[]{}#~!=%^"

// Classify rates a command wisp is asked to run on the model's behalf.
//
// It knows wisp's own commands, split into words at spaces:
//
//	models list …, models show …             safe
//	models pull REPO                          moderate
//	models enable|disable|check NAME          moderate
//	models trust …                            dangerous
//	questions …, approvals …                  dangerous, PersonOnly
//	chat …, mcp …, wisp-tui …                 dangerous, PersonOnly
//	config set …                              dangerous, PersonOnly
//
// Anything else is dangerous: a command it does not know (including a known
// one with a missing or extra word, or a word that starts with "-"), and any
// command with control or invisible characters, characters outside ASCII,
// or shell metacharacters. Unknown is never safe.
//
// A command through which wisp's own questions and approvals are
// answered is the person's alone (PersonOnly, ReasonPersonsAlone),
// however it is spelt: questions and approvals, which answer them; chat
// and wisp-tui, where the person answers them (a chat's /questions, the
// questions lines of chat --json); and mcp, whose client answers them in
// its dialogs. So is config set, which changes wisp's settings, the
// security settings among them (ReasonSettingsAlone). Such a command is
// found when its first word is one of those (or a path to it:
// /questions), or anywhere in it the word wisp, or a path to it, is
// followed by one, flags between allowed; wisp-tui is found as any word.
// Words are split at spaces, control characters and shell
// metacharacters and compared in any case, so
// "cd x && WISP_HOME=~/.wisp /usr/local/bin/wisp approvals approve ID"
// is found too. This rule outranks every other.
func Classify(command string) Verdict {
	v := Verdict{Command: command, Rating: Dangerous}
	if reason := personOnly(command); reason != "" {
		v.Reason, v.PersonOnly = reason, true
		return v
	}
	if reason := badCharacters(command); reason != "" {
		v.Reason = reason
		return v
	}
	f := strings.Fields(command)
	v.Reason = ReasonUnknown
	if len(f) < 2 || f[0] != "models" {
		return v
	}
	for _, w := range f[1:] {
		if strings.HasPrefix(w, "-") {
			return v
		}
	}
	switch verb, args := f[1], f[2:]; {
	case verb == "list" || verb == "show":
		v.Rating, v.Reason = Safe, ReasonReads
	case verb == "pull" && len(args) == 1:
		v.Rating, v.Reason = Moderate, ReasonPull
	case (verb == "enable" || verb == "disable" || verb == "check") && len(args) == 1:
		v.Rating, v.Reason = Moderate, ReasonChangesModels
	case verb == "trust":
		v.Reason = ReasonTrust
	}
	return v
}

// personOnly returns the reason a command is the person's alone, or ""
// when it is not; see Classify. It looks at the command as written and
// with the quotes and backslashes a shell would take out (wi"s"p, w\isp),
// and a command with any shell metacharacter that names a face anywhere
// (W=wisp; $W approvals), or names both config and set, is taken to be
// one: refusing it is never wrong, since such a command is no command
// wisp knows.
func personOnly(command string) string {
	unquoted := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(command)
	for _, c := range []string{command, unquoted} {
		if reason := namesWisp(c); reason != "" {
			return reason
		}
	}
	if !strings.ContainsAny(command, metacharacters) {
		return ""
	}
	words := commandWords(unquoted)
	if slices.ContainsFunc(words, faceWord) {
		return ReasonPersonsAlone
	}
	if slices.ContainsFunc(words, named("config")) && slices.ContainsFunc(words, named("set")) {
		return ReasonSettingsAlone
	}
	return ""
}

// commandWords splits command into words at spaces, control and
// invisible characters and shell metacharacters.
func commandWords(command string) []string {
	return strings.FieldsFunc(command, func(r rune) bool {
		return r < 0x21 || r == 0x7f || r == utf8.RuneError || unicode.IsSpace(r) ||
			unicode.Is(unicode.Cf, r) || !unicode.IsGraphic(r) || strings.ContainsRune(metacharacters, r)
	})
}

// commandName is a word as the name of a command: its last path element,
// in lower case, without .exe.
func commandName(w string) string {
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(w), ".exe")
}

// faces are the commands through which the person answers wisp's
// questions and approvals.
var faces = []string{"questions", "approvals", "chat", "mcp", "wisp-tui"}

// faceWord reports whether w names one of the faces.
func faceWord(w string) bool { return slices.Contains(faces, commandName(w)) }

// named returns a test of whether a word names the command name.
func named(name string) func(string) bool {
	return func(w string) bool { return commandName(w) == name }
}

// namesWisp returns the reason a command is the person's alone, or "":
// a word wisp-tui anywhere, a subcommand of the person's alone (see
// subcommand) as the first word, or after the word wisp (or a path to it),
// flags between.
func namesWisp(command string) string {
	words := commandWords(command)
	if slices.ContainsFunc(words, named("wisp-tui")) {
		return ReasonPersonsAlone
	}
	if reason := subcommand(words); reason != "" {
		return reason
	}
	for i, w := range words {
		if commandName(w) != "wisp" {
			continue
		}
		if reason := subcommand(words[i+1:]); reason != "" {
			return reason
		}
	}
	return ""
}

// subcommand returns the reason the wisp subcommand words start with,
// after any flags, is the person's alone: a face, or config set; "" for
// any other.
func subcommand(words []string) string {
	words = skipFlags(words)
	switch {
	case len(words) == 0:
		return ""
	case faceWord(words[0]):
		return ReasonPersonsAlone
	case commandName(words[0]) == "config":
		if rest := skipFlags(words[1:]); len(rest) > 0 && commandName(rest[0]) == "set" {
			return ReasonSettingsAlone
		}
	}
	return ""
}

// skipFlags returns words from the first that does not start with "-".
func skipFlags(words []string) []string {
	for len(words) > 0 && strings.HasPrefix(words[0], "-") {
		words = words[1:]
	}
	return words
}

// badCharacters returns the reason a command's characters make it
// dangerous, or "" when every character is one a known command may have:
// printable ASCII and the space.
func badCharacters(s string) string {
	reason := ""
	for _, r := range s {
		switch {
		case r == utf8.RuneError, // a byte that is not UTF-8, or U+FFFD itself
			r < 0x20, r == 0x7f,
			r > 0x7f && (!unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)):
			return ReasonControl // the worst finding; nothing outranks it
		case r > 0x7f:
			if reason == "" {
				reason = ReasonNonASCII
			}
		case strings.ContainsRune(metacharacters, r):
			if reason == "" {
				reason = ReasonMeta
			}
		}
	}
	return reason
}
