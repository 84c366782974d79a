package secrets

import "strings"

// How AsksForSecret tells a question that asks for a credential from one
// that only speaks of it: by the company the credential's name keeps in its
// sentence. Every rule reads a bounded number of words around the name, so
// reading a question stays linear in its length.

// sentences are a question's words, with for each word where its sentence
// starts, and whether a where, how, when, why or whether clause, or a "what
// length"-like question, opened before it in the sentence.
type sentences struct {
	words []word
	start []int
	inWh  []bool
	about []bool
}

func newSentences(words []word) sentences {
	s := sentences{words: words, start: make([]int, len(words)), inWh: make([]bool, len(words)), about: make([]bool, len(words))}
	first, wh, about := 0, false, false
	for i, w := range words {
		s.start[i], s.inWh[i], s.about[i] = first, wh, about
		wh = wh || whWords[w.lower]
		about = about || (w.lower == "what" || w.lower == "which") && !w.stop && i+1 < len(words) && aboutNouns[words[i+1].lower]
		if w.stop {
			first, wh, about = i+1, false, false
		}
	}
	return s
}

// next returns the word after word i in its sentence, or "".
func (s sentences) next(i int) string {
	if i+1 >= len(s.words) || s.words[i].stop {
		return ""
	}
	return s.words[i+1].lower
}

// window is how many words before a name its company is looked for in.
const window = 5

// strongUnknown is how many words it does not know company looks past
// before a strong term ("reset your VPN password"). A weak word's company
// is read past none: "what's the best key for sorting" asks for no key.
const strongUnknown = 2

// A governor is what a credential's name depends on in its sentence.
type governor int

const (
	// govNone: nothing recognised before the name in its sentence.
	govNone governor = iota
	// govRequest: a request addressed to the person: "paste your", "send
	// me the", "can you share the", "would you mind sharing", "what is the",
	// "what's your", "let me know your", "reply with your", "the value of".
	govRequest
	// govNeed: the asker's need, or the person's having it: "I need the",
	// "we'll need your", "I'd like your", "do you have the".
	govNeed
	// govAction: something done to it, or a request not addressed to the
	// person: "rotate the", "should I revoke the", "should I send the".
	govAction
	// govPrep: a preposition: "per", "for the", "with your".
	govPrep
	// govAux: an auxiliary that opens a yes/no question with the name as
	// its subject: "should the", "is your", "where should the".
	govAux
	// govWh: a where, how, when, why or whether clause: "tell me where
	// the".
	govWh
)

// A company is what comes before a name in its sentence.
type company struct {
	gov governor
	// indefinite says "a", "an", "any", "no", "some", "every" came
	// between: one of any, not a value the person has.
	indefinite bool
	// definite says "the", "your", "my", "this" and the like came between.
	definite bool
	// what says "what" or "which" comes right before (but for modifiers):
	// "which password do you use".
	what bool
}

// alone reports whether the name at i is all its sentence holds but for
// "the", "your" and the like, and "please": "Token please", "Your key?".
func (s sentences) alone(i int) bool {
	n := s.next(i)
	if n != "" && n != "please" || n == "please" && !s.words[i+1].stop {
		return false
	}
	if i-s.start[i] > 2 {
		return false
	}
	for j := i - 1; j >= s.start[i]; j-- {
		if w := s.words[j].lower; !definites[w] && w != "please" {
			return false
		}
	}
	return true
}

// asks reports whether the company asks the person for the value.
func (c company) asks() bool { return c.gov == govRequest || c.gov == govNeed }

// spokenOf reports whether the company only speaks of the name at i: it is
// worked on, follows a preposition, is the subject of a yes/no question,
// sits in a where, how, when, why or whether clause, or is one of any.
func (c company) spokenOf(s sentences, i int) bool {
	switch c.gov {
	case govAction, govPrep, govAux, govWh:
		return true
	case govRequest, govNeed:
		return false
	}
	return c.indefinite || s.inWh[i] || s.about[i]
}

