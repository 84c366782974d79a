package askuser

import (
	"encoding/json"

	"github.com/wisp-agent/wisp/inquiry"
)

// Decode is what the tool makes of arguments that have its schema's
// shape: the card request it gives the desk.
func Decode(raw json.RawMessage) (inquiry.CardRequest, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return inquiry.CardRequest{}, err
	}
	return card(a)
}
