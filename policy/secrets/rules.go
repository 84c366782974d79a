package secrets

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// Rule is one credential rule.
type Rule struct {
	// ID names the rule in markers ("[REDACTED:<ID>#<n>]"). IDs are stable:
	// they are part of wisp's contract.
	ID string
	// Description says what the rule finds, for people.
	Description string
	// Generic is true for the tier-2 rule that matches a value by the name it
	// is assigned to rather than by its format. Any provider rule beats it.
	Generic bool

	spec *spec
}

// Rules returns every rule, provider rules first, in a stable order. The
// slice is a copy; changing it changes nothing else.
func Rules() []Rule {
	return slices.Clone(ruleTable)
}

// A spec says how a rule finds its values. Every match contains one of the
// rule's anchors, literal strings that one pass over the text finds for all
// rules at once (see anchorSet). A rule's matcher only runs on the bytes
// around each of its anchors, so text without them costs almost nothing,
// and no input makes it read the text more than a fixed number of times.
type spec struct {
	// anchors are literal strings; every match contains one.
	anchors []string
	// fold says the anchors are lower case and match whatever the case of
	// the text.
	fold bool
	// before is how many characters a match may start before its anchor.
	before int
	// pattern is the rule's regular expression: what it matches is the
	// rule. Its first capture group that takes part in a match is the
	// value (the whole match when it has none). In it, (?i) folds ASCII
	// letters only (see asciiFold). The matcher, try, finds what pattern
	// finds when run over the window of bytes around one anchor: from one
	// character before the anchor's earliest start to maxLen bytes past
	// the anchor, with the match starting at one of the first before+1
	// characters after the window's first (see engine.first).
	pattern string
	// match finds pattern's match that starts at a given offset of the
	// engine's window.
	match matcher
	// wordStart says the pattern starts with \b and a word byte.
	wordStart bool
	// mayStart, when set, must accept an offset before match is tried
	// there: a cheap test of its first bytes.
	mayStart func(e *engine, s int) bool
	// follow, for a rule whose every match holds its anchor where the
	// anchor was found, lists the bytes that may follow the anchor in a
	// match; an anchor followed by another one is dropped as it is found.
	follow string
	// maxLen is the length of the pattern's longest match, or window when
	// the pattern has no bound.
	maxLen int
	// window, when set, replaces unboundedWindow for this rule.
	window int
	// extend, when set, lets a value that runs into the end of the searched
	// window grow over the bytes it accepts. Without it, such a value is
	// dropped. Only rules whose value has no length bound need it.
	extend func(c byte) bool
	// find, when set, replaces the pattern with a hand-written matcher. It is given
	// where the anchors start, in order, and reports value ranges of text.
	find func(text string, at []int, emit func(start, end int))
	// near, when set, must accept the text after an anchor at p before the
	// anchor's window is searched: a cheap test that drops most anchors.
	near func(e *engine, p int) bool

	// toEnd says a value that runs to the end of a copy of the text runs to
	// the end of the text itself: a key block cut off in the paste.
	toEnd bool
	// minLen is the least length of a value, where the pattern leaves it
	// out to stay small.
	minLen int
	// minEntropy is the least Shannon entropy, in bits per byte, a value
	// must have.
	minEntropy float64
	// keep, when set, must accept a value. lead is the part of the match
	// before the value (the name and the assignment, say) and group the
	// number of the capture group that holds the value.
	keep func(value, lead string, group int) bool
}

// unboundedWindow is how far past an anchor a rule without a length bound
// looks for the end of its match. A value that runs on past it grows over
// the bytes the rule's extend accepts.
const unboundedWindow = 512

// newSpec finishes a spec whose pattern is a regular expression and whose
// matcher is s.try.
func newSpec(pattern string, s spec) *spec {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(err)
	}
	parsed = asciiFold(parsed)
	s.pattern = parsed.String()
	s.maxLen = maxLen(parsed)
	if s.window == 0 {
		s.window = unboundedWindow
	}
	if s.maxLen < 0 || s.maxLen > s.window {
		s.maxLen = s.window
	}
	if s.match == nil {
		panic("secrets: a rule without a matcher: " + pattern)
	}
	if t, ok := s.match.(*token); ok {
		s.wordStart = t.wordStart
	}
	return &s
}

