// Package secrets holds the credential rules that wisp applies to what a
// person types and to what a model asks of them, and the session's vault of
// the credentials the person gives on purpose.
//
// Two checks share these rules:
//
//   - [AsksForSecret] reports whether a model's question asks the person for
//     a secret (a password, an API key, a one-time code, …) so the question can
//     be refused before anyone sees it. It reads each credential's name in its
//     sentence, so a question that only speaks of one ("should the password
//     field be optional?") is not refused.
//   - [Scan] and [Redactor.Redact] find credential-shaped values in the
//     person's answer, and Redact replaces each with a numbered marker such as
//     "[REDACTED:github-pat#1]" before the answer reaches a model, an audit
//     record or a screen. Redaction runs once, where the answer enters the
//     process; nothing downstream ever holds the raw text.
//
// # Rules
//
// [Rules] lists every rule. Provider rules match a documented token format
// (a fixed prefix, alphabet and length, such as "ghp_" GitHub tokens or PEM
// private keys). The one generic rule, "generic-secret", matches a value
// assigned to a name that says it is secret ("DB_PASSWORD=…",
// `"api_key": "…"`). A rule id is part of the contract: it appears in markers.
//
// The rules favour recall over precision. Hiding a harmless value from a
// model costs little; letting a credential through leaks it into model input
// and the audit log. Provider rules therefore carry no allowlist of documented
// example keys; only the generic rule skips placeholders such as "${VAR}",
// "{{ x }}", "%VAR%", "$VAR" and values made of one repeated character.
// Entropy gates (Shannon bits per character) reject runs like
// "ghp_xxxxxxxx…".
//
// # What is scanned
//
// Besides the text itself, the scanner looks at copies of it with
// default-ignorable characters removed (zero-width spaces, joiners, soft
// hyphens, tag characters, …), with percent-escapes decoded, with JSON and
// backslash escapes decoded, and with long base64 or hex runs decoded when
// they decode to text. Decoding is applied at most twice in a row. Every
// match found in a copy is mapped back to the bytes of the original text that
// produced it, so a secret split by invisible characters or written as
// "%2B…" is replaced whole, escapes included. A match inside a decoded base64
// or hex run replaces the whole run.
//
// # How the scan runs
//
// Each rule is a regular expression (in which (?i) folds ASCII letters only)
// and one or more anchors, literal strings that every match holds. One pass
// of an Aho-Corasick automaton over the text finds the anchors of every rule
// at once; each rule then reads only the bytes around its own anchors, with
// a matcher written for its pattern that finds exactly what the pattern
// finds there (the tests check one against the other). A run of token
// characters is read once however many anchors it holds, and anchors inside
// a match are skipped, so a scan takes time linear in the text whatever the
// text holds. A decoded copy takes the anchors, and what each rule found at
// them, of the bytes it holds unchanged from the text it was made from, and
// the second pass of [Redactor.Redact] reuses what the first read wherever
// its markers changed nothing. Nothing makes a network call: no rule
// verifies a credential with its provider.
//
// [Scan] is the scan itself, for a scanner of files: it reports each value's
// rule and byte offsets, never the value.
//
// # Secrets by reference
//
// A [Vault] holds the credentials a person gives in answer to a secret
// question, sealed with AES-256-GCM under a key that lives in memory for
// the session only. The model is told a reference, "session:GH_TOKEN",
// never the value; a tool resolves it when it runs ([Vault.Resolve],
// [Vault.Environ] for a command's environment). The Vault is made with the
// session's Redactor, which from then on replaces each of its values
// wherever it appears (exactly, or in a copy the scanner decodes) with
// "[REDACTED:session:GH_TOKEN]", so a command that prints the value gives
// the model, the audit log and the thread files only the marker.
//
// # Markers
//
// Markers have the form "[REDACTED:<rule-id>#<n>]". A [Redactor] numbers
// values per rule id, starting at 1, and gives a value it has seen before the
// same number, so a model can still tell "the same key as before" from a new
// one. A Vault's value is marked by its name instead,
// "[REDACTED:session:<NAME>]" ([VaultMarker]), which tells the model which
// of its references it was. No marker matches any rule, and the scanner
// ignores anything that overlaps a marker, so redacting redacted text
// changes nothing.
//
// # Language
//
// The keyword lists behind [AsksForSecret] and the generic rule's names are
// English only. A question that asks for a password in another language is
// not recognised.
package secrets
