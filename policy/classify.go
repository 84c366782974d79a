package policy

import (
	"fmt"
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
	// questions and approvals are answered (ReasonPersonsAlone), or its
	// settings changed (ReasonSettingsAlone), or another a PersonOnly
	// Rule names. It is rated Dangerous, and the Gate refuses it
	// outright, whatever the threshold and earlier answers say.
	PersonOnly bool
}

// The classifier's own reasons. They are recorded in classifier.verdict;
// the rows a package adds bring reasons of their own.
const (
	ReasonPersonsAlone  = "answering wisp's questions and approvals is the person's alone"
	ReasonSettingsAlone = "changing wisp's settings is the person's alone"
	ReasonUnknown       = "not a command wisp knows"
	ReasonControl       = "has control or invisible characters"
	ReasonNonASCII      = "has characters outside ASCII, which can pass for others"
	ReasonMeta          = "has shell metacharacters"
)

// metacharacters are the characters a shell gives a meaning to, anywhere
// in a word. No command a rule names has any of them.
const metacharacters = "|&;<>()$`\\\"'*?[]{}#~!=%^"

// The wildcards of a Rule's pattern.
const (
	anyWord  = "*"   // any one word
	anyWords = "..." // as the last word: any number of words, none included
)

// A Rule is a row of the classifier's table: it rates the commands its
// pattern matches.
//
// A pattern is the command's words, separated by single spaces. A word
// matches itself exactly, in the same case; "*" matches any one word;
// "..." as the last word matches any number of words, none included. A
// wildcard never matches a word that starts with "-": a flag changes what
// a command does, so a row that allows one spells it out. The first word
// is always a word of its own, never a wildcard, and no word has a shell
// metacharacter or a character outside printable ASCII, but the "*" of a
// path pattern.
//
//	models enable *     models enable ollama:qwen3:4b, not models enable, nor models enable a b
//	models list ...     models list, models list 2
//
// A word with "*" in it that is neither wildcard alone is a path
// pattern: it matches a word that is a slash-separated path, element by
// element, where "**" as a whole element matches any number of elements
// (none included), "*" within an element any run of characters but "/",
// and letters match in either case (as a file system that folds case
// finds the same file). It never matches a flag.
//
//	edit_file * **/.git/**     edit_file write .git/config, edit_file write sub/.git, edit_file write .GIT/hooks/x
//	edit_file * .github/*/*    edit_file write .github/workflows/ci.yml, not edit_file write .github/ci.yml
//
// A judged row (Judge set) hands the text after its words to its Judge,
// which rates it the way its package knows how: "run_command ..." is
// judged by the shell package, which reads the command line that follows.
// Its pattern is literal words ending in "...", its Rating is the least
// the verdict can be, and it cannot be PersonOnly (the Judge says what is).
//
// A PersonOnly row names a command only the person may run. It must be
// rated Dangerous, and it is found however the command is spelt, the way
// a shell would run it: its words in any case, as the last part of a path
// (/usr/local/bin/wisp), with quotes and backslashes taken out (wi"s"p),
// with flags before each word, and anywhere in the command (after a
// pipe, a semicolon, env, nohup, sh -c); a command that has any shell
// metacharacter and names all the row's words anywhere is taken to be one
// (W=wisp; $W approvals). Refusing such a command is never wrong: no
// other row may name it. A PersonOnly row whose first word is wisp is
// also found without that word at the start of a command, since the
// commands the classifier judges are wisp's own (a chat's /questions).
type Rule struct {
	Pattern    string
	Rating     Rating
	Reason     string
	PersonOnly bool
	// Judge, when set, rates every command the row's words start (see
	// above); Reason then says what the row is for.
	Judge Judge
}

// A Judge rates the text that follows a judged row's words, such as the
// command line after "run_command ". It is given the classifier that asks,
// whose person-only rows (Classifier.PersonOnly, Classifier.PersonOnlyText)
// it applies to whatever it finds runs. The Verdict's Command is set by
// the classifier. A Judge must be safe for concurrent use.
type Judge interface {
	Judge(c *Classifier, text string) Verdict
}

// JudgeFunc adapts a function to a Judge.
type JudgeFunc func(c *Classifier, text string) Verdict

// Judge calls f.
func (f JudgeFunc) Judge(c *Classifier, text string) Verdict { return f(c, text) }

// A Matcher is a Judge that also says whether an answer's pattern covers
// a command it judges (Classifier.Covers).
type Matcher interface {
	Judge
	// Match reports whether pattern, as the Judge's package writes
	// patterns, covers text; parts of text rated below threshold need
	// no cover.
	Match(c *Classifier, pattern, text string, threshold Rating) bool
}

