package secrets

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The kinds of secret AsksForSecret reports.
const (
	KindPassword     = "password"
	KindPassphrase   = "passphrase"
	KindToken        = "token"
	KindAPIKey       = "API key"
	KindSecret       = "secret"
	KindPrivateKey   = "private key"
	KindPIN          = "PIN"
	KindOneTimeCode  = "one-time code"
	Kind2FACode      = "2FA code"
	KindCredentials  = "credentials"
	KindAccessKey    = "access key"
	KindLoginDetails = "login details"
)

// AsksForSecret reports whether a question asks the person for a secret, and
// which kind: one of the Kind constants.
//
// The question is read after folding: NFKC normalisation (so full-width and
// other compatibility letters become plain ones), removal of invisible
// default-ignorable characters, Cyrillic and Greek look-alike letters mapped
// to Latin, and lower case. Spaces, dashes, dots and underscores inside a word
// do not hide it ("pass word", "p-a-s-s-w-o-r-d", "api_key"), nor do digits
// and symbols written for letters ("p@ssw0rd").
//
// Strong terms always count: password, passphrase, API key, private key,
// secret key, client secret, credentials, login details, access key,
// one-time code or OTP, 2FA, two-factor, MFA, verification code, "pin code",
// "pin number" and PIN written in capitals. Weak words (token, secret, key,
// code, pin) count only when the question asks for one as a value ("paste the
// token", "what's your key?") or qualifies it ("access token", "your
// secret", "SMS code", "card pin"), and not when the next word makes them
// part of another notion ("token limit", "secret santa", "key name").
//
// The word lists are English only.
func AsksForSecret(question string) (kind string, ok bool) {
	cased := foldHomoglyphs(stripIgnorable(norm.NFKC.String(question)))
	if k, ok := strongTerm(strings.ToLower(cased)); ok {
		return k, true
	}
	words := splitWords(cased)
	if k, ok := capitalPIN(words); ok {
		return k, true
	}
	return weakTerm(words)
}

// A strong term is a phrase that always asks for a secret, written without
// spaces.
type strongEntry struct{ term, kind string }

var strongTerms = []strongEntry{
	{"password", KindPassword}, {"passwd", KindPassword}, {"passcode", KindPassword},
	{"passphrase", KindPassphrase}, {"seedphrase", KindPassphrase},
	{"recoveryphrase", KindPassphrase}, {"mnemonicphrase", KindPassphrase},
	{"apikey", KindAPIKey},
	{"privatekey", KindPrivateKey},
	{"secretkey", KindSecret}, {"clientsecret", KindSecret}, {"apisecret", KindSecret},
	{"sharedsecret", KindSecret}, {"signingsecret", KindSecret}, {"webhooksecret", KindSecret},
	{"credential", KindCredentials}, {"credentials", KindCredentials}, {"creds", KindCredentials},
	{"logindetails", KindLoginDetails}, {"logininfo", KindLoginDetails},
	{"logininformation", KindLoginDetails}, {"logincredentials", KindLoginDetails},
	{"signindetails", KindLoginDetails}, {"signininfo", KindLoginDetails},
	{"logondetails", KindLoginDetails},
	{"accesskey", KindAccessKey}, {"secretaccesskey", KindAccessKey},
	{"onetimecode", KindOneTimeCode}, {"onetimepasscode", KindOneTimeCode},
	{"onetimepassword", KindOneTimeCode}, {"onetimepin", KindOneTimeCode},
	{"onetimetoken", KindOneTimeCode}, {"otp", KindOneTimeCode}, {"otpcode", KindOneTimeCode},
	{"totp", KindOneTimeCode}, {"hotp", KindOneTimeCode},
	{"2fa", Kind2FACode}, {"twofa", Kind2FACode}, {"twofactor", Kind2FACode},
	{"2factor", Kind2FACode}, {"2step", Kind2FACode}, {"twostep", Kind2FACode},
	{"mfa", Kind2FACode}, {"multifactor", Kind2FACode},
	{"verificationcode", Kind2FACode}, {"authenticatorcode", Kind2FACode},
	{"pincode", KindPIN}, {"pinnumber", KindPIN},
}

