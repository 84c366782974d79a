package mcpserver_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/models/script"
)

// A parked question whose file is damaged is not dropped silently: the
// thread's next turn is told it will not be answered (with no path of
// this machine), and the file is settled once the thread is saved. A
// damaged file of another thread is left for that thread.
func TestDamagedQuestionIsTold(t *testing.T) {
	f := newQFix(t, false,
		askStep(),
		script.Step{Content: "I will wait for your answer."},
		script.Step{Content: "I will ask again."},
	)
	c := f.client(t)
	running := goRespond(t, c, map[string]any{"prompt": "Replace the config.", "tools": []string{"ask"}})
	q := f.waitFiled(t)
	f.endHolds()
	running.wait(t)

	path := filepath.Join(f.store.Dir, q.ID+".question.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(f.store.Dir, "0badf00d.question.json")
	if err := os.WriteFile(elsewhere, []byte(`{"version":1,"id":"0badf00d","session":"s","thread":"t-other","tu`), 0o600); err != nil {
		t.Fatal(err)
	}
	if ds, err := f.store.Damaged(); err != nil || len(ds) != 2 {
		t.Fatalf("Damaged = %+v, %v; want both files", ds, err)
	}

	respond(t, c, map[string]any{"prompt": "Go on.", "thread_id": "t-00000001", "tools": []string{"ask"}})
	note := inquiry.LineDamaged(q.ID)
	got := lastUserMessages(f.model)
	if !slices.Contains(got, note) {
		t.Errorf("the model's turn 2 read %q, want the note %q", got, note)
	}
	for _, m := range got {
		if strings.Contains(m, f.store.Dir) || strings.Contains(m, string(filepath.Separator)+"pending") {
			t.Errorf("the model read a path of this machine: %q", m)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the damaged question's file is still there after the thread was told (%v)", err)
	}
	if ds, err := f.store.Damaged(); err != nil || len(ds) != 1 || ds[0].ID != "0badf00d" {
		t.Errorf("Damaged = %+v, %v; want only the other thread's", ds, err)
	}
}
