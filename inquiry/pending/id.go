package pending

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/wisp-agent/wisp/internal/spool"
)

// IDLen is the length of a question ID: 8 characters from 0-9 and a-f,
// such as a1b2c3d4.
const IDLen = 8

// ValidID reports whether id is a question ID: exactly IDLen characters,
// each a digit or a lower-case letter from a to f. Only such a string is
// ever joined to the pending folder's path, so an ID can name no other
// file.
func ValidID(id string) bool { return spool.ValidID(id) }

// checkID refuses an id that is not a question ID.
func checkID(id string) error {
	if ValidID(id) {
		return nil
	}
	return spool.Line(ErrBadID, fmt.Sprintf("%s is not a question ID; an ID is %d characters from 0-9 and a-f, such as a1b2c3d4 (wisp questions list shows them)", spool.QuoteID(id), IDLen))
}

// randomID returns IDLen random hex characters from crypto/rand.
func randomID() string {
	var b [IDLen / 2]byte
	rand.Read(b[:]) // never fails: see crypto/rand.Read
	return hex.EncodeToString(b[:])
}