// leet maps digits and symbols written for letters. Digit 1 stands for i or
// l, so it is tried both ways.
var (
	leetI = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s", "|", "l")
	leetL = strings.NewReplacer("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s", "|", "l")
)

// strongTerm finds the leftmost strong term in lower, ignoring separators
// inside it. A term must start where a word starts and end where a word ends
// (a plural "s" may follow), so "compass word" does not read as "password".
// Where two terms start at the same place, the longer one names the kind.
func strongTerm(lower string) (string, bool) {
	for _, text := range []string{lower, leetI.Replace(lower), leetL.Replace(lower)} {
		sq := squeeze(text)
		kind, at, size := "", -1, 0
		for _, e := range strongTerms {
			i := sq.find(e.term)
			if i >= 0 && (at < 0 || i < at || i == at && len(e.term) > size) {
				kind, at, size = e.kind, i, len(e.term)
			}
		}
		if at >= 0 {
			return kind, true
		}
	}
	return "", false
}

// squeezed is a text's letters and digits with everything else taken out,
// and where each word started and ended.
type squeezed struct {
	letters    string
	start, end []bool
}

func squeeze(text string) squeezed {
	var s squeezed
	var b strings.Builder
	inWord := false
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining mark stays inside its word and is dropped.
		case isWordRune(r):
			for k := range utf8.RuneLen(r) {
				s.start = append(s.start, !inWord && k == 0)
				s.end = append(s.end, false)
			}
			b.WriteRune(r)
			inWord = true
		default:
			if inWord {
				s.end[len(s.end)-1] = true
			}
			inWord = false
		}
	}
	if inWord {
		s.end[len(s.end)-1] = true
	}
	s.letters = b.String()
	return s
}

// find returns where term first occurs in s at word edges, or -1.
func (s squeezed) find(term string) int {
	for from := 0; from < len(s.letters); {
		i := strings.Index(s.letters[from:], term)
		if i < 0 {
			return -1
		}
		if s.fits(from+i, len(term)) {
			return from + i
		}
		from += i + 1
	}
	return -1
}

// fits reports whether the n bytes at i start at a word start and end at a
// word end, or one plural "s" before one.
func (s squeezed) fits(i, n int) bool {
	if !s.start[i] {
		return false
	}
	last := i + n - 1
	if s.end[last] {
		return true
	}
	return last+1 < len(s.letters) && s.letters[last+1] == 's' && s.end[last+1]
}

// A word is a run of letters and digits in a question.
type word struct {
	cased, lower string
	// stop says a sentence ends after the word: the text ends, or a '?', '.',
	// '!', ':' or ';' follows.
	stop bool
	// colon says a ':' follows.
	colon bool
	// hyphen says a '-' and a letter follow at once ("PIN-out").
	hyphen bool
}

