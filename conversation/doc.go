// Package conversation assembles a conversation with a model that keeps
// every guarantee wisp makes to the person, in one call: [New]. The CLI's
// chat, chat --json, respond and mcp are built on it, and so is any
// program that embeds wisp with a face of its own; each gets the same
// guarantees, because they are not options.
//
// # Safe by default
//
// Whatever the [Options], and with every field left zero but the home and
// the model:
//
//   - One secrets.Redactor serves the whole conversation, shared by every
//     sink: the person's input and every tool result pass it before the
//     model or the thread sees them; the names, ids and arguments of the
//     model's tool calls pass it before any event records them; the desk
//     scans every answer with it; the audit log and the thread files pass
//     every string they write through it. A credential keeps one marker
//     ([REDACTED:github-pat#1]) everywhere in the conversation.
//   - A secret the person gives an ask_user secret question is sealed in
//     the conversation's vault (secrets.Vault), and the model gets a
//     reference to it; the redactor knows the vault's values, so that
//     none of them reaches a sink either.
//   - Every event is appended to the hash-chained audit log of the wisp
//     home before Options.Events sees it; decisions, answers, changes and
//     the end of each turn wait for the disk (audit.SyncDecisions). A
//     failed write of the log fails the turn.
//   - A nil Face is a face with no person (inquiry/unattended): ask ends
//     with "no person can answer here" and an ask_user card takes its
//     defaults. A nil Approver means no person can approve: whatever
//     must be asked of the person is refused. Every question goes through one
//     inquiry.Desk and every approval through one policy.Gate.
//   - Wisp's opt-in tools (ask, ask_user, request_approval, models,
//     memory, and with a workspace read_file, list_files, search and
//     edit_file) are offered only when the settings turn them on,
//     Options.Named names them, or, with a person there
//     (Options.Interactive), the interactive preset has them
//     (tools.Interactive: ask_user and request_approval together, and the
//     tools that only read); tools.disabled removes a tool from every
//     conversation.
//   - The model is sent a system prompt the library builds (package
//     prompt): who wisp is, its rules (with ask_user and request_approval
//     both offered, the rule that keeps preferences and permission apart),
//     the tools, the workspace and the date, the facts the memory tool
//     kept, and the project's AGENTS.md files, capped, escaped and
//     redacted. Options.SystemPrompt replaces it; Options.Instructions
//     adds to it.
//   - run_command runs its commands in wisp's sandbox (package sandbox,
//     through tools/runcommand/sandboxed), as sandbox.mode and
//     sandbox.network say, unless Options.NewRunner gives a runner of the
//     program's own; the shell judge (policy/shell) rates every command
//     in each line, and the gate asks with the pattern and scopes it
//     allows. Where no sandbox can be had the Notifier is told once, as
//     the conversation starts (wisp.NoticeSandbox), and every command is
//     asked. A program that runs commands calls sandbox.Main first thing
//     in main.
//   - The home is checked to be the person's own (home.Open); threads are
//     saved under their lock and within the limits of package agent;
//     the settings are read once, so a setting changed meanwhile applies
//     from the next conversation; an answer to a question wisp mcp parked
//     reaches the thread only when the audit log holds the record of the
//     person giving it (the log is the pending folder's wisp.Witness).
//
// # Faces
//
// A face shows and reads; it holds no rule. Give New the face's
// wisp.Inquirer (and, when it can, wisp.CardInquirer), its wisp.Approver
// and its wisp.Notifier, and run turns with [Conversation.Respond]:
//
//	conv, err := conversation.New(ctx, &conversation.Options{
//		Home:      dir,
//		ModelName: "ollama:qwen3:4b",
//		Backends:  []models.Backend{ollamaBackend},
//		Face:      myFace,
//		Approver:  myFace,
//	})
//	if err != nil {
//		return err
//	}
//	defer conv.Close()
//	reply, err := conv.Respond(ctx, text)
package conversation
