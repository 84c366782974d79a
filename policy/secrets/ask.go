package secrets

import (
	"strings"

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
// other compatibility letters become plain ones), Cyrillic and Greek
// look-alike letters mapped to Latin, invisible default-ignorable characters
// removed, and lower case. Separators inside a word do not hide it ("pass
// word", "p-a-s-s-w-o-r-d", "api_key"), nor do digits and symbols written for
// letters ("p@ssw0rd"), nor an invisible character between two words
// ("your\u200bpassword").
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
	folded := foldHomoglyphs(norm.NFKC.String(question))
	// Strong terms are looked for twice: with invisible characters taken out
	// ("pass\u200bword") and read as spaces ("your\u200bpassword"). Weak
	// words, whose company matters, are read with them taken out.
	cased := stripIgnorable(folded)
	for _, text := range []string{cased, ignorableToSpace(folded)} {
		if k, ok := strongTerm(strings.ToLower(text)); ok {
			return k, true
		}
	}
	words := splitWords(symbolLetters(cased))
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
	// ambiguous says "to" and "you" after the word do not end a request:
	// "the key to success", "tell me the key you want to sort by".
	ambiguous bool
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
		word: "secret", kind: KindSecret, valueAsk: true, ambiguous: true,
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
		word: "key", kind: KindSecret, valueAsk: true, ambiguous: true,
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
		word: "pin", kind: KindPIN, valueAsk: true, ambiguous: true,
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

// clauseWords after a qualified weak word start another part of the
// sentence, so the word is talked about rather than asked for, unless a
// request verb comes before it: "refresh the access token when it expires"
// but "paste your access token when ready".
var clauseWords = newSet(`when before after until once while since because now later today tomorrow
	again or and but`)

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
		if i > 0 && wk.qualifiers[words[i-1].lower] && !wk.benignNext[next] && !clauseWords[next] && !subject(words, i) {
			if k, ok := wk.qualified[words[i-1].lower]; ok {
				return k, true
			}
			return wk.kind, true
		}
		if wk.valueAsk && requested(words, i) && (w.stop || followers[next] && !(wk.ambiguous && (next == "to" || next == "you"))) {
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

// auxiliaries follow a noun that is the subject of its clause: "should the
// access token be cached", "which SSH key should I use".
var auxiliaries = newSet(`is are was were be been being will would should shall can could must might may
	does do did has have had expires expire gets get stays lives belongs works`)

// asked words after an auxiliary still ask for the value: "your token is
// required".
var asked = newSet(`needed required necessary missing mandatory expected wanted`)

// subject reports whether the word at i is the subject of its clause rather
// than something requested: an auxiliary follows it, not one that says the
// value is needed, and no request verb comes before it.
func subject(words []word, i int) bool {
	if words[i].stop || i+1 >= len(words) || !auxiliaries[words[i+1].lower] || requested(words, i) {
		return false
	}
	for j := i + 2; j < len(words) && j <= i+3; j++ {
		if asked[words[j].lower] {
			return false
		}
		if words[j].stop {
			break
		}
	}
	return true
}