// splitWords splits a folded question into words. Runs of three or more
// single letters ("p a s s", "t-o-k-e-n") are joined into one word, and so
// are pieces that make a weak word only together ("to ken").
func splitWords(text string) []word {
	type raw struct {
		w          word
		start, end int
	}
	var ws []raw
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += size
		}
		ws = append(ws, raw{w: word{cased: text[i:j]}, start: i, end: j})
		i = j
	}
	for k := range ws {
		rest := strings.TrimLeft(text[ws[k].end:], " \t")
		ws[k].w.stop = rest == "" || strings.IndexByte("?.!:;\n", rest[0]) >= 0
		ws[k].w.colon = rest != "" && rest[0] == ':'
		after := text[ws[k].end:]
		if len(after) >= 2 && after[0] == '-' {
			r, _ := utf8.DecodeRuneInString(after[1:])
			ws[k].w.hyphen = unicode.IsLetter(r)
		}
	}
	// gap reports whether the text between words k and k+1 is a short run
	// of spaces and separators, the kind used to spell a word out.
	gap := func(k int) bool {
		g := text[ws[k].end:ws[k+1].start]
		return len(g) <= 3 && strings.Trim(g, " -._/*|,+~") == ""
	}
	single := func(k int) bool { return utf8.RuneCountInString(ws[k].w.cased) == 1 }
	var out []word
	for k := 0; k < len(ws); {
		n := 1
		if single(k) {
			for k+n < len(ws) && single(k+n) && gap(k+n-1) {
				n++
			}
		}
		if n < 3 {
			n = 1
			// Pieces that make a weak word only together.
			for m := 3; m >= 2; m-- {
				if k+m > len(ws) {
					continue
				}
				joined := ""
				ok := true
				for t := k; t < k+m; t++ {
					joined += strings.ToLower(ws[t].w.cased)
					if t > k && !gap(t-1) {
						ok = false
					}
				}
				if ok && isWeakForm(joined) && !isWeakForm(strings.ToLower(ws[k].w.cased)) {
					n = m
					break
				}
			}
		}
		w := ws[k+n-1].w
		var b strings.Builder
		for t := k; t < k+n; t++ {
			b.WriteString(ws[t].w.cased)
		}
		w.cased = b.String()
		w.lower = strings.ToLower(w.cased)
		out = append(out, splitCompound(unleet(w))...)
		k += n
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// unleet reads a word that mixes letters and digits ("t0k3n", "P1N") as the
// weak word or qualifier it spells, if it spells one.
func unleet(w word) word {
	if !strings.ContainsAny(w.lower, "0134579") || strings.IndexFunc(w.lower, unicode.IsLetter) < 0 {
		return w
	}
	for _, r := range []*strings.Replacer{leetI, leetL} {
		l := r.Replace(w.lower)
		if !isWeakForm(l) && !isQualifier(l) && !isWeakCompound(l) {
			continue
		}
		w.lower = l
		if w.cased == strings.ToUpper(w.cased) {
			w.cased = strings.ToUpper(l)
		} else {
			w.cased = l
		}
		return w
	}
	return w
}

// isQualifier reports whether s qualifies any weak word.
func isQualifier(s string) bool {
	for _, wk := range weakWords {
		if wk.qualifiers[s] {
			return true
		}
	}
	return false
}

// isWeakCompound reports whether s is a qualifier and a weak word run
// together.
func isWeakCompound(s string) bool { return len(splitCompound(word{cased: s, lower: s})) == 2 }

// splitCompound splits a word written as qualifier and weak word run
// together ("accesstoken", "yourpin") into the two.
func splitCompound(w word) []word {
	for _, wk := range weakWords {
		for _, form := range []string{wk.word + "s", wk.word} {
			q, ok := strings.CutSuffix(w.lower, form)
			if !ok || q == "" || !wk.qualifiers[q] || len(w.cased) != len(w.lower) {
				continue
			}
			first := word{cased: w.cased[:len(q)], lower: q}
			second := w
			second.cased, second.lower = w.cased[len(q):], form
			return []word{first, second}
		}
	}
	return []word{w}
}

// capitalPIN finds "PIN" or "PINs" written in capitals as a word of its own
// ("PIN-out" is not one).
func capitalPIN(words []word) (string, bool) {
	for _, w := range words {
		if (w.cased == "PIN" || w.cased == "PINs" || w.cased == "PINS") && !w.hyphen {
			return KindPIN, true
		}
	}
	return "", false
}

// A weak word asks for a secret only in some company.
type weakEntry struct {
	word string
	// kind is what the word asks for; qualified overrides it for some
	// qualifiers.
	kind      string
	qualified map[string]string
	// qualifiers make the word ask for a secret when they come right before
	// it: "access token", "your secret".
	qualifiers set
	// benignNext makes a qualified word part of another notion when it comes
	// right after it: "your token budget".
	benignNext set
	// valueAsk says a request verb alone ("paste the token") is enough;
	// otherwise the word needs a qualifier.
	valueAsk bool
	// noTo says "to" after the word does not end a request: "the key to
	// success".
	noTo bool
	// source names where a requested value comes from and makes a request
	// for the word enough: "enter the code from your authenticator".
	source set
}

type set map[string]bool

func newSet(words string) set {
	s := set{}
	for _, w := range strings.Fields(words) {
		s[w] = true
	}
	return s
}

var weakWords = []weakEntry{
	{
		word: "token", kind: KindToken, valueAsk: true,
		qualifiers: newSet(`access auth authentication authorization bearer github gitlab gh api oauth
			personal session refresh bot npm pypi slack discord jwt id sso deploy registry security
			your my private service login signin hf huggingface openai vercel netlify cloudflare
			heroku stripe twilio sendgrid vault pat user admin root master app application client
			secret ci cli webhook`),
		benignNext: newSet(`limit limits count counts budget budgets length size usage stream streams
			type types window cost costs price pricing rate ratio boundary boundaries position
			positions index kind bucket buckets per estimate estimates estimation efficiency
			consumption cap quota generation expiry expiration lifetime ttl scope scopes permissions
			format endpoint url refresh rotation validation introspection exchange flow middleware
			library handling storage caching cache claims audience issuer economy economics ids`),
	},
	{
		word: "secret", kind: KindSecret, valueAsk: true, noTo: true,
		qualifiers: newSet(`the your my client api app application webhook shared signing jwt oauth
			aws totp otp session consumer hmac encryption account repo repository github actions
			ci stripe`),
		benignNext: newSet(`santa sauce ingredient ingredients recipe menu garden level passage door
			room society agent agents service history life lab club weapon to of behind name names
			manager store resource object manifest volume mount namespace in into from exists
			yaml rotation scanning scanner detection type provider engine backend ref reference
			mission formula plan project feature features sharing handshake`),
	},
	{
		word: "key", kind: KindSecret, valueAsk: true, noTo: true,
		qualified: map[string]string{
			"api": KindAPIKey, "access": KindAccessKey,
			"private": KindPrivateKey, "ssh": KindPrivateKey, "gpg": KindPrivateKey, "pgp": KindPrivateKey,
			"encryption": KindPrivateKey, "decryption": KindPrivateKey, "signing": KindPrivateKey,
			"master": KindPrivateKey, "root": KindPrivateKey, "recovery": KindPrivateKey,
			"rsa": KindPrivateKey, "ed25519": KindPrivateKey, "wallet": KindPrivateKey,
		},
		qualifiers: newSet(`api secret private access license licence product activation serial
			encryption decryption signing master ssh gpg pgp recovery your my root admin deploy
			account session aes hmac rsa ed25519 wallet vault app application client service
			subscription developer openai anthropic stripe aws gcp azure google`),
		benignNext: newSet(`name names type types order binding bindings press presses stroke strokes
			board frame frames path paths prefix prefixes space field fields column columns format
			length size id ids pair pairs value values store rotation fingerprint fingerprints schema
			lookup collision collisions mapping mappings derivation exchange management algorithm
			usage policy spec generation pairing type format manager agent server`),
	},
	{
		word: "code", kind: KindOneTimeCode,
		qualified: map[string]string{
			"auth": Kind2FACode, "authentication": Kind2FACode, "authorization": Kind2FACode,
			"mfa": Kind2FACode, "2fa": Kind2FACode, "totp": Kind2FACode, "authenticator": Kind2FACode,
			"verification": Kind2FACode,
		},
		qualifiers: newSet(`verification sms text login signin auth authentication authorization
			security confirmation recovery backup reset access pairing unlock otp totp mfa 2fa
			authenticator digit digits magic door alarm gate safe entry passcode`),
		benignNext: newSet(`review reviews style base block blocks path paths smell smells coverage
			owner owners generation gen snippet snippets editor quality search change changes sample
			samples scanning scan scanner analysis audit flow page screen field input length format
			expiry template templates validation logic handler sender delivery provider service
			module endpoint policy`),
		source: newSet(`authenticator sms texted emailed inbox phone messages`),
	},
	{
		word: "pin", kind: KindPIN, valueAsk: true, noTo: true,
		qualifiers: newSet(`your my card sim atm bank debit credit phone unlock device account security
			login door alarm safe voicemail wps pairing bluetooth`),
		benignNext: newSet(`out outs layout header headers mapping configuration config assignment
			assignments numbering diagram diagrams policy length pad entry screen field prompt dialog
			format requirements mode modes count`),
	},
}

// isWeakForm reports whether s is a weak word or its plural.
func isWeakForm(s string) bool {
	for _, wk := range weakWords {
		if s == wk.word || s == wk.word+"s" {
			return true
		}
	}
	return false
}

// askVerbs ask for a value when a weak word is their object.
var askVerbs = newSet(`enter type paste provide share send give tell input supply submit reveal
	dictate insert fill post drop read write put copy show say text email dm forward`)

// needVerbs ask for a value only when a definite or possessive word comes
// before it: "I need the pin", not "does the map need a key".
var needVerbs = newSet(`need want require`)

// definite marks a value the asker has in mind.
var definite = newSet(`the your that this`)

// fillers may stand between a request verb and its object.
var fillers = newSet(`me us the a an that this it your my our current new old valid actual full raw
	correct exact real whole complete entire in over along back of`)

// followers may come after a requested weak word: the end of the sentence or
// one of these.
var followers = newSet(`here below now please so for from with into in to that which you i we and or
	then if when because value itself string text again too as directly exactly first right
	immediately quickly there`)

// weakTerm finds the first weak word that asks for a secret.
func weakTerm(words []word) (string, bool) {
	for i, w := range words {
		wk, ok := weakEntryFor(w.lower)
		if !ok {
			continue
		}
		next := ""
		if !w.stop && i+1 < len(words) {
			next = words[i+1].lower
		}
		if i > 0 && wk.qualifiers[words[i-1].lower] && !wk.benignNext[next] {
			if k, ok := wk.qualified[words[i-1].lower]; ok {
				return k, true
			}
			return wk.kind, true
		}
		if wk.valueAsk && requested(words, i) && (w.stop || followers[next] && !(wk.noTo && next == "to")) {
			return wk.kind, true
		}
		if wk.source != nil && requested(words, i) && fromSource(words, i, wk.source) {
			return wk.kind, true
		}
		if wk.valueAsk && w.colon && i == len(words)-1 {
			return wk.kind, true // a form label: "Token:"
		}
	}
	return "", false
}

func weakEntryFor(s string) (weakEntry, bool) {
	for _, wk := range weakWords {
		if s == wk.word || s == wk.word+"s" {
			return wk, true
		}
	}
	return weakEntry{}, false
}

// requested reports whether the word at i is the object of a request: a
// request verb, or "what is", then at most four fillers or qualifiers.
// "need", "want" and "require" count when "the", "your", "that" or "this"
// follows them.
func requested(words []word, i int) bool {
	wk, _ := weakEntryFor(words[i].lower)
	sawDefinite := false
	for j := i - 1; j >= 0 && j >= i-5; j-- {
		w := words[j].lower
		if words[j].stop {
			return false
		}
		if askVerbs[w] || needVerbs[w] && sawDefinite {
			return true
		}
		sawDefinite = sawDefinite || definite[w]
		if (w == "is" || w == "s" || w == "are" || w == "was") && j > 0 && words[j-1].lower == "what" {
			return true
		}
		if w == "whats" {
			return true
		}
		if !fillers[w] && !wk.qualifiers[w] {
			return false
		}
	}
	return false
}

// fromSource reports whether, in the sentence after the word at i, one of
// the next six words names where the value comes from, or says it was sent
// ("we sent", "was sent", "just sent").
func fromSource(words []word, i int, source set) bool {
	for j := i + 1; j < len(words) && j <= i+6; j++ {
		if words[j-1].stop {
			return false
		}
		w := words[j].lower
		if source[w] {
			return true
		}
		if w == "sent" {
			switch words[j-1].lower {
			case "we", "was", "just", "been":
				return true
			}
		}
	}
	return false
}
