package spool

import (
	"errors"
	"time"
)

// KindWithdrawn is the kind of a withdrawal's file:
// "<id>.withdrawn.json".
const KindWithdrawn = "withdrawn"

// MaxWhyBytes bounds the reason for a withdrawal.
const MaxWhyBytes = 200

// A Withdrawal is the JSON form of a withdrawal, <id>.withdrawn.json: a
// record that takes no answer, and why.
type Withdrawal struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Why     string    `json:"why"`
	At      time.Time `json:"at"`
}

// CheckWhy checks the reason for a withdrawal: one line of UTF-8, 1 to
// MaxWhyBytes bytes, without control characters.
func CheckWhy(why string) error {
	return CheckLine("the reason for withdrawing", why, MaxWhyBytes)
}

// ParseWithdrawal reads a withdrawal file of the format version: the
// JSON wisp writes, a valid ID and a reason CheckWhy accepts. idName
// names the ID in its errors, such as "question ID".
func ParseWithdrawal(data []byte, version int, idName string) (Withdrawal, error) {
	var w Withdrawal
	if err := DecodeJSON(data, &w); err != nil {
		return w, err
	}
	if w.Version != version || !ValidID(w.ID) {
		return w, errors.New("bad version or " + idName)
	}
	if err := CheckWhy(w.Why); err != nil {
		return w, err
	}
	return w, nil
}
