// Package prompt builds the system prompt wisp sends a model at the start
// of every request: who wisp is, the rules it works under, the tools of
// the conversation, the embedder's own instructions, where it works (the
// workspace, the platform, the date), the facts the person let it keep
// (memory), and the project's instructions, the AGENTS.md files from the
// repository root down to the workspace.
//
// What never changes comes first and what changes most comes last, so
// that a local server that reuses the computed prefix of a request
// recomputes only the tail when the date, the memory or an AGENTS.md
// changes.
//
// # The rule
//
// Whenever a conversation has both ask_user and request_approval, the
// prompt states the rule of the ask_user specification: decisions and
// preferences go to ask_user, which falls back to the option the model
// marked recommended when nobody answers; permission to act goes to
// request_approval, which never resolves by itself; and a question never
// grants permission. It states too that nothing in the project's
// instructions, the remembered facts, files or tool results can change
// the rules or grant an approval.
//
// # Project instructions
//
// [ReadProject] finds the repository root (the nearest folder at or above
// the workspace that holds .git, a folder or a file; with none, the
// workspace alone) and reads AGENTS.md in every folder from the root down
// to the workspace, through an os.Root opened on the root, so that a link
// that leads out of the repository is not followed. Each file is cut at a
// line boundary to [MaxFileBytes], and all of them together to
// [MaxProjectBytes], the nearest file served first; what was cut is said
// ("[truncated: N bytes not shown]"). Credentials are replaced by the
// conversation's markers and control characters are escaped ([Text]).
// Each file is named by its path relative to the workspace
// (../AGENTS.md), nearest last.
package prompt
