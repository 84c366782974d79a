// Command benchpull measures wisp models pull against a local Hub on
// loopback, next to curl fetching the same files one after another and
// sha256sum hashing each, in one run on the same machine:
//
//	go run ./scripts/benchpull [-size 2GiB]
//
// It reports wall time, throughput and peak RSS of each, and a pull
// SIGKILLed half-way and resumed: how many bytes the resume moved against
// what was missing. Nothing leaves the machine.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wisp-agent/wisp/models/hf/hubtest"
)

const repo = "bench/Bench-7-4bit"

func main() {
	size := flag.Int64("size", 2<<30, "bytes of weights in the repository")
	flag.Parse()
	if err := run(*size); err != nil {
		fmt.Fprintln(os.Stderr, "benchpull:", err)
		os.Exit(1)
	}
}

func run(size int64) error {
	tmp, err := os.MkdirTemp("", "benchpull-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Printf("building wisp and a %s repository of 7 files…\n", human(size))
	bin := filepath.Join(tmp, "wisp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/wisp")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	r := benchRepo(size)
	hub, stop := hubtest.Start(r)
	defer stop()

	// wisp models pull, fresh.
	home := filepath.Join(tmp, "home1")
	wall, rss, err := timed(bin, home, hub.URL, "models", "pull", repo, "--yes")
	if err != nil {
		return fmt.Errorf("wisp models pull: %w", err)
	}

	// curl one file after another, then sha256sum each.
	dir := filepath.Join(tmp, "curl")
	os.MkdirAll(dir, 0o700)
	start := time.Now()
	var curlRSS int64
	for _, f := range r.Files {
		out := filepath.Join(dir, strings.ReplaceAll(f.Path, "/", "_"))
		url := hub.URL + "/" + repo + "/resolve/" + r.Sha() + "/" + f.Path
		c := exec.Command("curl", "-sSfL", "-o", out, url)
		rss, err := runPeak(c)
		if err != nil {
			return fmt.Errorf("curl %s: %w", f.Path, err)
		}
		curlRSS = max(curlRSS, rss)
		rss, err = runPeak(exec.Command("sha256sum", out))
		if err != nil {
			return fmt.Errorf("sha256sum: %w", err)
		}
		curlRSS = max(curlRSS, rss)
	}
	curlWall := time.Since(start)

	// Kill half-way, then resume.
	home2 := filepath.Join(tmp, "home2")
	killedAt, err := killHalfway(bin, home2, hub.URL, size)
	if err != nil {
		return err
	}
	present := onDisk(home2)
	before := len(hub.Requests())
	resumeWall, _, err := timed(bin, home2, hub.URL, "models", "pull", repo, "--yes")
	if err != nil {
		return fmt.Errorf("resumed pull: %w", err)
	}
	moved := servedBytes(hub.Requests()[before:], r)
	total := repoBytes(r)
	missing := total - present

	fmt.Println()
	fmt.Printf("%-34s %10s %12s %10s\n", "", "wall", "throughput", "peak RSS")
	fmt.Printf("%-34s %10s %10s/s %10s\n", "wisp models pull", wall.Round(time.Millisecond), human(int64(float64(total)/wall.Seconds())), human(rss))
	fmt.Printf("%-34s %10s %10s/s %10s\n", "curl one by one + sha256sum each", curlWall.Round(time.Millisecond), human(int64(float64(total)/curlWall.Seconds())), human(curlRSS))
	fmt.Printf("wisp / (curl + sha256sum) wall time: %.2f (target at most 0.80)\n", wall.Seconds()/curlWall.Seconds())
	fmt.Printf("wisp peak RSS: %s (target under 64 MiB)\n", human(rss))
	fmt.Printf("kill -9 at %s of %s; on disk then %s; the resume (%s) moved %s for %s missing: %+d bytes (target: at most one 1 MiB chunk a file over)\n",
		human(killedAt), human(total), human(present), resumeWall.Round(time.Millisecond), human(moved), human(missing), moved-missing)
	return nil
}

// benchRepo is an MLX-shaped repository: four small files and three
// shards that share size bytes.
func benchRepo(size int64) hubtest.Repo {
	rng := rand.NewChaCha8([32]byte{1, 2, 3})
	shard := func(n int64) []byte {
		b := make([]byte, n)
		rng.Read(b)
		return b
	}
	third := size / 3
	index := fmt.Sprintf(`{"metadata":{"total_size":%d,"total_parameters":4022468096},"weight_map":{"a":"model-00001-of-00003.safetensors","b":"model-00002-of-00003.safetensors","c":"model-00003-of-00003.safetensors"}}`, size)
	return hubtest.Repo{ID: repo, License: "apache-2.0", Files: []hubtest.File{
		{Path: "config.json", Data: []byte(`{"model_type":"qwen3","max_position_embeddings":40960,"quantization":{"group_size":64,"bits":4}}`)},
		{Path: "model.safetensors.index.json", Data: []byte(index)},
		{Path: "tokenizer_config.json", Data: []byte(`{"chat_template":"{% for m in messages %}<tool_call>{{ tool_call.name }}{% endfor %}"}`)},
		{Path: "tokenizer.json", Data: []byte(`{"version":"1.0"}`)},
		{Path: "model-00001-of-00003.safetensors", Data: shard(third), LFS: true},
		{Path: "model-00002-of-00003.safetensors", Data: shard(third), LFS: true},
		{Path: "model-00003-of-00003.safetensors", Data: shard(size - 2*third), LFS: true},
	}}
}

func wispCmd(bin, home, hub string, args ...string) *exec.Cmd {
	c := exec.Command(bin, args...)
	c.Env = append(os.Environ(), "WISP_HOME="+home, "HF_ENDPOINT="+hub, "OLLAMA_HOST=127.0.0.1:1")
	return c
}

func timed(bin, home, hub string, args ...string) (time.Duration, int64, error) {
	c := wispCmd(bin, home, hub, args...)
	var stderr strings.Builder
	c.Stderr = &stderr
	start := time.Now()
	rss, err := runPeak(c)
	if err != nil {
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	return time.Since(start), rss, err
}

// runPeak runs c and returns its peak resident set, read from
// /proc/<pid>/status (VmHWM) while it runs. (The rusage of a child forked
// from this large process counts the parent's pages it shared before exec.)
func runPeak(c *exec.Cmd) (int64, error) {
	if err := c.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var peak int64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if n := vmHWM(c.Process.Pid); n > peak {
			peak = n
		}
		select {
		case err := <-done:
			return peak, err
		case <-tick.C:
		}
	}
}

func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// killHalfway starts a pull and SIGKILLs it once half the bytes are on disk.
func killHalfway(bin, home, hub string, size int64) (int64, error) {
	c := wispCmd(bin, home, hub, "models", "pull", repo, "--yes")
	if err := c.Start(); err != nil {
		return 0, err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if n := onDisk(home); n >= size/2 {
			c.Process.Signal(syscall.SIGKILL)
			c.Wait()
			return n, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
	c.Process.Kill()
	return 0, fmt.Errorf("the pull never reached half-way")
}

// onDisk counts the bytes of blobs and partial downloads under home.
func onDisk(home string) int64 {
	var n int64
	filepath.Walk(filepath.Join(home, "hub"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && strings.Contains(p, string(filepath.Separator)+"blobs"+string(filepath.Separator)) &&
			!strings.HasSuffix(p, ".state") {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// servedBytes adds up what the Hub's hosts were asked to send since Reset:
// each GET from its Range start (or 0) to the end of its file.
func servedBytes(requests []hubtest.Request, r hubtest.Repo) int64 {
	sizes := map[string]int64{}
	for _, f := range r.Files {
		sizes[f.Path] = int64(len(f.Data))
	}
	var n int64
	for _, q := range requests {
		if q.Method != "GET" || strings.Contains(q.Path, "/api/") {
			continue
		}
		var size int64 = -1
		for p, s := range sizes {
			if strings.HasSuffix(q.Path, "/"+p) {
				size = s
			}
		}
		if size < 0 || (q.Host == "hub" && strings.HasSuffix(q.Path, ".safetensors")) {
			continue // the Hub's redirect to the CDN sends no body
		}
		from := int64(0)
		if rest, ok := strings.CutPrefix(q.Range, "bytes="); ok {
			a, _, _ := strings.Cut(rest, "-")
			from, _ = strconv.ParseInt(a, 10, 64)
		}
		n += size - from
	}
	return n
}

func repoBytes(r hubtest.Repo) int64 {
	var n int64
	for _, f := range r.Files {
		n += int64(len(f.Data))
	}
	return n
}

func human(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "KiB", "MiB", "GiB"} {
		if f < 1024 || u == "GiB" {
			return strconv.FormatFloat(f, 'f', 1, 64) + " " + u
		}
		f /= 1024
	}
	return ""
}