// personOnly are the commands only the person may run, the classifier's
// own rows: every Classifier has them, ahead of any other. Through the
// faces the person answers wisp's questions and approvals (a chat's
// /questions, the questions lines of chat --json, wisp-tui, the dialogs
// of the client of wisp mcp); through config set wisp's settings change,
// the security settings among them.
var personOnly = []Rule{
	{Pattern: "wisp-tui ...", Rating: Dangerous, Reason: ReasonPersonsAlone, PersonOnly: true},
	{Pattern: "wisp questions ...", Rating: Dangerous, Reason: ReasonPersonsAlone, PersonOnly: true},
	{Pattern: "wisp approvals ...", Rating: Dangerous, Reason: ReasonPersonsAlone, PersonOnly: true},
	{Pattern: "wisp chat ...", Rating: Dangerous, Reason: ReasonPersonsAlone, PersonOnly: true},
	{Pattern: "wisp mcp ...", Rating: Dangerous, Reason: ReasonPersonsAlone, PersonOnly: true},
	{Pattern: "wisp config set ...", Rating: Dangerous, Reason: ReasonSettingsAlone, PersonOnly: true},
}

// A Classifier rates commands by its table of rules: the person-only
// rows first, then the character checks, then the rows packages add
// (NewClassifier). It is safe for concurrent use.
type Classifier struct {
	personOnly []rule // programs of their own (wisp-tui), then wisp's subcommands
	judged     []rule // rows with a Judge, longest pattern first
	rows       []rule
}

// rule is a Rule with its pattern split into words.
type rule struct {
	Rule
	words []string
}

// plain is the classifier with the person-only rows alone.
var plain = mustClassifier()

func mustClassifier() *Classifier {
	c, err := NewClassifier()
	if err != nil {
		panic(err)
	}
	return c
}

// NewClassifier returns a classifier with the person-only rows and rows,
// the rules of the commands a package's tools say they would run (such as
// models.Rules). It refuses a row that is not one (see Rule), naming it.
func NewClassifier(rows ...Rule) (*Classifier, error) {
	c := &Classifier{}
	for _, r := range slices.Concat(personOnly, rows) {
		w, err := parse(r)
		if err != nil {
			return nil, err
		}
		switch {
		case r.Judge != nil:
			c.judged = append(c.judged, w)
		case !r.PersonOnly:
			c.rows = append(c.rows, w)
		case w.words[0] == "wisp":
			c.personOnly = append(c.personOnly, w)
		default:
			// Programs of their own are looked for first, as before wisp's
			// subcommands.
			i := slices.IndexFunc(c.personOnly, func(r rule) bool { return r.words[0] == "wisp" })
			if i < 0 {
				i = len(c.personOnly)
			}
			c.personOnly = slices.Insert(c.personOnly, i, w)
		}
	}
	// The longest words first, so that "run_command sh ..." would be
	// judged before "run_command ...".
	slices.SortStableFunc(c.judged, func(a, b rule) int { return len(b.words) - len(a.words) })
	return c, nil
}

// parse checks a row and splits its pattern into words.
func parse(r Rule) (rule, error) {
	bad := func(why string) (rule, error) { return rule{}, fmt.Errorf("policy: the rule %q %s", r.Pattern, why) }
	words := strings.Split(r.Pattern, " ")
	switch {
	case r.Pattern == "" || slices.Contains(words, ""):
		return bad("is not words separated by single spaces")
	case words[0] == anyWord || words[0] == anyWords || pathPattern(words[0]):
		return bad("starts with a wildcard; its first word must be the command's own")
	case r.PersonOnly && slices.ContainsFunc(words, pathPattern):
		return bad("is the person's alone, so it names its words without path patterns")
	case slices.Index(words, anyWords) >= 0 && slices.Index(words, anyWords) != len(words)-1:
		return bad(`has "..." before its last word`)
	case r.Rating < Safe || r.Rating > Dangerous:
		return bad(fmt.Sprintf("has no rating (%v)", r.Rating))
	case r.Reason == "":
		return bad("gives no reason")
	case r.PersonOnly && r.Rating != Dangerous:
		return bad("is the person's alone, so it must be rated dangerous")
	case r.Judge != nil && r.PersonOnly:
		return bad("has a judge, which says what is the person's alone; it cannot be PersonOnly itself")
	case r.Judge != nil && (words[len(words)-1] != anyWords || slices.Contains(words, anyWord) || slices.ContainsFunc(words, pathPattern) || len(words) < 2):
		return bad(`has a judge, so it must be literal words and "..." last`)
	}
	for _, w := range words {
		if pathPattern(w) {
			if why := badPathPattern(w); why != "" {
				return bad(why)
			}
		} else if w != anyWord && w != anyWords && badCharacters(w) != "" {
			return bad("has a word with a shell metacharacter or a character outside printable ASCII")
		}
	}
	return rule{Rule: r, words: words}, nil
}

