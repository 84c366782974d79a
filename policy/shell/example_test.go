package shell_test

import (
	"fmt"

	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/shell"
)

func Example() {
	j, err := shell.New(&shell.Options{Workspace: "/ws", Home: "/home/p", GitProtected: true})
	if err != nil {
		panic(err)
	}
	// The classifier's row for run_command, beside the others.
	classifier, err := policy.NewClassifier(j.Rule())
	if err != nil {
		panic(err)
	}
	for _, line := range []string{
		"git status && go test ./... | tail -5",
		"go test ./... > out.txt",
		`r''m -rf build`,
		`sh -c "wisp approvals approve 7f3a2c1d"`,
	} {
		// What the run_command tool says a call would do.
		inv := shell.Invocation{Line: line}
		v := classifier.Classify(inv.Command())
		fmt.Printf("%s\n  %s: %s\n", inv.Command(), v.Rating, v.Reason)
		// What an answer may cover, and how far.
		l := j.Line(classifier, inv)
		if p := l.Pattern(); p != nil {
			fmt.Printf("  pattern %q, up to %s\n", p, l.Widest())
		} else {
			fmt.Printf("  no pattern, %s only\n", l.Widest())
		}
	}
	// Output:
	// run_command git status && go test ./... | tail -5
	//   moderate: go test ./...: builds, tests or runs the workspace's code
	//   pattern "git status * ; go test * ; tail *", up to always
	// run_command go test ./... > out.txt
	//   moderate: > out.txt: writes files in the workspace
	//   pattern "> out.txt ; go test *", up to always
	// run_command r''m -rf build
	//   dangerous: r''m -rf build: deletes folders and all they hold
	//   no pattern, once only
	// run_command sh -c "wisp approvals approve 7f3a2c1d"
	//   dangerous: answering wisp's questions and approvals is the person's alone
	//   no pattern, once only
}
