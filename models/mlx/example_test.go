package mlx_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/models/mlx"
)

// A folder of one's own under <home>/models/mlx is a model too: here one
// with a configuration, one weight file, a tokenizer and a chat template
// that calls tools the way Qwen models do.
func Example() {
	home, err := os.MkdirTemp("", "wisp-home")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)

	dir := filepath.Join(home, "models", "mlx", "My-Model")
	files := map[string]string{
		"config.json":         `{"model_type": "qwen3", "max_position_embeddings": 32768, "quantization": {"group_size": 64, "bits": 4}}`,
		"model.safetensors":   "weights",
		"tokenizer.json":      `{"version": "1.0"}`,
		"chat_template.jinja": `{% for tool_call in message.tool_calls %}<tool_call>{"name": "{{ tool_call.name }}"}</tool_call>{% endfor %}`,
	}
	os.MkdirAll(dir, 0o755)
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}

	b := mlx.New(home)
	ctx := context.Background()
	info, err := b.Show(ctx, "My-Model")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Name, info.Quantization, info.Context, info.Capabilities, info.Usable)

	report, err := b.Check(ctx, "My-Model", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range report.Findings {
		fmt.Println(line)
	}
	fmt.Println("OK:", report.OK)
	// Output:
	// My-Model 4-bit 32768 [completion tools] true
	// no recorded digests (a folder of your own)
	// config.json parses
	// 1 weight file, no index
	// tokenizer found (tokenizer.json)
	// chat template found (chat_template.jinja)
	// chat template supports tool calls (json_tools parser, inferred from the chat template)
	// OK: true
}
