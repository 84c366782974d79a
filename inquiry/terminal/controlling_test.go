//go:build linux

package terminal_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/wisp-agent/wisp/inquiry/terminal"
)

// TestControllingTerminalChild prints what ControllingTerminal names, in
// a process TestControllingTerminal starts.
func TestControllingTerminalChild(t *testing.T) {
	if os.Getenv("WISP_TEST_CONTROLLING") == "" {
		t.Skip("run by TestControllingTerminal")
	}
	fmt.Printf("controlling=%q\n", terminal.ControllingTerminal())
}

// A process in a session of its own has no controlling terminal until
// it takes one.
func TestControllingTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty here:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	for _, tc := range []struct {
		name  string
		attr  *syscall.SysProcAttr
		stdin *os.File
		want  string
	}{
		{"a session of its own", &syscall.SysProcAttr{Setsid: true}, nil, `controlling=""`},
		{"a session whose terminal is a pty", &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}, tty, `controlling="/dev/tty"`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestControllingTerminalChild$")
		cmd.Env = append(os.Environ(), "WISP_TEST_CONTROLLING=1")
		cmd.SysProcAttr, cmd.Stdin = tc.attr, tc.stdin
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: ControllingTerminal() printed %q, want %s", tc.name, out, tc.want)
		}
	}
}
