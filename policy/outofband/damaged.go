package outofband

import (
	"slices"
	"strings"
)

// A Damaged request is a request file that wisp cannot read back: cut
// short, edited (its digest no longer matches), too large, with unknown
// keys, or not a request at all. Nothing approves it: the Approver that
// waits on it refuses it.
type Damaged struct {
	// ID is the request's ID, as its file's name gives it.
	ID string
	// Err says what is wrong with the file, in a line that names it and
	// how to mend it; it wraps ErrMalformed.
	Err error
}

// Damaged returns the request files in the folder that are not requests
// wisp wrote, which List and Get pass over, by ID. It returns nothing
// when the folder does not exist, and fails, as List does, on a file it
// must not trust.
func (s Store) Damaged() ([]Damaged, error) {
	found, err := s.store().Damaged()
	if err != nil {
		return nil, err
	}
	var ds []Damaged
	for _, d := range found {
		ds = append(ds, Damaged{ID: d.ID, Err: d.Err})
	}
	slices.SortFunc(ds, func(a, b Damaged) int { return strings.Compare(a.ID, b.ID) })
	return ds, nil
}
