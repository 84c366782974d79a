package wisp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func ptr[T any](v T) *T { return &v }

// eventExamples are payloads of every kind, with every key each can have:
// testdata/events/KIND.jsonl holds what each marshals to, a line each, in
// this order.
var eventExamples = []wisp.EventData{
	wisp.TurnStartedData{Input: "which config is live? <a & b>"},

	wisp.ModelMessageData{Content: "Let me ask."},
	wisp.ModelMessageData{Content: "", ToolCalls: []string{"ask", "models"}},

	wisp.ToolCallData{Arguments: json.RawMessage(`{"question":"Which config?","options":["a","b"]}`), ID: "c1", Name: "ask", Summary: ptr("ask a question")},
	wisp.ToolCallData{Arguments: wisp.ToolArguments(json.RawMessage(`not json <`)), ID: "c2", Name: "models", Summary: ptr("")},
	wisp.ToolCallData{ID: "c3", Name: "list"},

	wisp.ToolResultData{Content: "chose: ./wisp.json", ID: "c1", Name: "ask"},
	wisp.ToolResultData{Content: "", ID: "c2", IsError: true, Name: "models"},
	wisp.ToolResultData{Error: "the person stopped the turn", ID: "c3", Name: "ask", Content: "ignored", IsError: true},

	wisp.InquiryRequestedData{Deadline: "2026-11-30T10:05:00Z", ID: "a1b2c3d4", Options: []string{"~/.wisp/config.json", "./wisp.json"}, Question: "Which config did you mean?"},
	wisp.InquiryRequestedData{ID: "a1b2c3d5", Options: []string{}, Question: "Which branch?"},
	wisp.InquiryRequestedData{ID: "a1b2c3d6", Question: "Which branch?"},
	wisp.InquiryRequestedData{Deadline: "2026-11-30T10:05:00Z", ID: "c0ffee01", Kind: "ask_user", Questions: []wisp.CardQuestionRequest{
		{Header: "Config", Question: "Which config?", MultiSelect: false, AllowOther: true, Options: []wisp.CardOptionRecord{
			{Label: "./wisp.json", Description: "the project's", Recommended: true},
			{Label: "~/.wisp/config.json"},
		}},
		{Question: "Which features?", MultiSelect: true, Options: []wisp.CardOptionRecord{{Label: "ask"}, {Label: "models"}}},
		{Question: "Your token?", Secret: "GH_TOKEN", AllowOther: true, MultiSelect: true},
	}},

	wisp.InquiryParkedData{Deadline: "2026-11-30T10:05:00Z", ID: "a1b2c3d4", Options: []string{"a", "b"}, Question: "Which config?"},
	wisp.InquiryParkedData{ID: "a1b2c3d4", Question: "Which branch?"},

	wisp.InquirySettledData{Answer: "./wisp.json", ID: "a1b2c3d4", Outcome: "chose", Provenance: "person", Question: "Which config did you mean?"},
	wisp.InquirySettledData{Answer: "[REDACTED:github-token#1] and more", Cut: true, Error: "the answer came after its question ended", FileSHA256: "5e1f", ID: "a1b2c3d4",
		Outcome: "no-person", Provenance: "unknown", Question: "Which token?", Redacted: []string{"[REDACTED:github-token#1]"}},
	wisp.InquirySettledData{Error: "the person stopped the turn", ID: "a1b2c3d4", Outcome: "stopped"},
	wisp.InquirySettledData{Error: "the person stopped the turn", ID: "c0ffee01", Kind: "ask_user", Outcome: "stopped"},
	wisp.InquirySettledData{ID: "c0ffee01", Kind: "ask_user", Questions: []wisp.CardQuestionSettled{
		{Chosen: []string{"./wisp.json"}, Outcome: "chose", Provenance: "person", Question: "Which config?"},
		{Answer: "[REDACTED:aws-access-key#1] x", Cut: true, Fallback: true, Outcome: "answered", Provenance: "default", Question: "Notes?", Redacted: []string{"[REDACTED:aws-access-key#1]"}},
		{Error: "the vault is locked", Outcome: "answered", Provenance: "person", Question: "Your token?", Ref: "session:GH_TOKEN", Secret: "GH_TOKEN"},
	}},

	wisp.InquiryAnsweredData{Answer: "./wisp.json", FileSHA256: "5e1f", From: "terminal", ID: "a1b2c3d4", Outcome: "chose", PID: 4242, Question: "Which config?", Terminal: "/dev/pts/3", UID: ptr(0)},
	wisp.InquiryAnsweredData{From: "elicitation", ID: "a1b2c3d4", Outcome: "declined", Question: "Which config?"},

	wisp.InquiryRefusedData{Answer: "./wisp.json", FileSHA256: "5e1f", From: "terminal", ID: "a1b2c3d4", Outcome: "chose", Question: "Which config?", Reason: "no inquiry.answered record vouches for the answer on file"},
	wisp.InquiryRefusedData{FileSHA256: "5e1f", From: "terminal", ID: "a1b2c3d4", Outcome: "declined", Question: "Which config?", Reason: "no inquiry.answered record vouches for the answer on file"},

	wisp.VerificationFlaggedData{Claim: "you confirmed", Flag: "unverified-claim"},

	wisp.NoticeData{Text: "[wisp: the pull of org/model finished]"},

	wisp.CondensedData{Dropped: 12, Facts: 2, Kept: 9, Reason: "context"},

	wisp.TurnEndedData{Steps: 3},
	wisp.TurnEndedData{Error: "the person stopped the turn", Interrupted: true, Steps: 2},
	wisp.TurnEndedData{Error: "thread t-1 could not be saved: disk full; this turn was not kept"},

	wisp.ClassifierVerdictData{Command: "models enable llama3", Rating: "high", Reason: "turns on a model"},

	wisp.ApprovalRequestedData{Command: "models pull org/model", Deadline: "2026-11-30T10:05:00Z", ID: "7f3a2c1d", Kind: "modelAction", Pattern: "models pull *", Rating: "high", Scopes: []string{"once", "session"}, Text: "Pull org/model?"},
	wisp.ApprovalRequestedData{Command: "rm -rf build", ID: "7f3a2c1e", Kind: "command", Rating: "medium", Scopes: []string{"once"}},
	wisp.ApprovalRequestedData{Command: "edit_file replace main.go", Diff: "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-package x\n+package main\n", ID: "7f3a2c1f", Kind: "fileEdit", Pattern: "edit_file replace *", Rating: "moderate", Scopes: []string{"once", "session"}, Text: "replaces 1 line in main.go"},

	wisp.ApprovalDecidedData{ApprovalID: "7f3a2c1d", Decision: "approved", DowngradedFrom: "always", FileSHA256: "5e1f", Scope: "session"},
	wisp.ApprovalDecidedData{ApprovalID: "7f3a2c1d", Covered: true, Decision: "approved", Scope: "session"},
	wisp.ApprovalDecidedData{ApprovalID: "7f3a2c1e", Decision: "refused", Reason: "the person declined", Scope: "none"},

	wisp.ApprovalAnsweredData{Command: "models pull org/model", FileSHA256: "5e1f", From: "terminal", ID: "7f3a2c1d", PID: 4242, Scope: "session", Terminal: "/dev/pts/3", UID: ptr(1000)},
	wisp.ApprovalAnsweredData{Command: "models pull org/model", From: "elicitation", ID: "7f3a2c1d", Scope: "none"},

	wisp.ApprovalRefusedData{Command: "models pull org/model", FileSHA256: "5e1f", From: "terminal", ID: "7f3a2c1d", Reason: "no approval.answered record vouches for the decision on file", Scope: "once"},

	wisp.ApprovalRevokedData{ApprovalID: "7f3a2c1d", Pattern: "run_command git commit *", Project: "/home/ana/src/wisp", Scope: "project"},
	wisp.ApprovalRevokedData{ApprovalID: "7f3a2c1e", Pattern: "run_command go test *", Scope: "always"},

	wisp.ConfigChangeData{Added: "ollama:llama3", Key: "models.enabled"},
	wisp.ConfigChangeData{Key: "models.enabled", Removed: "ollama:llama3"},
	wisp.ConfigChangeData{From: "on", Key: "tools.ask", To: "off"},
	wisp.ConfigChangeData{From: "", Key: "approval.threshold", To: ""},

	wisp.ModelVerifiedData{Capabilities: []string{"completion", "tools"}, Findings: []string{"12 of 12 files match"}, Name: "ollama:llama3", OK: true},
	wisp.ModelVerifiedData{Name: "ollama:llama3"},

	wisp.ModelPublisherData{Publisher: "org", Trusted: true},
	wisp.ModelPublisherData{Publisher: "org", Repo: "org/model", Trusted: false},

	wisp.ModelPullData{Bytes: 4_000_000_000, Commit: "abc123", Files: 3, Name: "mlx:org/model", Of: 5, Outcome: "finished", Repo: "org/model"},
	wisp.ModelPullData{Bytes: 10, Commit: "abc123", Error: "the hub said 404", Files: 1, Name: "mlx:org/model", Of: 1, Outcome: "failed", Repo: "org/model"},

	wisp.CommandStartedData{ApprovalID: "7f3a2c1d", Command: "gh pr list > out.txt", Cwd: "src", Env: []string{"GH_TOKEN=session:GH_TOKEN"}, ID: "c4", Mode: "workspace-write", Network: true, TimeoutSeconds: 120},
	wisp.CommandStartedData{ApprovalID: "7f3a2c1e", Command: "ls", Cwd: ".", ID: "c5", Mode: "read-only", TimeoutSeconds: 600},

	wisp.CommandEndedData{ApprovalID: "7f3a2c1d", Bytes: 2_000_000, Cut: true, Denied: []string{"write /etc/hosts"}, DurationMS: 1520, ExitCode: 1, ID: "c4", Mode: "workspace-write", Outcome: "exited"},
	wisp.CommandEndedData{ApprovalID: "7f3a2c1e", DurationMS: 120_000, Error: "no end within 120 s", ExitCode: -1, ID: "c5", Mode: "read-only", Outcome: "timed-out", Signal: "killed"},
	wisp.CommandEndedData{ApprovalID: "7f3a2c1f", ExitCode: 0, ID: "c6", Mode: "off", Outcome: "exited"},
}