// company reads what the name starting at word a depends on: it looks back
// over at most window words of its sentence, past modifiers ("the", "your",
// "GitHub", "staging") and at most unknown words it does not know, for the
// first word that governs it.
func (s sentences) company(a, unknown int) company {
	var c company
	first := max(s.start[a], a-window)
	for j := a - 1; j >= first; j-- {
		w := s.words[j].lower
		prev := ""
		if j > s.start[a] {
			prev = s.words[j-1].lower
		}
		switch {
		case indefinites[w]:
			c.indefinite = true
		case definites[w]:
			c.definite = true
		case w == "whats", (w == "is" || w == "s" || w == "are" || w == "was") && prev == "what":
			c.gov = govRequest
			return c
		case w == "what" || w == "which":
			c.what = true
			return c
		case w == "of" && (valueOf[prev] || quantifiers[prev]):
			// "the value of your API key" asks for the key; "all of the
			// keys" are the keys.
			j--
		case w == "of":
			c.gov = govPrep // "the first four characters of the access key"
			return c
		case pronouns[w]:
			return c // "do you remember the password": someone else's verb
		case w == "with" && replyVerbs[prev]:
			c.gov = govRequest // "reply with your token"
			return c
		case (w == "know" || w == "have" || w == "see") && prev == "me" && j-2 >= s.start[a] && s.words[j-2].lower == "let":
			c.gov = govRequest // "let me know your PIN"
			return c
		case particles[w] && j > s.start[a] && requestVerb(prev):
			// "hand over the key", "fill in your password": the verb governs.
		case (w == "have" || w == "got") && s.afterYou(j):
			c.gov = govNeed // "do you have the token handy?"
			return c
		case (w == "have" || w == "get" || w == "see") && (prev == "i" || prev == "we"):
			c.gov = govNeed // "can I have your password?"
			return c
		case modifiers[w] || isQualifier(w):
		case j > s.start[a] && qualifierPair(prev+w):
			j-- // "Hugging Face"
		case requestVerb(w):
			c.gov = govAction
			if s.addressed(j) {
				c.gov = govRequest
			}
			return c
		case needVerbs[w]:
			c.gov = govAction
			if s.asker(j) {
				c.gov = govNeed
			}
			return c
		case actionVerb(w):
			c.gov = govAction
			return c
		case prepositions[w]:
			c.gov = govPrep
			return c
		case auxiliaryVerbs[w] && (prev == "what" || prev == "which"):
			c.what = true // "what should the test user's password be?"
			return c
		case auxiliaryVerbs[w]:
			// A yes/no question with the name as its subject: "should the
			// password be hashed?", "where should the key file live?".
			c.gov = govAction
			if j == s.start[a] || whWords[prev] || joiners[prev] {
				c.gov = govAux
			}
			return c
		case whWords[w]:
			c.gov = govWh
			return c
		default:
			if unknown--; unknown < 0 {
				return c
			}
		}
	}
	return c
}

// addressed reports whether the request verb at j is addressed to the
// person: it opens its sentence ("Paste your token"), follows "you" ("can
// you send"), "you to" ("I need you to paste") or "mind" ("would you mind
// sharing"), or asks for it to be given to the asker ("send me").
func (s sentences) addressed(j int) bool {
	if n := s.next(j); n == "me" || n == "us" {
		return true
	}
	p := j - 1
	for p >= s.start[j] && softeners[s.words[p].lower] {
		p--
	}
	if p < s.start[j] {
		return true
	}
	switch s.words[p].lower {
	case "you", "mind", "by":
		return true // "can you send", "would you mind sharing", "by entering"
	case "to":
		return p > s.start[j] && s.words[p-1].lower == "you"
	}
	return false
}

// asker reports whether the need verb at j is the asker's own, in a
// statement rather than a yes/no question: "I need", "we'll need", "I'd
// like", but not "do we need".
func (s sentences) asker(j int) bool {
	if j == s.start[j] {
		return true // "Need your password."
	}
	if auxiliaryVerbs[s.words[s.start[j]].lower] {
		return false
	}
	for p := j - 1; p >= s.start[j] && p >= j-4; p-- {
		w := s.words[p].lower
		if w == "i" || w == "we" {
			return true
		}
		if !needAdverbs[w] {
			return false
		}
	}
	return false
}

// afterYou reports whether "you" comes right before the word at j, or
// before "ve": "do you have", "have you got", "you've got".
func (s sentences) afterYou(j int) bool {
	p := j - 1
	if p >= s.start[j] && s.words[p].lower == "ve" {
		p--
	}
	return p >= s.start[j] && s.words[p].lower == "you"
}

