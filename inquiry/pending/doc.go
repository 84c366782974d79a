// Package pending keeps the questions that wisp mcp parks, and their
// answers, on disk, so that a question can outlive the turn that asked it
// and be answered later from another process: wisp questions answer at a
// terminal, the MCP client's dialog, or a plain wisp chat. The first
// answer wins.
//
// # The folder
//
// A [Store] keeps everything in one folder, $WISP_HOME/pending, mode
// 0700. Every method refuses the folder, with one line that says how to
// mend it, when it is a symbolic link, belongs to another user, or its
// group or others can write to it, and refuses the same of any file in
// it, which it opens without following links. No file is read past
// [MaxFileBytes]. Question IDs are checked ([ValidID]) before any path is
// built from them.
//
// A question with the ID a1b2c3d4 has these files, each mode 0600:
//
//	a1b2c3d4.question.json   the question, written by File
//	a1b2c3d4.answer.json     the first answer, written by Answer
//	a1b2c3d4.withdrawn.json  the withdrawal, written by Withdraw
//
// and the folder holds .lock, the lock file every change takes. A crash
// can leave temp files named .a1b2c3d4.<kind>.json.tmp-<digits>.
//
// A question is filed exactly while its question file exists. It waits
// for an answer while it has neither an answer nor a withdrawal file;
// answer and withdrawal files without a question file are leftovers of an
// interrupted [Store.Settle], count for nothing, and are removed by the
// next Settle of that question or by [Store.Sweep].
//
// # The files
//
// No file holds a credential raw: the Store replaces credentials in a
// question's text and options, and in an answer's text, with markers
// ("[REDACTED:github-pat#1]", see package secrets) before it writes them,
// so a question and its answer are filed as the model and the audit log
// will see them.
//
// Each file is one JSON object, indented by two spaces, with a final
// newline. Keys are lower camel case; times are RFC 3339 in UTC with
// nanoseconds; every file carries "version": 1, and readers refuse
// another version, unknown keys and anything after the object.
//
// The question file:
//
//	{
//	  "version": 1,
//	  "id": "a1b2c3d4",
//	  "session": "s1",
//	  "thread": "t1",
//	  "turn": 3,
//	  "text": "Which config did you mean?",
//	  "options": ["~/.wisp/config.json", "./wisp.json"],
//	  "asked": "2026-03-01T09:30:00Z",
//	  "deadline": "2026-03-01T09:35:00Z",
//	  "digest": "<64 hex characters>"
//	}
//
// "options" is left out for a free-text question and "deadline" when
// the question waits for ever.
//
// The digest is the SHA-256, in lower-case hex, of the bytes
// "wisp pending question v1" and a zero byte, followed by the ID, the time
// asked (UTC, RFC 3339 with nanoseconds), the text, each written as its
// length in bytes (an unsigned varint, as encoding/binary writes it) and
// its bytes, then the number of options as a varint and each option the
// same way. An answer carries the digest of the question the person was
// shown, so it binds to that question's words and to that one filing:
// a question filed again under the same ID, even with the same words,
// has another digest. Readers check it too, so a question file whose
// words were edited is refused.
//
// The answer file:
//
//	{
//	  "version": 1,
//	  "id": "a1b2c3d4",
//	  "digest": "<the question's digest>",
//	  "outcome": "chose",
//	  "text": "./wisp.json",
//	  "from": "terminal",
//	  "at": "2026-03-01T09:31:12Z"
//	}
//
// "outcome" is answered, chose, chose-none or declined; "text" is left
// out for the last two; "from" is terminal, elicitation, chat or tui.
//
// The withdrawal file:
//
//	{
//	  "version": 1,
//	  "id": "a1b2c3d4",
//	  "why": "the thread ended",
//	  "at": "2026-03-01T09:35:00Z"
//	}
//
// # Writing
//
// The question and withdrawal files are written to a temp file that is
// synced and renamed into place, and the folder is synced. The answer
// file is written to a temp file that is synced and then hard-linked to
// its name, which fails when the name exists: of any number of processes
// answering at once, exactly one files its answer, and the others get
// [ErrAnswered]. Changes also serialise on the folder's advisory lock,
// so a withdrawal and an answer cannot both win.
//
// # Who uses it
//
// The thread that parks a question files it ([Store.File]), waits for it
// ([Store.Wait]) or looks for it on its next turn ([Store.Answered]),
// takes the answer through the inquiry desk, records inquiry.settled in
// the audit log, and only then settles it ([Store.Settle]); it withdraws
// a question it gives up on ([Store.Withdraw]). The faces that answer
// list ([Store.List]) and show ([Store.Get]) questions and file answers
// ([Store.Answer]) bound to the digest of what they showed, all through
// an [Answerer], which holds the rules they share. A question
// file that cannot be read back is passed over by all of these and named
// by [Store.Damaged], with the thread it names when that much can be
// read. [Inbox] is how a thread's next turn, in whichever face runs it,
// takes the answers that came after their turn, the timed-out and the
// damaged questions, and settles them once the thread is saved.
//
// # Who answered
//
// A digest binds an answer to the words shown, not to who gave it. A
// Store with a Witness (wisp gives its audit log) records who gives each
// answer, inquiry.answered with the face, terminal, uid, pid and the
// SHA-256 of the answer's file, under the folder's lock and before the
// file appears; and it takes an answer (Answered, Wait, Filed) only when
// the Witness vouches for that file. Any other answer file, such as one
// written by hand with a copied digest, is refused: the Witness records
// inquiry.refused, the file is removed, and the question waits again.
//
// The package reads no environment variables and prints nothing.
package pending