// encode marshals v as the audit log writes data: no HTML escaping.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("marshalling %#v: %v", v, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Each kind's payloads marshal to the lines of its golden file.
func TestEventDataGolden(t *testing.T) {
	byKind := map[string][]byte{}
	for _, d := range eventExamples {
		byKind[d.EventKind()] = append(append(byKind[d.EventKind()], encode(t, d)...), '\n')
	}
	for kind, got := range byKind {
		path := filepath.Join("testdata", "events", kind+".jsonl")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
		}
	}
}

// A payload marshals as a map of the same keys and values would: keys in
// byte order at every depth, which is how the audit log has always
// written an event's data, so a record's bytes do not depend on whether
// its data was a map or a payload. A tool call's arguments are kept as the
// model sent them, in its order.
func TestEventDataKeysInMapOrder(t *testing.T) {
	for _, d := range eventExamples {
		if c, ok := d.(wisp.ToolCallData); ok {
			c.Arguments = json.RawMessage(`{"b":1,"a":2}`)
			if got, want := string(encode(t, c)), `{"arguments":{"b":1,"a":2},`; !strings.HasPrefix(got, want) {
				t.Errorf("tool.call payload marshals to %s; want it to start %s", got, want)
			}
			c.Arguments = nil
			d = c
		}
		got := encode(t, d)
		dec := json.NewDecoder(bytes.NewReader(got))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%s: %s is not a JSON object: %v", d.EventKind(), got, err)
		}
		if want := encode(t, m); !bytes.Equal(got, want) {
			t.Errorf("%s payload marshals to\n%s\nwhich a map writes as\n%s", d.EventKind(), got, want)
		}
	}
}

