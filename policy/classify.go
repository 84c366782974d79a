package policy

import (
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
	// that nobody is asked to allow it: one that answers wisp's own
	// questions or approvals. It is rated Dangerous, and the Gate refuses
	// it outright, whatever the threshold and earlier answers say.
	PersonOnly bool
}

// The classifier's reasons. They are recorded in classifier.verdict.
const (
	ReasonReads         = "only reads what wisp knows about models"
	ReasonPull          = "downloads a model from Hugging Face"
	ReasonChangesModels = "changes the models wisp can run"
	ReasonTrust         = "trusting a publisher is the person's alone"
	ReasonPersonsAlone  = "answering wisp's questions and approvals is the person's alone"
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
//
// Anything else is dangerous: a command it does not know (including a known
// one with a missing or extra word, or a word that starts with "-"), and any
// command with control or invisible characters, characters outside ASCII,
// or shell metacharacters. Unknown is never safe.
//
// A command that answers wisp's own questions or approvals is the
// person's alone (PersonOnly, ReasonPersonsAlone), however it is spelt:
// its first word is questions or approvals (or /questions, /approvals), or
// anywhere in it the word wisp, or a path to it, is followed by one of
// those, flags between allowed. Words are split at spaces, control
// characters and shell metacharacters and compared in any case, so
// "cd x && WISP_HOME=~/.wisp /usr/local/bin/wisp approvals approve ID"
// is found too. This rule outranks every other.
func Classify(command string) Verdict {
	v := Verdict{Command: command, Rating: Dangerous}
	if answersWisp(command) {
		v.Reason, v.PersonOnly = ReasonPersonsAlone, true
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

// answersWisp reports whether command would answer wisp's own questions
// or approvals; see Classify. It looks at the command as written and with
// the quotes and backslashes a shell would take out (wi"s"p, w\isp), and
// a command with any shell metacharacter that names questions or
// approvals anywhere (W=wisp; $W approvals) is taken to answer: refusing
// it is never wrong, since such a command is no command wisp knows.
func answersWisp(command string) bool {
	unquoted := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(command)
	if namesWisp(command) || namesWisp(unquoted) {
		return true
	}
	if !strings.ContainsAny(command, metacharacters) {
		return false
	}
	for _, w := range commandWords(unquoted) {
		if answersWord(w) {
			return true
		}
	}
	return false
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

// answersWord reports whether w names the questions or approvals command.
func answersWord(w string) bool {
	n := commandName(w)
	return n == "questions" || n == "approvals"
}

// namesWisp reports whether command's first word is questions or
// approvals, or the word wisp (or a path to it) is followed, flags
// between, by one of those.
func namesWisp(command string) bool {
	words := commandWords(command)
	if len(words) > 0 && answersWord(words[0]) {
		return true
	}
	for i, w := range words {
		if commandName(w) != "wisp" {
			continue
		}
		for _, next := range words[i+1:] {
			if !strings.HasPrefix(next, "-") {
				if answersWord(next) {
					return true
				}
				break
			}
		}
	}
	return false
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
