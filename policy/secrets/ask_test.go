package secrets

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// An obfuscation rewrites the part of a question that names the secret, the
// way someone trying to slip past a keyword check would.
type obfuscation struct {
	name  string
	apply func(string) string
	// skipPIN says the rewrite makes "PIN" read as the lower-case word.
	skipPIN bool
}

// homoglyphOf maps Latin letters to Cyrillic or Greek look-alikes.
var homoglyphOf = map[rune]rune{
	'a': 'а', 'c': 'с', 'e': 'е', 'i': 'і', 'o': 'о', 'p': 'р', 's': 'ѕ', 'x': 'х', 'y': 'у',
	'A': 'А', 'B': 'В', 'C': 'С', 'E': 'Е', 'H': 'Н', 'I': 'І', 'K': 'К', 'M': 'М', 'N': 'Ν',
	'O': 'О', 'P': 'Р', 'T': 'Т', 'X': 'Х',
}

// insertEvery puts sep between the letters of s (not around spaces).
func insertEvery(s, sep string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		b.WriteRune(r)
		if i+1 < len(rs) && r != ' ' && rs[i+1] != ' ' {
			b.WriteString(sep)
		}
	}
	return b.String()
}

var obfuscations = []obfuscation{
	{name: "plain", apply: func(s string) string { return s }},
	{name: "upper", apply: strings.ToUpper},
	{name: "mixed-case", skipPIN: true, apply: func(s string) string {
		rs := []rune(s)
		for i := range rs {
			if i%2 == 1 {
				rs[i] = unicode.ToUpper(rs[i])
			} else {
				rs[i] = unicode.ToLower(rs[i])
			}
		}
		return string(rs)
	}},
	{name: "zero-width", apply: func(s string) string { return insertEvery(s, "\u200b") }},
	{name: "soft-hyphen-joiner", apply: func(s string) string {
		rs := []rune(s)
		mid := len(rs) / 2
		return string(rs[:mid]) + "\u00ad\u2060" + string(rs[mid:])
	}},
	{name: "full-width", apply: func(s string) string {
		return strings.Map(func(r rune) rune {
			if '!' <= r && r <= '~' {
				return r - '!' + '！'
			}
			return r
		}, s)
	}},
	{name: "homoglyph", apply: func(s string) string {
		return strings.Map(func(r rune) rune {
			if h, ok := homoglyphOf[r]; ok {
				return h
			}
			return r
		}, s)
	}},
	{name: "spaced-letters", apply: func(s string) string { return insertEvery(strings.ReplaceAll(s, " ", "  "), " ") }},
	{name: "hyphen-letters", apply: func(s string) string { return insertEvery(s, "-") }},
	{name: "dotted-letters", apply: func(s string) string { return insertEvery(s, ".") }},
	{name: "split-word", apply: func(s string) string {
		rs := []rune(s)
		mid := len(rs) / 2
		if rs[mid] == ' ' || rs[mid-1] == ' ' {
			return s
		}
		return string(rs[:mid]) + " " + string(rs[mid:])
	}},
	{name: "leet", apply: strings.NewReplacer("a", "@", "o", "0", "e", "3", "s", "$", "A", "4", "O", "0", "E", "3", "I", "1").Replace},
}

// secretCategory is one kind of secret, with names for it; the part in
// braces is what obfuscations rewrite.
type secretCategory struct {
	kind  string
	nouns []string
}

var secretCategories = []secretCategory{
	{KindPassword, []string{"{password}", "GitHub {password}", "{sudo password}"}},
	{KindPassphrase, []string{"{passphrase}", "SSH key {passphrase}"}},
	{KindToken, []string{"GitHub {token}", "{access token}", "{bearer token}"}},
	{KindAPIKey, []string{"{API key}", "OpenAI {API key}"}},
	{KindSecret, []string{"{client secret}", "{secret}", "{secret key}"}},
	{KindPrivateKey, []string{"{private key}", "SSH {private key}"}},
	{KindPIN, []string{"{PIN}", "card {PIN}", "{PIN code}"}},
	{KindOneTimeCode, []string{"{one-time code}", "{OTP}", "{one-time password}"}},
	{Kind2FACode, []string{"{2FA code}", "{verification code}", "{MFA code}", "{two-factor code}"}},
	{KindCredentials, []string{"{credentials}", "AWS {credentials}"}},
	{KindAccessKey, []string{"{access key}", "AWS {access key}"}},
	{KindLoginDetails, []string{"{login details}", "bank {login details}"}},
}

var askPhrasings = []string{
	"What is your %s?",
	"Please enter your %s.",
	"Can you paste the %s here?",
	"I need the %s for the staging server to continue.",
	"Type your %s below:",
	"Could you share your %s with me?",
	"Send me the %s so I can deploy.",
}

