package secrets

import "strings"

// Hand-written matchers for formats whose parts have no useful length bound.
// Both run in time linear in the text.

const (
	pemBegin = "-----BEGIN"
	pemEnd   = "-----END"
	// minPEMBody is the least number of bytes between the BEGIN and END lines
	// of a private key block.
	minPEMBody = 64
	// minCutPEMRun is the least run of base64 that must follow a BEGIN line
	// with no END line for the rest of the text to count as a cut-off key.
	minCutPEMRun = 20
)

// pemLabel reports whether text[i:] is a private key BEGIN or END line, whose
// keyword (pemBegin or pemEnd) is at i, and returns where the line's closing
// dashes end. The label between keyword and "PRIVATE KEY" may hold up to 100
// characters of [ A-Z0-9_-] ("RSA", "OPENSSH", "ENCRYPTED", "PGP", …), and a
// PGP key ends in "PRIVATE KEY BLOCK".
func pemLabel(text string, i int, keyword string) (int, bool) {
	j := i + len(keyword)
	limit := min(len(text), j+100+len(" PRIVATE KEY BLOCK-----"))
	k := j
	for k < limit {
		c := text[k]
		if c == ' ' || c == '_' || c == '-' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			k++
			continue
		}
		break
	}
	line := text[j:k]
	p := strings.Index(line, "PRIVATE KEY")
	if p < 0 || p > 100 {
		return 0, false
	}
	rest := line[p+len("PRIVATE KEY"):]
	switch {
	case strings.HasPrefix(rest, "-----"):
		return j + p + len("PRIVATE KEY") + 5, true
	case strings.HasPrefix(rest, " BLOCK-----"):
		return j + p + len("PRIVATE KEY BLOCK-----"), true
	}
	return 0, false
}

// findPrivateKeys reports PEM private key blocks from BEGIN line to END line.
// A BEGIN line followed by base64 but by no END line is a key cut off in the
// paste: everything from the BEGIN line to the end of the text is reported.
func findPrivateKeys(text string, at []int, emit func(start, end int)) {
	// next finds the first END line that starts at or after from. The
	// BEGIN lines come in order, so the last END line found, or the
	// offset after which there is none, answers most calls.
	// No END line starts in [from, searched) for a from past found.
	found, foundEnd, searched := -1, 0, 0
	next := func(from int) (int, int, bool) {
		if found >= from {
			return found, foundEnd, true
		}
		i := max(from, searched)
		for i < len(text) {
			j := strings.Index(text[i:], pemEnd)
			if j < 0 {
				searched = len(text)
				return 0, 0, false
			}
			i += j
			if e, ok := pemLabel(text, i, pemEnd); ok {
				found, foundEnd, searched = i, e, i
				return i, e, true
			}
			i += len(pemEnd)
			searched = i
		}
		return 0, 0, false
	}
	done := 0 // text before this offset is already reported
	for _, i := range at {
		headerEnd, ok := pemLabel(text, i, pemBegin)
		if !ok || i < done {
			continue
		}
		switch _, lineEnd, ok := next(headerEnd + minPEMBody); {
		case ok:
			emit(i, lineEnd)
			done = lineEnd
		case hasBase64Run(text[headerEnd:min(len(text), headerEnd+256)], minCutPEMRun):
			emit(i, len(text))
			return
		}
	}
}

// hasBase64Run reports whether s holds n base64 characters in a row.
func hasBase64Run(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if isBase64Std(s[i]) {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// Least lengths of the parts of a JSON Web Token, "eyJ" included.
const (
	minJWTHeader  = 16
	minJWTPayload = 16
)

// findJWTs reports JSON Web Tokens: a base64url header and payload that each
// start with "eyJ" (base64 of `{"`), separated by dots, and an optional
// signature, which an unsigned token leaves empty. A JWE, with five parts, is
// reported whole.
func findJWTs(text string, at []int, emit func(start, end int)) {
	next := 0
	for _, start := range at {
		if start < next || start > 0 && isWordByte(text[start-1]) {
			continue
		}
		var end int
		end, next = jwtAt(text, start)
		if end > 0 {
			emit(start, end)
		}
	}
}

// jwtAt reads a token starting at text[start:], which begins "eyJ". It returns
// where the token ends (0 when there is none) and where to look next.
func jwtAt(text string, start int) (end, next int) {
	run := func(i int) int { return clsB64URL.runEnd(text, i) }
	h := run(start)
	if h-start < minJWTHeader || h >= len(text) || text[h] != '.' || !strings.HasPrefix(text[h+1:], "eyJ") {
		// Any "eyJ" before h reaches the same end of run and fails too.
		return 0, max(h, start+1)
	}
	p := run(h + 1)
	if p-(h+1) < minJWTPayload {
		return 0, h + 1
	}
	end = p
	// Up to three more dot-separated parts: the signature, or the rest of a
	// JWE.
	for parts := 0; parts < 3 && end < len(text) && text[end] == '.'; parts++ {
		e := run(end + 1)
		if e == end+1 && parts > 0 {
			break
		}
		end = e
	}
	return end, end
}

// isWordByte reports whether c is a word byte, as regexp's \w reads it.
func isWordByte(c byte) bool { return wordBytes[c] }

var wordBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
	}
	return t
}()
