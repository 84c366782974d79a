package secrets

import "unicode/utf8"

// Matchers for the rules that read a value by its context (a name and an
// assignment, a URL, a header) rather than by its own shape. Each follows
// its rule's pattern in rules.go step by step, trying the alternatives in
// the pattern's order; where a greedy repetition could give bytes back,
// the comment says why giving them back cannot help.

// sepEnd returns i+1 when the window holds one of "_.-" at i, else i.
func (e *engine) sepEnd(i int) int {
	switch c, _ := e.byteAt(i); c {
	case '_', '.', '-':
		return i + 1
	}
	return i
}

// quoteEnd returns i+1 when the window holds a byte of quotes at i, else i.
func (e *engine) quoteEnd(i int, quotes string) int {
	if c, ok := e.byteAt(i); ok {
		for j := 0; j < len(quotes); j++ {
			if c == quotes[j] {
				return i + 1
			}
		}
	}
	return i
}

// assignEnds returns where the pattern assign, tried at i, can end, in the
// order it tries them (its alternatives, each greedy first).
func (e *engine) assignEnds(i int) (ends [4]int, n int) {
	add := func(end int) {
		for _, x := range ends[:n] {
			if x == end {
				return
			}
		}
		ends[n] = end
		n++
	}
	// ::?:?=
	if e.is(i, ':') {
		j := i + 1
		for k := 0; k < 2 && e.is(j, ':'); k++ {
			j++
		}
		if e.is(j, '=') {
			add(j + 1)
		}
	}
	// :?=
	if e.is(i, ':') && e.is(i+1, '=') {
		add(i + 2)
	} else if e.is(i, '=') {
		add(i + 1)
	}
	switch {
	case e.is(i, '?') && e.is(i+1, '='): // \?=
		add(i + 2)
	case e.is(i, '=') && e.is(i+1, '>'): // =>
		add(i + 2)
	case e.is(i, '-') && e.is(i+1, '>'): // ->
		add(i + 2)
	case e.is(i, '|') && e.is(i+1, '|'): // \|\|=?
		if e.is(i+2, '=') {
			add(i + 3)
		}
		add(i + 2)
	}
	if e.is(i, ':') || e.is(i, '>') { // : and >
		add(i + 1)
	}
	return ends, n
}

// yaml returns where the pattern yamlBlock ends when it matches at i: a
// block scalar header such as "|" or ">-", the line break after it and the
// white space before the value. Each of its repetitions is followed by a
// byte it cannot take, so it matches in one way or not at all.
func (e *engine) yaml(i int) (int, bool) {
	if !e.is(i, '|') && !e.is(i, '>') {
		return 0, false
	}
	i++
	for k := 0; k < 2; k++ {
		if c, ok := e.byteAt(i); !ok || !isDigit(c) && c != '-' && c != '+' {
			break
		}
		i++
	}
	for e.is(i, ' ') || e.is(i, '\t') {
		i++
	}
	if e.is(i, '\r') {
		i++
	}
	if !e.is(i, '\n') {
		return 0, false
	}
	return e.run(clsSpace, i+1), true
}

// tryAWSSecret matches the aws-secret-key rule at s.
func tryAWSSecret(e *engine, s int) (match, bool) {
	k, ok := e.awsSecretName(s)
	if !ok {
		return match{}, false
	}
	return e.assigned(s, e.run(clsSpace, e.quoteEnd(k, `"'`)), e.awsSecretValue)
}

// assigned matches, at k, an assignment (see assignEnds), white space, an
// optional YAML block header and then what value matches, in a match that
// starts at s. Each way the assignment can end is tried in turn.
func (e *engine) assigned(s, k int, value func(s, v int) (match, bool)) (match, bool) {
	ends, n := e.assignEnds(k)
	for _, a := range ends[:n] {
		v := e.run(clsSpace, a)
		if y, ok := e.yaml(v); ok {
			if m, ok := value(s, y); ok {
				return m, true
			}
		}
		if m, ok := value(s, v); ok {
			return m, true
		}
	}
	return match{}, false
}

