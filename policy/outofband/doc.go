// Package outofband lets a person decide wisp's approval requests from
// outside the conversation that made them. Under wisp mcp nothing in the
// MCP conversation may approve what wisp's model asks to do, so with
// approval.outOfBand on a request is filed on disk, where wisp approvals
// at a terminal (or the MCP client's dialog) can answer it; the first
// answer wins, and silence refuses.
//
// An [Approver] is the wisp.Approver that policy.Gate asks: it files each
// request in a [Store], announces it, and waits for the first decision up
// to its hold (60 s by default). The faces that answer list ([Store.List])
// and show ([Store.Get]) requests, and file decisions ([Store.Decide])
// bound to the digest of what they showed.
//
// # The folder
//
// A [Store] keeps everything in one folder, $WISP_HOME/approvals, mode
// 0700. Every method refuses the folder, with one line that says how to
// mend it, when it is a symbolic link, belongs to another user, or its
// group or others can write to it, and refuses the same of any file in
// it, which it opens without following links. No file is read past
// [MaxFileBytes]. Approval IDs are checked ([ValidID]) before any path is
// built from them.
//
// A request with the ID 7f3a2c1d has these files, each mode 0600:
//
//	7f3a2c1d.request.json    the request, written by File
//	7f3a2c1d.decision.json   the first decision, written by Decide
//	7f3a2c1d.withdrawn.json  the withdrawal, written by Withdraw
//
// and the folder holds .lock, the lock file every change takes. A crash
// can leave temp files named .7f3a2c1d.<kind>.json.tmp-<digits>.
//
// A request is filed exactly while its request file exists. It waits for
// a decision while it has neither a decision nor a withdrawal file and
// its deadline has not passed. Decision and withdrawal files without a
// request file are leftovers of an interrupted [Store.Settle], count for
// nothing, and are removed by the next File or Settle under that ID, or
// by [Store.Sweep]. A withdrawn request, and one past its deadline, stays
// for 10 minutes, so that a late answer is told why it came too late;
// Sweep removes it after.
//
// # The files
//
// No file holds a credential raw: the Store replaces credentials in a
// request's command, pattern and text with markers ("[REDACTED:github-pat#1]",
// see package secrets) before it files the request, and decisions are
// bound to the request as filed.
//
// Each file is one JSON object, indented by two spaces, with a final
// newline. Keys are lower camel case; times are RFC 3339 in UTC with
// nanoseconds; every file carries "version": 1, and readers refuse
// another version, unknown keys and anything after the object.
//
// The request file:
//
//	{
//	  "version": 1,
//	  "id": "7f3a2c1d",
//	  "session": "3f2a9c1d",
//	  "thread": "t-81b2c3d4",
//	  "turn": 3,
//	  "kind": "modelAction",
//	  "command": "models enable ollama:qwen3:4b",
//	  "pattern": "models enable *",
//	  "text": "turns ollama:qwen3:4b on in config.json",
//	  "scopes": [
//	    "once",
//	    "session"
//	  ],
//	  "asked": "2026-03-01T09:30:00Z",
//	  "deadline": "2026-03-01T09:31:00Z",
//	  "digest": "<64 hex characters>"
//	}
//
// "deadline" is left out when the request waits for ever. "scopes" are
// the answers the request allows, narrowest first: once, session,
// project, always. A request to change a file has "diff" after "text":
// the change as a unified diff.
//
// The digest is the SHA-256, in lower-case hex, of the bytes
// "wisp approval request v1" and a zero byte, followed by the ID, the
// session, the thread, the turn (in decimal), the kind, the command, the
// pattern and the text, each written as its length in bytes (an unsigned
// varint, as encoding/binary writes it) and its bytes; then the number of
// scopes as a varint and each scope's name the same way; then the time
// asked and the deadline (UTC, RFC 3339 with nanoseconds; the empty
// string for no deadline) the same way; then, for a request with a diff
// only, the diff the same way. A decision carries the digest of
// the request the person was shown, so it binds to every word of it and
// to that one filing: a request filed again under the same ID, even with
// the same words, has another digest. Readers check it too, so a request
// file whose words were edited is refused.
//
// The decision file:
//
//	{
//	  "version": 1,
//	  "id": "7f3a2c1d",
//	  "digest": "<the request's digest>",
//	  "scope": "once",
//	  "from": "terminal",
//	  "at": "2026-03-01T09:30:12Z"
//	}
//
// "scope" is once or session, which must be among the request's scopes,
// or none for a denial; "from" is terminal or elicitation.
//
// The withdrawal file:
//
//	{
//	  "version": 1,
//	  "id": "7f3a2c1d",
//	  "why": "no answer within 1 min",
//	  "at": "2026-03-01T09:31:00Z"
//	}
//
// # Writing
//
// The request and withdrawal files are written to a temp file that is
// synced and renamed into place, and the folder is synced. The decision
// file is written to a temp file that is synced and then hard-linked to
// its name, which fails when the name exists: of any number of processes
// deciding at once, exactly one files its decision, and the others get
// [ErrDecided]. Changes also serialise on the folder's advisory lock, so
// a withdrawal and a decision cannot both win.
//
// # Who answered
//
// A digest binds a decision to the words shown, not to who gave it. A
// Store with a Witness (wisp gives its audit log) records who gives each
// decision, approval.answered with the face, terminal, uid, pid and the
// SHA-256 of the decision's file, under the folder's lock and before the
// file appears; and it takes a decision (Decided, Wait, and so the
// Approver) only when the Witness vouches for that file. Any other
// decision file, such as one written by hand with a copied digest, is
// refused: the Witness records approval.refused, the file is removed, and
// the request waits again. A request file that cannot be read back is
// named by [Store.Damaged], and refused by the Approver that waits on it.
//
// The package reads no environment variables and prints nothing.
package outofband
