package shell_test

import (
	"os"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/policy/shell"
)

// docs/commands.md names every program the table has rows for, so that
// the table in the docs is the table in the code.
func TestDocsNameEveryProgram(t *testing.T) {
	b, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, name := range shell.Names() {
		if !strings.Contains(doc, "`"+name+"`") && !strings.Contains(doc, "`"+name+" ") {
			t.Errorf("docs/commands.md does not name `%s`; add it to the rules table", name)
		}
	}
}
