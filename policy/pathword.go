package policy

import (
	"path"
	"strings"
)

// anyElements, as a whole element of a path pattern, matches any number
// of a path's elements, none included.
const anyElements = "**"

// pathPattern reports whether a word of a Rule's pattern is a path
// pattern: it has "*" in it, and is neither of the wildcards alone.
func pathPattern(w string) bool {
	return w != anyWord && w != anyWords && strings.Contains(w, "*")
}

// badPathPattern returns why a path pattern cannot be one, or "" when it
// can: its characters but "*" are those a command's word may have, no
// element is empty, "." or "..", and "**" stands only as a whole element.
func badPathPattern(w string) string {
	if badCharacters(strings.ReplaceAll(w, "*", "")) != "" {
		return "has a word with a shell metacharacter other than * or a character outside printable ASCII"
	}
	for e := range strings.SplitSeq(w, "/") {
		switch {
		case e == "" || e == "." || e == "..":
			return "has a path pattern with an empty, . or .. element"
		case e != anyElements && strings.Contains(e, anyElements):
			return "has a path pattern with ** inside an element; ** stands alone between slashes"
		}
	}
	return ""
}

// matchPath reports whether a command's word, a slash-separated path,
// matches a path pattern: element by element, "**" as a whole element
// matching any number of elements (none included) and "*" in an element
// any run of characters but "/", letters in either case (as a file system
// that folds case finds the same file). A word that starts with "-" is a
// flag and matches no pattern.
func matchPath(pattern, word string) bool {
	if flag(word) {
		return false
	}
	return matchElements(strings.Split(strings.ToLower(pattern), "/"), strings.Split(strings.ToLower(word), "/"))
}

// matchElements matches a path's elements against a pattern's, as
// wildcard matching does with "**" for the star: on a mismatch it goes
// back to the last "**" and lets it take one more element, so the work
// is at most the product of the two lengths.
func matchElements(pattern, elems []string) bool {
	p, e := 0, 0
	star, taken := -1, 0 // the last "**" seen, and where its elements end
	for e < len(elems) {
		switch {
		case p < len(pattern) && pattern[p] == anyElements:
			star, taken = p, e
			p++
		case p < len(pattern) && matchElement(pattern[p], elems[e]):
			p++
			e++
		case star >= 0:
			taken++
			p, e = star+1, taken
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == anyElements {
		p++
	}
	return p == len(pattern)
}

// matchElement matches one element of a path against one of a pattern
// that is not "**". The path has no metacharacter, and the pattern none
// but "*" (badCharacters refused the rest), so path.Match sees only "*".
func matchElement(pattern, elem string) bool {
	ok, err := path.Match(pattern, elem)
	return err == nil && ok
}
