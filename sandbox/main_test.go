package sandbox_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/sandbox"
)

// helperBin is a copy of the test binary outside /tmp (which a confined
// command sees as its own private folder), run by commands in helper mode.
var helperBin string

func TestMain(m *testing.M) {
	sandbox.Main()
	if len(os.Args) > 1 && os.Args[1] == "sandbox-test-helper" {
		os.Exit(helper(os.Args[2:]))
	}
	dir, err := copyHelper()
	if err != nil {
		fmt.Fprintln(os.Stderr, "copying the test binary for helper mode:", err)
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// copyHelper copies the test binary to a folder under /var/tmp.
func copyHelper() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("/var/tmp", "sandbox-test-")
	if err != nil {
		return "", err
	}
	os.Chmod(dir, 0o755)
	in, err := os.Open(self)
	if err != nil {
		return dir, err
	}
	defer in.Close()
	dst := filepath.Join(dir, "helper")
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return dir, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return dir, err
	}
	if err := out.Close(); err != nil {
		return dir, err
	}
	helperBin = dst
	return dir, nil
}

// helper is the test binary run by a command in the sandbox:
//
//	dial tcp|mptcp ADDR   connect to ADDR
//	send udp ADDR         send one datagram to ADDR
//	loopback              serve on 127.0.0.1 and connect to it
//	spawn N               start N sleeping processes, print how many started
//
// It prints "ok" and exits 0 when it could, else the error and exits 1.
func helper(args []string) int {
	var err error
	switch {
	case len(args) == 3 && args[0] == "dial":
		d := net.Dialer{Timeout: 2 * time.Second}
		d.SetMultipathTCP(args[1] == "mptcp")
		var c net.Conn
		if c, err = d.Dial("tcp", args[2]); err == nil {
			c.Close()
		}
	case len(args) == 3 && args[0] == "send":
		var c net.Conn
		if c, err = net.Dial("udp", args[2]); err == nil {
			_, err = c.Write([]byte("wisp"))
			c.Close()
		}
	case len(args) == 1 && args[0] == "loopback":
		var l net.Listener
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err == nil {
			go func() {
				if c, err := l.Accept(); err == nil {
					c.Close()
				}
			}()
			var c net.Conn
			if c, err = net.DialTimeout("tcp", l.Addr().String(), 2*time.Second); err == nil {
				c.Close()
			}
			l.Close()
		}
	case len(args) == 2 && args[0] == "spawn":
		n, _ := strconv.Atoi(args[1])
		var started []*exec.Cmd
		for range n {
			c := exec.Command("/bin/sleep", "10")
			if c.Start() == nil {
				started = append(started, c)
			}
		}
		for _, c := range started {
			c.Process.Kill()
			c.Wait()
		}
		fmt.Println(len(started))
		return 0
	default:
		err = fmt.Errorf("unknown helper arguments %q", args)
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("ok")
	return 0
}
