// Package inquiry enforces the question contract once, whatever face the
// person uses. A Desk takes the model's questions from the ask tool (Ask)
// and the ask_user tool (AskCard), checks them (limits, the secret rule,
// one question waiting per thread, two per turn, no repeats, a declined
// question never asked again), puts them to the person through a
// wisp.Inquirer, and turns the answer into the line the model reads and
// the facts the thread keeps: scanned for credentials, cut to size, its
// provenance said, and recorded in the audit log.
//
// Faces (inquiry/terminal, inquiry/jsonl, inquiry/unattended and any of
// one's own) only show and read; every rule lives here. The fixed lines
// the model reads are in lines.go, each a contract pinned by a test.
package inquiry
