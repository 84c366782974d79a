package mcpserver

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp/inquiry/mcpface"
)

// A client's retry waits on its turn from the moment it is taken: what
// the turn tells the client, or puts to its dialog, while the retry's
// answer is being filed goes out with the retry rather than being dropped.
func TestRetryReachesTheTurnWhileItsAnswerIsFiled(t *testing.T) {
	s := New(nil)
	r := newRun("t-00000001")
	first := context.WithValue(context.Background(), runKey{}, "the call that got the input request")
	r.attach(first)
	r.detach()
	r.retry = true

	type reached struct {
		ctx     context.Context
		waiting bool
	}
	var during reached
	e := elicitation{form: mcpface.Form{Kind: mcpface.KindQuestion, ID: "a1b2c3d4"}, nonce: newNonce(), withdrawn: t.Context(),
		answer: func(context.Context, *mcp.ElicitationResult) string {
			// The turn goes on as soon as the answer is on file.
			ctx, waiting := r.reach()
			during = reached{ctx, waiting}
			close(r.done)
			return ""
		}}
	r.elicited[e.key()] = e
	s.runs[r.thread] = r

	retry := context.WithValue(t.Context(), runKey{}, "the retry")
	var req mcp.CallToolRequest
	req.Params.RequestState = encodeState(r.thread, e)
	if res := s.resume(retry, req, respondArgs{}); res.IsError {
		t.Fatalf("resume = %+v, want the turn's result", res.Content)
	}
	if during.ctx != retry || !during.waiting {
		t.Errorf("while the retry's answer was filed, the turn reached %v (waiting %v); want the retry, waiting", during.ctx, during.waiting)
	}
}
