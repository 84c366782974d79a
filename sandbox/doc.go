// Package sandbox runs one shell command line for the model in a child that
// is confined before it starts, bounded while it runs, and ended whole when
// it is over.
//
// A [Runner] holds a [Policy]: the workspace the command may write, the wisp
// home and any other paths it may not see, whether it may reach the network,
// and the [Mode] (read-only, workspace-write or off). [Runner.Run] runs
// `/bin/sh -c LINE` under it and returns a [Result]: exit status, duration,
// both output streams kept head and tail up to a size, and what the sandbox
// seems to have denied.
//
// On Linux the program re-executes itself as a launcher, which is why every
// program that runs commands through this package calls [Main] first thing
// in main. The launcher enters new user, mount and PID namespaces (and a
// network namespace unless the policy allows the network), makes the whole
// file system read-only but for the workspace and a private temp folder
// mounted on /tmp, covers the wisp home with an empty read-only folder,
// applies Landlock (github.com/landlock-lsm/go-landlock) to its own thread,
// drops every capability and execs the shell. On macOS the shell runs under
// sandbox-exec with a profile of the same rules. Elsewhere, or where the
// kernel lacks what is needed, [Probe] says so and [Runner.Run] refuses
// every mode but [Off] with [ErrUnavailable], so the caller can ask the
// person about every command and tell them once why.
//
// Running is bounded: a command runs in its own session and process group
// (and PID namespace on Linux), with an empty stdin, the environment the
// caller gives and nothing else ([Environ] builds it from an allowlist), a
// timeout (120 s unless the caller says otherwise, 600 s at most), limits
// on processes, file size and open files, and output kept up to a size per
// stream. When the timeout passes or the context is cancelled, the whole
// group gets SIGTERM and, after a grace, SIGKILL; on Linux the end of the
// namespace's first process ends every process the command started, even
// one that left the group with setsid.
package sandbox
