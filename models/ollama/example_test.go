package ollama_test

import (
	"context"
	"fmt"

	"github.com/wisp-agent/wisp/models/ollama"
	"github.com/wisp-agent/wisp/models/ollama/ollamatest"
)

func ExampleBackend_List() {
	// A fake Ollama stands in for "ollama serve"; a program passes
	// OLLAMA_HOST instead of srv.URL.
	srv, stop := ollamatest.Start(
		ollamatest.Model{Name: "qwen3:4b", Size: 2_497_293_931, ParameterSize: "4.0B", Quantization: "Q4_K_M"},
		ollamatest.Model{Name: "gemma3:latest", Size: 3_338_801_804, ParameterSize: "4.3B", Quantization: "Q4_K_M"},
	)
	defer stop()

	b, err := ollama.New(srv.URL, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	list, err := b.List(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range list {
		fmt.Printf("%s:%s %s %s %.1f GB\n", b.Runtime(), m.Name, m.Parameters, m.Quantization, float64(m.Size)/1e9)
	}
	// Output:
	// ollama:qwen3:4b 4.0B Q4_K_M 2.5 GB
	// ollama:gemma3:latest 4.3B Q4_K_M 3.3 GB
}
