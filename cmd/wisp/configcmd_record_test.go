package main

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/home"
)

// A change to a security setting that the audit log cannot record is not
// made, and says so as every record that fails does: wisp.ErrNotRecorded.
func TestUnrecordedChangeIsNotRecorded(t *testing.T) {
	h, err := home.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(h.AuditDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.AuditDir(), []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	ch := config.Change{Key: config.Key{Name: "tools.ask", Kind: "bool", Security: true}, From: "false", To: "true"}
	err = recordChanges(context.Background(), h, []config.Change{ch})
	if !errors.Is(err, wisp.ErrNotRecorded) {
		t.Errorf("recordChanges with no audit log = %v, want wisp.ErrNotRecorded", err)
	}
}