// Every kind listed in event.go has a payload type and examples, and the
// examples put every key of their type on record.
func TestEveryKindHasPayload(t *testing.T) {
	kinds := listedKinds(t)
	examples := map[string][]wisp.EventData{}
	for _, d := range eventExamples {
		if !slices.Contains(kinds, d.EventKind()) {
			t.Errorf("%T.EventKind() = %q, a kind event.go does not list", d, d.EventKind())
		}
		examples[d.EventKind()] = append(examples[d.EventKind()], d)
	}
	for _, k := range kinds {
		ds := examples[k]
		if len(ds) == 0 {
			t.Errorf("kind %s has no example payload", k)
			continue
		}
		onRecord := map[string]bool{}
		for _, d := range ds {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(encode(t, d), &m); err != nil {
				t.Fatal(err)
			}
			for key := range m {
				onRecord[key] = true
			}
		}
		typ := reflect.TypeOf(ds[0])
		for i := range typ.NumField() {
			key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if !onRecord[key] {
				t.Errorf("no example of %s puts %T's key %q on record", k, ds[0], key)
			}
		}
	}
}

// listedKinds returns the values of the Kind constants event.go declares.
func listedKinds(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Kind") {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s is not a string literal", name.Name)
				}
				kinds = append(kinds, strings.Trim(lit.Value, `"`))
			}
		}
	}
	if len(kinds) == 0 {
		t.Fatal("event.go declares no Kind constants")
	}
	return kinds
}

