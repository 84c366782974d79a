package files_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools/files"
)

// The file tools over a folder, with their rows for the classifier. An
// edit says what it would do, with its diff, before it runs.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644)

	w, err := files.Open(&files.Options{Workspace: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	classifier, _ := policy.NewClassifier(files.Rules()...)

	read, edit := w.ReadFile(), w.EditFile()
	res, _ := read.Call(context.Background(), wisp.Call{Arguments: []byte(`{"path":"hello.txt"}`)})
	fmt.Println(res.Content)

	call := wisp.Call{Arguments: []byte(`{"path":"hello.txt","mode":"replace","old":"hello","new":"hello, world"}`)}
	act, _ := edit.(wisp.Guarded).Action(context.Background(), call)
	fmt.Println(act.Command, "—", classifier.Classify(act.Command).Rating)
	fmt.Print(act.Diff)

	// Once the gate approved it, the call runs under the approval.
	call.Approval = wisp.Approval{ID: "7f3a2c1d", Command: act.Command, Diff: act.Diff}
	res, _ = edit.Call(context.Background(), call)
	fmt.Println(res.Content)
	// Output:
	// 1	hello
	// (end of hello.txt, 1 line)
	// edit_file replace hello.txt — moderate
	// --- a/hello.txt
	// +++ b/hello.txt
	// @@ -1 +1 @@
	// -hello
	// +hello, world
	// replaced 1 line in hello.txt with 1 line
}
