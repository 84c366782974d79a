package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/audit"
)

// A typed payload is written as the map of the same keys and values was:
// the same bytes, every string in it redacted, keys and values at any
// depth, so that a record does not depend on which form its data had.
func TestPayloadsRecordAsMaps(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED:github-token#1]") }
	summary := "ask about " + secret
	payloads := []wisp.EventData{
		wisp.TurnStartedData{Input: "use " + secret + " <here> & now"},
		wisp.ToolCallData{Arguments: json.RawMessage(`{"a":[1,"` + secret + `"],"` + secret + `":true}`), ID: "c1", Name: "ask", Summary: &summary},
		wisp.ToolResultData{Content: secret, ID: "c1", Name: "ask"},
		wisp.ToolResultData{Error: "stopped: " + secret, ID: "c1", Name: "ask"},
		wisp.InquirySettledData{ID: "c0ffee01", Kind: "ask_user", Questions: []wisp.CardQuestionSettled{
			{Answer: "it is " + secret, Outcome: "answered", Provenance: "person", Question: "Which token?", Redacted: []string{secret}},
		}},
		wisp.InquiryRequestedData{ID: "c0ffee01", Kind: "ask_user", Deadline: "2026-11-30T10:05:00Z", Questions: []wisp.CardQuestionRequest{
			{Question: "Which?", Options: []wisp.CardOptionRecord{{Label: secret}, {Label: "b", Recommended: true}}},
		}},
		wisp.ConfigChangeData{Key: "tools.ask", From: "", To: secret},
		wisp.TurnEndedData{Error: "the audit log could not be written: " + secret},
		wisp.InquiryAnsweredData{ID: "a1b2c3d4", From: "terminal", Outcome: "answered", Question: "Which?", Answer: secret, UID: new(int), PID: 7},
	}
	typed, typedDir := openRedacting(t, redact)
	mapped, mappedDir := openRedacting(t, redact)
	ctx := context.Background()
	for _, d := range payloads {
		e := wisp.Event{Session: "s1", Thread: "t1", Turn: 1, Source: wisp.SourceWisp, Data: d}
		if err := typed.Record(ctx, e); err != nil {
			t.Fatalf("Record(%+v) = %v", d, err)
		}
		asMap := toMap(t, d)
		if _, err := mapped.Append(ctx, audit.Entry{Kind: d.EventKind(), Session: "s1", Thread: "t1", Turn: 1, Source: wisp.SourceWisp, Data: asMap}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := audit.Read(typedDir, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := audit.Read(mappedDir, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(payloads) || len(b) != len(payloads) {
		t.Fatalf("read %d and %d records, want %d each", len(a), len(b), len(payloads))
	}
	for i := range a {
		if diff := cmp.Diff(string(b[i].Data), string(a[i].Data)); diff != "" {
			t.Errorf("%s: the payload's data (+) differs from the map's (-):\n%s", a[i].Kind, diff)
		}
		if bytes.Contains(a[i].Data, []byte(secret)) {
			t.Errorf("%s holds the credential: %s", a[i].Kind, a[i].Data)
		}
	}
}

// toMap is d as the map of its keys and values, the form event data had
// before it was typed.
func toMap(t *testing.T, d wisp.EventData) map[string]any {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func openRedacting(t *testing.T, redact func(string) string) (*audit.Log, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := audit.Open(dir, &audit.Options{Redact: redact})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, dir
}
