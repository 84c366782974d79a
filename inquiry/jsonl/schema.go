package jsonl

import (
	_ "embed"
	"slices"
)

//go:embed schema.json
var schema []byte

// Schema returns the protocol's JSON Schema (draft 2020-12), which
// describes every line of either direction: its "$defs" name each type,
// and "fromWisp" and "fromClient" gather each side's. Every golden line
// of this package validates against it. The result is a copy the caller
// may keep.
func Schema() []byte { return slices.Clone(schema) }
