package audit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
)

// An event recorded through the log as a sink, or through a Witness, is
// the record an Append of the same entry writes: in the Witness's session
// when it has one, and found again when the Witness is asked to vouch.
func TestRecordAndWitness(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(dir, &audit.Options{Redact: func(s string) string {
		if s == "ghp_secret" {
			return "[REDACTED:1]"
		}
		return s
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	e := wisp.Event{Session: "s1", Thread: "t1", Turn: 2, Source: wisp.SourceModel,
		Approval: "a1", Data: wisp.ToolResultData{ID: "c1", Name: "ask", Content: "ghp_secret"}}
	if err := l.Record(ctx, e); err != nil {
		t.Fatalf("Record(%v) = %v", e, err)
	}
	w := audit.Witness{Log: l, Session: "s-face"}
	answered := wisp.Event{Session: "s2", Source: wisp.SourcePerson,
		Data: wisp.InquiryAnsweredData{ID: "q1", FileSHA256: "abc", From: "terminal", Outcome: "chose", Question: "Which?"}}
	if err := w.Record(ctx, answered); err != nil {
		t.Fatalf("Witness.Record(%v) = %v", answered, err)
	}
	recs, err := audit.Read(dir, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Kind, Session, Thread string
		Turn                  int
		Source, Approval      string
		Data                  map[string]string
	}
	var gots []got
	for _, r := range recs {
		g := got{Kind: r.Kind, Session: r.Session, Thread: r.Thread, Turn: r.Turn, Source: r.Source, Approval: r.Approval}
		if err := json.Unmarshal(r.Data, &g.Data); err != nil {
			t.Fatal(err)
		}
		gots = append(gots, g)
	}
	want := []got{
		{Kind: "tool.result", Session: "s1", Thread: "t1", Turn: 2, Source: "model", Approval: "a1", Data: map[string]string{"id": "c1", "name": "ask", "content": "[REDACTED:1]"}},
		{Kind: "inquiry.answered", Session: "s-face", Source: "person", Data: map[string]string{"id": "q1", "fileSHA256": "abc", "from": "terminal", "outcome": "chose", "question": "Which?"}},
	}
	if diff := cmp.Diff(want, gots, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		id, sum string
		want    bool
	}{{"q1", "abc", true}, {"q1", "abd", false}, {"q2", "abc", false}} {
		ok, err := w.Vouched(ctx, wisp.KindInquiryAnswered, c.id, c.sum)
		if err != nil || ok != c.want {
			t.Errorf("Vouched(%q, %q) = %v, %v; want %v", c.id, c.sum, ok, err, c.want)
		}
	}
}

// A decision, an answer, a change and the end of a turn wait for the
// disk; what comes between them does not.
func TestSyncDecisions(t *testing.T) {
	for kind, want := range map[string]bool{
		wisp.KindInquirySettled: true, wisp.KindInquiryAnswered: true, wisp.KindApprovalDecided: true,
		wisp.KindApprovalAnswered: true, wisp.KindConfigChange: true, wisp.KindTurnEnded: true, wisp.KindInquiryParked: true,
		wisp.KindToolCall: false, wisp.KindToolResult: false, wisp.KindModelMessage: false, wisp.KindTurnStarted: false,
		wisp.KindInquiryRequested: false, wisp.KindClassifierVerdict: false, wisp.KindApprovalRequested: false,
		wisp.KindNotice: false, wisp.KindCondensed: false,
	} {
		if got := audit.SyncDecisions(kind); got != want {
			t.Errorf("SyncDecisions(%q) = %v, want %v", kind, got, want)
		}
	}
}
