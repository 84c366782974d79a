//go:build unix

package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/models/hf/hubtest"
)

// A pull killed with SIGKILL in the middle of a file leaves what arrived;
// the next pull resumes it with Range requests and moves only what is
// missing, then links a model that passes its check.
func TestPullKilledAndResumed(t *testing.T) {
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	rng := rand.NewChaCha8([32]byte{7})
	shard := func(n int) []byte { b := make([]byte, n); rng.Read(b); return b }
	const size = 6 << 20
	repo := hubtest.Repo{ID: "org/Kill-4bit", License: "mit", Files: []hubtest.File{
		{Path: "config.json", Data: []byte(`{"model_type":"qwen3","max_position_embeddings":4096}`)},
		{Path: "model.safetensors.index.json", Data: []byte(`{"metadata":{"total_parameters":1000},"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}}`)},
		{Path: "tokenizer_config.json", Data: []byte(`{"chat_template":"<tool_call>{{ tool_call.name }}"}`)},
		{Path: "tokenizer.json", Data: []byte(`{}`)},
		{Path: "model-00001-of-00002.safetensors", Data: shard(size), LFS: true},
		{Path: "model-00002-of-00002.safetensors", Data: shard(size), LFS: true},
	}}
	hub := hubtest.NewServer(t, repo)
	hub.Throttle(2 << 20) // a few seconds, so the kill lands mid-file
	home := t.TempDir()
	pull := func() *exec.Cmd {
		c := exec.Command(bin, "models", "pull", repo.ID, "--yes")
		c.Env = append(os.Environ(), "WISP_HOME="+home, "HF_ENDPOINT="+hub.URL, "OLLAMA_HOST=127.0.0.1:1")
		return c
	}
	c := pull()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	partial := func() (n int64) {
		matches, _ := filepath.Glob(filepath.Join(home, "hub", "*", "blobs", "*.incomplete"))
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
	for deadline := time.Now().Add(20 * time.Second); partial() < size/2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatalf("the pull never got half a file in; on disk %d bytes", partial())
		}
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	kept := partial()
	if _, err := os.Lstat(filepath.Join(home, "models", "mlx", "Kill-4bit")); err == nil {
		t.Fatal("a killed pull linked the model")
	}

	hub.Throttle(0)
	before := len(hub.Requests())
	var out bytes.Buffer
	c = pull()
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		t.Fatalf("the resumed pull failed: %v\n%s", err, out.String())
	}
	// What the resume asked the CDN for, from each request's Range start.
	var moved int64
	for _, q := range hub.Requests()[before:] {
		if q.Host != "cdn" || q.Method != "GET" {
			continue
		}
		from := int64(0)
		if rest, ok := strings.CutPrefix(q.Range, "bytes="); ok {
			a, _, _ := strings.Cut(rest, "-")
			from, _ = strconv.ParseInt(a, 10, 64)
		}
		moved += size - from
	}
	// Both shards: what had not arrived, and no more.
	if missing := 2*size - kept; moved > missing {
		t.Errorf("the resume moved %d bytes of shards; %d were missing (kept %d)", moved, missing, kept)
	}
	if !strings.Contains(out.String(), "mlx:Kill-4bit is ready") {
		t.Errorf("resumed pull said:\n%s", out.String())
	}
	check := exec.Command(bin, "models", "check", "mlx:Kill-4bit")
	check.Env = pull().Env
	if b, err := check.CombinedOutput(); err != nil || !strings.Contains(string(b), "passed its check") {
		t.Errorf("check after the resumed pull = %v:\n%s", err, b)
	}
}

// wisp models cancel stops a pull running in another process; what arrived
// is kept, and the stopped pull says how to resume.
func TestCancelFromAnotherProcess(t *testing.T) {
	bin, err := exec.LookPath("wisp")
	if err != nil {
		t.Fatal("the wisp test command is not on PATH:", err)
	}
	rng := rand.NewChaCha8([32]byte{9})
	data := make([]byte, 8<<20)
	rng.Read(data)
	repo := hubtest.Repo{ID: "org/Slow-4bit", Files: []hubtest.File{
		{Path: "config.json", Data: []byte(`{"model_type":"qwen3"}`)},
		{Path: "tokenizer_config.json", Data: []byte(`{}`)},
		{Path: "model.safetensors", Data: data, LFS: true},
	}}
	hub := hubtest.NewServer(t, repo)
	hub.Throttle(1 << 20)
	env := append(os.Environ(), "WISP_HOME="+t.TempDir(), "HF_ENDPOINT="+hub.URL, "OLLAMA_HOST=127.0.0.1:1")
	pull := exec.Command(bin, "models", "pull", repo.ID, "--yes")
	pull.Env = env
	var out bytes.Buffer
	pull.Stdout, pull.Stderr = &out, &out
	if err := pull.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- pull.Wait() }()
	var said []byte
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		cancel := exec.Command(bin, "models", "cancel", "ORG/slow-4bit")
		cancel.Env = env
		said, err = cancel.CombinedOutput()
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("wisp models cancel = %v: %s", err, said)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("the cancelled pull succeeded:\n%s", out.String())
		}
	case <-time.After(15 * time.Second):
		pull.Process.Kill()
		t.Fatal("the pull did not stop")
	}
	if !strings.Contains(out.String(), "stopped: what arrived is kept; run wisp models pull org/Slow-4bit again to resume") {
		t.Errorf("the stopped pull said:\n%s", out.String())
	}
}