// qualifier returns the qualifier of the weak word at i, among qs: the word
// before it ("access token"), or the two before it written as one
// ("Hugging Face token").
func (s sentences) qualifier(i int, qs set) (string, bool) {
	if i <= s.start[i] {
		return "", false
	}
	if q := s.words[i-1].lower; qs[q] {
		return q, true
	}
	if i-1 > s.start[i] {
		if q := s.words[i-2].lower + s.words[i-1].lower; qs[q] {
			return q, true
		}
	}
	return "", false
}

// qualifierPair reports whether two words written as one qualify a weak
// word: "hugging face", "open ai", "git hub".
func qualifierPair(s string) bool { return isQualifier(s) }

// subject reports whether the name at i is the subject of its clause rather
// than something asked for: an auxiliary or a verb of state follows it
// ("the access token should be cached", "the token expires"), not one that
// says the value is needed ("your token is required"), nor "what" ("your
// password is what?"), and nothing before it asks for it.
func (s sentences) subject(i int) bool {
	if s.words[i].stop || i+1 >= len(s.words) || !auxiliaries[s.words[i+1].lower] || s.words[i+1].stop || s.company(i, 0).asks() {
		return false // "The password is?" asks
	}
	for j := i + 2; j < len(s.words) && j <= i+3; j++ {
		if asked[s.words[j].lower] || s.words[j].lower == "what" {
			return false
		}
		if s.words[j].stop {
			break
		}
	}
	return true
}

// whatAfter reports whether "what" follows the name ending at b in the
// next three words of its sentence: "set api_key to what?".
func (s sentences) whatAfter(b int) bool {
	for j := b + 1; j < len(s.words) && j <= b+3; j++ {
		if s.words[j-1].stop {
			return false
		}
		if s.words[j].lower == "what" {
			return true
		}
	}
	return false
}

// purpose reports whether "to" and a verb of purpose follow the word at i:
// "I need the secret to continue", unlike "the secret to good tests".
func (s sentences) purpose(i int) bool {
	return s.next(i) == "to" && purposeVerbs[s.next(i+1)]
}

// strongAsked decides whether the strong term in words a to b is asked for.
// In order:
//
//  1. A term that names something else is spoken of: "password field", "API
//     key rotation", "the token's expiry".
//  2. A request addressed to the person asks for it ("paste your", "what
//     is"), and so does "what" after it ("set api_key to what?").
//  3. A term that names what holds it, a participle after it, is spoken of:
//     "the credentials file", "the API key passed as a flag".
//  4. The asker's need asks for it ("I need the", "do you have the"), and so
//     does "here" or "below" after it ("your password here").
//  5. "what" or "which" right before it asks for it: "which password do you
//     use for staging?".
//  6. A term worked on, after a preposition, the subject of a yes/no
//     question or of its clause, in a where, how, when, why or whether
//     clause, or one of any, is spoken of: "rotate the access keys", "per
//     API key", "should passwords expire", "the API key should live in
//     Vault", "tell me where the key file lives", "a password", "after five
//     wrong passwords".
//  7. Anything else asks for it: "Password?", "Your API key, please.".
func (s sentences) strongAsked(a, b int) bool {
	next := s.next(b)
	if abstractHeads[next] || possessive(next) {
		return false
	}
	c := s.company(a, strongUnknown)
	if c.gov == govRequest || s.whatAfter(b) {
		return true
	}
	if holderHeads[next] || participle(next) {
		return false
	}
	if c.gov == govNeed || next == "here" || next == "below" {
		return true
	}
	if c.what {
		return true
	}
	if c.spokenOf(s, a) || s.subject(b) {
		return false
	}
	if !c.definite && plural(s.words[b].lower) {
		return false
	}
	return true
}

// asksForIt reports whether a request addressed to the person asks for "it"
// or "them": "Paste it here.", "send them over".
func (s sentences) asksForIt() bool {
	for j, w := range s.words {
		if !requestVerb(w.lower) || !s.addressed(j) {
			continue
		}
		k := j + 1
		if n := s.next(j); n == "me" || n == "us" {
			k++
		}
		if k >= len(s.words) || s.words[k-1].stop {
			continue
		}
		if o := s.words[k].lower; (o == "it" || o == "them") && (s.words[k].stop || itFollowers[s.next(k)]) {
			return true
		}
	}
	return false
}

// possessive reports whether next is the "s" of a possessive: "the API
// key's last four characters".
func possessive(next string) bool { return next == "s" }

