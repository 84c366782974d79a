package terminal_test

import (
	"os"
	"testing"

	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// Each Ctrl-C goes, as it comes, to the last part of the program that
// took it and has not let it go, or else stops the program.
func TestInterruptsRoute(t *testing.T) {
	got := make(chan string)
	c := terminal.NewInterrupts(func() { got <- "stop" })
	ch := make(chan os.Signal)
	go c.Route(t.Context(), ch)
	press := func(want string) {
		t.Helper()
		ch <- os.Interrupt
		if g := <-got; g != want {
			t.Errorf("Ctrl-C went to %s, want %s", g, want)
		}
	}
	press("stop")
	releaseChat := c.Take(func() { got <- "chat" })
	press("chat")
	releaseInner := c.Take(func() { got <- "inner" })
	press("inner")
	releaseChat()
	press("inner")
	releaseInner()
	press("stop")
}
