// Package shell judges a shell command line the model asks wisp to run.
// It reads the line as bash would, finds every command inside it, rates
// each by a table of rules, and rates the line by the highest, with a
// reason that names the part that set it: "rm -rf build: deletes folders
// and all they hold".
//
// # Reading the line
//
// A line with a control character (CR, NUL, any C0 one but TAB and LF,
// DEL, C1) or an invisible one (a space other than the ASCII space, a
// bidi control, a zero-width character) is dangerous before it is parsed:
// the parser takes a lone CR for a blank where bash does not, so
// "ls\rrm -rf ~" must never read as ls. So is a line longer than 16 KiB,
// one that does not parse as bash, and one with more than 512 parts. No
// limit ever lowers a rating.
//
// The line is parsed with mvdan.cc/sh/v3/syntax and every simple command
// in it is rated: in pipelines and lists, subshells and blocks, if, while,
// for and case bodies, command and process substitutions (wherever they
// are: in an assignment, a redirection, a here-document), after the
// wrappers that run the words that follow them (env, command, builtin,
// exec, nice, nohup, setsid, stdbuf, timeout, time, flock, xargs,
// busybox), and in the strings that run as command lines, read again up
// to three deep: sh -c and bash -c (and zsh, dash, ksh), eval, trap, the
// here-document or here-string a shell reads, env -S, flock -c,
// script -c, find -exec. What a shell reads from a pipe, and the inline
// code of python, node, perl, ruby, php and lua, cannot be read: it is
// dangerous.
//
// A word is known when it runs only if it has no expansion: quotes,
// $'…' escapes, backslashes and brace expansion are taken out as bash
// takes them (r""m, 'r'm, $'\x72m', \rm and {rm,-rf,x} are rm), and ~ is the
// person's home. A command whose name is a variable, a substitution or a
// file pattern is dangerous; so is an argument only known when it runs to
// a command with flags that matter (rm "$x", find . $x). Arithmetic on a
// variable ($((x)), [[ $x -eq 0 ]], let, declare -i), ${!x}, ${x@P}, and
// names such as a[$(cmd)] are dangerous, since bash evaluates a
// variable's value there and it may hold a command. A shell function is
// dangerous, since it can take a command's name.
//
// Paths are judged in every folder the command may run in: the folder of
// the call, and any a cd before it in the line may have changed to, with
// the symbolic links of their existing part resolved. Writing (a
// redirection, or a command that writes its operands) in the workspace or
// the sandbox's private temporary folder is moderate; anywhere else, or
// in the workspace's .git, dangerous; in wisp's own folder, the person's
// alone. Reading wisp's folder or the person's hidden files (~/.ssh) is
// dangerous; /dev/tcp and /dev/udp are the network.
//
// # The table
//
// Each row of the table rates a command: its name and any subcommand
// words ("ls", "git commit", "go mod tidy"), a rating and a reason, the
// flags that raise it (find -delete, git -c, sed -i, rm -r in any
// spelling: -rf, -Rf, -r -f, --rec), what its operands are (files it
// reads or writes, words, another command), and for a few, a check of
// what the table cannot say as data (a sed script, find's expression,
// git config's get or set). Safe rows only read; moderate ones write in
// the workspace or run its code; dangerous ones reach the network, run
// with other privileges, delete trees, or run code wisp cannot read. A
// command no row names is dangerous: unknown is never safe. A program
// named by a path in a system folder (/usr/bin/rm) is judged by its name;
// any other (./build.sh) by where it is.
//
// The commands only the person may run are the classifier's person-only
// rows (wisp approvals, wisp questions, wisp config set, …), which the
// Judge is given at each call. Any command of the line they name makes
// the line the person's alone: a command of its own, one a wrapper runs,
// one read again from a string, or one among the words of a program that
// may run them (sudo, watch, a program wisp does not know). So does
// changing anything in wisp's folder, and a line with code in it the
// judge cannot read (a shell fed from a pipe, a command named by a
// variable, inline python) whose text names one.
//
// # The classifier's shape
//
// The run_command tool describes a call as the command
// "run_command LINE", or "run_command -C DIR -e NAME -- LINE" when it
// runs in a folder other than the workspace or sets variables
// (Invocation.Command). Judge.Rule is the classifier's row for it: the
// classifier hands the text after "run_command " to the Judge, which
// rates the folder (outside the workspace is dangerous), each variable
// (PATH, LD_PRELOAD, GIT_* and their kin are dangerous), and the line.
//
// # Patterns
//
// What an answer covers beyond one call is a Pattern (Line.Pattern): the
// entry of each part of the line, "git commit *" for git commit -m "x",
// "> out.txt" for a redirection, "-e GH_TOKEN" for a variable. A line is
// covered when every part rated at or above approval.threshold has its
// entry among the pattern's (Pattern.Match); a dangerous line never is,
// and may be approved once only (Line.Scopes). The gate asks the
// classifier (policy.Classifier.Covers), which asks the Judge.
//
// The judge is advisory: it decides when to ask the person. The sandbox
// is what keeps a command inside the workspace.
package shell
