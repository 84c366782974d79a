package audit_test

import (
	"context"
	"testing"

	"github.com/wisp-agent/wisp/audit"
)

// Records whose kind Options.Sync leaves unsynced are written at once all
// the same: readable, chained and verified, before and after Close.
func TestSyncByKind(t *testing.T) {
	dir := t.TempDir()
	var asked []string
	l, err := audit.Open(dir, &audit.Options{Sync: func(kind string) bool {
		asked = append(asked, kind)
		return kind == "inquiry.settled"
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"tool.call", "tool.result", "inquiry.settled", "tool.call"} {
		if _, err := l.Append(context.Background(), audit.Entry{Kind: kind, Session: "s", Source: audit.SourceTool}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := audit.Read(dir, audit.Filter{})
	if err != nil || len(recs) != 4 {
		t.Fatalf("Read before Close = %d records, %v; want 4", len(recs), err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("a second Close = %v", err)
	}
	r, err := audit.Verify(dir)
	if err != nil || r.Break != nil || r.Records != 4 {
		t.Errorf("Verify = %+v, %v; want 4 records intact", r, err)
	}
	if len(asked) != 4 {
		t.Errorf("Sync was asked %d times, want once a record", len(asked))
	}
}
