// Package spool holds the rules for a folder of small JSON files that
// wisp's processes hand to each other: the parked questions of
// inquiry/pending and the approval requests of policy/outofband.
//
// A spool folder is mode 0700 and its files 0600, whatever the umask. A
// [Spool] refuses, with one line that says how to mend it, a folder that
// is a symbolic link, not a folder, another user's, or writable by its
// group or others, and the same of any file in it, which it opens without
// following links and never reads past its MaxFileBytes.
//
// Files are named after 8-character hex IDs ([ValidID]):
// "<id>.<kind>.json", and ".<id>.<kind>.json.tmp-<digits>" for the temp
// files a crash can leave. Only a valid ID is ever joined to the folder's
// path, so an ID can name no other file.
//
// Files appear whole or not at all: [WriteFile] replaces a file through a
// synced temp file and a rename, and [CreateExclusive] creates one through
// a synced temp file and link(2), which fails when the name exists, so of
// any number of writers racing for one name exactly one succeeds. Changes
// serialise on the folder's advisory lock file, [LockName].
//
// A [Ledger] is a spool folder of records that each wait for one answer:
// it files them, takes the first answer or a withdrawal, waits for the
// end, and settles and sweeps in an order that makes every crash safe.
// Its caller keeps what is its own: the types and formats of its records
// and answers, its rules, and the lines that refuse. A record carries a
// [Digest] of its words, and an answer the digest of the record it was
// given to.
//
// A [Store] is a Ledger's folder as its users keep it, one [Kind] of
// record: the clock, the Witness that records who answers (an answer is
// recorded before its file appears, and taken only when a record vouches
// for it), and the redactor. inquiry/pending and policy/outofband each
// wrap one Store; what a parked record goes through is written once,
// here, and each keeps only its types, formats, rules and lines.
//
// The package reads no environment variables and prints nothing.
package spool
