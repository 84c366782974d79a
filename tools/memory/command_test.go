package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wisp-agent/wisp/tools/memory"
)

// The person lists the facts, with their ids, times and sources, and
// forgets one by its id, with no approval; what the model wrote is
// escaped for the terminal.
func TestRunCommand(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	run := func(args ...string) (string, error) { return memory.RunCommand(ctx, s, args) }
	if out, err := run("list"); out != "no facts are kept\n" || err != nil {
		t.Errorf("RunCommand(list) on none = %q, %v", out, err)
	}
	for _, text := range []string{"Tabs, not spaces.", "Red \x1b[31mtext\u202e."} {
		if _, _, err := s.Remember(ctx, memory.Fact{Text: text, Source: memory.SourceModel, Thread: "t-1"}); err != nil {
			t.Fatal(err)
		}
	}
	want := "m1  2026-12-01 09:01 UTC  (model, thread t-1)  Tabs, not spaces.\n" +
		"m2  2026-12-01 09:02 UTC  (model, thread t-1)  Red \\e[31mtext\\u{202E}.\n"
	if out, err := run("list"); out != want || err != nil {
		t.Errorf("RunCommand(list) = %q, %v; want %q", out, err, want)
	}
	if out, err := run("forget", "m1"); out != "forgot m1: Tabs, not spaces.\n" || err != nil {
		t.Errorf("RunCommand(forget m1) = %q, %v", out, err)
	}
	if _, err := run("forget", "m1"); !errors.Is(err, memory.ErrNoFact) {
		t.Errorf("RunCommand(forget m1) again = %v, want ErrNoFact", err)
	}
	for _, args := range [][]string{nil, {"lsit"}, {"list", "x"}, {"forget"}, {"forget", "m1", "m2"}} {
		_, err := run(args...)
		var ce *memory.CommandError
		if !errors.As(err, &ce) {
			t.Errorf("RunCommand(%q) = %v, want a CommandError", args, err)
		}
	}
	facts, _ := s.List()
	if len(facts) != 1 || facts[0].ID != "m2" {
		t.Errorf("after forget m1, List = %+v, want m2 alone", facts)
	}
}
