package hf_test

import (
	"context"
	"fmt"
	"io"

	"github.com/wisp-agent/wisp/models/hf"
	"github.com/wisp-agent/wisp/models/hf/hubtest"
)

func ExampleClient_Plan() {
	// A fake Hub stands in for Hugging Face; a program passes HF_ENDPOINT
	// (or nothing) as Endpoint, and HF_TOKEN as Token.
	srv, stop := hubtest.Start(hubtest.Repo{
		ID:      "mlx-community/Tiny-4bit",
		License: "apache-2.0",
		Files: []hubtest.File{
			{Path: "README.md", Data: []byte("# Tiny\n")},
			{Path: "config.json", Data: []byte(`{"model_type":"qwen3"}`)},
			{Path: "model.safetensors", Data: make([]byte, 4096), LFS: true},
			{Path: "modeling_tiny.py", Data: []byte("import os\n")},
			{Path: "tokenizer.json", Data: []byte(`{"version":"1.0"}`)},
		},
	})
	defer stop()

	c, err := hf.NewClient(&hf.ClientOptions{Endpoint: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	p, err := c.Plan(ctx, "mlx-community/Tiny-4bit")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mlx:%s, %d bytes in %d files, from %s, licence %s\n", p.Name(), p.Bytes(), len(p.Files), p.Publisher, p.Licence)
	for _, f := range p.Files {
		fmt.Printf("  %s %d LFS=%t\n", f.Path, f.Size, f.LFS())
	}

	// Open a file's bytes from an offset; Offset says where they start.
	b, err := c.Open(ctx, p, p.Files[0], 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	rest, err := io.ReadAll(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s from byte %d: %s\n", p.Files[0].Path, b.Offset, rest)
	// Output:
	// mlx:Tiny-4bit, 4135 bytes in 3 files, from mlx-community, licence apache-2.0
	//   config.json 22 LFS=false
	//   model.safetensors 4096 LFS=true
	//   tokenizer.json 17 LFS=false
	// config.json from byte 2: model_type":"qwen3"}
}
