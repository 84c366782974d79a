// Package plural writes a count with its noun in agreement with it, as
// wisp's messages say how many of something they got.
package plural

import "strconv"

// Count writes n and noun, a noun that takes -s in the plural: "no
// arguments", "1 argument", "2 arguments".
func Count(n int, noun string) string {
	switch n {
	case 0:
		return "no " + noun + "s"
	case 1:
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
