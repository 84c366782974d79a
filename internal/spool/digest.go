package spool

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"time"
)

// A Digest is the SHA-256 of a tag and a sequence of fields, each written
// as its length in bytes (an unsigned varint, as encoding/binary writes
// it) and its bytes, so that no two sequences of fields give one input.
// A record carries the digest of its words, and an answer the digest of
// the record it was given to.
type Digest struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

// NewDigest starts a digest with tag, which names what is digested and
// the version of the recipe, and ends with a zero byte, so that it can
// never be mistaken for the digest of anything else:
// "wisp pending question v1\x00".
func NewDigest(tag string) *Digest {
	d := &Digest{h: sha256.New()}
	io.WriteString(d.h, tag)
	return d
}

// Field writes s: its length as a uvarint, then its bytes.
func (d *Digest) Field(s string) {
	d.Count(len(s))
	io.WriteString(d.h, s)
}

// Count writes n as a uvarint, such as the number of fields that follow.
func (d *Digest) Count(n int) {
	d.h.Write(d.buf[:binary.PutUvarint(d.buf[:], uint64(n))])
}

// Time writes t as a field: in UTC, RFC 3339 with nanoseconds.
func (d *Digest) Time(t time.Time) { d.Field(t.UTC().Format(time.RFC3339Nano)) }

// Sum returns the digest in lower-case hex.
func (d *Digest) Sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// Sum returns the SHA-256 of a file's bytes, data, in lower-case hex: what
// binds a record of who gave an answer to the answer's file.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
