package policy

import (
	"strings"
	"testing"
)

// naive matches as matchElements does, by trying every split of the
// elements at each "**".
func naive(pattern, elems []string) bool {
	if len(pattern) == 0 {
		return len(elems) == 0
	}
	if pattern[0] == anyElements {
		for j := 0; j <= len(elems); j++ {
			if naive(pattern[1:], elems[j:]) {
				return true
			}
		}
		return false
	}
	return len(elems) > 0 && matchElement(pattern[0], elems[0]) && naive(pattern[1:], elems[1:])
}

// matchElements, which goes back only to the last "**", matches exactly
// what trying every split would.
func FuzzMatchElements(f *testing.F) {
	for _, s := range [][2]string{
		{"**/.git/**", ".git"},
		{"**/.git/**", "a/b/.git/hooks/x"},
		{"a/**/b/**/c", "a/b/x/b/c"},
		{"**/*x*/**/y", "q/x/y/x/z/y"},
		{"**/**", ""},
		{"*", "a/b"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, word string) {
		if len(pattern) > 64 || len(word) > 64 || badCharacters(word) != "" || badPathPattern(pattern) != "" {
			return
		}
		p, e := strings.Split(pattern, "/"), strings.Split(word, "/")
		if got, want := matchElements(p, e), naive(p, e); got != want {
			t.Fatalf("matchElements(%q, %q) = %v, want %v", pattern, word, got, want)
		}
	})
}
