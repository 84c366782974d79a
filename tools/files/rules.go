package files

import "github.com/wisp-agent/wisp/policy"

// The reasons of the classifier's rows for the file tools' commands
// (Rules). They are recorded in classifier.verdict.
const (
	ReasonReads   = "only reads files in the workspace"
	ReasonEdits   = "changes a file in the workspace"
	ReasonGit     = "changes git's own files: hooks and settings there run programs"
	ReasonCI      = "changes what continuous integration runs, with the repository's secrets"
	ReasonShell   = "changes what a shell or an editor runs when it opens the project"
	ReasonHooks   = "changes the hooks run before a commit"
	ReasonPackage = "changes the settings of a package manager, which can run programs"
	ReasonAgents  = "changes the instructions wisp and other agents read"
)

// steering are the files that steer other programs, as path patterns
// (policy.Rule), with the reason for each: an edit of one is dangerous.
var steering = []struct{ pattern, reason string }{
	{"**/.git/**", ReasonGit},          // hooks, config (core.hooksPath, core.fsmonitor), and .git files of worktrees
	{".github/workflows/**", ReasonCI}, // GitHub Actions
	{".github/actions/**", ReasonCI},   // actions the workflows call
	{".gitlab-ci.yml", ReasonCI},
	{".circleci/**", ReasonCI},
	{"**/.envrc", ReasonShell},     // direnv runs it on entering the folder
	{"**/.vscode/**", ReasonShell}, // tasks that run on opening the folder, the terminal's settings
	{"**/.husky/**", ReasonHooks},
	{".pre-commit-config.yaml", ReasonHooks},
	{"**/.npmrc", ReasonPackage}, // script-shell, node-options
	{"**/.yarnrc.yml", ReasonPackage},
	{"**/AGENTS.md", ReasonAgents}, // read into the system prompt of the next conversation
}

// The modes of edit_file.
const (
	ModeReplace = "replace"
	ModeCreate  = "create"
	ModeAppend  = "append"
	ModeWrite   = "write"
)

var modes = []string{ModeReplace, ModeCreate, ModeAppend, ModeWrite}

// Rules are the classifier's rows for the commands the file tools' calls
// are judged as, for policy.NewClassifier:
//
//	read_file …, list_files …, search …,
//	scan_secrets …                                safe
//	edit_file MODE PATH                           moderate
//	edit_file * PATH that steers another program  dangerous
//
// The reads need no approval (they change nothing), so their rows only
// say how they rate. The paths that steer other programs are git's own
// files (**/.git/**), continuous integration (.github/workflows/**,
// .github/actions/**, .gitlab-ci.yml, .circleci/**), what a shell or
// an editor runs on opening the folder (**/.envrc, **/.vscode/**), the
// hooks run before a commit (**/.husky/**, .pre-commit-config.yaml),
// package managers' settings (**/.npmrc, **/.yarnrc.yml) and the
// instructions agents read (**/AGENTS.md); letters match in either
// case. A path with a space, a shell metacharacter or a character
// outside ASCII matches no row, so it is dangerous. Each call returns a
// new slice.
func Rules() []policy.Rule {
	rows := []policy.Rule{
		{Pattern: NameReadFile + " ...", Rating: policy.Safe, Reason: ReasonReads},
		{Pattern: NameListFiles + " ...", Rating: policy.Safe, Reason: ReasonReads},
		{Pattern: NameSearch + " ...", Rating: policy.Safe, Reason: ReasonReads},
		{Pattern: NameScanSecrets + " ...", Rating: policy.Safe, Reason: ReasonReads},
	}
	for _, m := range modes {
		rows = append(rows, policy.Rule{Pattern: NameEditFile + " " + m + " *", Rating: policy.Moderate, Reason: ReasonEdits})
	}
	for _, s := range steering {
		rows = append(rows, policy.Rule{Pattern: NameEditFile + " * " + s.pattern, Rating: policy.Dangerous, Reason: s.reason})
	}
	return rows
}

// ownRows rate the file tools' commands with their rows alone: an edit
// the person may allow for the session is one they rate below dangerous.
var ownRows = mustClassifier()

func mustClassifier() *policy.Classifier {
	c, err := policy.NewClassifier(Rules()...)
	if err != nil {
		panic(err)
	}
	return c
}