// A face shows a call's summary when its tool gives one, even an empty
// one, and otherwise the arguments as the model sent them.
func TestToolCallDataShown(t *testing.T) {
	for _, tc := range []struct {
		d    wisp.ToolCallData
		want string
	}{
		{wisp.ToolCallData{Arguments: json.RawMessage(`{"question":"Which?"}`), Summary: ptr("ask a question")}, "ask a question"},
		{wisp.ToolCallData{Arguments: json.RawMessage(`{"question":"Which?"}`), Summary: ptr("")}, ""},
		{wisp.ToolCallData{Arguments: json.RawMessage(`{"page":2}`)}, `{"page":2}`},
		{wisp.ToolCallData{Arguments: wisp.ToolArguments(json.RawMessage(`page two`))}, "page two"},
		{wisp.ToolCallData{Arguments: wisp.ToolArguments(nil)}, ""},
	} {
		if got := tc.d.Shown(); got != tc.want {
			t.Errorf("%s.Shown() = %q, want %q", encode(t, tc.d), got, tc.want)
		}
	}
}

// Record is the one rule for a sink that fails: the error wraps
// ErrNotRecorded, on one line, and the sink sees the payload's kind.
func TestRecord(t *testing.T) {
	ctx := context.Background()
	if err := wisp.Record(ctx, nil, wisp.Event{Data: wisp.NoticeData{Text: "x"}}); err != nil {
		t.Errorf("Record to a nil sink = %v, want nil", err)
	}
	var got wisp.Event
	ok := wisp.EventSinkFunc(func(_ context.Context, e wisp.Event) error { got = e; return nil })
	if err := wisp.Record(ctx, ok, wisp.Event{Thread: "t1", Data: wisp.NoticeData{Text: "x"}}); err != nil || got.Kind() != wisp.KindNotice || got.Thread != "t1" {
		t.Errorf("Record = %v, and the sink got %+v; want nil, and kind %s", err, got, wisp.KindNotice)
	}
	full := errors.New("write audit.jsonl:\nno space left on device")
	for _, tc := range []struct {
		sinkErr error
		want    string
	}{
		{full, "the audit log could not be written: write audit.jsonl: no space left on device"},
		{wisp.ErrNotRecorded, "the audit log could not be written"},
	} {
		failing := wisp.EventSinkFunc(func(context.Context, wisp.Event) error { return tc.sinkErr })
		err := wisp.Record(ctx, failing, wisp.Event{Data: wisp.NoticeData{Text: "x"}})
		if !errors.Is(err, wisp.ErrNotRecorded) || err.Error() != tc.want {
			t.Errorf("Record to a sink failing with %q = %v, want %q wrapping ErrNotRecorded", tc.sinkErr, err, tc.want)
		}
	}
}

// wisp audit --kind command picks the records of the commands the model
// ran, and nothing else: the kinds that start with "command" are theirs.
func TestCommandKinds(t *testing.T) {
	var got []string
	for _, k := range listedKinds(t) {
		if strings.HasPrefix(k, "command") {
			got = append(got, k)
		}
	}
	want := []string{wisp.KindCommandStarted, wisp.KindCommandEnded}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds starting with command (-want +got):\n%s", diff)
	}
}
