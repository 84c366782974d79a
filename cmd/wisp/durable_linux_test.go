//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// smallDisk mounts a 1 MiB tmpfs for a wisp home and returns its folder
// and a func that fills it to the last byte; it skips the test where it
// cannot mount one (not root, or no tmpfs).
func smallDisk(t *testing.T) (dir string, fill func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system to fill takes root")
	}
	dir = t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs to fill: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	fill = func() {
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
		for _, n := range []int{1024, 64, 1} { // what is left of the last page
			for {
				if _, err := f.Write(buf[:n]); err != nil {
					break
				}
			}
		}
	}
	return dir, fill
}

// notKept reports whether line says a turn was lost to a full disk.
func notKept(line string) bool {
	return strings.Contains(line, "no space left on device") &&
		(strings.HasSuffix(line, "; nothing of this turn was kept") || strings.HasSuffix(line, "; this turn was not kept"))
}

// On a full disk a turn fails, loudly, in every face: wisp respond prints
// no reply and exits 1 with one line; wisp chat --json ends the turn with
// an error and exits 1; wisp mcp returns isError. The thread file stays as
// it was.
func TestFullDisk(t *testing.T) {
	disk, fill := smallDisk(t)
	home := filepath.Join(disk, "home")
	script := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(script, bytes.Repeat([]byte(`{"content":"reply"}`+"\n"), 8), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(home)
	respond := func(thread string) (code int, stdout, stderr string) {
		var out, errb bytes.Buffer
		code = run(context.Background(), []string{"respond", "--model", "script:" + script, "--thread", thread, "hi"}, strings.NewReader(""), &out, &errb, env)
		return code, out.String(), errb.String()
	}
	if code, _, stderr := respond("r"); code != 0 {
		t.Fatalf("the first respond = exit %d: %s", code, stderr)
	}
	threadFile := filepath.Join(home, "threads", "r.json")
	before, _ := os.ReadFile(threadFile)

	// chat --json and mcp take a first turn before the disk fills.
	chat := startChatJSON(t, home, "--model", "script:"+script)
	if _, ok := chat.next().(jsonl.Hello); !ok {
		t.Fatal("wisp chat --json did not say hello")
	}
	if end := chatTurn(chat, "first"); end.Error != "" {
		t.Fatalf("chat --json's first turn = %+v", end)
	}
	mcp := startMCP(t, home, "--model", "script:"+script)
	if init := mcp.await(mcp.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})); init["result"] == nil {
		t.Fatalf("initialize = %v", init)
	}
	mcp.send(map[string]any{"method": "notifications/initialized"})
	mcpRespond := func(id int, prompt string) map[string]any {
		t.Helper()
		r := mcp.await(mcp.request(id, "tools/call", map[string]any{"name": "respond", "arguments": map[string]any{"prompt": prompt, "thread_id": "m"}}))
		res, _ := r["result"].(map[string]any)
		if res == nil {
			t.Fatalf("respond = %v", r)
		}
		return res
	}
	if res := mcpRespond(2, "first"); res["isError"] == true {
		t.Fatalf("mcp's first respond = %v", res)
	}

	fill()

	t.Run("respond", func(t *testing.T) {
		code, stdout, stderr := respond("r")
		t.Logf("exit %d, stderr %q", code, stderr)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 1 || stdout != "" || !notKept(lines[len(lines)-1]) {
			t.Errorf("wisp respond on a full disk = exit %d, stdout %q, stderr %q; want exit 1, no reply, and one line that nothing was kept", code, stdout, stderr)
		}
		if after, _ := os.ReadFile(threadFile); !bytes.Equal(before, after) {
			t.Errorf("the thread file changed:\n%s\nnow\n%s", before, after)
		}
	})
	t.Run("chat --json", func(t *testing.T) {
		end := chatTurn(chat, "second")
		t.Logf("end line %+v", end)
		if !notKept(end.Error) || end.Reply != "" {
			t.Errorf("chat --json's end on a full disk = %+v; want no reply and an error that nothing was kept", end)
		}
		if code := chat.exit(); code != 1 {
			t.Errorf("wisp chat --json exited %d, want 1", code)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		res := mcpRespond(3, "second")
		t.Logf("result %v", res)
		text, _ := json.Marshal(res["content"])
		if res["isError"] != true || res["structuredContent"] != nil || !strings.Contains(string(text), "no space left on device") {
			t.Errorf("mcp respond on a full disk = %v; want isError, and the line", res)
		}
		st, err := os.ReadFile(filepath.Join(home, "threads", "m.json"))
		if err != nil || !bytes.Contains(st, []byte(`"turn":1,`)) {
			t.Errorf("the mcp thread file = %s, %v; want it still at turn 1", st, err)
		}
	})
}

// chatTurn sends a message and returns the turn's end line.
func chatTurn(p *jsonPeer, text string) jsonl.End {
	p.t.Helper()
	b, _ := json.Marshal(map[string]any{"type": "message", "text": text})
	p.send(string(b))
	for {
		if end, ok := p.next().(jsonl.End); ok {
			return end
		}
	}
}
