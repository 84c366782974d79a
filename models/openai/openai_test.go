package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/models/openai"
	"github.com/wisp-agent/wisp/models/openai/openaitest"
)

func TestHealthAndModels(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.NewServer(t)
	c, err := openai.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Health(ctx); err != nil {
		t.Errorf("Health = %v, want nil", err)
	}
	ids, err := c.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{openaitest.Model}, ids); diff != "" {
		t.Errorf("Models (-want +got):\n%s", diff)
	}

	srv.Fail(http.StatusServiceUnavailable)
	want := "the MLX server at " + srv.URL + " failed on /health (HTTP 503: openaitest: health failed as told (503)); see the mlx_lm.server log"
	if err := c.Health(ctx); err == nil || err.Error() != want {
		t.Errorf("Health = %v, want %s", err, want)
	}

	down, err := openai.New(closedURL(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := down.Health(ctx); !errors.Is(err, openai.ErrUnreachable) {
		t.Errorf("Health of a closed port = %v, want ErrUnreachable", err)
	}

	for body, wantErr := range map[string]string{
		`{"status": "loading"}`: `answered /health with status "loading", not "ok"; see the mlx_lm.server log`,
		`<html>`:                `answered /health with something that is not an OpenAI-style answer (invalid character '<' looking for beginning of value); check that WISP_MLX_URL points at mlx_lm.server`,
	} {
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
		c, err := openai.New(other.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Health(ctx); err == nil || err.Error() != "the MLX server at "+other.URL+" "+wantErr {
			t.Errorf("Health of a server answering %s = %v, want ... %s", body, err, wantErr)
		}
		other.Close()
	}
}