// Classify rates a command wisp is asked to run on the model's behalf,
// with the person-only rows alone: see Classifier.Classify. Any command
// they do not name is dangerous, as a command no rule knows.
func Classify(command string) Verdict { return plain.Classify(command) }

// Classify rates a command wisp is asked to run on the model's behalf.
//
// A command only the person may run (a PersonOnly row) is Dangerous and
// PersonOnly, however it is spelt; this outranks everything else. Then
// any command with control or invisible characters, characters outside
// ASCII, or shell metacharacters is Dangerous, with the worst of those
// reasons. Otherwise its words, split at spaces, are matched against the
// rows, and the strictest rating of the rows that match wins (the first
// such row gives the reason). A command no row matches (a known one with
// a missing or extra word, or a flag no row spells out among them) is
// Dangerous: unknown is never safe.
//
// A command that starts with a judged row's words and a space (or is
// those words alone) is rated by the row's Judge instead, with the row's
// Rating as the least it can be; the Judge applies the person-only rows
// itself.
func (c *Classifier) Classify(command string) Verdict {
	if r, text, ok := c.judgedBy(command); ok {
		v := r.Judge.Judge(c, text)
		v.Command = command
		switch {
		case v.PersonOnly || v.Reason == "" || v.Rating < Safe || v.Rating > Dangerous:
			// Only the person's alone, or a verdict that is not one:
			// dangerous either way.
			v.Rating = Dangerous
			if v.Reason == "" {
				v.Reason = ReasonUnknown
			}
		case v.Rating < r.Rating:
			v.Rating, v.Reason = r.Rating, r.Reason
		}
		return v
	}
	v := Verdict{Command: command, Rating: Dangerous}
	if reason := c.personsAlone(command); reason != "" {
		v.Reason, v.PersonOnly = reason, true
		return v
	}
	if reason := badCharacters(command); reason != "" {
		v.Reason = reason
		return v
	}
	v.Reason = ReasonUnknown
	words := strings.Fields(command)
	var found *rule
	for i, r := range c.rows {
		if matches(r.words, words) && (found == nil || r.Rating > found.Rating) {
			found = &c.rows[i]
		}
	}
	if found != nil {
		v.Rating, v.Reason = found.Rating, found.Reason
	}
	return v
}

// judgedBy returns the judged row whose words command starts with, and
// the text after them and one space.
func (c *Classifier) judgedBy(command string) (rule, string, bool) {
	if c == nil {
		return rule{}, "", false
	}
	for _, r := range c.judged {
		prefix := strings.Join(r.words[:len(r.words)-1], " ")
		if command == prefix {
			return r, "", true
		}
		if text, ok := strings.CutPrefix(command, prefix+" "); ok {
			return r, text, true
		}
	}
	return rule{}, "", false
}

// Covers reports whether an answer given for pattern covers command,
// whose parts rated below threshold need no cover: for a command a judged
// row rates, as its Judge says if it is a Matcher (and never otherwise);
// for any other, when pattern, read as a Rule's pattern, matches the
// command's words. Nothing covers a command only the person may run, nor
// one with a character no row may name.
func (c *Classifier) Covers(pattern, command string, threshold Rating) bool {
	if c == nil {
		c = plain
	}
	if r, text, ok := c.judgedBy(command); ok {
		m, ok := r.Judge.(Matcher)
		return ok && !c.Classify(command).PersonOnly && m.Match(c, pattern, text, threshold)
	}
	v := c.Classify(command)
	if v.PersonOnly || badCharacters(command) != "" || badCharacters(pattern) == ReasonControl {
		return false
	}
	p := strings.Split(pattern, " ")
	if pattern == "" || slices.Contains(p, "") || p[0] == anyWord || p[0] == anyWords {
		return false
	}
	return matches(p, strings.Fields(command))
}

// PersonOnly returns the reason words, one command's words as a shell
// passes them to the program it runs, run a command only the person may
// run, or "" when they do not. The first word is the program, known in
// any case and through a path (/usr/local/bin/wisp), and flags may come
// before each subcommand (wisp --verbose approvals). A program that runs
// the words after it (sudo wisp chat) is for the caller to look into. A
// nil Classifier has the person-only rows alone.
func (c *Classifier) PersonOnly(words []string) string {
	if c == nil {
		c = plain
	}
	if len(words) == 0 {
		return ""
	}
	name := commandName(words[0])
	for _, r := range c.personOnly {
		if name == r.words[0] && runs(words[1:], r.words[1:]) {
			return r.Reason
		}
	}
	return ""
}

