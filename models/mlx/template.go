package mlx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// templates is what a model's folder says about its chat template.
type templates struct {
	// source says where the chat template was found; "" when there is
	// none.
	source string
	// text is the one chat template. It is "" when there is none, and
	// when there are named templates instead, for which no tool parser is
	// inferred (mlx-lm infers one only from a single template).
	text string
	// parser is the tool-call parser mlx-lm would use; "" when none.
	parser string
	// parserFrom says how the parser was found.
	parserFrom string
	// thinking is true when the template or the tokenizer holds a pair
	// of thinking tokens.
	thinking bool
	// bad names a file that is there but cannot be used, and err says
	// why.
	bad string
	err error
}

// readTemplates finds the chat template the way a model loads it: template
// files (chat_template.jinja and additional_chat_templates/*.jinja) take
// priority over the chat_template of tokenizer_config.json. One template,
// from chat_template.jinja alone or as a string in tokenizer_config.json,
// is the model's template; several (a list of {name, template} in
// tokenizer_config.json, or any additional template files) are named
// templates.
func readTemplates(dir string) templates {
	var t templates
	tc, err := readObject(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.bad, t.err = "tokenizer_config.json", err
	}

	var texts []string // every template, for the thinking tokens
	var names []string // the names of named templates
	jinja, err := readFile(filepath.Join(dir, "chat_template.jinja"), maxTemplate)
	hasJinja := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) && t.err == nil {
		t.bad, t.err = "chat_template.jinja", err
	}
	if hasJinja {
		texts = append(texts, string(jinja))
		names = append(names, "default")
	}
	const (
		extraDir = "additional_chat_templates"
		maxExtra = 16 // additional templates read, at most
	)
	entries, _ := os.ReadDir(filepath.Join(dir, extraDir))
	extra := 0
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jinja")
		if !ok || extra == maxExtra {
			continue
		}
		extra++
		data, err := readFile(filepath.Join(dir, extraDir, e.Name()), maxTemplate)
		if err != nil {
			if t.err == nil {
				t.bad, t.err = extraDir+"/"+e.Name(), err
			}
			continue
		}
		texts = append(texts, string(data))
		names = append(names, name)
	}

	switch {
	case hasJinja && len(names) == 1:
		t.source, t.text = "chat_template.jinja", string(jinja)
	case len(names) > 0:
		t.source = "named templates " + strings.Join(names, ", ")
	default:
		if s, _ := member[string](tc, "chat_template"); s != "" {
			t.source, t.text = "tokenizer_config.json", s
			texts = append(texts, s)
			break
		}
		list, _ := member[[]struct{ Name, Template string }](tc, "chat_template")
		for _, nt := range list {
			texts = append(texts, nt.Template)
			names = append(names, nt.Name)
		}
		if len(names) > 0 {
			t.source = "tokenizer_config.json, named templates " + strings.Join(names, ", ")
		}
	}
	if typ, _ := member[string](tc, "chat_template_type"); typ != "" && t.source == "" {
		t.source = "chat_template_type " + typ + " in tokenizer_config.json"
	}

	if _, ok := tc["tool_parser_type"]; ok {
		t.parser, _ = member[string](tc, "tool_parser_type")
		t.parserFrom = "named by tokenizer_config.json"
	} else {
		t.parser = toolParser(t.text)
		t.parserFrom = "inferred from the chat template"
	}
	if t.parser == "" {
		t.parserFrom = ""
	}

	tokens := map[string]bool{}
	added, _ := member[map[string]struct {
		Content string `json:"content"`
	}](tc, "added_tokens_decoder")
	for _, tok := range added {
		tokens[tok.Content] = true
	}
	all := strings.Join(texts, "\n")
	if t.thinking = thinking(all, tokens, ""); !t.thinking {
		// Only then read the head of tokenizer.json, up to a MiB.
		head, _ := readPrefix(filepath.Join(dir, "tokenizer.json"), tokenizerIn)
		t.thinking = thinking(all, tokens, string(head))
	}
	return t
}

// toolParser returns the tool-call parser mlx-lm infers from a chat
// template by the substrings it holds, the first rule that matches
// winning, or "" when the template shows no support for tool calls.
func toolParser(template string) string {
	has := func(s string) bool { return strings.Contains(template, s) }
	switch {
	case has("<minimax:tool_call>"):
		return "minimax_m2"
	case has("<|tool_call>") && has("<tool_call|>"):
		return "gemma4"
	case has("<start_function_call>"):
		return "function_gemma"
	case has("<longcat_tool_call>"):
		return "longcat"
	case has("<arg_key>"):
		return "glm47"
	case has("<|tool_list_start|>"):
		return "pythonic"
	case has(`<tool_call>\n<function=`) || has("<tool_call>\n<function="):
		// The first form is the two characters \n, as a template
		// written on one line spells a newline.
		return "qwen3_coder"
	case has("<|tool_calls_section_begin|>"):
		return "kimi_k2"
	case has("[TOOL_CALLS]"):
		return "mistral"
	case has("<tool_call>") && has("tool_call.name"):
		return "json_tools"
	}
	return ""
}

// thinking reports whether a model thinks aloud: whether a pair of
// thinking tokens (<think> and </think>, <longcat_think> and
// </longcat_think>, or <|channel> and <channel|>) appears in its chat
// templates, among the added tokens of tokenizer_config.json, or as JSON
// strings in the head of tokenizer.json, where its added tokens are.
func thinking(templates string, tokens map[string]bool, tokenizerHead string) bool {
	pairs := [...][2]string{
		{"<think>", "</think>"},
		{"<longcat_think>", "</longcat_think>"},
		{"<|channel>", "<channel|>"},
	}
	quoted := func(s string) bool { return strings.Contains(tokenizerHead, `"`+s+`"`) }
	for _, p := range pairs {
		start, end := p[0], p[1]
		switch {
		case strings.Contains(templates, start) && strings.Contains(templates, end),
			tokens[start] && tokens[end],
			quoted(start) && quoted(end):
			return true
		}
	}
	return false
}