// awsSecretName returns where the name of an AWS secret key that starts at
// s ends: aws[_.-]?secret[_.-]?(?:access[_.-]?)?key or
// secret[_.-]?access[_.-]?key. A separator taken that the next word does
// not follow leaves that word to start on the separator, which it cannot.
func (e *engine) awsSecretName(s int) (int, bool) {
	if e.lit(s, "aws", true) {
		k := e.sepEnd(s + 3)
		if e.lit(k, "secret", true) {
			k = e.sepEnd(k + 6)
			if e.lit(k, "access", true) {
				k = e.sepEnd(k + 6)
			}
			if e.lit(k, "key", true) {
				return k + 3, true
			}
		}
	}
	if e.lit(s, "secret", true) {
		k := e.sepEnd(s + 6)
		if e.lit(k, "access", true) {
			k = e.sepEnd(k + 6)
			if e.lit(k, "key", true) {
				return k + 3, true
			}
		}
	}
	return 0, false
}

// awsSecretValue matches ["'`]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$) at
// v, in a match that starts at s.
func (e *engine) awsSecretValue(s, v int) (match, bool) {
	q := e.quoteEnd(v, "\"'`")
	if e.run(clsB64, q)-q < 40 {
		return match{}, false
	}
	end := q + 40
	mend := end
	if c, ok := e.byteAt(end); ok {
		if clsB64.in[c] || c == '=' {
			return match{}, false
		}
		mend = e.runeEnd(end)
	}
	return match{start: s, end: mend, vstart: q, vend: end, group: 1}, true
}

// urlMayStart reports whether a URL with a password may start at s: a
// letter at a word boundary.
func urlMayStart(e *engine, s int) bool {
	c, ok := e.byteAt(s)
	return ok && isLetter(c) && (s == 0 || !isWordByte(e.text[s-1]))
}

// awsSecretMayStart reports whether the name of an AWS secret key may start
// at s.
func awsSecretMayStart(e *engine, s int) bool {
	c, ok := e.byteAt(s)
	return ok && (c|0x20 == 'a' || c|0x20 == 's')
}

// tryURLPassword matches the url-password rule at s:
// \b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@"'<>`]*:([^\s/"'<>`]{3,})@[^\s/@"'<>`].
func tryURLPassword(e *engine, s int) (match, bool) {
	if c, ok := e.byteAt(s); !ok || !isLetter(c) || !e.boundary(s) {
		return match{}, false
	}
	// The scheme's class holds no ':', so its run must end at "://".
	r := e.run(clsScheme, s+1)
	if n := r - (s + 1); n < 1 || n > 20 || !e.lit(r, "://", false) {
		return match{}, false
	}
	// Nor does the user's, so the password starts after the first ':'.
	u := e.run(clsUser, r+3)
	if !e.is(u, ':') {
		return match{}, false
	}
	ps := u + 1
	pe := e.run(clsPassword, ps)
	// The password's class holds '@': the longest password is the one
	// that ends at the last '@' of its run that a host byte follows, which
	// is any byte of the run but '@'.
	for q := pe - 2; q >= ps; q-- {
		if e.text[q] == '@' && e.text[q+1] != '@' {
			if utf8.RuneCountInString(e.text[ps:q]) < 3 {
				return match{}, false
			}
			return match{start: s, end: e.runeEnd(q + 1), vstart: ps, vend: q, group: 1}, true
		}
	}
	return match{}, false
}

// authSchemes are the words the bearer rule reads between a header's colon
// and its credential, in the pattern's order.
var authSchemes = []string{"bearer", "basic", "token", "digest", "bot", "apikey", "sso-key"}

// tryBearer matches the bearer-token rule at s: an Authorization header
// (group 1) or the word bearer (group 2) and the credential after it.
func tryBearer(e *engine, s int) (match, bool) {
	if !e.boundary(s) {
		return match{}, false
	}
	k := -1
	switch {
	case e.lit(s, "proxy-authorization", true):
		k = s + len("proxy-authorization")
	case e.lit(s, "authorization", true):
		k = s + len("authorization")
	}
	if k >= 0 {
		k = e.run(clsSpace, e.quoteEnd(k, `"'`))
		if e.is(k, ':') || e.is(k, '=') {
			k = e.quoteEnd(e.run(clsSpace, k+1), `"'`)
			for _, scheme := range authSchemes {
				if !e.lit(k, scheme, true) {
					continue
				}
				w := k + len(scheme)
				if v := e.run(clsSpace, w); v > w {
					if r := e.run(clsHeader, v); r-v >= 12 {
						return match{start: s, end: r, vstart: v, vend: r, group: 1}, true
					}
				}
				break
			}
			if r := e.run(clsHeader, k); r-k >= 12 {
				return match{start: s, end: r, vstart: k, vend: r, group: 1}, true
			}
		}
	}
	if e.lit(s, "bearer", true) {
		v := e.run(clsSpace, s+6)
		if v > s+6 {
			if r := e.run(clsHeader, v); r-v >= 16 {
				return match{start: s, end: r, vstart: v, vend: r, group: 2}, true
			}
		}
	}
	return match{}, false
}

