package shell

import (
	"sort"
	"strings"

	"github.com/wisp-agent/wisp/policy"
)

// A row is one line of the rules table: how a command is rated.
type row struct {
	// name is the command's name, then any subcommand's words:
	// "ls", "git commit", "go mod tidy".
	name   string
	rating policy.Rating
	reason string
	// flags are the flags that raise the rating, or take a value that
	// matters (a file it writes, a folder it works in, code it runs).
	flags []flag
	// ops says what the operands are.
	ops operands
	// wrap, for a wrapper (ops opCommand): the operands before the
	// command it runs (timeout's DURATION).
	wrap int
	// stop: flags end at the first operand, as for a wrapper, whose
	// operands are another command's.
	stop bool
	// plus: words starting with + are flags too (bash +x).
	plus bool
	// sub: the program has subcommands, which other rows name; its flags
	// are those before the subcommand.
	sub bool
	// repo: it runs the programs a repository's settings may name, so it
	// is moderate unless the runner turns them off (Options.GitProtected).
	repo bool
	// check reads what the row cannot say as data (a sed script, find's
	// expression, the command a wrapper runs). It returns the command the
	// row's command runs, if any, which is judged as a part of its own.
	check func(k *call, inner []arg) []arg
}

// raises reports whether any flag of the row raises its rating or names
// a file it writes or runs, so that a word only known when it runs may be
// one. (A check rates such words itself.)
func (rw *row) raises() bool {
	for _, f := range rw.flags {
		if f.rating > policy.Safe || f.writes || f.value >= valWrite {
			return true
		}
	}
	return false
}

// operands say what a command's operands are.
type operands int

const (
	opRead        operands = iota // files it reads
	opText                        // words that are not files
	opWrite                       // files it writes or makes
	opLastWrite                   // the last is written, the others read (cp SRC… DST)
	opSecondWrite                 // the second is written (uniq IN OUT)
	opDelete                      // files it deletes
	opMode                        // the first is a mode or an owner, the rest are written
	opCommand                     // after wrap operands, a command it runs
	opNone                        // its check reads them
)

// A flag is one spelling of a flag that matters. A name of one letter
// after "-" is a short flag, found in a bundle too (-rf); a name after
// "--" is a long flag, found by any start of it too (--rec); a name of
// more letters after one "-" (-exec) is found whole, with one dash or two.
type flag struct {
	name   string
	value  valueKind
	rating policy.Rating
	reason string
	// writes: the operands are files the command writes (sed -i).
	writes bool
}

// valueKind says what a flag's value is.
type valueKind int

const (
	valNone     valueKind = iota
	valAny                // a value that does not matter (a number, a name)
	valOptional           // a value only when attached (-i.bak, --in-place=.bak)
	valRead               // a file it reads
	valWrite              // a file it writes
	valWork               // a folder it works in: outside the workspace is dangerous
	valRun                // a file it runs
	valCode               // code it runs: dangerous
)

// fl makes the flags of several spellings, separated by spaces.
func fl(names string, value valueKind, rating policy.Rating, reason string) []flag {
	var out []flag
	for _, n := range strings.Fields(names) {
		out = append(out, flag{name: n, value: value, rating: rating, reason: reason})
	}
	return out
}

// vals makes flags that only take a value that does not matter.
func vals(names string) []flag { return fl(names, valAny, policy.Safe, "") }

// writer makes flags that make the operands files the command writes.
func writer(names string, value valueKind, reason string) []flag {
	out := fl(names, value, policy.Moderate, reason)
	for i := range out {
		out[i].writes = true
	}
	return out
}