// asciiFold rewrites re so that case folding, (?i), pairs ASCII letters
// only. Package regexp also lets 'k' match the Kelvin sign and 's' the long
// s, which no credential holds; the rules' matchers read bytes, and a rule
// means what they read.
func asciiFold(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return re
		}
		subs := make([]*syntax.Regexp, 0, len(re.Rune))
		for _, r := range re.Rune {
			lower := r | 0x20
			if 'a' <= lower && lower <= 'z' {
				subs = append(subs, &syntax.Regexp{Op: syntax.OpCharClass, Rune: []rune{lower - 0x20, lower - 0x20, lower, lower}})
			} else {
				subs = append(subs, &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{r}})
			}
		}
		if len(subs) == 1 {
			return subs[0]
		}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
	case syntax.OpCharClass:
		re.Flags &^= syntax.FoldCase
		// A class that reaches the last rune is a negated one: it holds
		// the two runes whatever the case of its letters; any other class
		// holds neither.
		negated := len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] == unicode.MaxRune
		for _, r := range []rune{0x17F, 0x212A} { // long s, Kelvin sign
			re.Rune = classSet(re.Rune, r, negated)
		}
		return re
	}
	re.Flags &^= syntax.FoldCase
	for i, sub := range re.Sub {
		re.Sub[i] = asciiFold(sub)
	}
	return re
}

// classSet returns the ranges of a character class with r in it or not.
func classSet(ranges []rune, r rune, in bool) []rune {
	var out []rune
	for i := 0; i < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= r && r <= hi {
			if in {
				return ranges
			}
			if lo < r {
				out = append(out, lo, r-1)
			}
			if r < hi {
				out = append(out, r+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	if !in {
		return out
	}
	// Put [r, r] in order, then merge the ranges it touches.
	out = append(out, r, r)
	for i := len(out) - 2; i >= 2 && out[i] < out[i-2]; i -= 2 {
		out[i], out[i+1], out[i-2], out[i-1] = out[i-2], out[i-1], out[i], out[i+1]
	}
	merged := out[:2]
	for i := 2; i < len(out); i += 2 {
		if n := len(merged); out[i] <= merged[n-1]+1 {
			merged[n-1] = max(merged[n-1], out[i+1])
			continue
		}
		merged = append(merged, out[i], out[i+1])
	}
	return merged
}

// maxLen returns the length in bytes of the longest string re matches, or -1
// when there is no bound.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += runeLen(r)
		}
		return n
	case syntax.OpCharClass:
		n := 0
		for i := 1; i < len(re.Rune); i += 2 {
			n = max(n, runeLen(re.Rune[i]))
		}
		return n
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		n := maxLen(re.Sub[0])
		if re.Max < 0 || n < 0 {
			return -1
		}
		return n * re.Max
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			m := maxLen(sub)
			if m < 0 {
				return -1
			}
			n += m
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := maxLen(sub)
			if m < 0 {
				return -1
			}
			n = max(n, m)
		}
		return n
	}
	return 0 // empty-width assertions and empty matches
}

func runeLen(r rune) int {
	switch {
	case r < 0x80:
		return 1
	case r < 0x800:
		return 2
	case r < 0x10000:
		return 3
	}
	return 4
}

// Fragments shared by several patterns.
const (
	// tokenEnd ends a token whose alphabet is [A-Za-z0-9_-].
	tokenEnd = `(?:[^A-Za-z0-9_-]|$)`
	// assign is an assignment or key-value separator in configuration files
	// and code: = := ::= :::= ?= => -> || : >
	assign = `(?:::?:?=|:?=|\?=|=>|->|\|\|=?|:|>)`
	// yamlBlock is an optional YAML block scalar header ("|", ">-") and the
	// line break after it.
	yamlBlock = `(?:[|>][-+0-9]{0,2}[ \t]*\r?\n\s*)?`
)

// Byte sets for rules that may extend a value past their search window (see
// spec.extend).
func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

func isBase64Std(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

func isAlnum(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

func isLetter(c byte) bool { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' }

func isAlnumDash(c byte) bool { return isAlnum(c) || c == '-' }

func isWebhookPath(c byte) bool { return isBase64URL(c) || c == '+' || c == '/' }

func isHeaderToken(c byte) bool {
	return isBase64Std(c) || c == '-' || c == '_' || c == '.' || c == '~'
}

// isBareValue reports whether c may appear in an unquoted value.
func isBareValue(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f', '"', '\'', '`', '<', '>':
		return false
	}
	return true
}

// placeholder matches values that stand for a secret rather than being one:
// variable references in shell, templates, CI and Windows syntax, code that
// reads the environment, <angle-bracket> blanks, and a Vault's own
// references ("session:GH_TOKEN"). A closing bracket may be missing, since a
// bare value does not take a bracket as its last byte.
var placeholder = regexp.MustCompile(`^(?:` +
	`\$\{\{.*|\$\{[^}]*\}?|\{\{.*|\$\([^)]*\)?|\$[A-Za-z_][A-Za-z0-9_]*|` +
	`%[A-Za-z_][A-Za-z0-9_]*%|<[^<>]*>|` + RefPrefix + `[A-Z][A-Z0-9_]*|` +
	`(?:process\.env|os\.environ|os\.getenv|os\.Getenv|System\.getenv|getenv|ENV|env)\b.*` +
	`)$`)

// isPlaceholder reports whether v is a placeholder or a run of one repeated
// character ("********", "xxxxxxxx").
func isPlaceholder(v string) bool {
	if v == "" || strings.Count(v, v[:1]) == len(v) {
		return true
	}
	// Every placeholder starts with one of these bytes.
	return strings.IndexByte("${%<spoSgEe", v[0]) >= 0 && placeholder.MatchString(v)
}

// mixed reports whether v mixes character classes the way a random token
// does: it has a digit, or both lower- and upper-case letters.
func mixed(v string) bool {
	var lower, upper bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			return true
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		}
	}
	return lower && upper
}