// The names of genericPattern, in its order: after "(?:^|[^a-z])", the
// short words; after a lower-case letter or digit, the capitalised ones;
// then the words that may start anywhere, and the prefixes of "key".
var (
	shortNames   = []string{"pass", "pwd", "auth"}
	camelNames   = []string{"Pass", "PASS", "Pwd", "PWD", "Auth"}
	longNames    = []string{"password", "passwd", "passphrase", "passcode", "secret", "token", "credentials", "credential"}
	keyPrefixes  = []string{"api", "access", "private", "encryption", "signing", "master", "licence", "license", "session", "client", "app", "shared"}
	namesByFirst [256][]string
)

// keysByFirst holds keyPrefixes by their first letter, in either case.
var keysByFirst [256][]string

func init() {
	for _, k := range keyPrefixes {
		keysByFirst[k[0]] = append(keysByFirst[k[0]], k)
		keysByFirst[k[0]-'a'+'A'] = append(keysByFirst[k[0]-'a'+'A'], k)
	}
	for _, n := range longNames {
		namesByFirst[n[0]] = append(namesByFirst[n[0]], n)
		namesByFirst[n[0]-'a'+'A'] = append(namesByFirst[n[0]-'a'+'A'], n)
	}
}

// genericMayStart reports whether a name of the generic rule may start at
// s: the first two letters of a name, a lower-case letter or digit before
// a capital P or A ("dbPass"), or any other character before "pa", "pw"
// or "au".
func genericMayStart(e *engine, s int) bool {
	if s+1 >= e.hi {
		e.saw(e.hi)
		return s == 0 && s < e.hi
	}
	c, d := e.text[s], e.text[s+1]
	e.saw(s + 2)
	if ('a' <= c && c <= 'z' || isDigit(c)) && (d == 'P' || d == 'A') {
		return true
	}
	if isLetter(c) {
		return isLetter(d) && nameStarts[c|0x20-'a'][d|0x20-'a']
	}
	if s == 0 {
		return true
	}
	n := e.runeEnd(s)
	if n+1 >= e.hi {
		e.saw(e.hi)
		return false
	}
	e.saw(n + 2)
	if !isLetter(e.text[n]) || !isLetter(e.text[n+1]) {
		return false
	}
	switch uint16(e.text[n]|0x20)<<8 | uint16(e.text[n+1]|0x20) {
	case 'p'<<8 | 'a', 'p'<<8 | 'w', 'a'<<8 | 'u':
		return true
	}
	return false
}

// nameStarts[a][b] says a name of the generic rule that starts at a word
// may start with the letters 'a'+a and 'a'+b.
var nameStarts = func() (t [26][26]bool) {
	for _, names := range [][]string{shortNames, longNames, keyPrefixes} {
		for _, n := range names {
			t[n[0]|0x20-'a'][n[1]|0x20-'a'] = true
		}
	}
	return t
}()

// tryGeneric matches the generic rule at s: a name, an assignment or "is",
// and a value. See genericPattern.
func tryGeneric(e *engine, s int) (match, bool) {
	c, ok := e.byteAt(s)
	if !ok {
		return match{}, false
	}
	// (?:^|[^a-z])(?:pass|pwd|auth)
	if s == 0 {
		if m, ok := e.genericNames(s, s, shortNames, true); ok {
			return m, true
		}
	}
	if !isLetter(c) {
		if m, ok := e.genericNames(s, e.runeEnd(s), shortNames, true); ok {
			return m, true
		}
	}
	// (?-i:[a-z0-9](?:Pass|PASS|Pwd|PWD|Auth)): each name starts with
	// 'P' or 'A'.
	if 'a' <= c && c <= 'z' || isDigit(c) {
		if d, ok := e.byteAt(s + 1); ok && (d == 'P' || d == 'A') {
			if m, ok := e.genericNames(s, s+1, camelNames, false); ok {
				return m, true
			}
		}
	}
	if !isLetter(c) {
		return match{}, false
	}
	// passw(?:or)?d|passphrase|passcode|secret|token|credentials?
	if m, ok := e.genericNames(s, s, namesByFirst[c], true); ok {
		return m, true
	}
	// (?:api|access|…|shared)[_.-]?key
	for _, prefix := range keysByFirst[c] {
		if !e.lit(s, prefix, true) {
			continue
		}
		k := e.sepEnd(s + len(prefix))
		if e.lit(k, "key", true) {
			if m, ok := e.genericRest(s, k+3); ok {
				return m, true
			}
		}
	}
	return match{}, false
}

