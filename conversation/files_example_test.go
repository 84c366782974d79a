package conversation_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/models/script"
)

// A conversation with a workspace has the file tools. The model reads a
// file and searches it without anyone being asked; its edit reaches the
// program's Approver as a diff, and once the person allows it, this one
// time, the file is written, its mode kept. A read outside the workspace
// is refused, and an edit of .git/config may be allowed once only.
func Example_files() {
	base, err := os.MkdirTemp("", "wisp-files-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(base)
	homeDir, ws := filepath.Join(base, "home"), filepath.Join(base, "project")
	main := filepath.Join(ws, "main.go")
	for name, content := range map[string]string{main: "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n", filepath.Join(ws, ".git", "config"): "[core]\n"} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o640); err != nil {
			log.Fatal(err)
		}
	}
	call := func(name, args string) script.Step {
		return script.Step{ToolCalls: []script.ToolCall{{Name: name, Arguments: []byte(args)}}}
	}
	model := script.New("files", []script.Step{
		call("read_file", `{"path":"main.go"}`),
		call("search", `{"pattern":"println"}`),
		call("edit_file", `{"path":"main.go","mode":"replace","old":"println(\"hi\")","new":"println(\"hello\")"}`),
		call("read_file", `{"path":"../secrets.txt"}`),
		call("edit_file", `{"path":".git/config","mode":"append","new":"[alias]\n\tst = status\n"}`),
		{Content: "It says hello now."},
	})
	// The person, as the program's own dialog would ask them: they allow
	// the change to main.go, this once, and nothing else.
	approver := wisp.ApproverFunc(func(ctx context.Context, r wisp.ApprovalRequest) (wisp.Decision, error) {
		fmt.Printf("asked: %s %v\n%s%s", r.Command, r.Scopes, indent(r.Text), indent(r.Diff))
		if r.Command == "edit_file replace main.go" {
			return wisp.Decision{Scope: wisp.ScopeOnce, Provenance: wisp.FromPerson}, nil
		}
		return wisp.Decision{Reason: "not that", Provenance: wisp.FromPerson}, nil
	})
	// What the model was given, a line of each.
	events := wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
		if r, ok := e.Data.(wisp.ToolResultData); ok {
			first, _, _ := strings.Cut(r.Content, "\n")
			fmt.Printf("%s: %s\n", r.Name, first)
		}
		return nil
	})
	conv, err := conversation.New(context.Background(), &conversation.Options{
		Home: homeDir, Model: model, Workspace: ws, Approver: approver, Events: events,
		Named: []string{"read_file", "search", "edit_file"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer conv.Close()
	reply, err := conv.Respond(context.Background(), "Make it say hello.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Text)
	b, err := os.ReadFile(main)
	if err != nil {
		log.Fatal(err)
	}
	fi, err := os.Stat(main)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("main.go, %v: %q\n", fi.Mode(), b)
	// Output:
	// read_file: 1	package main
	// search: main.go:4: 	println("hi")
	// asked: edit_file replace main.go [once session]
	//   replaces 1 line in main.go with 1 line
	//   rated moderate: changes a file in the workspace
	//   --- a/main.go
	//   +++ b/main.go
	//   @@ -1,5 +1,5 @@
	//    package main
	//
	//    func main() {
	//   -	println("hi")
	//   +	println("hello")
	//    }
	// edit_file: replaced 1 line in main.go with 1 line
	// read_file: error: "../secrets.txt" is outside the workspace; give a path inside it, relative to it (such as src/main.go)
	// asked: edit_file append .git/config [once]
	//   adds 2 lines at the end of .git/config
	//   rated dangerous: changes git's own files: hooks and settings there run programs
	//   --- a/.git/config
	//   +++ b/.git/config
	//   @@ -1 +1,3 @@
	//    [core]
	//   +[alias]
	//   +	st = status
	// edit_file: error: not approved: not that
	// It says hello now.
	// main.go, -rw-r-----: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"
}

// indent puts two blanks before each line of s, and none after.
func indent(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(strings.TrimRight("  "+line, " \n") + "\n")
	}
	return b.String()
}