// plural reports whether w, the last word of a term, is a plural that names
// any such credential ("passwords", "access keys"), not a word always
// plural ("credentials", "login details").
func plural(w string) bool {
	if !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") {
		return false
	}
	for _, always := range []string{"credentials", "creds", "details", "tials"} {
		if strings.HasSuffix(w, always) {
			return false
		}
	}
	return true
}

// participle reports whether w is a past participle that says what is done
// to the name before it: "the API key passed as a flag", "the token stored
// in Vault".
func participle(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ed") && !asked[w] || irregularParticiples[w]
}

// requestVerb reports whether w asks for something to be given, in its base
// form or its -ing form ("sharing").
func requestVerb(w string) bool { return inflected(requestVerbs, w, true) }

// actionVerb reports whether w does something to a credential, in any of
// its forms.
func actionVerb(w string) bool { return inflected(actionVerbs, w, false) }

// inflected reports whether w is a verb of set, as it is or with "-ing";
// with ingOnly false, also with "-s", "-es", "-d" or "-ed".
func inflected(set set, w string, ingOnly bool) bool {
	if set[w] {
		return true
	}
	if b, ok := strings.CutSuffix(w, "ing"); ok && (set[b] || set[b+"e"] || len(b) > 2 && b[len(b)-1] == b[len(b)-2] && set[b[:len(b)-1]]) {
		return true
	}
	if ingOnly {
		return false
	}
	for _, suffix := range []string{"s", "es", "d", "ed"} {
		if b, ok := strings.CutSuffix(w, suffix); ok && set[b] {
			return true
		}
	}
	return false
}

