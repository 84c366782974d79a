package main

import (
	"os"
	"testing"
)

// Each Ctrl-C goes, as it comes, to the last part of the command that took
// it and has not let it go, or else stops the command.
func TestCtrlCRoutes(t *testing.T) {
	got := make(chan string)
	c := &ctrlC{stop: func() { got <- "stop" }}
	ch := make(chan os.Signal)
	done := make(chan struct{})
	defer close(done)
	go c.route(ch, done)
	press := func(want string) {
		t.Helper()
		ch <- os.Interrupt
		if g := <-got; g != want {
			t.Errorf("Ctrl-C went to %s, want %s", g, want)
		}
	}
	press("stop")
	releaseChat := c.take(func() { got <- "chat" })
	press("chat")
	releaseInner := c.take(func() { got <- "inner" })
	press("inner")
	releaseChat()
	press("inner")
	releaseInner()
	press("stop")
}
