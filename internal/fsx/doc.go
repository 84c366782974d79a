// Package fsx holds the file-system rules wisp lives by: files are replaced
// atomically and durably, wisp's home folder is created private and checked
// before use, and writers of a shared file serialise on an advisory lock.
//
// The rules, in brief:
//
//   - [WriteFile] writes a temp file beside the target, syncs it, renames it
//     over the target and syncs the folder, so a crash at any moment leaves
//     either the old file or the new one, never a mix. [SweepTemps] clears the
//     temp files a crash leaves behind.
//   - Files are created 0600 and folders 0700 with an explicit chmod, so the
//     modes do not depend on the umask.
//   - [EnsureDir] refuses a folder that is a symbolic link, is not a folder,
//     belongs to someone else, or that others can write to, and the same for
//     every folder above it that others could use to swap it, the way ssh
//     treats ~/.ssh. Each refusal is one line that says how to mend it.
//   - A [Kind] checks the files and folders inside wisp's home the same
//     way before they are read or trusted: a symbolic link, what belongs
//     to someone else and what others can write to are refused, each with
//     one line that says how to mend it.
//   - [Lock] takes an flock(2)-style lock on a separate, stable lock file.
//     Such locks are advisory, vanish when their process dies, and are not
//     dependable on network file systems, so wisp's home belongs on a local
//     disk.
//
// The package reads no environment variables and prints nothing; callers
// pass every value in.
package fsx