// flags joins lists of flags.
func flags(lists ...[]flag) []flag {
	var out []flag
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// The ratings, short for the table.
const (
	safe      = policy.Safe
	moderate  = policy.Moderate
	dangerous = policy.Dangerous
)

// The reasons of the table's rows.
const (
	reasonReads       = "only reads files and prints"
	reasonPrints      = "only prints"
	reasonShell       = "only changes the shell's own state"
	reasonLooks       = "only looks a command up"
	reasonWaits       = "only waits"
	reasonGitReads    = "only reads the repository"
	reasonGitOpen     = "reads the repository, whose settings may name programs git runs"
	reasonGitWrites   = "changes the repository"
	reasonGitSettings = "changes git's settings, which can name programs git runs"
	reasonBuilds      = "builds, tests or runs the workspace's code"
	reasonFormats     = "rewrites files in the workspace"
	reasonSignals     = "sends signals to processes"
	reasonWrap        = "runs the command that follows it"
	reasonReRead      = "runs the command line it is given, rated on its own"
	reasonCode        = "runs code wisp cannot read"
	reasonCodeInput   = "runs the commands it reads from its input"
	reasonInstall     = "downloads, installs or publishes code"
	reasonPrivilege   = "runs with other privileges or changes the system"
	reasonContainers  = "runs containers or changes a cluster"
	reasonInteractive = "waits for a person at a terminal, and can run commands from there"
	reasonTrace       = "traces or debugs another program"
	reasonTree        = "deletes folders and all they hold"
	reasonForce       = "deletes whatever it is given, without asking"
	reasonRecursive   = "changes a whole folder tree"
	reasonSetuid      = "makes a program run as its owner"
	reasonFollow      = "keeps running until stopped"
	reasonClock       = "sets the system clock"
	reasonAlias       = "changes what a command's name runs"
	reasonDiscards    = "throws away changes"
	reasonGitProgram  = "makes git run a program it names"
	reasonEachFile    = "runs a command for each file it finds"
	reasonDeletesFind = "deletes the files it finds"
	reasonPager       = "runs a pager, which can run commands"
	reasonCaches      = "deletes caches outside the workspace"
	reasonSettings    = "changes settings outside the workspace"
	reasonTempFile    = "makes a temporary file"
	reasonAbsolute    = "writes at the paths the archive names, outside the workspace too"
	reasonOldTar      = "uses tar's old-style options, which wisp does not read"
	reasonScriptOpts  = "its script can write files or run commands"
)

// Flags shared by several rows.
var (
	goBuildFlags = flags(
		fl("-exec -toolexec -vettool", valCode, dangerous, "runs a program it names on the code it builds"),
		fl("-o -coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir", valWrite, moderate, reasonWrites),
		fl("-modfile -overlay -pgo", valRead, safe, ""),
		fl("-ldflags -gcflags -asmflags -gccgoflags", valAny, safe, ""),
		fl("-compiler", valAny, dangerous, "builds with a compiler it names"),
		vals("-run -bench -count -timeout -tags -p -parallel -cpu -benchtime -mod -C"),
	)
	gitDiffFlags = flags(
		fl("--output", valWrite, moderate, reasonWrites),
		fl("--ext-diff --textconv", valNone, dangerous, reasonGitProgram),
		fl("-O --open-files-in-pager", valOptional, dangerous, reasonPager),
	)
	rmFlags = flags(
		fl("-r -R --recursive", valNone, dangerous, reasonTree),
		fl("-f --force", valNone, dangerous, reasonForce),
		fl("--no-preserve-root", valNone, dangerous, reasonTree),
	)
)

// rows is the table. Each program's own row (one word) comes first among
// its rows; rows with subcommands follow it.
var rows = []row{
	// Reading and printing.
	{name: "ls", rating: safe, reason: reasonReads, flags: vals("-I --ignore -w --width --hide --format --sort --time --color --block-size -T --tabsize")},
	{name: "cat", rating: safe, reason: reasonReads},
	{name: "head", rating: safe, reason: reasonReads, flags: vals("-n -c --lines --bytes")},
	{name: "tail", rating: safe, reason: reasonReads, flags: flags(vals("-n -c --lines --bytes -s --sleep-interval --pid"), fl("-f -F --follow --retry", valOptional, moderate, reasonFollow))},
	{name: "wc", rating: safe, reason: reasonReads, flags: vals("--files0-from")},
	{name: "cut", rating: safe, reason: reasonReads, flags: vals("-b -c -d -f --bytes --characters --delimiter --fields --output-delimiter")},
	{name: "tr", rating: safe, reason: reasonReads, ops: opText},
	{name: "nl", rating: safe, reason: reasonReads, flags: vals("-b -d -f -h -i -l -n -s -v -w")},
	{name: "paste", rating: safe, reason: reasonReads, flags: vals("-d --delimiters")},
	{name: "rev", rating: safe, reason: reasonReads},
	{name: "tac", rating: safe, reason: reasonReads, flags: vals("-s --separator")},
	{name: "fold", rating: safe, reason: reasonReads, flags: vals("-w --width")},
	{name: "fmt", rating: safe, reason: reasonReads, flags: vals("-w --width -p --prefix")},
	{name: "column", rating: safe, reason: reasonReads, flags: vals("-s -c -o -t -N -R -H -W")},
	{name: "od", rating: safe, reason: reasonReads, flags: vals("-A -j -N -t -w")},
	{name: "hexdump", rating: safe, reason: reasonReads, flags: vals("-e -f -n -s")},
	{name: "strings", rating: safe, reason: reasonReads, flags: vals("-n -t -e")},
	{name: "stat", rating: safe, reason: reasonReads, flags: vals("-c -f --format --printf")},
	{name: "file", rating: safe, reason: reasonReads, flags: vals("-m -F")},
	{name: "du", rating: safe, reason: reasonReads, flags: vals("-d --max-depth -B --block-size --exclude -t --threshold")},
	{name: "df", rating: safe, reason: reasonReads, flags: vals("-B -t -x --output")},
	{name: "tree", rating: safe, reason: reasonReads, flags: flags(vals("-L -P -I --charset -H"), fl("-o", valWrite, moderate, reasonWrites))},
	{name: "diff", rating: safe, reason: reasonReads, flags: vals("-U -C --label -x -X --exclude")},
	{name: "cmp", rating: safe, reason: reasonReads},
	{name: "comm", rating: safe, reason: reasonReads},
	{name: "md5sum", rating: safe, reason: reasonReads},
	{name: "sha1sum", rating: safe, reason: reasonReads},
	{name: "sha256sum", rating: safe, reason: reasonReads},
	{name: "sha512sum", rating: safe, reason: reasonReads},
	{name: "shasum", rating: safe, reason: reasonReads, flags: vals("-a")},
	{name: "cksum", rating: safe, reason: reasonReads},
	{name: "b2sum", rating: safe, reason: reasonReads},
	{name: "zcat", rating: safe, reason: reasonReads},
	{name: "realpath", rating: safe, reason: reasonReads},
	{name: "readlink", rating: safe, reason: reasonReads},
	{name: "basename", rating: safe, reason: reasonPrints, ops: opText},
	{name: "dirname", rating: safe, reason: reasonPrints, ops: opText},
	{name: "grep", rating: safe, reason: reasonReads, flags: flags(vals("-e -m -A -B -C --context --max-count --include --exclude --exclude-dir --color --label"), fl("-f --file", valRead, safe, ""))},
	{name: "egrep", rating: safe, reason: reasonReads, flags: vals("-e -m -A -B -C")},
	{name: "fgrep", rating: safe, reason: reasonReads, flags: vals("-e -m -A -B -C")},
	{name: "rg", rating: safe, reason: reasonReads, flags: flags(
		vals("-e -g -t -T -m -A -B -C -M -j --glob --type --type-not --max-count --context --colors --pre-glob --sort --sortr --max-depth"),
		fl("--pre --hostname-bin", valCode, dangerous, "runs a program it names on each file"),
		fl("-z --search-zip", valNone, dangerous, "runs a program to read compressed files"),
		fl("-f --file --ignore-file", valRead, safe, ""),
	)},
	{name: "fd", rating: safe, reason: reasonReads, flags: flags(
		vals("-e -t -E -d --extension --type --exclude --max-depth --min-depth --size --changed-within --changed-before"),
		fl("-x --exec -X --exec-batch", valCode, dangerous, reasonEachFile),
	)},
	{name: "find", rating: safe, reason: reasonReads, ops: opNone, check: checkFind},
	{name: "locate", rating: safe, reason: reasonReads, ops: opText},
	{name: "sort", rating: safe, reason: reasonReads, flags: flags(
		vals("-k -t -S --key --field-separator --buffer-size --parallel"),
		fl("-o --output -T --temporary-directory", valWrite, moderate, reasonWrites),
		fl("--compress-program", valCode, dangerous, "runs a program it names to compress its files"),
	)},
	{name: "uniq", rating: safe, reason: reasonReads, ops: opSecondWrite, flags: vals("-f -s -w --skip-fields --skip-chars --check-chars")},
	{name: "xxd", rating: safe, reason: reasonReads, ops: opSecondWrite, flags: vals("-c -g -l -s -o")},
	{name: "base64", rating: safe, reason: reasonReads, flags: flags(vals("-w --wrap"), fl("-o --output", valWrite, moderate, reasonWrites))},
	{name: "jq", rating: safe, reason: reasonReads, ops: opNone, flags: flags(vals("--arg --argjson --indent --tab"), fl("-f --from-file", valRead, safe, "")), check: checkJQ},
	{name: "yq", rating: safe, reason: reasonReads, ops: opNone, flags: writer("-i --inplace", valNone, reasonWrites), check: checkJQ},
	{name: "sed", rating: safe, reason: reasonReads, ops: opNone, flags: flags(
		vals("-l --line-length"),
		fl("-e --expression", valAny, safe, ""),
		fl("-f --file", valRead, dangerous, "runs a sed script from a file"),
		writer("-i --in-place", valOptional, reasonWrites),
	), check: checkSed},
	{name: "awk", rating: safe, reason: reasonReads, ops: opNone, flags: awkFlags, check: checkAwk},
	{name: "gawk", rating: safe, reason: reasonReads, ops: opNone, flags: awkFlags, check: checkAwk},
	{name: "mawk", rating: safe, reason: reasonReads, ops: opNone, flags: awkFlags, check: checkAwk},
	{name: "echo", rating: safe, reason: reasonPrints, ops: opText},
	{name: "printf", rating: safe, reason: reasonPrints, ops: opText, flags: fl("-v", valAny, safe, ""), check: checkNames("-v", -1)},
	{name: "seq", rating: safe, reason: reasonPrints, ops: opText, flags: vals("-f -s --format --separator")},
	{name: "expr", rating: safe, reason: reasonPrints, ops: opText},
	{name: "numfmt", rating: safe, reason: reasonPrints, ops: opText},
	{name: "yes", rating: safe, reason: reasonPrints, ops: opText},
	{name: "true", rating: safe, reason: reasonPrints, ops: opText},
	{name: "false", rating: safe, reason: reasonPrints, ops: opText},
	{name: ":", rating: safe, reason: reasonPrints, ops: opText},
	{name: "test", rating: safe, reason: reasonPrints, ops: opText},
	{name: "[", rating: safe, reason: reasonPrints, ops: opText},
	{name: "pwd", rating: safe, reason: reasonPrints, ops: opText},
	{name: "id", rating: safe, reason: reasonPrints, ops: opText},
	{name: "whoami", rating: safe, reason: reasonPrints, ops: opText},
	{name: "groups", rating: safe, reason: reasonPrints, ops: opText},
	{name: "uname", rating: safe, reason: reasonPrints, ops: opText},
	{name: "arch", rating: safe, reason: reasonPrints, ops: opText},
	{name: "nproc", rating: safe, reason: reasonPrints, ops: opText},
	{name: "uptime", rating: safe, reason: reasonPrints, ops: opText},
	{name: "free", rating: safe, reason: reasonPrints, ops: opText},
	{name: "ps", rating: safe, reason: reasonPrints, ops: opText},
	{name: "locale", rating: safe, reason: reasonPrints, ops: opText},
	{name: "tty", rating: safe, reason: reasonPrints, ops: opText},
	{name: "printenv", rating: safe, reason: reasonPrints, ops: opText},
	{name: "date", rating: safe, reason: reasonPrints, ops: opNone, flags: flags(vals("-d --date -r --reference -I --iso-8601 -R"), fl("-s --set", valAny, dangerous, reasonClock)), check: checkDate},
	{name: "which", rating: safe, reason: reasonLooks, ops: opText},
	{name: "whereis", rating: safe, reason: reasonLooks, ops: opText},
	{name: "type", rating: safe, reason: reasonLooks, ops: opText},
	{name: "sleep", rating: safe, reason: reasonWaits, ops: opText},
	{name: "wait", rating: safe, reason: reasonWaits, ops: opText},

	// The shell's own state.
	{name: "cd", rating: safe, reason: reasonShell, ops: opNone, check: checkCd},
	{name: "pushd", rating: safe, reason: reasonShell, ops: opNone, check: checkCd},
	{name: "popd", rating: safe, reason: reasonShell, ops: opNone, check: checkCd},
	{name: "dirs", rating: safe, reason: reasonShell, ops: opText},
	{name: "set", rating: safe, reason: reasonShell, ops: opText, plus: true, flags: vals("-o")},
	{name: "shopt", rating: safe, reason: reasonShell, ops: opNone, check: checkShopt},
	{name: "unset", rating: safe, reason: reasonShell, ops: opNone, check: checkNames("", 0)},
	{name: "export", rating: safe, reason: reasonShell, ops: opNone, check: checkAssigns},
	{name: "readonly", rating: safe, reason: reasonShell, ops: opNone, check: checkAssigns},
	{name: "local", rating: safe, reason: reasonShell, ops: opNone, check: checkAssigns},
	{name: "declare", rating: safe, reason: reasonShell, ops: opNone, flags: fl("-i -n", valNone, dangerous, reasonHidden), check: checkAssigns},
	{name: "typeset", rating: safe, reason: reasonShell, ops: opNone, flags: fl("-i -n", valNone, dangerous, reasonHidden), check: checkAssigns},
	{name: "read", rating: safe, reason: reasonShell, ops: opNone, flags: flags(vals("-d -n -N -p -t -u"), fl("-a", valAny, safe, "")), check: checkNames("-a", 0)},
	{name: "mapfile", rating: safe, reason: reasonShell, ops: opNone, flags: flags(vals("-d -n -O -s -u -c"), fl("-C", valCode, dangerous, reasonHidden)), check: checkNames("", 0)},
	{name: "readarray", rating: safe, reason: reasonShell, ops: opNone, flags: flags(vals("-d -n -O -s -u -c"), fl("-C", valCode, dangerous, reasonHidden)), check: checkNames("", 0)},
	{name: "getopts", rating: safe, reason: reasonShell, ops: opNone, check: checkNames("", 1)},
	{name: "shift", rating: safe, reason: reasonShell, ops: opText},
	{name: "exit", rating: safe, reason: reasonShell, ops: opText},
	{name: "return", rating: safe, reason: reasonShell, ops: opText},
	{name: "break", rating: safe, reason: reasonShell, ops: opText},
	{name: "continue", rating: safe, reason: reasonShell, ops: opText},
	{name: "umask", rating: safe, reason: reasonShell, ops: opText},
	{name: "ulimit", rating: safe, reason: reasonShell, ops: opText},
	{name: "times", rating: safe, reason: reasonShell, ops: opText},
	{name: "jobs", rating: safe, reason: reasonShell, ops: opText},
	{name: "disown", rating: moderate, reason: reasonBack, ops: opText},
	{name: "let", rating: dangerous, reason: reasonHidden, ops: opText},
	{name: "alias", rating: dangerous, reason: reasonAlias, ops: opText},
	{name: "unalias", rating: dangerous, reason: reasonAlias, ops: opText},
	{name: "hash", rating: dangerous, reason: reasonAlias, ops: opText},
	{name: "enable", rating: dangerous, reason: reasonAlias, ops: opText},
	{name: "fc", rating: dangerous, reason: reasonInteractive, ops: opText},

	// Command lines read again, and wrappers.
	{name: "eval", rating: safe, reason: reasonReRead, ops: opNone, stop: true, check: checkEval},
	{name: "trap", rating: safe, reason: reasonShell, ops: opNone, stop: true, flags: fl("-l -p -P", valNone, safe, ""), check: checkTrap},
	{name: "source", rating: safe, reason: reasonShell, ops: opNone, stop: true, check: checkFirst(accessRun)},
	{name: ".", rating: safe, reason: reasonShell, ops: opNone, stop: true, check: checkFirst(accessRun)},
	{name: "bash", rating: safe, reason: reasonReRead, ops: opNone, stop: true, plus: true, flags: shellFlags, check: checkShell},
	{name: "sh", rating: safe, reason: reasonReRead, ops: opNone, stop: true, plus: true, flags: shellFlags, check: checkShell},
	{name: "dash", rating: safe, reason: reasonReRead, ops: opNone, stop: true, plus: true, flags: shellFlags, check: checkShell},
	{name: "zsh", rating: safe, reason: reasonReRead, ops: opNone, stop: true, plus: true, flags: shellFlags, check: checkShell},
	{name: "ksh", rating: safe, reason: reasonReRead, ops: opNone, stop: true, plus: true, flags: shellFlags, check: checkShell},
	{name: "mksh", rating: safe, reason: reasonReRead, ops: opNone, stop: true, plus: true, flags: shellFlags, check: checkShell},
	{name: "ash", rating: safe, reason: reasonReRead, ops: opNone, stop: true, plus: true, flags: shellFlags, check: checkShell},
	{name: "fish", rating: dangerous, reason: reasonCode, ops: opText},
	{name: "csh", rating: dangerous, reason: reasonCode, ops: opText},
	{name: "tcsh", rating: dangerous, reason: reasonCode, ops: opText},
	{name: "env", rating: safe, reason: reasonWrap, ops: opNone, stop: true, flags: flags(
		vals("-u --unset"), fl("-C --chdir", valWork, safe, ""), fl("-S --split-string", valAny, safe, ""),
	), check: checkEnv},
	{name: "command", rating: safe, reason: reasonWrap, ops: opCommand, stop: true, flags: fl("-v -V", valNone, safe, ""), check: checkCommand},
	{name: "builtin", rating: safe, reason: reasonWrap, ops: opCommand, stop: true},
	{name: "exec", rating: safe, reason: reasonWrap, ops: opCommand, stop: true, flags: vals("-a")},
	{name: "nice", rating: safe, reason: reasonWrap, ops: opCommand, stop: true, flags: vals("-n --adjustment")},
	{name: "ionice", rating: safe, reason: reasonWrap, ops: opCommand, stop: true, flags: vals("-c -n --class --classdata -p -P -u")},
	{name: "nohup", rating: safe, reason: reasonWrap, ops: opCommand, stop: true},
	{name: "setsid", rating: safe, reason: reasonWrap, ops: opCommand, stop: true},
	{name: "stdbuf", rating: safe, reason: reasonWrap, ops: opCommand, stop: true, flags: vals("-i -o -e --input --output --error")},
	{name: "timeout", rating: safe, reason: reasonWrap, ops: opCommand, wrap: 1, stop: true, flags: vals("-s -k --signal --kill-after")},
	{name: "time", rating: safe, reason: reasonWrap, ops: opCommand, stop: true, flags: flags(vals("-f --format"), fl("-o --output", valWrite, moderate, reasonWrites))},
	{name: "flock", rating: safe, reason: reasonWrap, ops: opCommand, wrap: 1, stop: true, flags: flags(vals("-w -E --timeout --conflict-exit-code"), fl("-c --command", valAny, safe, "")), check: checkFlock},
	{name: "xargs", rating: safe, reason: reasonWrap, ops: opCommand, stop: true, flags: flags(
		vals("-d -E -L -n -P -s --delimiter --eof --max-lines --max-args --max-procs --max-chars --process-slot-var"),
		fl("-a --arg-file", valRead, safe, ""), fl("-I --replace -i", valOptional, safe, ""),
	), check: checkXargs},
	{name: "busybox", rating: safe, reason: reasonWrap, ops: opCommand, stop: true},
	{name: "script", rating: dangerous, reason: reasonInteractive, ops: opWrite, flags: fl("-c --command", valAny, safe, ""), check: checkScript},

	// Interpreters.
	{name: "python", rating: moderate, reason: reasonBuilds, ops: opNone, stop: true, flags: pythonFlags, check: checkInterpreter},
	{name: "node", rating: moderate, reason: reasonBuilds, ops: opNone, stop: true, flags: flags(
		fl("-e --eval -p --print", valCode, dangerous, reasonCode), fl("-r --require --import --loader", valAny, dangerous, "loads a module it names first"),
		fl("-v --version", valNone, safe, ""),
	), check: checkInterpreter},
	{name: "perl", rating: moderate, reason: reasonBuilds, ops: opNone, stop: true, flags: flags(fl("-e -E", valCode, dangerous, reasonCode), fl("-M -m -I", valAny, safe, "")), check: checkInterpreter},
	{name: "ruby", rating: moderate, reason: reasonBuilds, ops: opNone, stop: true, flags: flags(fl("-e", valCode, dangerous, reasonCode), vals("-r -I")), check: checkInterpreter},
	{name: "php", rating: moderate, reason: reasonBuilds, ops: opNone, stop: true, flags: flags(fl("-r", valCode, dangerous, reasonCode), fl("-S", valAny, dangerous, "serves the network")), check: checkInterpreter},
	{name: "lua", rating: moderate, reason: reasonBuilds, ops: opNone, stop: true, flags: flags(fl("-e", valCode, dangerous, reasonCode), vals("-l")), check: checkInterpreter},

	// Writing in the workspace.
	{name: "mkdir", rating: moderate, reason: reasonWrites, ops: opWrite, flags: vals("-m --mode")},
	{name: "touch", rating: moderate, reason: reasonWrites, ops: opWrite, flags: flags(vals("-d -t --date"), fl("-r --reference", valRead, safe, ""))},
	{name: "cp", rating: moderate, reason: reasonWrites, ops: opLastWrite, flags: flags(vals("-S --suffix --backup"), fl("-t --target-directory", valWrite, moderate, reasonWrites))},
	{name: "install", rating: moderate, reason: reasonWrites, ops: opLastWrite, flags: flags(vals("-m -o -g -S --mode --owner --group"), fl("-t --target-directory", valWrite, moderate, reasonWrites))},
	{name: "mv", rating: moderate, reason: reasonWrites, ops: opWrite, flags: flags(vals("-S --suffix --backup"), fl("-t --target-directory", valWrite, moderate, reasonWrites))},
	{name: "ln", rating: moderate, reason: reasonWrites, ops: opLastWrite, check: checkLn, flags: flags(vals("-S --suffix --backup"), fl("-t --target-directory", valWrite, moderate, reasonWrites))},
	{name: "tee", rating: moderate, reason: reasonWrites, ops: opWrite, flags: vals("--output-error")},
	{name: "truncate", rating: moderate, reason: reasonWrites, ops: opWrite, flags: flags(vals("-s --size"), fl("-r --reference", valRead, safe, ""))},
	{name: "mkfifo", rating: moderate, reason: reasonWrites, ops: opWrite, flags: vals("-m --mode")},
	{name: "mktemp", rating: moderate, reason: reasonTempFile, ops: opText, flags: flags(fl("-p --tmpdir", valOptional, moderate, reasonTempFile)), check: checkMktemp},
	{name: "split", rating: moderate, reason: reasonWrites, ops: opSecondWrite, flags: vals("-l -b -n -C -a --lines --bytes --number --suffix-length --additional-suffix")},
	{name: "patch", rating: moderate, reason: reasonWrites, ops: opWrite, flags: flags(vals("-p -F -z --strip --fuzz --suffix"), fl("-i --input", valRead, safe, ""), fl("-o --output", valWrite, moderate, reasonWrites), fl("-d --directory", valWork, safe, ""))},
	{name: "rm", rating: moderate, reason: reasonDeletes, ops: opDelete, flags: rmFlags},
	{name: "rmdir", rating: moderate, reason: reasonDeletes, ops: opDelete},
	{name: "unlink", rating: moderate, reason: reasonDeletes, ops: opDelete},
	{name: "shred", rating: dangerous, reason: "destroys files so they cannot be recovered", ops: opDelete, flags: vals("-n -s --iterations --size")},
	{name: "chmod", rating: moderate, reason: reasonWrites, ops: opMode, flags: flags(fl("-R --recursive", valNone, dangerous, reasonRecursive), fl("--reference", valRead, safe, "")), check: checkChmod},
	{name: "chown", rating: moderate, reason: reasonWrites, ops: opMode, flags: flags(fl("-R --recursive", valNone, dangerous, reasonRecursive), fl("--reference", valRead, safe, ""))},
	{name: "chgrp", rating: moderate, reason: reasonWrites, ops: opMode, flags: flags(fl("-R --recursive", valNone, dangerous, reasonRecursive), fl("--reference", valRead, safe, ""))},
	{name: "dd", rating: safe, reason: reasonReads, ops: opNone, check: checkDD},
	{name: "tar", rating: moderate, reason: reasonWrites, ops: opRead, flags: flags(
		vals("-b --blocking-factor --exclude -T --files-from -X --exclude-from --transform --strip-components --owner --group --mode --mtime"),
		fl("--to-command --use-compress-program -I --checkpoint-action --info-script -F --new-volume-script --rsh-command --rmt-command", valCode, dangerous, reasonCode),
		fl("-P --absolute-names", valNone, dangerous, reasonAbsolute),
		fl("-C --directory", valWork, safe, ""),
		fl("-f --file", valAny, safe, ""),
		fl("-c --create -r --append -u --update -A --catenate --concatenate -x --extract --get -t --list", valNone, safe, ""),
	), check: checkTar},
	{name: "zip", rating: moderate, reason: reasonWrites, ops: opRead, flags: flags(fl("-TT --unzip-command", valCode, dangerous, reasonCode), vals("-x -i -b -n")), check: checkFirst(accessWrite)},
	{name: "unzip", rating: moderate, reason: reasonWrites, ops: opRead, flags: flags(fl("-d", valWork, safe, ""), vals("-x -P"))},
	{name: "gzip", rating: moderate, reason: reasonWrites, ops: opWrite, flags: vals("-S --suffix")},
	{name: "gunzip", rating: moderate, reason: reasonWrites, ops: opWrite, flags: vals("-S --suffix")},
	{name: "xz", rating: moderate, reason: reasonWrites, ops: opWrite, flags: vals("-T --threads")},
	{name: "unxz", rating: moderate, reason: reasonWrites, ops: opWrite},
	{name: "bzip2", rating: moderate, reason: reasonWrites, ops: opWrite},
	{name: "bunzip2", rating: moderate, reason: reasonWrites, ops: opWrite},
	{name: "zstd", rating: moderate, reason: reasonWrites, ops: opWrite, flags: fl("-o", valWrite, moderate, reasonWrites)},
	{name: "kill", rating: moderate, reason: reasonSignals, ops: opText},
	{name: "pkill", rating: moderate, reason: reasonSignals, ops: opText},
	{name: "killall", rating: moderate, reason: reasonSignals, ops: opText},

	// git.
	{name: "git", rating: safe, reason: reasonPrints, ops: opText, sub: true, flags: flags(
		fl("-C", valWork, safe, ""),
		fl("-c --config-env --exec-path", valAny, dangerous, reasonGitProgram),
		fl("--git-dir --work-tree", valAny, dangerous, "uses a repository other than the workspace's"),
		fl("-p --paginate", valNone, dangerous, reasonPager),
		vals("--namespace --super-prefix --list-cmds"),
	)},
	{name: "git status", rating: safe, reason: reasonGitReads, repo: true},
	{name: "git log", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: gitDiffFlags},
	{name: "git diff", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: gitDiffFlags},
	{name: "git show", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: gitDiffFlags},
	{name: "git blame", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: fl("--contents", valRead, safe, "")},
	{name: "git shortlog", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git reflog", rating: safe, reason: reasonGitReads, repo: true, ops: opText, check: checkGitReflog},
	{name: "git ls-files", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git ls-tree", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git cat-file", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: fl("--textconv --filters", valNone, dangerous, reasonGitProgram)},
	{name: "git rev-parse", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git rev-list", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git describe", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git grep", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: gitDiffFlags},
	{name: "git merge-base", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git show-ref", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git for-each-ref", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git name-rev", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git count-objects", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git version", rating: safe, reason: reasonPrints, ops: opText},
	{name: "git branch", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: flags(
		fl("-d -D --delete -m -M --move -c -C --copy -f --force -u --set-upstream-to --unset-upstream --edit-description", valNone, moderate, reasonGitWrites),
		fl(gitBranchList, valNone, safe, ""),
	), check: checkGitList(gitBranchList)},
	{name: "git tag", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: flags(
		fl("-a --annotate -s --sign -u --local-user -f --force -d --delete -m --message -F --file -e --edit", valNone, moderate, reasonGitWrites),
		fl(gitTagList, valNone, safe, ""),
	), check: checkGitList(gitTagList)},
	{name: "git stash list", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git stash show", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: gitDiffFlags},
	{name: "git worktree list", rating: safe, reason: reasonGitReads, repo: true, ops: opText},
	{name: "git remote", rating: safe, reason: reasonGitReads, repo: true, ops: opText, check: checkGitRemote},
	{name: "git config", rating: safe, reason: reasonGitReads, repo: true, ops: opText, flags: flags(
		fl("--get --get-all --get-regexp --get-urlmatch -l --list", valNone, safe, ""),
		fl("--unset --unset-all --add --replace-all -e --edit --rename-section --remove-section", valNone, dangerous, reasonGitSettings),
		fl("-f --file --blob", valAny, safe, ""),
	), check: checkGitConfig},
	{name: "git add", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git commit", rating: moderate, reason: reasonGitWrites, ops: opText, flags: fl("-F --file", valRead, safe, "")},
	{name: "git switch", rating: moderate, reason: reasonGitWrites, ops: opText, flags: fl("-f --force --discard-changes", valNone, dangerous, reasonDiscards)},
	{name: "git checkout", rating: moderate, reason: reasonGitWrites, ops: opText, flags: fl("-f --force", valNone, dangerous, reasonDiscards), check: checkDiscard},
	{name: "git restore", rating: moderate, reason: reasonGitWrites, ops: opText, check: checkDiscard},
	{name: "git stash", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git merge", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git rebase", rating: moderate, reason: reasonGitWrites, ops: opText, flags: flags(fl("-x --exec", valCode, dangerous, reasonCode), fl("-i --interactive", valNone, dangerous, reasonInteractive))},
	{name: "git reset", rating: moderate, reason: reasonGitWrites, ops: opText, flags: fl("--hard --merge --keep", valNone, dangerous, reasonDiscards)},
	{name: "git apply", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git am", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git mv", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git rm", rating: moderate, reason: reasonGitWrites, ops: opText, flags: fl("-r -f --force", valNone, dangerous, reasonTree)},
	{name: "git cherry-pick", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git revert", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git init", rating: moderate, reason: reasonGitWrites, ops: opWrite},
	{name: "git clean", rating: moderate, reason: reasonGitWrites, ops: opText, flags: fl("-f --force", valNone, dangerous, "deletes files git does not track")},
	{name: "git worktree add", rating: moderate, reason: reasonGitWrites, ops: opWrite},
	{name: "git bisect", rating: moderate, reason: reasonGitWrites, ops: opText},
	{name: "git bisect run", rating: dangerous, reason: reasonCode, ops: opText},
	{name: "git fetch", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "git pull", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "git push", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "git clone", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "git ls-remote", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "git submodule", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "git filter-branch", rating: dangerous, reason: "rewrites the whole history", ops: opText},

	// Go.
	{name: "go", rating: safe, reason: reasonPrints, ops: opText, sub: true},
	{name: "go version", rating: safe, reason: reasonPrints, ops: opText},
	{name: "go env", rating: safe, reason: reasonPrints, ops: opText, flags: fl("-w -u", valNone, dangerous, reasonSettings)},
	{name: "go doc", rating: safe, reason: reasonPrints, ops: opText},
	{name: "go help", rating: safe, reason: reasonPrints, ops: opText},
	{name: "go build", rating: moderate, reason: reasonBuilds, ops: opText, flags: goBuildFlags},
	{name: "go test", rating: moderate, reason: reasonBuilds, ops: opText, flags: goBuildFlags},
	{name: "go vet", rating: moderate, reason: reasonBuilds, ops: opText, flags: goBuildFlags},
	{name: "go run", rating: moderate, reason: reasonBuilds, ops: opText, flags: goBuildFlags, check: checkGoRun},
	{name: "go list", rating: moderate, reason: reasonBuilds, ops: opText, flags: goBuildFlags},
	{name: "go fmt", rating: moderate, reason: reasonFormats, ops: opText},
	{name: "go fix", rating: moderate, reason: reasonFormats, ops: opText},
	{name: "go mod tidy", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "go mod verify", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "go mod graph", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "go mod why", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "go mod edit", rating: moderate, reason: reasonFormats, ops: opText},
	{name: "go mod init", rating: moderate, reason: reasonWrites, ops: opText},
	{name: "go mod download", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "go work", rating: moderate, reason: reasonWrites, ops: opText},
	{name: "go tool", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "go clean", rating: moderate, reason: reasonBuilds, ops: opText, flags: fl("-cache -modcache -fuzzcache", valNone, dangerous, reasonCaches)},
	{name: "go generate", rating: dangerous, reason: "runs the commands the source files name", ops: opText},
	{name: "go install", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "go get", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "gofmt", rating: safe, reason: reasonReads, flags: writer("-w", valNone, reasonFormats)},
	{name: "goimports", rating: safe, reason: reasonReads, flags: writer("-w", valNone, reasonFormats)},
	{name: "golangci-lint", rating: moderate, reason: reasonBuilds, ops: opText, flags: fl("-c --config", valRun, moderate, reasonBuilds)},
	{name: "staticcheck", rating: moderate, reason: reasonBuilds, ops: opText},

	// Other builds and tests.
	{name: "make", rating: moderate, reason: reasonBuilds, ops: opText, flags: flags(
		fl("-C --directory", valWork, safe, ""), fl("-f --file --makefile", valRun, moderate, reasonBuilds),
		fl("--eval", valCode, dangerous, reasonCode), vals("-j --jobs -l --load-average -o -W --old-file --what-if -I --include-dir"),
	)},
	{name: "ninja", rating: moderate, reason: reasonBuilds, ops: opText, flags: flags(fl("-C", valWork, safe, ""), vals("-j -k -l -t -f"))},
	{name: "pytest", rating: moderate, reason: reasonBuilds, ops: opText, flags: fl("-p", valAny, dangerous, "loads a plugin it names")},
	{name: "cargo", rating: safe, reason: reasonPrints, ops: opText, sub: true, flags: flags(
		fl("--config -Z", valAny, dangerous, "changes cargo's settings, which can name programs it runs"),
		fl("-C", valWork, safe, ""), fl("--manifest-path", valRead, safe, ""),
	)},
	{name: "cargo build", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "cargo check", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "cargo test", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "cargo run", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "cargo clippy", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "cargo fmt", rating: moderate, reason: reasonFormats, ops: opText},
	{name: "cargo doc", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "cargo bench", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "cargo clean", rating: moderate, reason: reasonDeletes, ops: opText},
	{name: "cargo install", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "cargo publish", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "cargo add", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "cargo update", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "npm", rating: safe, reason: reasonPrints, ops: opText, sub: true},
	{name: "npm test", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "npm run", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "npm start", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "npm ls", rating: safe, reason: reasonReads, ops: opText},
	{name: "npm install", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "npm ci", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "npm exec", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "npm publish", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "npx", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "pnpm", rating: safe, reason: reasonPrints, ops: opText, sub: true},
	{name: "pnpm test", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "pnpm run", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "pnpm install", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "yarn", rating: dangerous, reason: reasonInstall, ops: opText, sub: true},
	{name: "yarn test", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "yarn run", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "pip", rating: safe, reason: reasonPrints, ops: opText, sub: true},
	{name: "pip list", rating: safe, reason: reasonReads, ops: opText},
	{name: "pip show", rating: safe, reason: reasonReads, ops: opText},
	{name: "pip freeze", rating: safe, reason: reasonReads, ops: opText},
	{name: "pip install", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "pip uninstall", rating: dangerous, reason: reasonInstall, ops: opText},
	{name: "prettier", rating: safe, reason: reasonReads, flags: writer("-w --write", valNone, reasonFormats)},
	{name: "black", rating: moderate, reason: reasonFormats, ops: opWrite},
	{name: "ruff", rating: moderate, reason: reasonFormats, ops: opText},
	{name: "eslint", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "tsc", rating: moderate, reason: reasonBuilds, ops: opText},
	{name: "rustfmt", rating: moderate, reason: reasonFormats, ops: opWrite},
	{name: "shellcheck", rating: safe, reason: reasonReads},

	// Dangerous by nature.
	{name: "curl", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "wget", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "nc", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "ncat", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "socat", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "telnet", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "ftp", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "ssh", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "scp", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "sftp", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "rsync", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "ping", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "dig", rating: dangerous, reason: reasonNetwork, ops: opText},
	{name: "docker", rating: dangerous, reason: reasonContainers, ops: opText},
	{name: "podman", rating: dangerous, reason: reasonContainers, ops: opText},
	{name: "kubectl", rating: dangerous, reason: reasonContainers, ops: opText},
	{name: "sudo", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "su", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "doas", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "pkexec", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "runuser", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "chroot", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "mount", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "umount", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "systemctl", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "systemd-run", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "launchctl", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "crontab", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "at", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "shutdown", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "reboot", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "passwd", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "osascript", rating: dangerous, reason: reasonPrivilege, ops: opText},
	{name: "less", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "more", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "man", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "vi", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "vim", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "nvim", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "emacs", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "nano", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "top", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "htop", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "watch", rating: dangerous, reason: reasonInteractive, ops: opText},
	{name: "strace", rating: dangerous, reason: reasonTrace, ops: opText},
	{name: "ltrace", rating: dangerous, reason: reasonTrace, ops: opText},
	{name: "gdb", rating: dangerous, reason: reasonTrace, ops: opText},
	{name: "valgrind", rating: dangerous, reason: reasonTrace, ops: opText},
	{name: "perf", rating: dangerous, reason: reasonTrace, ops: opText},
	{name: "parallel", rating: dangerous, reason: reasonCode, ops: opText},
}

// Flags of several rows' that the table above names.
var (
	shellFlags = flags(
		fl("-c", valNone, safe, ""), vals("-o -O"),
		fl("-i", valNone, dangerous, reasonInteractive),
		fl("--rcfile --init-file", valRun, dangerous, "runs a file before the command"),
	)
	awkFlags = flags(
		vals("-F -v --field-separator --assign"),
		fl("-f --file -E --exec -i --include -l --load", valRun, dangerous, "runs an awk program from a file"),
		fl("-e --source", valAny, safe, ""),
	)
	pythonFlags = flags(
		fl("-c", valCode, dangerous, reasonCode), fl("-m", valAny, safe, ""),
		vals("-W -X -Q"), fl("-V --version -h --help", valNone, safe, ""),
	)
)

// The flags with which git branch and git tag only list.
const (
	gitBranchList = "-l --list -a --all -r --remotes --contains --no-contains --merged --no-merged --points-at -v -vv --verbose --show-current --format --sort --column"
	gitTagList    = "-l --list -n --contains --no-contains --merged --no-merged --points-at --sort --format --column"
)

// alias returns the name a program's rows are under: python3.12 is
// python, pip3 is pip.
func alias(name string) string {
	for _, pre := range []string{"python", "pip"} {
		if rest, ok := strings.CutPrefix(name, pre); ok && strings.Trim(rest, "0123456789.") == "" {
			return pre
		}
	}
	switch name {
	case "nodejs":
		return "node"
	case "fdfind":
		return "fd"
	case "netcat":
		return "nc"
	}
	return name
}

// byProgram is the table by program name, each program's own row first,
// then its subcommands'.
type byProgram struct {
	rows map[string][]*row
}

func index(list []row) byProgram {
	t := byProgram{rows: make(map[string][]*row)}
	for i := range list {
		rw := &list[i]
		name := strings.Fields(rw.name)[0]
		t.rows[name] = append(t.rows[name], rw)
	}
	for _, rs := range t.rows {
		sort.SliceStable(rs, func(a, b int) bool {
			return len(strings.Fields(rs[a].name)) < len(strings.Fields(rs[b].name))
		})
	}
	return t
}
