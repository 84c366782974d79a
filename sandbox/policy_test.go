package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEnviron(t *testing.T) {
	environ := []string{
		"PATH=/bin", "HOME=/home/p", "LANG=C", "LC_ALL=C", "LC_TIME=x", "TERM=xterm", "TZ=UTC", "USER=p", "LOGNAME=p",
		"GH_TOKEN=secret", "AWS_SECRET_ACCESS_KEY=secret", "WISP_HOME=/h", "wisp_token=x", "SSH_AUTH_SOCK=/run/x",
		"GOPATH=/go", "GOFLAGS=-mod=mod", "NOEQUALS", "=empty",
	}
	for _, tc := range []struct {
		allow []string
		want  []string
	}{
		{nil, []string{"PATH=/bin", "HOME=/home/p", "LANG=C", "LC_ALL=C", "LC_TIME=x", "TERM=xterm", "TZ=UTC", "USER=p", "LOGNAME=p"}},
		{[]string{"GOPATH", "WISP_HOME", "wisp_token"}, []string{"PATH=/bin", "HOME=/home/p", "LANG=C", "LC_ALL=C", "LC_TIME=x", "TERM=xterm", "TZ=UTC", "USER=p", "LOGNAME=p", "GOPATH=/go"}},
		{[]string{"GO*", "*", "WISP*"}, []string{"PATH=/bin", "HOME=/home/p", "LANG=C", "LC_ALL=C", "LC_TIME=x", "TERM=xterm", "TZ=UTC", "USER=p", "LOGNAME=p", "GOPATH=/go", "GOFLAGS=-mod=mod"}},
	} {
		if diff := cmp.Diff(tc.want, Environ(environ, tc.allow)); diff != "" {
			t.Errorf("Environ(allow %q) (-want +got):\n%s", tc.allow, diff)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
		err  bool
	}{
		{"", WorkspaceWrite, false},
		{"read-only", ReadOnly, false},
		{"workspace-write", WorkspaceWrite, false},
		{"off", Off, false},
		{"full", "", true},
		{"Off", "", true},
	} {
		got, err := ParseMode(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestNewRefusesBadPolicies(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	file := filepath.Join(ws, "file")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct {
		name string
		p    Policy
		want string
	}{
		{"no workspace", Policy{Home: home}, "no workspace"},
		{"missing workspace", Policy{Workspace: filepath.Join(ws, "missing"), Home: home}, "is not a folder"},
		{"file workspace", Policy{Workspace: file, Home: home}, "is not a folder"},
		{"root workspace", Policy{Workspace: "/", Home: home}, "root folder"},
		{"temp workspace", Policy{Workspace: os.TempDir(), Home: home}, "system temp folder"},
		{"no home", Policy{Workspace: ws}, "no wisp home"},
		{"workspace in home", Policy{Workspace: ws, Home: filepath.Dir(ws)}, "lies inside"},
		{"workspace hidden", Policy{Workspace: ws, Home: home, Hide: []string{ws}}, "lies inside"},
		{"read-only outside", Policy{Workspace: ws, Home: home, ReadOnly: []string{"../x"}}, "outside the workspace"},
		{"bad mode", Policy{Workspace: ws, Home: home, Mode: "full"}, "not one of"},
	} {
		_, err := New(tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New(%+v) = %v, want an error saying %q", tc.name, tc.p, err, tc.want)
		}
	}
	r, err := New(Policy{Workspace: ws, Mode: Off})
	if err != nil {
		t.Fatalf("New in mode off without a home: %v", err)
	}
	if got := r.Policy().Limits; got.Output != DefaultOutput || got.Processes != DefaultProcesses || got.Grace != DefaultGrace {
		t.Errorf("New(…).Policy().Limits = %+v, want the defaults", got)
	}
}

func TestCommandChecks(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	os.Symlink("/etc", filepath.Join(ws, "link"))
	r, err := New(Policy{Workspace: ws, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ws = r.Policy().Workspace
	for _, tc := range []struct {
		c       Command
		dir     string
		timeout time.Duration
		err     string
	}{
		{Command{Line: "ls"}, ws, DefaultTimeout, ""},
		{Command{Line: "ls", Dir: "sub", Timeout: MaxTimeout}, filepath.Join(ws, "sub"), MaxTimeout, ""},
		{Command{Line: "ls", Dir: filepath.Join(ws, "sub"), Timeout: time.Second}, filepath.Join(ws, "sub"), time.Second, ""},
		{Command{Line: " \n"}, "", 0, "empty"},
		{Command{Line: "ls\x00rm"}, "", 0, "NUL"},
		{Command{Line: "ls", Timeout: MaxTimeout + time.Second}, "", 0, "above the most"},
		{Command{Line: "ls", Timeout: -time.Second}, "", 0, "negative"},
		{Command{Line: "ls", Dir: ".."}, "", 0, "outside the workspace"},
		{Command{Line: "ls", Dir: "link"}, "", 0, "outside the workspace"},
		{Command{Line: "ls", Env: []string{"NOEQUALS"}}, "", 0, "NAME=VALUE"},
	} {
		dir, timeout, err := r.command(tc.c)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("command(%+v) error %v, want one saying %q", tc.c, err, tc.err)
			}
			continue
		}
		if err != nil || dir != tc.dir || timeout != tc.timeout {
			t.Errorf("command(%+v) = %q, %v, %v; want %q, %v", tc.c, dir, timeout, err, tc.dir, tc.timeout)
		}
	}
}

func TestDenials(t *testing.T) {
	out := func(s string) Output { return Output{Head: []byte(s), Bytes: int64(len(s))} }
	for _, tc := range []struct {
		mode    Mode
		network bool
		text    string
		want    []string
	}{
		{WorkspaceWrite, false, "touch: cannot touch '/etc/x': Read-only file system", []string{"write outside the writable folders"}},
		{WorkspaceWrite, false, "cat: x: Permission denied", []string{"file access"}},
		{WorkspaceWrite, false, "curl: (6) Could not resolve host: example.com", []string{"network"}},
		{WorkspaceWrite, true, "curl: (6) Could not resolve host: example.com", nil},
		{Off, false, "cat: x: Permission denied", nil},
		{ReadOnly, false, "all fine", nil},
	} {
		if got := denials(tc.mode, tc.network, out(tc.text)); !cmp.Equal(got, tc.want) {
			t.Errorf("denials(%s, network %v, %q) = %q, want %q", tc.mode, tc.network, tc.text, got, tc.want)
		}
	}
}
