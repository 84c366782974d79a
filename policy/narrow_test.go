package policy_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/policy/outofband"
	"github.com/wisp-agent/wisp/wisptest"
)

// writerFunc adapts a function to an io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A wider answer than a request allows is narrowed by the gate, whatever
// face it came from, and approval.decided records what the person said as
// downgradedFrom: wisp chat --json and wisp-tui (the JSON-lines face),
// wisp approvals and the MCP client's dialog (the out-of-band store), and
// a face of an embedder's own.
func TestWiderAnswerNarrowedFromEveryFace(t *testing.T) {
	faces := []struct {
		name string
		said wisp.Scope // what the person answers, wider than once
		face func(t *testing.T) wisp.Approver
	}{
		{"JSON lines", wisp.ScopeAlways, func(t *testing.T) wisp.Approver {
			var face *jsonl.Face
			face = jsonl.NewFace(writerFunc(func(p []byte) (int, error) {
				var l struct{ Type, Kind, ID string }
				if json.Unmarshal(p, &l) == nil && l.Type == "choice" && l.Kind == "approval" {
					go func() {
						if err := face.Handle(jsonl.Approve{ID: l.ID, Scope: "always"}); err != nil {
							t.Errorf("approve always = %v", err)
						}
					}()
				}
				return len(p), nil
			}), nil)
			return face
		}},
		{"out of band", wisp.ScopeSession, func(t *testing.T) wisp.Approver {
			store := outofband.Store{Dir: filepath.Join(t.TempDir(), "approvals")}
			return outofband.NewApprover(store, &outofband.ApproverOptions{Announce: func(ctx context.Context, r outofband.Request) {
				go func() {
					if err := store.Decide(ctx, outofband.Decision{ID: r.ID, Digest: r.Digest, Scope: wisp.ScopeSession, From: outofband.FromTerminal}); err != nil {
						t.Errorf("Decide(session) = %v", err)
					}
				}()
			}})
		}},
		{"a face of its own", wisp.ScopeProject, func(t *testing.T) wisp.Approver {
			return wisp.ApproverFunc(func(context.Context, wisp.ApprovalRequest) (wisp.Decision, error) {
				return wisp.Decision{Scope: wisp.ScopeProject, Provenance: wisp.FromPerson}, nil
			})
		}},
	}
	for _, f := range faces {
		t.Run(f.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			gate := newGate(&policy.GateOptions{Approver: f.face(t), Events: rec, Session: "s1",
				Timeout: 10 * time.Second, NewID: func() string { return "0a0b0c0d" }})
			out, err := gate.Ask(context.Background(), policy.Request{Thread: "t1", Turn: 2, Kind: "modelAction",
				Command: "models pull mlx-community/Qwen3-4B-4bit", Pattern: "models pull *",
				Text: "downloads 2.3 GB in 4 of 7 files from Hugging Face", Scopes: []wisp.Scope{wisp.ScopeOnce}, AlwaysAsk: true})
			if err != nil {
				t.Fatal(err)
			}
			// A decision taken from the approvals folder names its file.
			sha := out.FileSHA256
			want := policy.Outcome{Approved: true, ID: "0a0b0c0d", Scope: wisp.ScopeOnce, DowngradedFrom: f.said, FileSHA256: sha}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("Ask (-want +got):\n%s", diff)
			}
			decided := rec.Events(wisp.KindApprovalDecided)
			if len(decided) != 1 {
				t.Fatalf("approval.decided events = %+v, want one", decided)
			}
			wantData := wisp.ApprovalDecidedData{ApprovalID: "0a0b0c0d", Decision: "approved", Scope: "once", DowngradedFrom: f.said.String(), FileSHA256: sha}
			if diff := cmp.Diff(wantData, decided[0].Data); diff != "" || decided[0].Source != wisp.SourcePerson {
				t.Errorf("approval.decided from %s (-want +got):\n%s", decided[0].Source, diff)
			}
		})
	}
}
