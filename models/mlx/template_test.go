package mlx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolParser(t *testing.T) {
	tests := []struct {
		name     string
		template string
		want     string
	}{
		{"MiniMax", `<minimax:tool_call><invoke name="x">`, "minimax_m2"},
		{"Gemma 4", `<|tool_call>call:x{}<tool_call|>`, "gemma4"},
		{"Gemma 4 opening only", `<|tool_call>call:x{}`, ""},
		{"Gemma 4 closing only", `call:x{}<tool_call|>`, ""},
		{"FunctionGemma", `<start_function_call>call:x{}<end_function_call>`, "function_gemma"},
		{"LongCat", `<longcat_tool_call>{"name": "x"}</longcat_tool_call>`, "longcat"},
		{"GLM 4.7", `<tool_call>{{ tc.name }}<arg_key>k</arg_key><arg_value>v</arg_value>`, "glm47"},
		{"LFM2 pythonic", `<|tool_list_start|>[{{ tools }}]<|tool_list_end|>`, "pythonic"},
		{"Qwen3 Coder, newline spelt in the template", `{{- '<tool_call>\n<function=' + tool_call.name + '>' }}`, "qwen3_coder"},
		{"Qwen3 Coder, a real newline", "<tool_call>\n<function=x>", "qwen3_coder"},
		{"Qwen3 Coder, other spacing", "<tool_call> <function=x>", ""},
		{"Kimi K2", `<|tool_calls_section_begin|><|tool_call_begin|>`, "kimi_k2"},
		{"Mistral", `[AVAILABLE_TOOLS]{{ tools }}[/AVAILABLE_TOOLS][TOOL_CALLS]`, "mistral"},
		{"Hermes and Qwen JSON", `<tool_call>\n{"name": "{{ tool_call.name }}"}\n</tool_call>`, "json_tools"},
		{"tool_call tag without tool_call.name", `<tool_call>{{ call | tojson }}</tool_call>`, ""},
		{"tool_call.name without the tag", `{{ tool_call.name }}`, ""},
		{"plain ChatML", `<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>`, ""},
		{"empty", "", ""},
		// The first rule that matches wins.
		{"MiniMax before Mistral", `<minimax:tool_call>[TOOL_CALLS]`, "minimax_m2"},
		{"GLM before Qwen3 Coder", "<arg_key><tool_call>\n<function=", "glm47"},
		{"Qwen3 Coder before JSON", "<tool_call>\n<function= tool_call.name", "qwen3_coder"},
		{"Mistral before JSON", "[TOOL_CALLS]<tool_call>tool_call.name", "mistral"},
		{"Kimi K2 before Mistral", "<|tool_calls_section_begin|>[TOOL_CALLS]", "kimi_k2"},
	}
	for _, tt := range tests {
		if got := toolParser(tt.template); got != tt.want {
			t.Errorf("%s: toolParser(%q) = %q, want %q", tt.name, tt.template, got, tt.want)
		}
	}
}

func TestThinking(t *testing.T) {
	tests := []struct {
		name      string
		templates string
		tokens    []string
		head      string
		want      bool
	}{
		{"template with both tags", "{{ '<think>\\n' + r + '\\n</think>' }}", nil, "", true},
		{"template with the opening tag only", "{{ '<think>' }}", nil, "", false},
		{"added tokens of tokenizer_config.json", "", []string{"<think>", "</think>"}, "", true},
		{"one added token", "", []string{"<think>"}, "", false},
		{"LongCat tokens", "", []string{"<longcat_think>", "</longcat_think>"}, "", true},
		{"Gemma 4 channel tokens", "", []string{"<|channel>", "<channel|>"}, "", true},
		{"tokenizer.json added tokens", "", nil, `{"added_tokens":[{"id":1,"content":"<think>"},{"id":2,"content":"</think>"}]`, true},
		{"tokenizer.json mentions the tag inside a longer string", "", nil, `{"x":"a <think> b </think>"}`, false},
		{"mixed pairs", "<think>", []string{"</longcat_think>"}, "", false},
		{"nothing", "<|im_start|>", []string{"<|im_end|>"}, `{"added_tokens":[]}`, false},
	}
	for _, tt := range tests {
		tokens := map[string]bool{}
		for _, tok := range tt.tokens {
			tokens[tok] = true
		}
		if got := thinking(tt.templates, tokens, tt.head); got != tt.want {
			t.Errorf("%s: thinking(%q, %v, %q) = %v, want %v", tt.name, tt.templates, tt.tokens, tt.head, got, tt.want)
		}
	}
}

