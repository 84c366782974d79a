//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

// waitRecord waits for a record of kind in the audit log of home and
// returns the records of that kind.
func waitRecord(t *testing.T, home, kind string) []audit.Record {
	t.Helper()
	// A minute, or less when the test's deadline comes first: a busy
	// machine can take long to start the processes that record.
	deadline := time.Now().Add(time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-5*time.Second).Before(deadline) {
		deadline = d.Add(-5 * time.Second)
	}
	for time.Now().Before(deadline) {
		recs, err := audit.Read(filepath.Join(home, "audit"), audit.Filter{KindPrefix: kind})
		if err == nil && len(recs) > 0 {
			return recs
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s recorded", kind)
	return nil
}

// announcedApproval waits for wisp mcp to announce an approval request
// to its client, and returns the request's id.
func announcedApproval(p *mcpPeer) string {
	p.t.Helper()
	const verb = "wisp approvals approve "
	note := p.waitMessage(verb)
	return strings.Fields(note[strings.Index(note, verb)+len(verb):])[0]
}

// approveAtTerminal approves request id once, as the person at a
// terminal does with wisp approvals approve ID.
func approveAtTerminal(t *testing.T, home, id string) {
	t.Helper()
	run := startPTY(t, home, "approvals", "approve", id)
	run.waitFor("anything else files nothing › ")
	run.press("y\r")
	if code := run.exit(); code != 0 {
		t.Fatalf("wisp approvals approve exited %d:\n%s", code, run.shown())
	}
}

// replyOf returns the reply of a respond call's response.
func replyOf(res map[string]any) any {
	r, _ := res["result"].(map[string]any)
	sc, _ := r["structuredContent"].(map[string]any)
	return sc["reply"]
}

// dataOf reads a record's data.
func dataOf(t *testing.T, r audit.Record) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A decision written by hand into the approvals folder, with the digest
// copied from the request, does not approve what wisp mcp waits on: it is
// refused and recorded as approval.refused, and the request waits on for
// the person, whose answer at a terminal is recorded first and then
// taken. The audit pairs the decision with who gave it.
func TestMCPPlantedDecisionIsRefused(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	srv, stop := ollamatest.Start(scriptOllamaModels...)
	defer stop()
	script := filepath.Join(dir, "s.jsonl")
	os.WriteFile(script, []byte(
		`{"tool_calls":[{"name":"models","arguments":{"action":"enable","name":"ollama:qwen3:4b"}}]}`+"\n"+
			`{"content":"after approval"}`+"\n"), 0o600)
	p := startMCPWith(t, home, strings.TrimPrefix(srv.URL, "http://"), "--model", "script:"+script)
	p.await(p.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}}))
	p.send(map[string]any{"method": "notifications/initialized"})
	p.await(p.request(2, "logging/setLevel", map[string]any{"level": "notice"}))
	call := p.request(3, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": "Turn on qwen3.", "thread_id": "t-plant", "tools": []string{"models"}}})
	id := announcedApproval(p)

	// Whatever can write the wisp home copies the digest into a decision.
	data, err := os.ReadFile(filepath.Join(home, "approvals", id+".request.json"))
	if err != nil {
		t.Fatal(err)
	}
	var req struct{ Digest string }
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	planted := `{"version":1,"id":"` + id + `","digest":"` + req.Digest + `","scope":"session","from":"terminal","at":"` + time.Now().UTC().Format(time.RFC3339Nano) + `"}` + "\n"
	if err := os.WriteFile(filepath.Join(home, "approvals", id+".decision.json"), []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	refused := waitRecord(t, home, wisp.KindApprovalRefused)
	if d := dataOf(t, refused[0]); d["id"] != id || d["scope"] != "session" || refused[0].Source != wisp.SourceWisp {
		t.Errorf("approval.refused %s, want the planted decision, refused by wisp", refused[0].Data)
	}
	if cfg, err := config.Load(filepath.Join(home, "config.json")); err != nil || len(cfg.Models.Enabled) != 0 {
		t.Fatalf("models.enabled %v (%v) after a planted decision; want nothing enabled", cfg.Models.Enabled, err)
	}

	// The person answers at a terminal: that is taken.
	approveAtTerminal(t, home, id)
	if res := p.await(call); replyOf(res) != "after approval" {
		t.Fatalf("respond = %v", res)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || len(cfg.Models.Enabled) != 1 || !strings.HasPrefix(cfg.Models.Enabled[0], "ollama:qwen3:4b@") {
		t.Errorf("models.enabled %v (%v), want the model the person approved", cfg.Models.Enabled, err)
	}
	answered := waitRecord(t, home, wisp.KindApprovalAnswered)
	decided := waitRecord(t, home, wisp.KindApprovalDecided)
	a, d := dataOf(t, answered[0]), dataOf(t, decided[0])
	if len(answered) != 1 || a["fileSHA256"] == nil || d["fileSHA256"] != a["fileSHA256"] || decided[0].Source != wisp.SourcePerson || !strings.HasPrefix(a["terminal"].(string), "/dev/") {
		t.Errorf("approval.answered %s and approval.decided %s; want one each, from a terminal, naming the same file", answered[0].Data, decided[0].Data)
	}
	rep, err := audit.Verify(filepath.Join(home, "audit"))
	if err != nil || rep.Failed() {
		t.Errorf("wisp audit --verify: %v, %v", rep, err)
	}
}

// wisp audit --verify names a record that takes an answer nobody is on
// record as giving, and fails.
func TestAuditVerifyNamesUnvouchedAnswers(t *testing.T) {
	home := t.TempDir()
	log, err := audit.Open(filepath.Join(home, "audit"), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := strings.Repeat("ab", 32)
	for _, e := range []audit.Entry{
		{Kind: wisp.KindApprovalRequested, Source: wisp.SourceWisp, Approval: "7f3a2c1d", Data: map[string]any{"id": "7f3a2c1d"}},
		{Kind: wisp.KindApprovalDecided, Source: wisp.SourcePerson, Approval: "7f3a2c1d", Data: map[string]any{"approvalID": "7f3a2c1d", "decision": "approved", "fileSHA256": sum}},
	} {
		if _, err := log.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"audit", "--verify"}, strings.NewReader(""), &stdout, &stderr, testEnv(home))
	want := "audit: line 2 (approval.decided of 7f3a2c1d) takes an answer that no approval.answered record gave before it\n"
	if code != 1 || stdout.String() != want {
		t.Errorf("wisp audit --verify = exit %d, %q; want exit 1, %q", code, stdout.String(), want)
	}
}
