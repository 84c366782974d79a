package scan_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/policy/secrets/scan"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// BenchmarkPaths scans a generated tree of 400 files, 10 MiB of code,
// configuration and logs, one file in four holding a credential.
func BenchmarkPaths(b *testing.B) {
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	rules := secretstest.Rules()
	tree := map[string]string{}
	var total int64
	for i := range 400 {
		var s strings.Builder
		for s.Len() < 25<<10 {
			fmt.Fprintf(&s, "2026-08-01T10:%02d:%02dZ INFO handler=%d status=200 path=/api/v1/items/%d\n", r.IntN(60), r.IntN(60), r.IntN(100), r.IntN(1e6))
			fmt.Fprintf(&s, "\tif err := client.Do(ctx, req%d); err != nil { return fmt.Errorf(\"request: %%w\", err) }\n", r.IntN(100))
			if i%4 == 0 && s.Len() > 12<<10 && s.Len() < 13<<10 {
				f, _ := secretstest.Generate(rules[r.IntN(len(rules))], r)
				s.WriteString("CREDENTIAL=" + f.Text + "\n")
			}
		}
		tree[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = s.String()
		total += int64(s.Len())
	}
	write(b, dir, tree)
	root := filepath.Join(dir, ".")
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		if _, err := scan.Paths(context.Background(), []string{root}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
