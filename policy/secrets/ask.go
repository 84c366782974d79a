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
// which kind: one of the Kind constants. A question asks for one when it wants
// the value: "What's your Hugging Face token?", "Paste the API key here", "I
// need your credentials". It does not when it only speaks of one: "Should the
// password field be optional?", "Should I rotate the access keys now?", "Where
// should the private key file live?".
//
// The question is read after folding: NFKC normalisation (so full-width and
// other compatibility letters become plain ones), Cyrillic and Greek
// look-alike letters mapped to Latin, invisible default-ignorable characters
// removed, and lower case. Separators inside a word do not hide it ("pass
// word", "p-a-s-s-w-o-r-d", "api_key"), nor do digits and symbols written for
// letters ("p@ssw0rd"), nor an invisible character between two words
// ("your\u200bpassword").
//
// Terms come in two strengths. A strong term always names a credential:
// password, passphrase, API key, private key, secret key, client secret,
// credentials, login details, access key, one-time code or OTP, 2FA,
// two-factor, MFA, verification code, "pin code", "pin number", and PIN or
// PAT written in capitals. A weak word names one only in some company: token,
// secret, key, code, pin, pat ("your token", "access token", "paste the
// secret"; not "token limit", "secret santa", "key name").
//
// Whether a named credential is asked for is read from its company in its
// sentence (strongAsked and weakTerm give the rules in order):
//
//   - A request addressed to the person asks for it: "paste your", "send me
//     the", "can you share", "would you mind sharing", "what is", "I need
//     the", "do you have the", "let me know your", "reply with your".
//   - A term that names something else does not: "password field", "API key
//     rotation", "private key file" (unless a request asks for the file:
//     "paste the credentials file here").
//   - Nor does a term something is done to ("should I rotate the access
//     keys", "hash the passwords"), the subject of a yes/no question or of its
//     clause ("should passwords expire", "the API key should live in Vault"),
//     a term after a preposition ("per API key"), in a where, how, when, why
//     or whether clause, or one of any ("a password", "passwords").
//   - Otherwise a strong term is asked for: "Password?", "Your API key,
//     please.", "Which password do you use for staging?". A weak word is asked
//     for only when a request asks for it, or when it is qualified ("your
//     token", "GitHub token") and not only spoken of.
//   - A request for "it" after a credential was named asks for that one:
//     "Where is your API key? Paste it here."
//
// Reading is linear in the length of the question: each term is looked for
// once, and its company is read within a few words of it.
//
// The word lists are English only.
func AsksForSecret(question string) (kind string, ok bool) {
	folded := foldHomoglyphs(norm.NFKC.String(question))
	// Strong terms are looked for twice: with invisible characters taken out
	// ("pass\u200bword") and read as spaces ("your\u200bpassword"). Weak
	// words, whose company matters, are read with them taken out.
	cased := stripIgnorable(folded)
	named := ""
	for _, text := range []string{cased, ignorableToSpace(folded)} {
		k, asked, mentioned := strongTerm(strings.ToLower(text))
		if asked {
			return k, true
		}
		if named == "" {
			named = mentioned
		}
	}
	s := newSentences(splitWords(symbolLetters(cased)))
	k, asked, mentioned := weakTerm(s)
	if asked {
		return k, true
	}
	if named == "" {
		named = mentioned
	}
	if named != "" && s.asksForIt() {
		return named, true
	}
	return "", false
}

// A strong term is a phrase that always names a credential, written without
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

// strongTerm finds the strong terms in lower, ignoring separators inside
// them, and returns the kind of the leftmost one asked for (asked set), or
// else the kind of the leftmost one only spoken of (mentioned). A term must
// start where a word starts and end where a word ends (a plural "s" may
// follow), so "compass word" does not read as "password". Where two terms
// start at the same place, the longer one names the kind.
func strongTerm(lower string) (kind string, asked bool, mentioned string) {
	for _, text := range []string{lower, leetI.Replace(lower), leetL.Replace(lower)} {
		sq := squeeze(text)
		s := newSentences(sq.words)
		askAt, askSize, mentionAt := -1, 0, -1
		for _, e := range strongTerms {
			for from := 0; ; {
				i := sq.findFrom(e.term, from)
				if i < 0 {
					break
				}
				from = i + 1
				if s.strongAsked(sq.wordOf[i], sq.wordOf[i+len(e.term)-1]) {
					if askAt < 0 || i < askAt || i == askAt && len(e.term) > askSize {
						kind, askAt, askSize = e.kind, i, len(e.term)
					}
					break // the term's later occurrences are further right
				}
				if mentionAt < 0 || i < mentionAt {
					mentioned, mentionAt = e.kind, i
				}
			}
		}
		if askAt >= 0 {
			return kind, true, ""
		}
		if mentioned != "" {
			return "", false, mentioned
		}
	}
	return "", false, ""
}

// capitals are strong terms only when written in capitals as a word of
// their own ("PIN-out" is not one): in lower case they are ordinary words.
var capitals = map[string]string{
	"PIN": KindPIN, "PINs": KindPIN, "PINS": KindPIN,
	"PAT": KindToken, "PATs": KindToken, "PATS": KindToken,
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
			"openai": KindAPIKey, "anthropic": KindAPIKey, "stripe": KindAPIKey, "google": KindAPIKey,
			"developer": KindAPIKey,
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
		// "pat" is a personal access token; "PAT" in capitals is a strong
		// term (capitals).
		word: "pat", kind: KindToken, valueAsk: true, ambiguous: true,
		qualifiers: newSet(`your my github gitlab azure bitbucket gitea classic fine grained`),
		benignNext: newSet(`on down dry test tests`),
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
	_, ok := weakEntryFor(s)
	return ok
}

func weakEntryFor(s string) (weakEntry, bool) {
	for _, wk := range weakWords {
		if s == wk.word || s == wk.word+"s" {
			return wk, true
		}
	}
	return weakEntry{}, false
}

// weakTerm returns the kind of the first weak word, or word in capitals,
// that the question asks for (asked set), or else the kind of the first
// qualified one it only speaks of (mentioned).
func weakTerm(s sentences) (kind string, asked bool, mentioned string) {
	words := s.words
	for i, w := range words {
		if k, ok := capitals[w.cased]; ok && !w.hyphen {
			if s.strongAsked(i, i) {
				return k, true, ""
			}
			if mentioned == "" {
				mentioned = k
			}
			continue
		}
		wk, ok := weakEntryFor(w.lower)
		if !ok {
			continue
		}
		next := s.next(i)
		c := s.company(i, 0)
		k := wk.kind
		qualifier, qualified := s.qualifier(i, wk.qualifiers)
		if q, ok := wk.qualified[qualifier]; ok {
			k = q
		}
		if qualified && !wk.benignNext[next] && !clauseWords[next] && !possessive(next) && !s.subject(i) {
			if !c.spokenOf(s, i) {
				return k, true, ""
			}
			if mentioned == "" {
				mentioned = k
			}
		}
		if wk.valueAsk && c.asks() && (w.stop || followers[next] || s.purpose(i)) && !(wk.ambiguous && (next == "to" && !s.purpose(i) || next == "you")) {
			return k, true, ""
		}
		if wk.source != nil && c.asks() && fromSource(words, i, wk.source) {
			return k, true, ""
		}
		if wk.valueAsk && (w.colon && i == len(words)-1 || s.alone(i)) {
			return k, true, "" // a form label, or the word alone: "Token:", "Token please"
		}
	}
	return "", false, mentioned
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
