package files

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets/scan"
	"github.com/wisp-agent/wisp/tools"
)

// MaxFindings bounds the findings scan_secrets shows; its closing line
// counts them all.
const MaxFindings = 100

//go:embed scan_secrets.md
var scanDescription string

type scanArgs struct {
	Path string `json:"path,omitempty" jsonschema:"The folder or file to scan, relative to the workspace (default the workspace)"`
}

// ScanSecrets returns the scan_secrets tool: the credentials in the text
// files under a folder, found by package secrets' rules (scan.FS), each
// as path:line:column: rule marker, at most MaxFindings, then a line
// that counts them and what was scanned. It leaves out what list_files
// does, binary files and files larger than scan.DefaultMaxFileBytes.
// A value is never shown: its marker is the one the Workspace's redactor
// gives it (Options.Redact), so it is the marker the value has in the
// rest of the conversation. Its calls change nothing (tools.NoApproval).
func (w *Workspace) ScanSecrets() wisp.Tool {
	return tools.New(NameScanSecrets, scanDescription, w.scanSecrets, &tools.Options{
		Schema: func(s *jsonschema.Schema) { pathLimits(s.Properties["path"], false) },
		Summary: summary(func(a scanArgs) string {
			return strings.TrimSpace("scans for credentials " + inPath(a.Path))
		}),
		Action: tools.NoApproval,
	})
}

func (w *Workspace) scanSecrets(ctx context.Context, _ wisp.Call, a scanArgs) (wisp.Result, error) {
	out, err := w.scan(ctx, a)
	return result(ctx, out, err)
}

// scan is scan_secrets' work.
func (w *Workspace) scan(ctx context.Context, a scanArgs) (string, error) {
	dir, err := w.resolve(a.Path)
	if err != nil {
		return "", err
	}
	r, err := scan.FS(ctx, w.root.FS(), []string{dir}, &scan.Options{
		Skip: w.inHome, MaxEntries: MaxWalked,
		Mark: func(_, value string) string { return w.redact(value) },
	})
	if err != nil {
		return "", walkError(a.Path, err)
	}
	var b strings.Builder
	for i, f := range r.Findings {
		if i == MaxFindings {
			fmt.Fprintf(&b, "(%d more not shown; scan a narrower path)\n", len(r.Findings)-MaxFindings)
			break
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s %s\n", f.File, f.Line, f.Column, f.Rule, f.Marker)
	}
	b.WriteString("(" + r.Summary() + ")")
	for i, s := range r.Skips() {
		if i == 10 {
			fmt.Fprintf(&b, "\n(%d more not scanned)", len(r.Skipped)-10)
			break
		}
		b.WriteString("\n(" + s + ")")
	}
	return w.redact(b.String()), nil
}