func TestAsksForSecretRefuses(t *testing.T) {
	type question struct{ text, kind, how string }
	var qs []question
	for _, c := range secretCategories {
		for _, noun := range c.nouns {
			before, rest, _ := strings.Cut(noun, "{")
			core, after, _ := strings.Cut(rest, "}")
			for _, o := range obfuscations {
				if o.skipPIN && strings.Contains(core, "PIN") {
					continue
				}
				for _, p := range askPhrasings {
					qs = append(qs, question{fmt.Sprintf(p, before+o.apply(core)+after), c.kind, o.name})
				}
			}
		}
	}
	if len(qs) < 300 {
		t.Fatalf("%d positive questions, want at least 300", len(qs))
	}
	for _, q := range qs {
		kind, ok := AsksForSecret(q.text)
		if !ok || kind != q.kind {
			t.Errorf("AsksForSecret(%q) [%s] = %q, %v, want %q, true", q.text, q.how, kind, ok, q.kind)
		}
	}
	t.Logf("%d positive questions (%d categories, %d obfuscations, %d phrasings)",
		len(qs), len(secretCategories), len(obfuscations), len(askPhrasings))
}

func TestAsksForSecretTable(t *testing.T) {
	tests := []struct {
		q    string
		kind string
		ok   bool
	}{
		{"What is your password?", KindPassword, true},
		{"pass word please", KindPassword, true},
		{"p a s s w o r d", KindPassword, true},
		{"p-a-s-s-w-o-r-d?", KindPassword, true},
		{"Set api_key to what?", KindAPIKey, true},
		{"apikey", KindAPIKey, true},
		{"What's your PIN?", KindPIN, true},
		{"Enter the code from your authenticator app.", KindOneTimeCode, true},
		{"What's the 6-digit code we sent you?", KindOneTimeCode, true},
		{"Could you share your to ken?", KindToken, true},
		{"Token:", KindToken, true},
		{"Send me your accessToken", KindToken, true},
		{"What's your t0k3n?", KindToken, true},
		{"Paste the secret here.", KindSecret, true},
		{"What is the key?", KindSecret, true},
		{"Give me your SSH key.", KindPrivateKey, true},
		{"What's your card pin?", KindPIN, true},
		{"Which P1N do you use for the card?", KindPIN, true},
		{"What's the SMS code?", KindOneTimeCode, true},
		{"Please provide your seed phrase.", KindPassphrase, true},
		// Benign uses of weak words.
		{"Which key in the map should I sort by?", "", false},
		{"What token limit should I use?", "", false},
		{"Should the secret santa list be alphabetical?", "", false},
		{"Which PIN-out diagram?", "", false},
		{"Can you share the key metrics?", "", false},
		{"What is the secret to good tests?", "", false},
		{"Do you want me to paste the code here?", "", false},
		{"Which compass word list?", "", false},
		{"Does the map need a key?", "", false},
		{"Should I bypass words that are too short?", "", false},
		{"Should the access token be cached?", "", false},
		{"Enter your\u200bpassword", KindPassword, true},
		{"Enter your\u200b\u200bPIN", KindPIN, true},
		// A qualified weak word as subject still asks when it is needed.
		{"Your GitHub token is required to continue.", KindToken, true},
		{"Your access token is needed for the deploy.", KindToken, true},
		{"Paste your access token when ready.", KindToken, true},
	}
	for _, tt := range tests {
		kind, ok := AsksForSecret(tt.q)
		if kind != tt.kind || ok != tt.ok {
			t.Errorf("AsksForSecret(%q) = %q, %v, want %q, %v", tt.q, kind, ok, tt.kind, tt.ok)
		}
	}
}

