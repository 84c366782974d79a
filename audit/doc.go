// Package audit is wisp's append-only, hash-chained event log: a writer
// that many goroutines and processes may share, a reader with a filter, and
// a verifier that tells a crash from tampering.
//
// # File format
//
// A log lives in a directory, as the file audit.jsonl (mode 0600) beside a
// lock file, audit.lock (mode 0600); the directory is created with mode 0700
// when it is missing. Each line of audit.jsonl is one JSON object, ended by
// a newline, with its keys in exactly this order and no white space:
//
//	{"seq":1,"time":"2026-11-30T10:00:00.123456789Z","kind":"inquiry.settled","session":"s1","thread":"t1","turn":3,"source":"person","approval":"a1","data":{"answer":"yes"},"prev":"0000…0000"}
//
// Of its values:
//
//   - seq numbers the records from 1, one more on each line, across every
//     process that writes the log;
//   - time is UTC, RFC 3339 with exactly nine fractional digits;
//   - thread and turn are always present ("" and 0 when a record is about no
//     thread); approval is left out when empty;
//   - source is one of "tool", "person", "wisp" and "model";
//   - data is a JSON object, {} when there is nothing to say; its strings
//     keep the characters <, > and & unescaped;
//   - prev is the lowercase hex SHA-256 of the bytes of the previous line,
//     without its newline; the first line's prev is 64 zeros.
//
// The kinds beginning "audit." belong to the log itself. The one in use is
// [KindRecovered]: see below.
//
// # Guarantees
//
// [Log.Append] takes an exclusive flock on audit.lock (and a mutex within the
// process), reads the tail of the file to learn the last seq and hash, writes
// the new line with one write call and fsyncs the file before it returns. A
// record whose Append returned without error survives a crash of the process
// and, as far as the file system honours fsync, of the machine.
//
// A crash part way through a write can leave an incomplete last line: bytes
// after the last newline. Such a "torn" line is not tampering. [Read] skips it
// and [Verify] reports it as [Torn]. The next Append truncates the torn bytes
// and, before its own record, writes one of kind [KindRecovered] whose data
// gives their number and SHA-256 ({"droppedBytes":N,"droppedSHA256":"…"}),
// so the chain stays whole and the loss stays on record.
//
// A complete line that fails to parse, a seq out of step or a prev that does
// not match is a [Break]: the file was edited, cut or corrupted. Append still
// writes after a break (it chains from the last line as it stands), so that
// events keep being recorded; [Verify] goes on reporting the break.
//
// [Read] and [Verify] hold a shared lock on audit.lock while they read, so
// they never see a half-done write as torn. Append is never cancelled: it
// waits for the lock and finishes the write whatever its context says,
// because an audit record must not be lost to a cancelled turn.
//
// Strings in data, object keys included, go through [Options].Redact before
// they are written, so a raw secret never reaches the disk.
//
// # Answers from elsewhere
//
// Some answers are given in one process and taken in another, through a
// file: a parked question answered with wisp questions, an approval
// request answered with wisp approvals. The process that gives one
// records it first, in a record of the kind "<word>.answered"
// (inquiry.answered, approval.answered) whose data carries the file's
// SHA-256 as fileSHA256; the process that takes it records fileSHA256 too
// (in inquiry.settled, approval.decided), or refuses a file that no such
// record gave ("<word>.refused"). [Find] looks a giving record up.
// [Verify] reports in [Report].Unvouched every record of the intact chain
// that carries a fileSHA256 and is neither a giving nor a refusing record
// but follows no giving record with the same first word and fileSHA256.
//
// # Anchors
//
// A line's hash commits to every line before it. [VerifyWith] takes a head
// kept elsewhere ([VerifyOptions].Anchor) and finds the line of the intact
// chain whose hash it is ([Report].AnchorLine): that line and all before
// it are then as they were when the head was kept. A log rewritten, or
// cut short before that line, fails; so does a log with records after it
// ([Report].Following), since anyone who can write the file can append
// records that chain, until the new head is anchored in its place.
//
// # Limits
//
// The chain proves order and detects edits made by someone who does not
// rewrite what follows; it is not a signature. In particular:
//
//   - Anyone who can write the file as its owner can rewrite the whole chain,
//     or cut lines from its end, without a trace in the file itself. Keep
//     [Report].Head somewhere else (another file, another machine, a note)
//     and verify against it later ([VerifyOptions].Anchor): that anchor is
//     what detects such rewrites. Lines after the anchor are proven by
//     nothing but the chain, which is why they fail an anchored check.
//   - The last line is covered by no later prev. Verify still checks its
//     form, seq and prev, but a changed value inside it (a letter of a data
//     string, say) shows only against an anchor taken after it.
//   - The same holds of a giving record: anyone who can write the file can
//     append one that chains correctly. The pairing shows an answer taken
//     without one, not who wrote it.
//   - A torn tail and a last line cut short on purpose look the same.
//   - Between the truncation of a torn tail and the write of its
//     audit.recovered record lies one system call; a crash exactly there
//     drops the torn bytes without a record of them.
//   - Locks are flock(2) locks: advisory, released when a process dies, and
//     not dependable on network file systems. Keep the log on a local disk.
//   - The log file and lock file are opened with O_NOFOLLOW, so a symbolic
//     link in their place is refused; the directory path itself is the
//     caller's to vet.
package audit