// The words the rules read.
var (
	// requestVerbs ask the person to give a value when addressed to them.
	requestVerbs = newSet(`enter type paste provide share send give tell input supply submit reveal
		dictate insert fill post drop read write put copy show say text email dm forward hand pass
		message`)

	// replyVerbs take "with" for what they ask for: "reply with your token".
	replyVerbs = newSet(`reply respond answer`)

	// particles go with a request verb: "hand over", "fill in", "send back".
	particles = newSet(`over in back along out up down`)

	// needVerbs ask for a value when the asker says they need it: "I need
	// the token", "I'd like your PIN".
	needVerbs = newSet(`need needs want require like`)

	// needAdverbs may stand between the asker and the need: "I'll really
	// need", "we would also need".
	needAdverbs = newSet(`ll d will would still also just really do first now then definitely only ve am
		shall might may urgently m going to gonna`)

	// actionVerbs do something to a credential; a name they govern is spoken
	// of: "rotate the access keys", "hash the passwords".
	actionVerbs = newSet(`rotate revoke regenerate reset renew refresh expire invalidate hash salt encrypt
		decrypt mask redact hide rename generate create make delete remove validate verify check
		enforce enable disable require document mention log cache commit leak expose protect secure
		store save keep move migrate load fetch pull use pass inject mount export import add set
		configure scope limit lock unlock test lose carry hold accept allow support sign compare
		update change name replace trim strip split parse print display echo send share read write
		copy back rename issue provision own manage audit scan detect find search look list count
		sync upload download transmit transfer encode decode recover retrieve get prefer choose pick
		ask prompt collect request handle treat protect guard expose embed hardcode include exclude
		ignore skip drop keep`)

	// prepositions put a name in the company of something else: "per API
	// key", "the variable for the API key". "of" is read in company.
	prepositions = newSet(`for per with from in on into onto about without by at behind under over across
		between than via through within inside outside after before during against toward towards
		like unlike besides except among to`)

	// valueOf reads "of" as part of a request for the value: "the value of
	// your API key", "the contents of your key file".
	valueOf = newSet(`value contents content text`)

	// quantifiers read "of" as a part of what follows: "all of the keys".
	quantifiers = newSet(`all some any each both none one most many few several either neither`)

	// auxiliaryVerbs open a yes/no question: "should the password be
	// hashed?".
	auxiliaryVerbs = newSet(`is are was were be do does did should shall can could will would must might
		may has have had`)

	// auxiliaries follow a noun that is the subject of its clause: "should
	// the access token be cached", "which SSH key should I use", "the token
	// expires".
	auxiliaries = newSet(`is are was were be been being will would should shall can could must might may
		does do did has have had expires expire gets get stays lives belongs works`)

	// asked words after an auxiliary still ask for the value: "your token is
	// required".
	asked = newSet(`needed required necessary missing mandatory expected wanted`)

	// whWords open a clause about a thing, not a request for its value:
	// "where should the key file live", "tell me whether the token works".
	whWords = newSet(`where how when why whether if who whom whose`)

	// aboutNouns after "what" or "which" make the question about the
	// credential's properties: "what length should passwords be?".
	aboutNouns = newSet(`length format kind type sort size rules rule policy strength scope scopes
		permissions algorithm encryption manager tool service provider name location folder path
		header variable environment way method prefix characters digits place places`)

	// joiners may come before an auxiliary that opens a new question: "and
	// should the token expire?".
	joiners = newSet(`and or but then so also`)

	// softeners may stand before an imperative: "please send", "just paste".
	softeners = newSet(`please kindly just also now then quickly simply first go ahead and pls plz`)

	// pronouns are someone's own: a verb after them is theirs, so a name
	// is not read past them ("do you remember the password?").
	pronouns = newSet(`you i we they he she`)

	// indefinites make a name one of any: "a password", "any API key".
	indefinites = newSet(`a an any no some every each another other`)

	// definites make a name a value the asker has in mind: "the", "your".
	definites = newSet(`the your my our their this that these those its his her`)

	// modifiers may stand between a governing word and a name: "the
	// staging database password", "your old GitHub token"; so may every
	// word that qualifies a weak word (isQualifier).
	modifiers = newSet(`me us it all both s existing stale leaked compromised expired old new current
		production prod staging stage dev development test testing default shared team org
		organization company admin root master database db sudo user users service account personal
		fine grained classic bot app deploy ci cd repo repository project local remote primary backup
		temporary temp encrypted plain plaintext raw hashed real valid right correct exact actual full
		same separate wrong vpn wifi email mail bank router laptop server domain cluster kubernetes k8s
		docker registry cloud aws gcp azure google microsoft apple icloud slack discord twitter
		linkedin facebook paypal sentry datadog sso ldap okta auth0 firebase supabase mongodb postgres
		mysql redis s3 ssh gpg pgp signing secret api access private one time two factor hf npm`)

	// abstractHeads after a name make it part of another notion, which is
	// what the question is about: "password field", "API key rotation".
	abstractHeads = newSet(`field fields form forms input inputs box boxes prompt prompts dialog dialogs
		screen screens page pages toggle meter policy policies rule rules requirement requirements
		rotation rotations manager managers store stores storage length lengths strength complexity
		hash hashes hashing reset resets expiry expiration lifetime age history change changes update
		updates validation validator check checks generator generation scanner scanning detection
		leak leaks exposure authentication auth login logins protection encryption column columns
		table hint hints label labels placeholder mask masking flow flows setup settings setting
		option options feature features support mode modes type types method methods app apps device
		devices provider providers backend list lists count schedule ttl scope scopes permission
		permissions format formats confirmation verification prefix suffix header headers parameter
		parameters param params argument arguments flag flags entry entries name names naming
		character characters digit digits limit limits size sizes cost reuse sharing handling
		management hygiene vault vaults path paths location locations spray sprays attack attacks
		strategy scheme schemes standard standards prompt authenticator`)

	// holderHeads after a name make it the thing that holds the value: "the
	// credentials file". A request still asks for it: "paste the credentials
	// file here".
	holderHeads = newSet(`file files env environment variable variables var vars config configuration
		json yaml string strings value values text contents folder directory dir`)

	// irregularParticiples say what is done to a name before them: "the
	// token kept in Vault".
	irregularParticiples = newSet(`sent kept set shown hidden written read given put stolen leaked known
		held built made`)

	// purposeVerbs after "to" say what a requested value is for: "I need the
	// secret to continue".
	purposeVerbs = newSet(`continue deploy proceed log sign connect access push pull run finish call
		authenticate open start publish release install download upload clone fetch use get finish`)

	// itFollowers may come after a requested "it": "paste it here".
	itFollowers = newSet(`here below over now please to in into so back again directly`)

	// clauseWords after a qualified weak word start another part of the
	// sentence, so the word is talked about rather than asked for, unless a
	// request comes before it: "refresh the access token when it expires" but
	// "paste your access token when ready".
	clauseWords = newSet(`when before after until once while since because now later today tomorrow
		again or and but`)

	// followers may come after a requested weak word: the end of the
	// sentence or one of these.
	followers = newSet(`here below now please so for from with into in to that which you i we and or
		then if when because value itself string text again too as directly exactly first right
		immediately quickly there before handy ready available over asap`)
)
