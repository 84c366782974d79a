package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/wisp-agent/wisp/sandbox"
)

// A program that runs commands calls sandbox.Main first thing in main,
// then runs each command through a Runner.
func Example() {
	sandbox.Main() // first thing in main

	r, err := sandbox.New(sandbox.Policy{
		Workspace: "/home/p/project",
		Home:      "/home/p/.wisp",
		Hide:      []string{"/home/p/.ssh", "/home/p/.aws"},
		ReadOnly:  []string{".git"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if s := r.Support(context.Background()); !s.Confined {
		fmt.Println("commands cannot be confined here:", s.Reason)
	}
	res, err := r.Run(context.Background(), sandbox.Command{
		Line: "go test ./...",
		Env:  sandbox.Environ(os.Environ(), []string{"GOPATH", "GOCACHE"}),
		OnOutput: func(s sandbox.Stream, p []byte) {
			os.Stdout.Write(p) // as it comes
		},
	})
	if errors.Is(err, sandbox.ErrUnavailable) {
		fmt.Println("ask the person whether to run it unconfined (mode off)")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("exit %d after %v; stderr kept: %s\n", res.ExitCode, res.Duration, res.Stderr)
}