func TestReadTemplates(t *testing.T) {
	const (
		withTools = `<tool_call>{{ tool_call.name }}</tool_call>`
		plain     = `<|im_start|>{{ m.content }}<|im_end|>`
	)
	type seen struct {
		Source, Parser, From, Bad string
		Thinking                  bool
	}
	tests := []struct {
		name  string
		files map[string]string
		want  seen
	}{
		{
			name:  "a string in tokenizer_config.json",
			files: map[string]string{"tokenizer_config.json": `{"chat_template": "<tool_call>{{ tool_call.name }}</tool_call>"}`},
			want:  seen{Source: "tokenizer_config.json", Parser: "json_tools", From: "inferred from the chat template"},
		},
		{
			name:  "chat_template.jinja",
			files: map[string]string{"chat_template.jinja": withTools},
			want:  seen{Source: "chat_template.jinja", Parser: "json_tools", From: "inferred from the chat template"},
		},
		{
			name: "chat_template.jinja wins over tokenizer_config.json",
			files: map[string]string{
				"chat_template.jinja":   plain,
				"tokenizer_config.json": `{"chat_template": "<tool_call>{{ tool_call.name }}</tool_call>"}`,
			},
			want: seen{Source: "chat_template.jinja"},
		},
		{
			name: "named templates in tokenizer_config.json: no parser is inferred",
			files: map[string]string{"tokenizer_config.json": `{"chat_template": [
				{"name": "default", "template": "<tool_call>{{ tool_call.name }}</tool_call>"},
				{"name": "tool_use", "template": "<tool_call>{{ tool_call.name }}</tool_call>"}]}`},
			want: seen{Source: "tokenizer_config.json, named templates default, tool_use"},
		},
		{
			name: "additional template files make the templates named",
			files: map[string]string{
				"chat_template.jinja":                      withTools,
				"additional_chat_templates/tool_use.jinja": withTools,
				"additional_chat_templates/stray.txt":      "not a template",
			},
			want: seen{Source: "named templates default, tool_use"},
		},
		{
			name: "tool_parser_type names the parser",
			files: map[string]string{
				"chat_template.jinja":   plain,
				"tokenizer_config.json": `{"tool_parser_type": "qwen3_coder"}`,
			},
			want: seen{Source: "chat_template.jinja", Parser: "qwen3_coder", From: "named by tokenizer_config.json"},
		},
		{
			name: "a null tool_parser_type turns inference off",
			files: map[string]string{
				"chat_template.jinja":   withTools,
				"tokenizer_config.json": `{"tool_parser_type": null}`,
			},
			want: seen{Source: "chat_template.jinja"},
		},
		{
			name:  "chat_template_type alone",
			files: map[string]string{"tokenizer_config.json": `{"chat_template_type": "deepseek_v32"}`},
			want:  seen{Source: "chat_template_type deepseek_v32 in tokenizer_config.json"},
		},
		{
			name:  "an empty template is none",
			files: map[string]string{"tokenizer_config.json": `{"chat_template": ""}`},
			want:  seen{},
		},
		{
			name:  "tokenizer_config.json that is not JSON",
			files: map[string]string{"tokenizer_config.json": `{"chat_template": `},
			want:  seen{Bad: "tokenizer_config.json"},
		},
		{
			name: "thinking tokens among the added tokens",
			files: map[string]string{"tokenizer_config.json": `{"chat_template": "x", "added_tokens_decoder": {
				"1": {"content": "<think>", "special": false}, "2": {"content": "</think>", "special": false}}}`},
			want: seen{Source: "tokenizer_config.json", Thinking: true},
		},
		{
			name: "thinking tokens in tokenizer.json",
			files: map[string]string{
				"chat_template.jinja": plain,
				"tokenizer.json":      `{"version":"1.0","added_tokens":[{"id":1,"content":"<think>"},{"id":2,"content":"</think>"}]}`,
			},
			want: seen{Source: "chat_template.jinja", Thinking: true},
		},
		{
			name:  "thinking tags in the template",
			files: map[string]string{"chat_template.jinja": "{{ '<think>' + r + '</think>' }}"},
			want:  seen{Source: "chat_template.jinja", Thinking: true},
		},
		{
			name: "thinking tags in an additional template",
			files: map[string]string{
				"chat_template.jinja":                    plain,
				"additional_chat_templates/reason.jinja": "{{ '<think>' + r + '</think>' }}",
			},
			want: seen{Source: "named templates default, reason", Thinking: true},
		},
		{
			name:  "nothing",
			files: map[string]string{"tokenizer.json": `{}`},
			want:  seen{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tt.files {
				path := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tm := readTemplates(dir)
			got := seen{Source: tm.source, Parser: tm.parser, From: tm.parserFrom, Bad: tm.bad, Thinking: tm.thinking}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("readTemplates() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
