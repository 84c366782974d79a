// Package files is the file tools: read_file, list_files and search,
// which read a project, and edit_file, which changes one file under the
// person's approval, shown as a diff.
//
// Every tool is confined to one folder, the workspace, opened once as an
// *os.Root (Open): a path is taken relative to it, an absolute path only
// when it lies inside, and a path that leads out of it, by "..", by an
// absolute path or through a symbolic link, is refused with one line the
// model can act on. The wisp home is refused too, even when it lies
// inside the workspace. Everything the model reads passes the redactor
// first; search and edit_file's replace look only at the redacted text,
// so no match tells the model what a credential holds.
//
// The reads change nothing and need no approval; the classifier's rows
// (Rules) rate them safe. An edit says what it would do as
// "edit_file <mode> <path>", with the change as a unified diff
// (wisp.Action.Diff), which the person sees in the approval; it is
// rated moderate, and dangerous for the files that steer other programs
// (.git/, .github/workflows/, .envrc, AGENTS.md and others; see Rules).
// The file is written atomically, keeping its mode, and only if the
// change is still the one approved.
//
// The contract, with its limits, is in docs/files.md.
package files
