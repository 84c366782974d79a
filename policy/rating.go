package policy

import (
	"fmt"
	"strings"
)

// Rating is how much harm the classifier sees in a command. Ratings are
// ordered: Safe < Moderate < Dangerous.
type Rating int

// The ratings, least harm first. The zero Rating is Safe, so that a zero
// GateOptions.Threshold asks the person about everything.
const (
	Safe      Rating = iota // only reads
	Moderate                // changes something the person can undo
	Dangerous               // the person's alone, or not known
)

var ratingNames = [...]string{Safe: "safe", Moderate: "moderate", Dangerous: "dangerous"}

// String returns the rating's name as the audit log and approval.threshold
// spell it: "safe", "moderate" or "dangerous".
func (r Rating) String() string {
	if r >= 0 && int(r) < len(ratingNames) {
		return ratingNames[r]
	}
	return fmt.Sprintf("Rating(%d)", int(r))
}

// ParseRating reads a rating's name, in any case and with surrounding
// spaces ignored. Any other text is an error naming the three names.
func ParseRating(s string) (Rating, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for r, name := range ratingNames {
		if t == name {
			return Rating(r), nil
		}
	}
	return Safe, fmt.Errorf("policy: %q is not a rating; want safe, moderate or dangerous", s)
}

// MarshalText writes the rating's name; a rating with no name is an error.
func (r Rating) MarshalText() ([]byte, error) {
	if r < 0 || int(r) >= len(ratingNames) {
		return nil, fmt.Errorf("policy: %v has no name", r)
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads a rating's name as ParseRating does.
func (r *Rating) UnmarshalText(b []byte) error {
	v, err := ParseRating(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
