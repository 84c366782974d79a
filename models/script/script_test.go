package script_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/models/script"
)

func TestParse(t *testing.T) {
	src := `{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Which?","options":["a","b"]}}]}

{"content":"Done."}
`
	m, err := script.Parse(strings.NewReader(src), "ask.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []wisp.Message{
		{Role: wisp.RoleAssistant, ToolCalls: []wisp.ToolCall{{Name: "ask", Arguments: json.RawMessage(`{"question":"Which?","options":["a","b"]}`)}}},
		{Role: wisp.RoleAssistant, Content: "Done."},
	}
	var streamed []string
	for i, w := range want {
		resp, err := m.Chat(context.Background(), wisp.ChatRequest{}, func(d wisp.ChatDelta) { streamed = append(streamed, d.Content) })
		if err != nil {
			t.Fatalf("Chat %d: %v", i+1, err)
		}
		if diff := cmp.Diff(w, resp.Message); diff != "" {
			t.Errorf("Chat %d (-want +got):\n%s", i+1, diff)
		}
	}
	if diff := cmp.Diff([]string{"Done."}, streamed); diff != "" {
		t.Errorf("streamed (-want +got):\n%s", diff)
	}
	_, err = m.Chat(context.Background(), wisp.ChatRequest{}, nil)
	if !errors.Is(err, wisp.ErrScriptExhausted) {
		t.Fatalf("Chat past the end = %v, want ErrScriptExhausted", err)
	}
	if want := "script ask.jsonl: the script has no message left after 2 messages; add a line for the model's next message"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if got := len(m.Requests()); got != 3 {
		t.Errorf("Requests() has %d, want 3", got)
	}
}

func TestParseErrors(t *testing.T) {
	const hint = `; each line is one message: {"content":"…","tool_calls":[{"name":"…","arguments":{…}}]}`
	tests := []struct{ src, want string }{
		{"", `script s.jsonl: no messages; each line is one message: {"content":"…"}`},
		{"{\"content\":\"a\"}\nnot json\n", `script s.jsonl:2: not a message (invalid character 'o' in literal null (expecting 'u'))` + hint},
		{`{"content":"a","extra":1}`, `script s.jsonl:1: not a message (json: unknown field "extra")` + hint},
		{`{"content":""}`, `script s.jsonl:1: the message has neither content nor tool calls` + hint},
		{`{"tool_calls":[{"arguments":{}}]}`, `script s.jsonl:1: tool call 1 has no name` + hint},
		{`{"tool_calls":[{"name":"ask","arguments":"{}"}]}`, `script s.jsonl:1: tool call 1: arguments must be a JSON object` + hint},
		{`{"content":"a"} {"content":"b"}`, `script s.jsonl:1: more than one message on the line` + hint},
	}
	for _, tc := range tests {
		_, err := script.Parse(strings.NewReader(tc.src), "s.jsonl")
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) error =\n %v\nwant\n %s", tc.src, err, tc.want)
		}
	}
}

func TestChatCancelled(t *testing.T) {
	m := script.New("x", []script.Step{{Content: "hi"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Chat(ctx, wisp.ChatRequest{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Chat on a cancelled context = %v, want context.Canceled", err)
	}
	if m.Remaining() != 1 {
		t.Errorf("a cancelled Chat used a step")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"content":"hi"}`)
	f.Add(`{"content":"","tool_calls":[{"name":"ask","arguments":{"question":"Which?"}}]}`)
	f.Add("\n\n{\"content\":\"a\"}\r\n{\"tool_calls\":[]}")
	f.Add(`{"tool_calls":[{"name":"","arguments":[]}]}`)
	f.Fuzz(func(t *testing.T, src string) {
		m, err := script.Parse(strings.NewReader(src), "f")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has a line break: %q", err)
			}
			return
		}
		for m.Remaining() > 0 {
			resp, err := m.Chat(context.Background(), wisp.ChatRequest{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content == "" && len(resp.Message.ToolCalls) == 0 {
				t.Errorf("Parse(%q) accepted an empty message", src)
			}
		}
	})
}
