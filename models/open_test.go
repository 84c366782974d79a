package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/models"
	"github.com/wisp-agent/wisp/models/mlx"
	"github.com/wisp-agent/wisp/models/ollama"
)

// notRunner is a backend whose models cannot be opened for chat.
type notRunner struct{ models.Backend }

// Open refuses what Runnable refuses, opens the rest through the
// backend's Runner with the model's facts, and says when the backend is
// not set up to run it (ErrSetup) or cannot run models at all.
func TestOpen(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, _, err := f.actions.Open(ctx, "QWEN3:4B"); !errors.Is(err, models.ErrDisabled) {
		t.Fatalf("Open of a disabled model = %v, want ErrDisabled", err)
	}
	if err := f.store.Update(ctx, func(c *config.Config) error {
		c.Models.Enabled = []string{"mlx:Qwen3-4B-4bit", "ollama:qwen3:4b"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	m, info, err := f.actions.Open(ctx, "QWEN3:4B")
	if err != nil {
		t.Fatalf("Open(%q) = %v", "QWEN3:4B", err)
	}
	if c, ok := m.(*ollama.Chat); !ok || c.Name() != "qwen3:4b" || info.Name != "ollama:qwen3:4b" || info.Context != 40960 {
		t.Errorf("Open(%q) = %T %v, %q (context %d); want qwen3:4b through Ollama with 40960 tokens", "QWEN3:4B", m, m, info.Name, info.Context)
	}
	if _, _, err := f.actions.Open(ctx, "mlx:Qwen3-4B-4bit"); err != nil {
		t.Errorf("Open of the MLX model = %v", err)
	}

	// The MLX server's address is the backend's setting.
	b := f.opts.Backends[1].(*mlx.Backend)
	b.Server = "ftp://127.0.0.1"
	_, _, err = f.actions.Open(ctx, "mlx:Qwen3-4B-4bit")
	if !errors.Is(err, models.ErrSetup) || !strings.HasPrefix(err.Error(), "WISP_MLX_URL ") {
		t.Errorf("Open with a bad server = %v, want ErrSetup saying what WISP_MLX_URL must be", err)
	}

	opts := *f.opts
	opts.Backends = []models.Backend{notRunner{opts.Backends[0]}}
	if _, _, err := models.New(&opts).Open(ctx, "ollama:qwen3:4b"); !errors.Is(err, wisp.ErrUnknownModel) {
		t.Errorf("Open through a backend that is no Runner = %v, want ErrUnknownModel", err)
	}
}
