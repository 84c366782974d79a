package pending

import (
	"regexp"
	"slices"
	"strings"
)

// A Damaged question is a question file that wisp cannot read back: cut
// short, edited (its digest no longer matches), too large, with unknown
// keys, or not a question at all. It is never answered; the thread it
// names is told so on its next turn.
type Damaged struct {
	// ID is the question's ID, as its file's name gives it.
	ID string
	// Thread is the thread the file names, when that much of it can be
	// read; "" when it cannot.
	Thread string
	// Err says what is wrong with the file, in a line that names it and
	// how to mend it; it wraps ErrMalformed.
	Err error
}

// Damaged returns the question files in the folder that are not
// questions wisp wrote, which List, Get and Filed pass over, by ID. It
// returns nothing when the folder does not exist, and fails, as List
// does, on a file it must not trust.
func (s Store) Damaged() ([]Damaged, error) {
	found, err := s.store().Damaged()
	if err != nil {
		return nil, err
	}
	var ds []Damaged
	for _, d := range found {
		ds = append(ds, Damaged{ID: d.ID, Thread: threadOf(d.Head), Err: d.Err})
	}
	slices.SortFunc(ds, func(a, b Damaged) int { return strings.Compare(a.ID, b.ID) })
	return ds, nil
}

// threadKey finds the thread a question file names: its "thread" key
// with a value that is a thread ID.
var threadKey = regexp.MustCompile(`"thread"\s*:\s*"([A-Za-z0-9][A-Za-z0-9._-]{0,127})"`)

// threadOf returns the thread that the start of a question file, data,
// names, or "" when it names none, or more than one.
func threadOf(data []byte) string {
	m := threadKey.FindAllSubmatch(data, 2)
	if len(m) != 1 {
		return ""
	}
	return string(m[0][1])
}
