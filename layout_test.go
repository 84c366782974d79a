package wisp_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/wisp-agent/wisp"

// The dependency direction of docs/architecture.md: each package may import
// only the module's packages listed for it (and any package below those it
// names with a trailing "/..."). A rule that moves into the wrong package
// shows up here.
var allowed = map[string][]string{
	"":                           {},
	"agent":                      {"", "internal/fsx", "internal/jsonredact", "policy", "tools"},
	"agent/threadfile":           {"", "agent", "internal/fsx", "internal/jsonredact", "policy/secrets"},
	"mcpserver":                  {"", "agent", "agent/threadfile", "audit", "conversation", "home", "inquiry", "inquiry/mcpface", "inquiry/pending", "internal/fsx", "internal/version", "policy/outofband", "tools"},
	"tools":                      {""},
	"tools/ask":                  {"", "inquiry", "tools"},
	"tools/memory":               {"", "inquiry/escape", "internal/fsx", "policy", "policy/secrets", "tools", "internal/plural"},
	"tools/askuser":              {"", "inquiry", "tools"},
	"tools/files":                {"", "internal/fsx", "internal/walk", "policy", "policy/secrets", "policy/secrets/scan", "tools"},
	"inquiry":                    {"", "policy/secrets"},
	"inquiry/escape":             {},
	"inquiry/terminal":           {"", "inquiry", "inquiry/escape", "inquiry/pending", "models", "models/hf", "policy/outofband", "policy/secrets"},
	"inquiry/unattended":         {""},
	"inquiry/facetest":           {"", "inquiry/escape"},
	"inquiry/jsonl":              {"", "inquiry/escape", "inquiry/pending", "inquiry/unattended", "internal/version", "policy/secrets"},
	"inquiry/mcpface":            {"", "inquiry", "inquiry/escape", "inquiry/pending", "policy/outofband"},
	"inquiry/pending":            {"", "inquiry", "inquiry/escape", "internal/fsx", "internal/spool", "policy/secrets"},
	"policy/secrets":             {},
	"policy/secrets/secretstest": {},
	"audit":                      {"", "inquiry/escape", "internal/jsonredact"},
	"home":                       {"", "agent/threadfile", "audit", "config", "inquiry/pending", "internal/fsx", "policy/outofband", "policy/secrets", "policy/standing", "tools/memory"},
	"config":                     {"", "internal/fsx", "policy/secrets", "internal/plural"},
	"internal/fsx":               {},
	"internal/walk":              {},
	"policy/secrets/scan":        {"inquiry/escape", "internal/plural", "internal/walk", "policy/secrets"},
	"internal/jsonredact":        {},
	"internal/spool":             {"", "internal/fsx", "policy/secrets"},
	"internal/spool/spooltest":   {"internal/spool"},
	"models":                     {"", "config", "inquiry/escape", "models/hf", "policy", "internal/plural"},
	"models/hf":                  {"internal/fsx", "internal/neterr"},
	"models/openai":              {"", "internal/neterr"},
	"internal/neterr":            {},
	"internal/version":           {},
	"internal/cmdline":           {"", "internal/plural"},
	"internal/plural":            {},
	"models/openai/openaitest":   {},
	"models/hf/hubtest":          {},
	"models/modeltest":           {"", "models"},
	"policy":                     {""},
	"policy/outofband":           {"", "policy", "internal/fsx", "internal/spool", "policy/secrets"},
	"policy/shell":               {"", "policy"},
	"policy/standing":            {"", "policy", "internal/fsx", "internal/plural"},
	"tools/modelstool":           {"", "models", "tools"},
	"tools/requestapproval":      {"", "policy", "tools"},
	"tools/runcommand":           {"", "policy", "policy/secrets", "tools"},
	"tools/runcommand/sandboxed": {"", "policy", "policy/shell", "sandbox", "tools/runcommand"},
	"models/script":              {""},
	"models/ollama":              {"", "models", "internal/neterr"},
	"models/ollama/ollamatest":   {},
	"models/mlx":                 {"", "models", "models/openai"},
	"models/mlx/mlxtest":         {},
	"wisptest":                   {""},
	"prompt":                     {"", "inquiry/escape", "internal/fsx", "internal/walk"},
	"sandbox":                    {},
	"conversation":               {"", "agent", "agent/threadfile", "audit", "config", "home", "inquiry", "inquiry/pending", "inquiry/unattended", "models", "models/script", "policy", "policy/secrets", "policy/shell", "prompt", "tools", "tools/..."},
	"cmd/wisp":                   {"", "agent", "agent/...", "audit", "config", "conversation", "home", "inquiry/...", "internal/cmdline", "internal/version", "mcpserver", "models/...", "policy/...", "prompt", "sandbox", "tools/..."},
	"cmd/wisp-tui":               {"", "inquiry/escape", "inquiry/jsonl", "internal/version", "sandbox"},
	"scripts/benchpull":          {"models/hf/hubtest"},
	"scripts/bench-scan":         {"policy/secrets/secretstest"},
	"scripts/interop-ollama":     {"models"},
	"examples/customface":        {"", "agent", "inquiry/...", "models/...", "tools/..."},
	"examples/embed":             {"", "conversation", "home", "inquiry/escape", "models/script"},
}

func TestDependencyDirection(t *testing.T) {
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = ""
		}
		seen[rel] = true
		rules, ok := allowed[rel]
		if !ok {
			t.Errorf("package %q has no entry in the dependency rules; add it with what it may import", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if !permitted(rules, dep) {
				t.Errorf("package %q imports %q, which the dependency rules do not allow", rel, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range allowed {
		if !seen[p] {
			t.Errorf("the dependency rules name %q, which is not a package", p)
		}
	}
}

func permitted(rules []string, dep string) bool {
	for _, r := range rules {
		if r == dep || (strings.HasSuffix(r, "/...") && (dep == strings.TrimSuffix(r, "/...") || strings.HasPrefix(dep, strings.TrimSuffix(r, "...")))) {
			return true
		}
	}
	return false
}