// PersonOnlyText returns the reason text, in which a command may be
// hidden in any way a shell allows, names a command only the person may
// run, or "" when it does not: the test Classify makes of every command
// no judged row rates (see Rule). A Judge applies it to whatever runs
// code it cannot read, such as a shell fed from a pipe. A nil Classifier
// has the person-only rows alone.
func (c *Classifier) PersonOnlyText(text string) string {
	if c == nil {
		c = plain
	}
	return c.personsAlone(text)
}

// matches reports whether a pattern's words match a command's words
// exactly; see Rule.
func matches(pattern, words []string) bool {
	for i, p := range pattern {
		if p == anyWords {
			return !slices.ContainsFunc(words[i:], flag)
		}
		if i >= len(words) {
			return false
		}
		if w := words[i]; p == anyWord && flag(w) || p != anyWord && p != w && !(pathPattern(p) && matchPath(p, w)) {
			return false
		}
	}
	return len(words) == len(pattern)
}

// flag reports whether a word is a flag: it starts with "-".
func flag(w string) bool { return strings.HasPrefix(w, "-") }

// personsAlone returns the reason a command is the person's alone, or ""
// when it is not; see Rule. It looks at the command as written and with
// the quotes and backslashes a shell would take out (wi"s"p, w\isp), and
// a command with any shell metacharacter that names all the words of a
// person-only row anywhere (W=wisp; $W approvals) is taken to be one:
// refusing it is never wrong, since such a command is no command a row
// knows.
func (c *Classifier) personsAlone(command string) string {
	unquoted := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(command)
	for _, s := range []string{command, unquoted} {
		if reason := c.named(commandWords(s)); reason != "" {
			return reason
		}
	}
	if !strings.ContainsAny(command, metacharacters) {
		return ""
	}
	words := commandWords(unquoted)
	for _, r := range c.personOnly {
		if mentions(words, r.words) {
			return r.Reason
		}
	}
	return ""
}

// named returns the reason of the first person-only row that words run:
// a program of its own anywhere (wisp-tui), then wisp's subcommands at
// the start (the word wisp left out), then after each word wisp, in
// order.
func (c *Classifier) named(words []string) string {
	for i := range words {
		for _, r := range c.personOnly {
			if r.words[0] != "wisp" && commandName(words[i]) == r.words[0] && runs(words[i+1:], r.words[1:]) {
				return r.Reason
			}
		}
	}
	starts := []int{0}
	for i, w := range words {
		if commandName(w) == "wisp" {
			starts = append(starts, i+1)
		}
	}
	for _, at := range starts {
		for _, r := range c.personOnly {
			if r.words[0] == "wisp" && runs(words[at:], r.words[1:]) {
				return r.Reason
			}
		}
	}
	return ""
}

// runs reports whether words start with the pattern's, as a shell would
// run them: flags before each word skipped, each word as a command's name
// (see commandName).
func runs(words, pattern []string) bool {
	for _, p := range pattern {
		if p == anyWords {
			return true
		}
		words = skipFlags(words)
		if len(words) == 0 || p != anyWord && commandName(words[0]) != p {
			return false
		}
		words = words[1:]
	}
	return true
}

// mentions reports whether words name every word of the pattern, in any
// order, but a leading wisp and the wildcards.
func mentions(words, pattern []string) bool {
	if pattern[0] == "wisp" {
		pattern = pattern[1:]
	}
	for _, p := range pattern {
		if p == anyWord || p == anyWords {
			continue
		}
		if !slices.ContainsFunc(words, func(w string) bool { return commandName(w) == p }) {
			return false
		}
	}
	return true
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

// skipFlags returns words from the first that does not start with "-".
func skipFlags(words []string) []string {
	for len(words) > 0 && flag(words[0]) {
		words = words[1:]
	}
	return words
}

// Hidden reports whether r is a character no command the classifier
// judges may have, since a person cannot see it or a shell reads it
// otherwise than it looks: a control character (every C0 one, TAB and
// LF included, DEL and C1), a byte that is not UTF-8 or U+FFFD itself, a
// space other than the ASCII space (NBSP, U+2028), or an invisible format
// character (bidi controls, zero-width characters). (Ranging over a
// string gives utf8.RuneError for a byte that is not UTF-8.)
func Hidden(r rune) bool {
	return r == utf8.RuneError || r < 0x20 || r == 0x7f ||
		r > 0x7f && (!unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r))
}

// badCharacters returns the reason a command's characters make it
// dangerous, or "" when every character is one a known command may have:
// printable ASCII and the space.
func badCharacters(s string) string {
	reason := ""
	for _, r := range s {
		switch {
		case Hidden(r):
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