// benignQuestions are questions an agent may well ask while working on code,
// several of them using token, secret, key, code or pin in a harmless sense.
var benignQuestions = []string{
	"Which key in the map should I sort by?",
	"What token limit should I use?",
	"Should the secret santa list be alphabetical?",
	"Which PIN-out diagram should I follow?",
	"Should I pin the dependency to v1.2.3?",
	"Which key should the cache use, the user ID or the email?",
	"How many tokens does this prompt use?",
	"Should I refactor this code before merging?",
	"Can you review the code in handlers.go?",
	"What's the key difference between these two approaches?",
	"Should the tokenizer split on whitespace?",
	"Is the token count too high for this model?",
	"Which code path handles the retry?",
	"Do you want me to paste the code here?",
	"Should I show the code diff?",
	"What's the secret to fast builds here?",
	"Which keyboard shortcut do you prefer?",
	"Should I use a composite key for this table?",
	"What's the primary key of the users table?",
	"Which GPIO pin should the LED use?",
	"Is pin 13 free on the board?",
	"Should I add a code owner for this directory?",
	"Which key bindings should the editor use?",
	"How should we handle token expiry in the client?",
	"Should the lexer emit a token for comments?",
	"What should the secret scanning rule ignore?",
	"Which key type does the map use, string or int?",
	"Should I rename the function that parses tokens?",
	"What code style does the project follow?",
	"Should error codes be numeric or strings?",
	"Which status code should the handler return?",
	"Does this key exist in the config file?",
	"Should the map keys be sorted?",
	"Which token type represents a string literal?",
	"Should I pin the Go version in CI?",
	"What's the country code for the test fixtures?",
	"Can you share the key takeaways from the design doc?",
	"Should I open the PR now or after the code freeze?",
	"What is the exit code when the build fails?",
	"Which hash function should the key derivation use?",
	"Is a secret manager overkill for this prototype?",
	"Should I key the cache by tenant?",
	"Do you want the tokens streamed or buffered?",
	"Should we move the keys into a separate struct?",
	"What QR code library should I use?",
	"Should the zip code field accept letters?",
	"Which locale code should the fallback be?",
	"Do you know the secret to getting this test to pass?",
	"Is the code coverage report needed for this PR?",
	"Which key should trigger the shortcut, Enter or Tab?",
	"Should I use the token bucket algorithm for rate limiting?",
	"What's the max token budget per request?",
	"Should I document the key names in the README?",
	"Where should I put the code generation script?",
	"Is the source code under the MIT licence?",
	"Should I pin this issue?",
	"Which color code should warnings use?",
	"Should I paste the logs here or attach them?",
	"Can you share the build output?",
	"Should the config keys be camelCase or snake_case?",
	"What is the key of the largest entry?",
	"Which key should I press to continue?",
	"Do you want me to enter the code review notes?",
	"Should I tell the team about the code freeze?",
	"Should the secret menu item be hidden?",
	"Is it a secret that we're migrating?",
	"Should I keep the tokenizer vocabulary in git?",
	"Which tokens should the highlighter colour?",
	"What's the best key for sorting these records?",
	"Should I write the code in Go or Rust?",
	"Should I send the code to review now?",
	"How many keys does the JSON object have?",
	"Does the map need a key?",
	"Which branch should I merge into?",
	"Should I run the tests again?",
	"Do you want a dark theme for the docs site?",
	"Which database should the staging deploy use?",
	"Should I delete the temp directory?",
	"Is it OK to bump the minimum Go version?",
	"Should the CLI print JSON or a table?",
	"Which logging level should production use?",
	"Do you prefer tabs or spaces in the Makefile?",
	"Should I squash these commits?",
	"Which region should the bucket live in?",
	"Can I delete the unused feature flag?",
	"Should the retry back off exponentially?",
	"What timeout should the HTTP client use?",
	"Is the flaky test worth fixing now?",
	"Which license header should new files carry?",
	"Should I split this file into two packages?",
	"Do you want the benchmark results in the PR description?",
	"What should the default port be?",
	"Should I vendor the dependencies?",
	"Which Python version should the script target?",
	"Is it fine to use generics here?",
	"Should the cache be per user or global?",
	"Which name do you prefer for the new package?",
	"Should I update the changelog?",
	"What's the deadline for this release?",
	"Should I keep the old API around for one more version?",
	"Which key do you want as the sort key, name or date?",
	"Should I store the session ID in a cookie or in local storage?",
	"Can the code run on Windows too?",
	"Should the lexer treat a comment as a token?",
	"Which secret detection tool do you use in CI?",
	"Should I create the secret in the staging namespace?",
	"Where is the key stored on disk?",
	"Do you want me to copy the key file to the server?",
	"Can you tell me which token scopes the app needs?",
	"What's the code for the new endpoint supposed to return?",
	"Is the API rate limited per key?",
	"Should I send the key rotation reminder email?",
	"Which SSH key should I use for the deploy?",
	"Should the access token be cached?",
	"How do we refresh the access token when it expires?",
	"Where does the app read its secrets from?",
	"Do you want the key sorted descending?",
	"Should I type the key names in lowercase?",
	"Can you give me the key points of the RFC?",
	"Should I paste the stack trace?",
	"What is the key used for in this map?",
	"Tell me the key you want to sort by.",
	"Which secret should the pod mount?",
	"Should I pin the action to a commit SHA?",
	"Could you share your screen?",
	"What's your favourite key-value store?",
	"Should I use a key per tenant?",
	"Send me the key metrics please.",
	"Give me the code review summary.",
	"Can you send me the code?",
	"What's the secret sauce of this library?",
	"Should I rotate the signing key now or next week?",
	"Is the bearer token sent in a header or a cookie?",
	"Which GitHub token scopes does the release job need?",
	"Should the session key be rotated on login?",
}

func TestAsksForSecretBenign(t *testing.T) {
	// Each question as written, with a lead-in, in lower case, and with a
	// zero-width space in its longest word.
	var qs []string
	for _, q := range benignQuestions {
		longest := ""
		for _, w := range strings.Fields(q) {
			if len(w) > len(longest) {
				longest = w
			}
		}
		qs = append(qs, q, "Quick question: "+q, strings.ToLower(q),
			strings.Replace(q, longest, longest[:len(longest)/2]+"\u200b"+longest[len(longest)/2:], 1))
	}
	if len(qs) < 300 {
		t.Fatalf("%d benign questions, want at least 300", len(qs))
	}
	refused := 0
	for _, q := range qs {
		if kind, ok := AsksForSecret(q); ok {
			refused++
			t.Logf("false refusal: AsksForSecret(%q) = %q", q, kind)
		}
	}
	rate := float64(refused) / float64(len(qs))
	t.Logf("false refusals: %d of %d benign questions (%.2f%%)", refused, len(qs), 100*rate)
	if rate > 0.02 {
		t.Errorf("false refusal rate = %.2f%%, want <= 2%%", 100*rate)
	}
}