// hasNonLetter reports whether v holds a byte that is not an ASCII letter.
func hasNonLetter(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i] | 0x20
		if c < 'a' || c > 'z' {
			return true
		}
	}
	return false
}

// genericProseGroup is the capture group of the generic rule that holds a
// value written as prose ("my password is …").
const genericProseGroup = 5

// ruleTable holds every rule. It is built once and never changed.
var ruleTable = []Rule{
	{ID: "aws-access-key", Description: "AWS access key ID (AKIA, ASIA, ABIA, ACCA, A3T…)", spec: newSpec(
		`\b((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})\b`,
		spec{match: tok(heads("AKIA ASIA ABIA ACCA", exact(clsBase32, 16), wordEnd), heads("A3T", exact(clsUpperNum, 1), exact(clsBase32, 16), wordEnd)),
			anchors: []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, minEntropy: 3})},
	{ID: "aws-secret-key", Description: "AWS secret access key, named as one", spec: newSpec(
		`(?i)(?:aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key)["']?\s*`+assign+`\s*`+yamlBlock+`["'`+"`"+`]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
		spec{match: matchFunc(tryAWSSecret), mayStart: awsSecretMayStart,
			// "secret" is the anchor, and the name goes on with a
			// separator, "access" or "key".
			follow:  "_.-aAkK",
			anchors: []string{"secret"}, fold: true, before: 4, minEntropy: 3.5})},
	{ID: "github-pat", Description: "GitHub personal access token (ghp_)", spec: newSpec(
		`\b(ghp_[0-9A-Za-z]{36,})\b`,
		spec{match: tok(heads("ghp_", atLeast(clsAlnum, 36), wordEnd)),
			extend: isAlnum, anchors: []string{"ghp_"}, minEntropy: 3})},
	{ID: "github-oauth", Description: "GitHub OAuth access token (gho_)", spec: newSpec(
		`\b(gho_[0-9A-Za-z]{36,})\b`,
		spec{match: tok(heads("gho_", atLeast(clsAlnum, 36), wordEnd)),
			extend: isAlnum, anchors: []string{"gho_"}, minEntropy: 3})},
	{ID: "github-app-token", Description: "GitHub App user-to-server or server-to-server token (ghu_, ghs_)", spec: newSpec(
		`\b(gh[us]_[0-9A-Za-z]{36,})\b`,
		spec{match: tok(heads("ghu_ ghs_", atLeast(clsAlnum, 36), wordEnd)),
			extend: isAlnum, anchors: []string{"ghu_", "ghs_"}, minEntropy: 3})},
	{ID: "github-refresh-token", Description: "GitHub refresh token (ghr_)", spec: newSpec(
		`\b(ghr_[0-9A-Za-z]{36,})\b`,
		spec{match: tok(heads("ghr_", atLeast(clsAlnum, 36), wordEnd)),
			extend: isAlnum, anchors: []string{"ghr_"}, minEntropy: 3})},
	{ID: "github-fine-grained-pat", Description: "GitHub fine-grained personal access token (github_pat_)", spec: newSpec(
		`\b(github_pat_[0-9A-Za-z_]{82,})\b`,
		spec{match: tok(heads("github_pat_", atLeast(clsWord, 82), wordEnd)),
			extend: isWordByte, anchors: []string{"github_pat_"}, minEntropy: 3})},
	{ID: "gitlab-pat", Description: "GitLab personal access token (glpat-)", spec: newSpec(
		`\b(glpat-[0-9A-Za-z_-]{20,})`+tokenEnd,
		spec{match: tok(heads("glpat-", atLeast(clsB64URL, 20), tokenEnds)),
			extend: isBase64URL, anchors: []string{"glpat-"}, minEntropy: 3})},
	{ID: "gitlab-pat-routable", Description: "GitLab routable personal access token (glpat-….xx)", spec: newSpec(
		`\b(glpat-[0-9A-Za-z_-]{27,}\.[0-9a-z]{9})\b`,
		spec{match: tok(heads("glpat-", atLeast(clsB64URL, 27), lit("."), exact(clsLowerNum, 9), wordEnd)),
			anchors: []string{"glpat-"}, minEntropy: 4})},
	{ID: "gitlab-trigger-token", Description: "GitLab pipeline trigger token (glptt-)", spec: newSpec(
		`\b(glptt-[0-9a-f]{40})\b`,
		spec{match: tok(heads("glptt-", exact(clsHexLower, 40), wordEnd)),
			anchors: []string{"glptt-"}, minEntropy: 3})},
	{ID: "gitlab-deploy-token", Description: "GitLab deploy token (gldt-)", spec: newSpec(
		`\b(gldt-[0-9A-Za-z_-]{20,})`+tokenEnd,
		spec{match: tok(heads("gldt-", atLeast(clsB64URL, 20), tokenEnds)),
			extend: isBase64URL, anchors: []string{"gldt-"}, minEntropy: 3})},
	{ID: "slack-bot-token", Description: "Slack bot token (xoxb-)", spec: newSpec(
		`\b(xoxb-[0-9]{10,13}-[0-9]{10,13}[A-Za-z0-9-]*)`,
		spec{match: tok(heads("xoxb-", between(clsDigit, 10, 13), lit("-"), exact(clsDigit, 10), atLeast(clsAlnumDash, 0))),
			extend: isAlnumDash, anchors: []string{"xoxb-"}, minEntropy: 3})},
	{ID: "slack-user-token", Description: "Slack user, refresh or legacy token (xoxp-, xoxe-, xoxa-, xoxr-, xoxs-, xoxo-)", spec: newSpec(
		`\b(xox[aeoprs]-[0-9]{1,13}-[0-9A-Za-z-]{20,})`,
		spec{match: tok(heads("xoxa- xoxe- xoxo- xoxp- xoxr- xoxs-", between(clsDigit, 1, 13), lit("-"), atLeast(clsAlnumDash, 20))),
			extend: isAlnumDash, anchors: []string{"xoxa-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-"}, minEntropy: 3})},
	{ID: "slack-app-token", Description: "Slack app-level token (xapp-)", spec: newSpec(
		`(?i)\b(xapp-[0-9]-[A-Z0-9]{8,}-[0-9]{10,}-[a-z0-9]{32,})`,
		spec{match: tokFold(heads("xapp-#-", atLeast(clsAlnum, 8), lit("-"), atLeast(clsDigit, 10), lit("-"), atLeast(clsAlnum, 32))),
			extend: isAlnum, anchors: []string{"xapp-"}, fold: true, minEntropy: 2})},
	{ID: "slack-webhook-url", Description: "Slack incoming webhook or workflow URL", spec: newSpec(
		`(hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{40,})`,
		spec{match: tokAnywhere(heads("hooks.slack.com/services/ hooks.slack.com/workflows/ hooks.slack.com/triggers/", atLeast(clsWebhook, 40))),
			extend: isWebhookPath, anchors: []string{"hooks.slack.com/"}})},
	{ID: "openai-api-key", Description: "OpenAI API key (sk-proj-, sk-svcacct-, sk-admin-, legacy sk-…T3BlbkFJ…)", spec: newSpec(
		`\b(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})`+tokenEnd,
		spec{match: tok(heads("sk-proj- sk-svcacct- sk-admin-", atLeast(clsB64URL, 40), tokenEnds), heads("sk-", exact(clsAlnum, 20), lit("T3BlbkFJ"), exact(clsAlnum, 20), tokenEnds)),
			extend: isBase64URL, anchors: []string{"sk-"}, minEntropy: 3})},
	{ID: "anthropic-api-key", Description: "Anthropic API or admin key (sk-ant-api03-, sk-ant-admin01-)", spec: newSpec(
		`\b(sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{93}AA)`+tokenEnd,
		spec{match: tok(heads("sk-ant-api##- sk-ant-admin##-", exact(clsB64URL, 93), lit("AA"), tokenEnds)),
			anchors: []string{"sk-ant-"}})},
	{ID: "anthropic-oauth-token", Description: "Anthropic OAuth access or refresh token (sk-ant-oat01-, sk-ant-ort01-)", spec: newSpec(
		`\b(sk-ant-o[ar]t[0-9]{2}-[A-Za-z0-9_-]{40,})`,
		spec{match: tok(heads("sk-ant-oat##- sk-ant-ort##-", atLeast(clsB64URL, 40))),
			anchors: []string{"sk-ant-o"}, extend: isBase64URL, minEntropy: 3})},
	{ID: "stripe-secret-key", Description: "Stripe secret or restricted key (sk_live_, sk_test_, rk_…)", spec: newSpec(
		`\b((?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,})\b`,
		spec{match: tok(heads("sk_test_ sk_live_ sk_prod_ rk_test_ rk_live_ rk_prod_", atLeast(clsAlnum, 10), wordEnd)),
			extend: isAlnum, anchors: []string{"sk_", "rk_"}, minEntropy: 2})},
	{ID: "stripe-webhook-secret", Description: "Stripe webhook signing secret (whsec_)", spec: newSpec(
		`\b(whsec_[A-Za-z0-9+/]{24,}={0,2})`,
		spec{match: tok(heads("whsec_", atLeast(clsB64, 24), upTo('=', 2))),
			extend: isBase64Std, anchors: []string{"whsec_"}, minEntropy: 3})},
	{ID: "gcp-api-key", Description: "Google API key (AIza)", spec: newSpec(
		`\b(AIza[0-9A-Za-z_-]{35})`+tokenEnd,
		spec{match: tok(heads("AIza", exact(clsB64URL, 35), tokenEnds)),
			anchors: []string{"AIza"}, minEntropy: 4})},
	{ID: "google-oauth-client-secret", Description: "Google OAuth client secret (GOCSPX-)", spec: newSpec(
		`\b(GOCSPX-[A-Za-z0-9_-]{24,})`+tokenEnd,
		spec{match: tok(heads("GOCSPX-", atLeast(clsB64URL, 24), tokenEnds)),
			extend: isBase64URL, anchors: []string{"GOCSPX-"}, minEntropy: 3})},
	{ID: "huggingface-token", Description: "Hugging Face user or organisation token (hf_, api_org_)", spec: newSpec(
		`\b((?:hf_|api_org_)[A-Za-z]{34,})\b`,
		spec{match: tok(heads("hf_ api_org_", atLeast(clsLetter, 34), wordEnd)),
			extend: isLetter, anchors: []string{"hf_", "api_org_"}, minEntropy: 2})},
	{ID: "npm-token", Description: "npm access token (npm_)", spec: newSpec(
		`\b(npm_[A-Za-z0-9]{36,})\b`,
		spec{match: tok(heads("npm_", atLeast(clsAlnum, 36), wordEnd)),
			extend: isAlnum, anchors: []string{"npm_"}, minEntropy: 2})},
	{ID: "pypi-token", Description: "PyPI upload token (pypi-AgEIcHlwaS5vcmc…)", spec: newSpec(
		`(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})`,
		spec{match: tokAnywhere(heads("pypi-AgEIcHlwaS5vcmc", atLeast(clsB64URL, 50))),
			anchors: []string{"pypi-AgEIcHlwaS5vcmc"}, extend: isBase64URL, minEntropy: 3})},
	{ID: "sendgrid-api-key", Description: "SendGrid API key (SG.)", spec: newSpec(
		`\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})`+tokenEnd,
		spec{match: tok(heads("SG.", exact(clsB64URL, 22), lit("."), exact(clsB64URL, 43), tokenEnds)),
			anchors: []string{"SG."}, minEntropy: 2})},
	{ID: "twilio-api-key", Description: "Twilio API key SID (SK + 32 hex)", spec: newSpec(
		`\b(SK[0-9a-fA-F]{32})\b`,
		spec{match: tok(heads("SK", exact(clsHex, 32), wordEnd)),
			anchors: []string{"SK"}, minEntropy: 3})},
	{ID: "digitalocean-token", Description: "DigitalOcean personal, OAuth or refresh token (dop_v1_, doo_v1_, dor_v1_)", spec: newSpec(
		`\b(do[opr]_v1_[a-f0-9]{64})\b`,
		spec{match: tok(heads("dop_v1_ doo_v1_ dor_v1_", exact(clsHexLower, 64), wordEnd)),
			anchors: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, minEntropy: 3})},
	{ID: "databricks-token", Description: "Databricks access token (dapi)", spec: newSpec(
		`\b(dapi[a-f0-9]{32}(?:-[0-9])?)\b`,
		spec{match: tok(heads("dapi", exact(clsHexLower, 32), lit("-"), exact(clsDigit, 1), wordEnd), heads("dapi", exact(clsHexLower, 32), wordEnd)),
			anchors: []string{"dapi"}, minEntropy: 3})},
	{ID: "age-secret-key", Description: "age encryption secret key (AGE-SECRET-KEY-1)", spec: newSpec(
		`(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`,
		spec{match: tokAnywhere(heads("AGE-SECRET-KEY-1", exact(clsBech32, 58))),
			anchors: []string{"AGE-SECRET-KEY-1"}})},
	{ID: "private-key", Description: "PEM private key block (RSA, EC, DSA, OpenSSH, PKCS#8, PGP), whole or cut off before its END line", spec: &spec{
		anchors: []string{"-----BEGIN"}, find: findPrivateKeys, toEnd: true}},
	{ID: "jwt", Description: "JSON Web Token (eyJ….eyJ….…)", spec: &spec{
		anchors: []string{"eyJ"}, find: findJWTs, minEntropy: 3}},
	{ID: "onepassword-service-token", Description: "1Password service account token (ops_eyJ)", spec: newSpec(
		`\b(ops_eyJ[A-Za-z0-9+/]+={0,3})`,
		spec{match: tok(heads("ops_eyJ", atLeast(clsB64, 1), upTo('=', 3))),
			anchors: []string{"ops_eyJ"}, extend: isBase64Std, minLen: 7 + 250, minEntropy: 4})},
	{ID: "vault-token", Description: "HashiCorp Vault service or batch token (hvs., hvb.)", spec: newSpec(
		`\b(hvs\.[A-Za-z0-9_-]{90,}|hvb\.[A-Za-z0-9_-]{138,})`+tokenEnd,
		spec{match: tok(heads("hvs.", atLeast(clsB64URL, 90), tokenEnds), heads("hvb.", atLeast(clsB64URL, 138), tokenEnds)),
			extend: isBase64URL, anchors: []string{"hvs.", "hvb."}, minEntropy: 3.5})},
	{ID: "shopify-token", Description: "Shopify access, custom app, private app or shared secret (shpat_, shpca_, shppa_, shpss_)", spec: newSpec(
		`\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b`,
		spec{match: tok(heads("shpat_ shpca_ shppa_ shpss_", exact(clsHex, 32), wordEnd)),
			anchors: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, minEntropy: 2})},
	{ID: "doppler-token", Description: "Doppler token (dp.pt., dp.st., dp.ct., dp.sa., dp.scim., dp.audit.)", spec: newSpec(
		`\b(dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,})\b`,
		spec{match: tok(heads("dp.pt. dp.st. dp.ct. dp.sa. dp.scim. dp.audit.", atLeast(clsAlnum, 40), wordEnd)),
			extend: isAlnum, anchors: []string{"dp."}, minEntropy: 2})},
	{ID: "linear-api-key", Description: "Linear API key (lin_api_, lin_oauth_)", spec: newSpec(
		`\b(lin_(?:api|oauth)_[A-Za-z0-9]{40,})\b`,
		spec{match: tok(heads("lin_api_ lin_oauth_", atLeast(clsAlnum, 40), wordEnd)),
			extend: isAlnum, anchors: []string{"lin_api_", "lin_oauth_"}, minEntropy: 2})},
	{ID: "pulumi-token", Description: "Pulumi access token (pul-)", spec: newSpec(
		`\b(pul-[a-f0-9]{40})\b`,
		spec{match: tok(heads("pul-", exact(clsHexLower, 40), wordEnd)),
			anchors: []string{"pul-"}, minEntropy: 2})},
	{ID: "postman-api-key", Description: "Postman API key (PMAK-)", spec: newSpec(
		`\b(PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34})\b`,
		spec{match: tok(heads("PMAK-", exact(clsHex, 24), lit("-"), exact(clsHex, 34), wordEnd)),
			anchors: []string{"PMAK-"}, minEntropy: 3})},
	{ID: "sentry-token", Description: "Sentry user or organisation auth token (sntryu_, sntrys_)", spec: newSpec(
		`\b(sntryu_[a-f0-9]{64}\b|sntrys_eyJ[A-Za-z0-9+/=_-]{60,})`,
		spec{match: tok(heads("sntryu_", exact(clsHexLower, 64), wordEnd), heads("sntrys_eyJ", atLeast(clsSentry, 60))),
			anchors: []string{"sntryu_", "sntrys_"}, extend: isHeaderToken, minEntropy: 3.5})},
	{ID: "grafana-token", Description: "Grafana service account or cloud token (glsa_, glc_)", spec: newSpec(
		`\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|glc_[A-Za-z0-9+/]{32,}={0,2})`,
		spec{match: tok(heads("glsa_", exact(clsAlnum, 32), lit("_"), exact(clsHex, 8), wordEnd), heads("glc_", atLeast(clsB64, 32), upTo('=', 2))),
			anchors: []string{"glsa_", "glc_"}, extend: isBase64Std, minEntropy: 3})},
	{ID: "gitlab-runner-token", Description: "GitLab runner authentication token (glrt-)", spec: newSpec(
		`\b(glrt-[0-9A-Za-z_-]{20,}(?:\.[0-9a-z]{9})?)`+tokenEnd,
		spec{match: tok(heads("glrt-", atLeast(clsB64URL, 20), lit("."), exact(clsLowerNum, 9), tokenEnds), heads("glrt-", atLeast(clsB64URL, 20), tokenEnds)),
			extend: isBase64URL, anchors: []string{"glrt-"}, minEntropy: 3})},
	{ID: "groq-api-key", Description: "Groq API key (gsk_)", spec: newSpec(
		`\b(gsk_[A-Za-z0-9]{48,})\b`,
		spec{match: tok(heads("gsk_", atLeast(clsAlnum, 48), wordEnd)),
			extend: isAlnum, anchors: []string{"gsk_"}, minEntropy: 3})},
	{ID: "openrouter-api-key", Description: "OpenRouter API key (sk-or-v1-)", spec: newSpec(
		`\b(sk-or-v1-[a-f0-9]{64})\b`,
		spec{match: tok(heads("sk-or-v1-", exact(clsHexLower, 64), wordEnd)),
			anchors: []string{"sk-or-v1-"}, minEntropy: 3})},
	{ID: "docker-hub-pat", Description: "Docker Hub personal or organisation access token (dckr_pat_, dckr_oat_)", spec: newSpec(
		`\b(dckr_[op]at_[A-Za-z0-9_-]{20,})`+tokenEnd,
		spec{match: tok(heads("dckr_pat_ dckr_oat_", atLeast(clsB64URL, 20), tokenEnds)),
			extend: isBase64URL, anchors: []string{"dckr_pat_", "dckr_oat_"}, minEntropy: 3})},
	{ID: "azure-storage-key", Description: "Azure storage account key in a connection string (AccountKey=)", spec: newSpec(
		`(?i)\baccountkey\s*=\s*([A-Za-z0-9+/]{40,}={0,2})`,
		spec{match: tokFold(heads("accountkey", atLeast(clsSpace, 0), lit("="), atLeast(clsSpace, 0), valueStarts, atLeast(clsB64, 40), upTo('=', 2))),
			extend: isBase64Std, anchors: []string{"accountkey"}, fold: true, minEntropy: 3.5})},
	{ID: "url-password", Description: "password in the user-info part of a URL (scheme://user:password@host)", spec: newSpec(
		`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@"'<>`+"`"+`]*:([^\s/"'<>`+"`"+`]{3,})@[^\s/@"'<>`+"`"+`]`,
		spec{match: matchFunc(tryURLPassword), mayStart: urlMayStart,
			anchors: []string{"://"}, before: 21, keep: func(v, _ string, _ int) bool { return !isPlaceholder(v) }})},
	{ID: "bearer-token", Description: "credential in an Authorization header or after the word Bearer", spec: newSpec(
		`(?i)(?:\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|bot|apikey|sso-key)\s+)?([A-Za-z0-9._~+/=-]{12,})|\bbearer\s+([A-Za-z0-9._~+/=-]{16,}))`,
		spec{match: matchFunc(tryBearer), wordStart: true,
			anchors: []string{"authorization", "bearer"}, fold: true, extend: isHeaderToken, minEntropy: 2.5,
			keep: func(v, _ string, _ int) bool { return mixed(v) && !isPlaceholder(v) }})},
	{ID: "generic-secret", Generic: true, Description: "value assigned to a name that says it is secret (password, secret, token, API key, …)", spec: newSpec(
		genericPattern,
		spec{match: matchFunc(tryGeneric), mayStart: genericMayStart,
			anchors: []string{"pass", "pwd", "secret", "token", "key", "auth", "credential"}, fold: true, before: genericBefore,
			near: nearAssign, window: 160, extend: isBareValue, keep: keepGeneric})},
}

// genericPattern is the generic rule: a name holding a secret word, an
// assignment, and a value that is quoted (groups 1 to 3) or bare (group 4);
// or, in prose, "<name> is <value>" (group 5).
const genericPattern = `(?i)` +
	// The name: a secret word, with a short suffix such as "_base" or "2".
	// The short words "pass", "pwd" and "auth" must start a word, or a
	// camel-case part of one ("smtpPass"), so "compass" is not a name.
	`(?:(?:^|[^a-z])(?:pass|pwd|auth)|(?-i:[a-z0-9](?:Pass|PASS|Pwd|PWD|Auth))|passw(?:or)?d|passphrase|passcode|secret|token|credentials?|` +
	`(?:api|access|private|encryption|signing|master|licen[cs]e|session|client|app|shared)[_.-]?key)` +
	`(?:[_.-][a-z0-9]+){0,3}[0-9]*` +
	`(?:` +
	// An assignment and a value.
	`["'\]]{0,2}\s*` + assign + `\s*` + yamlBlock + `(?:` +
	`"((?:[^"\\\r\n]|\\.)+)"|'([^'\r\n]+)'|` + "`([^`\\r\\n]+)`" + `|` +
	"[\"'`]?([^\\s\"'`<>]*[^\\s\"'`<>.,;:!?)\\]}])" +
	`)` +
	// Prose.
	`|\s+(?:is|was)\s*:?\s+["'` + "`" + `]?([^\s"'` + "`" + `<>]*[^\s"'` + "`" + `<>.,;:!?)\]}])` +
	`)`

// genericBefore is how many characters before its anchor a match of the
// generic rule may start: the anchor may be a word inside the name
// ("client_secret"), and a1 of the pattern takes a character before "pass".
const genericBefore = 16

// genericGroupBare is the capture group of the generic rule that holds an
// unquoted value.
const genericGroupBare = 4

// describingWords are the words that, after a separator in a name, say what
// a secret is called, where it lives or how it is shaped rather than hold
// it: "secret_name", "token_url", "password_min_length".
var describingWords = newSet(`name names path file dir url uri endpoint type length len min max count limit
	ttl timeout expiry expires header prefix field format policy provider version mode enabled required ref`)

// describesSecret reports whether one of describingWords follows a '_', '.'
// or '-' in lead, as a whole word whatever its case.
func describesSecret(lead string) bool {
	for i := 0; i < len(lead); i++ {
		if c := lead[i]; c != '_' && c != '.' && c != '-' {
			continue
		}
		j := i + 1
		for j < len(lead) && isLetter(lead[j]) {
			j++
		}
		if j > i+1 && (j == len(lead) || !isWordByte(lead[j])) && describingWords[strings.ToLower(lead[i+1:j])] {
			return true
		}
	}
	return false
}

// looksLikeCode matches an unquoted value that is an expression in code: a
// dotted name ("cfg.APIKey"), a call or index ("r.FormValue(", "tokens[i")
// or a slice type ("[]string{key}").
var looksLikeCode = regexp.MustCompile(`^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+[(\[]?|[A-Za-z_$][\w$]*[(\[].*|\[\].*|map\[.*|func\(.*)$`)

// nearAssign reports whether the name that holds the anchor at p is
// followed by an assignment, the way the generic rule needs: the rest of the
// name (at most 96 bytes from the anchor), up to two closing quotes or
// brackets, spaces, then an operator or the word "is" or "was". The generic
// rule's names are common words, and most of them assign nothing, so this
// saves running its matcher.
func nearAssign(e *engine, p int) bool {
	limit := min(len(e.text), p+96)
	ok, read := assignsAfter(e.text, e.runTo(clsName, p, limit), limit)
	e.saw(read)
	return ok
}

// assignsAfter is nearAssign from i, where the name ends, reading no further
// than limit; it also returns the end of the bytes it read.
func assignsAfter(text string, i, limit int) (bool, int) {
	for k := 0; k < 2 && i < limit && strings.IndexByte(`"']`, text[i]) >= 0; k++ {
		i++
	}
	name := i
	for i < limit && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i >= limit {
		return false, limit
	}
	switch text[i] {
	case '=', ':', '>', '|', '?', '-':
		return true, i + 1
	case 'i', 'I', 'w', 'W':
		return i > name, i + 1
	}
	return false, i + 1
}

// namesPassword reports whether lead names a password, which people
// choose: such a value may be short and plain ("changeme"), where a token
// or key is long and random.
func namesPassword(lead string) bool {
	l := asciiLower(lead)
	return strings.Contains(l, "pass") || strings.Contains(l, "pwd")
}

// keepGeneric drops placeholders, names that describe a secret instead of
// holding one, unquoted values that are code, and prose values that are a
// plain word. It then asks a password for 6 bytes and some variety (2.5 bits
// of entropy per byte, or a byte that is not a letter), and any other secret
// for 8 bytes and 3 bits per byte.
func keepGeneric(v, lead string, group int) bool {
	if len(v) < 6 || isPlaceholder(v) || describesSecret(lead) {
		return false
	}
	switch {
	case group == genericGroupBare && strings.ContainsAny(v, ".([") && looksLikeCode.MatchString(v):
		return false
	case group == genericProseGroup && !(hasNonLetter(v) && mixed(v)):
		return false
	case namesPassword(lead):
		return hasNonLetter(v) || entropy(v) >= 2.5
	}
	return len(v) >= 8 && entropy(v) >= 3
}