// genericNames tries each of names at i, in a match that starts at s.
func (e *engine) genericNames(s, i int, names []string, fold bool) (match, bool) {
	for _, name := range names {
		if e.lit(i, name, fold) {
			if m, ok := e.genericRest(s, i+len(name)); ok {
				return m, true
			}
		}
	}
	return match{}, false
}

// genericRest matches what follows a name that ends at k: a suffix, then an
// assignment and a value, or "is" and a value.
func (e *engine) genericRest(s, k int) (match, bool) {
	// (?:[_.-][a-z0-9]+){0,3}[0-9]*: the longest suffix is the only one
	// that can be followed by what comes next, since every shorter one is
	// followed by a letter, a digit, or a separator and a letter or digit.
	for rep := 0; rep < 3; rep++ {
		if c, ok := e.byteAt(k + 1); ok && e.sepEnd(k) == k+1 && isAlnum(c) {
			k = e.run(clsAlnum, k+1)
			continue
		}
		break
	}
	k = e.run(clsDigit, k)

	// ["'\]]{0,2}\s*ASSIGN\s*YAML?VALUE
	q := k
	for j := 0; j < 2; j++ {
		q = e.quoteEnd(q, `"']`)
	}
	if m, ok := e.assigned(s, e.run(clsSpace, q), e.genericValue); ok {
		return m, true
	}

	// \s+(?:is|was)\s*:?\s+["'`]?VALUE
	w := e.run(clsSpace, k)
	if w == k {
		return match{}, false
	}
	var after int
	switch {
	case e.lit(w, "is", true):
		after = w + 2
	case e.lit(w, "was", true):
		after = w + 3
	default:
		return match{}, false
	}
	a := e.run(clsSpace, after)
	if e.is(a, ':') {
		if b := e.run(clsSpace, a+1); b > a+1 {
			if m, ok := e.bareValue(s, b, genericProseGroup); ok {
				return m, true
			}
		}
	}
	// Without the colon, the white space before it is \s+ and the value
	// starts where the white space ends.
	if a > after {
		return e.bareValue(s, a, genericProseGroup)
	}
	return match{}, false
}

// genericValue matches the value of an assignment at v: a string in double
// quotes with escapes (group 1), in single quotes (2) or backquotes (3), or
// a bare word (4).
func (e *engine) genericValue(s, v int) (match, bool) {
	q0, ok := e.byteAt(v)
	if !ok {
		return match{}, false
	}
	t := e.text
	switch q := q0; q {
	case '"':
		j := v + 1
	quoted:
		for j < e.hi {
			switch t[j] {
			case '"':
				if j > v+1 {
					e.saw(j + 1)
					return match{start: s, end: j + 1, vstart: v + 1, vend: j, group: 1}, true
				}
				break quoted
			case '\r', '\n':
				break quoted
			case '\\':
				// \\. takes any character but a line break.
				if j+1 < e.hi && t[j+1] != '\n' {
					j += 2
					continue
				}
				break quoted
			}
			j++
		}
		e.saw(min(j+2, e.hi))
	case '\'', '`':
		j := v + 1
		for j < e.hi && t[j] != q && t[j] != '\r' && t[j] != '\n' {
			j++
		}
		e.saw(min(j+1, e.hi))
		if j < e.hi && t[j] == q && j > v+1 {
			group := 2
			if q == '`' {
				group = 3
			}
			return match{start: s, end: j + 1, vstart: v + 1, vend: j, group: group}, true
		}
	}
	return e.bareValue(s, v, genericGroupBare)
}

// bareValue matches ["'`]?([^\s"'`<>]*[^\s"'`<>.,;:!?)\]}]) at v: the run of
// bytes a bare value may hold, less the punctuation it ends with.
func (e *engine) bareValue(s, v, group int) (match, bool) {
	w := e.quoteEnd(v, "\"'`")
	r := e.run(clsBare, w)
	for r > w && isClosingPunct(e.text[r-1]) {
		r--
	}
	if r == w {
		return match{}, false
	}
	return match{start: s, end: r, vstart: w, vend: r, group: group}, true
}

// isClosingPunct reports whether a bare value may not end with c.
func isClosingPunct(c byte) bool {
	switch c {
	case '.', ',', ';', ':', '!', '?', ')', ']', '}':
		return true
	}
	return false
}
