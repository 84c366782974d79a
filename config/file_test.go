package config_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/config"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// withDefaults returns Default changed by fn.
func withDefaults(fn func(c *config.Config)) config.Config {
	c := config.Default()
	fn(&c)
	return c
}

func TestLoad(t *testing.T) {
	const (
		boolRule = "tools.ask takes true, false, on or off; got "
		intRule  = "inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got "
		listRule = "tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "
	)
	tests := []struct {
		name    string
		file    *string // nil: no file
		want    config.Config
		wantErr string // with PATH for the file's path
		is      []error
	}{
		{name: "missing", want: config.Default()},
		{name: "empty object", file: ptr(`{}`), want: config.Default()},
		{name: "empty sections", file: ptr(`{"tools":{},"inquiry":{}}`), want: config.Default()},
		{name: "one setting", file: ptr(`{"tools":{"ask":true}}`),
			want: withDefaults(func(c *config.Config) { c.Tools.Ask = true })},
		{name: "every setting", file: ptr("{\n \"tools\": {\"ask\": true, \"disabled\": [\"shell\", \"ask\", \"shell\"]},\n \"inquiry\": {\"timeoutSeconds\": 600}\n}\n"),
			want: filled(config.Config{Tools: config.Tools{Ask: true, Disabled: []string{"ask", "shell"}}, Inquiry: config.Inquiry{TimeoutSeconds: 600}})},
		{name: "values spelled as on the command line", file: ptr(`{"tools":{"ask":"On","disabled":"shell, ask"},"inquiry":{"timeoutSeconds":"30"}}`),
			want: filled(config.Config{Tools: config.Tools{Ask: true, Disabled: []string{"ask", "shell"}}, Inquiry: config.Inquiry{TimeoutSeconds: 30}})},
		{name: "empty list", file: ptr(`{"tools":{"disabled":[]}}`), want: config.Default()},
		{name: "the interactive tools", file: ptr(`{"tools":{"ask_user":true,"request_approval":"on"}}`),
			want: withDefaults(func(c *config.Config) { c.Tools.AskUser, c.Tools.RequestApproval = true, true })},
		{name: "a tool's key spelt in camel case", file: ptr(`{"tools":{"askUser":true}}`),
			wantErr: `PATH: unknown key "tools.askUser"; valid keys: ` + validKeys, is: []error{config.ErrBadFile, config.ErrUnknownKey}},

		{name: "empty file", file: ptr(""),
			wantErr: "PATH: not valid JSON at line 1, column 1: unexpected end of JSON input; fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "blank lines", file: ptr("\n\n"),
			wantErr: "PATH: not valid JSON at line 3, column 1: unexpected end of JSON input; fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "bad literal", file: ptr(`{"tools": {"ask": tru}}`),
			wantErr: "PATH: not valid JSON at line 1, column 22: invalid character '}' in literal true (expecting 'e'); fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "trailing comma on line 4", file: ptr("{\n  \"tools\": {\n    \"ask\": true,\n  }\n}\n"),
			wantErr: "PATH: not valid JSON at line 4, column 3: invalid character '}' looking for beginning of object key string; fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "column counts characters", file: ptr(`{"é": 1 x}`),
			wantErr: "PATH: not valid JSON at line 1, column 9: invalid character 'x' after object key:value pair; fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "cut short", file: ptr("{\"tools\": {"),
			wantErr: "PATH: not valid JSON at line 1, column 12: unexpected end of JSON input; fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "two objects", file: ptr(`{} {}`),
			wantErr: "PATH: not valid JSON at line 1, column 4: invalid character '{' after top-level value; fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "byte order mark", file: ptr("\uFEFF{}"),
			wantErr: "PATH: not valid JSON at line 1, column 1: invalid character 'ï' looking for beginning of value; fix or remove the file", is: []error{config.ErrBadFile}},
		{name: "not an object", file: ptr(`["tools"]`),
			wantErr: `PATH: the file must hold one JSON object, like {"tools": {"ask": true}}; fix or remove the file`, is: []error{config.ErrBadFile}},
		{name: "null", file: ptr(`null`),
			wantErr: `PATH: the file must hold one JSON object, like {"tools": {"ask": true}}; fix or remove the file`, is: []error{config.ErrBadFile}},

		{name: "unknown nested key", file: ptr(`{"tools":{"ask":true,"foo":1}}`),
			wantErr: `PATH: unknown key "tools.foo"; valid keys: ` + validKeys, is: []error{config.ErrBadFile, config.ErrUnknownKey}},
		{name: "unknown section", file: ptr(`{"foo":{}}`),
			wantErr: `PATH: unknown key "foo"; valid keys: ` + validKeys, is: []error{config.ErrBadFile, config.ErrUnknownKey}},
		{name: "unknown key deeper", file: ptr(`{"inquiry":{"timeoutSeconds":0,"x":{"y":1}}}`),
			wantErr: `PATH: unknown key "inquiry.x"; valid keys: ` + validKeys, is: []error{config.ErrBadFile, config.ErrUnknownKey}},
		{name: "key in the wrong case", file: ptr(`{"tools":{"Ask":true}}`),
			wantErr: `PATH: unknown key "tools.Ask"; valid keys: ` + validKeys, is: []error{config.ErrBadFile, config.ErrUnknownKey}},
		{name: "dotted name not nested", file: ptr(`{"tools.ask":true}`),
			wantErr: `PATH: key "tools.ask" must be nested: write {"tools": {"ask": …}}`, is: []error{config.ErrBadFile}},
		{name: "dotted unknown name", file: ptr(`{"tools.foo":true}`),
			wantErr: `PATH: unknown key "tools.foo"; valid keys: ` + validKeys, is: []error{config.ErrBadFile, config.ErrUnknownKey}},
		{name: "key twice", file: ptr(`{"tools":{"ask":true,"ask":false}}`),
			wantErr: `PATH: key "tools.ask" is set twice; keep one`, is: []error{config.ErrBadFile}},
		{name: "section twice", file: ptr(`{"tools":{},"tools":{}}`),
			wantErr: `PATH: key "tools" is set twice; keep one`, is: []error{config.ErrBadFile}},
		{name: "section not an object", file: ptr(`{"tools":3}`),
			wantErr: `PATH: tools must be a JSON object; got 3`, is: []error{config.ErrBadFile}},

		{name: "bool as number", file: ptr(`{"tools":{"ask":1}}`),
			wantErr: "PATH: " + boolRule + "1", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "bool as other word", file: ptr(`{"tools":{"ask":"maybe"}}`),
			wantErr: "PATH: " + boolRule + `"maybe"`, is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "bool null", file: ptr(`{"tools":{"ask":null}}`),
			wantErr: "PATH: " + boolRule + "null", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "list item not a string", file: ptr(`{"tools":{"disabled":["ask",1]}}`),
			wantErr: "PATH: " + listRule + "1", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "list item not a tool name", file: ptr(`{"tools":{"disabled":["ask","Ask!"]}}`),
			wantErr: "PATH: " + listRule + `"Ask!"`, is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "list as object", file: ptr(`{"tools":{"disabled":{"ask": true}}}`),
			wantErr: "PATH: " + listRule + `{"ask":true}`, is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "list as bad string", file: ptr(`{"tools":{"disabled":"ask;shell"}}`),
			wantErr: "PATH: " + listRule + `"ask;shell"`, is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "int as fraction", file: ptr(`{"inquiry":{"timeoutSeconds":30.5}}`),
			wantErr: "PATH: " + intRule + "30.5", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "int as bool", file: ptr(`{"inquiry":{"timeoutSeconds":true}}`),
			wantErr: "PATH: " + intRule + "true", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "int as word", file: ptr(`{"inquiry":{"timeoutSeconds":"soon"}}`),
			wantErr: "PATH: " + intRule + `"soon"`, is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "int too small", file: ptr(`{"inquiry":{"timeoutSeconds":5}}`),
			wantErr: "PATH: " + intRule + "5", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "int too large", file: ptr(`{"inquiry":{"timeoutSeconds":86401}}`),
			wantErr: "PATH: " + intRule + "86401", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "int negative", file: ptr(`{"inquiry":{"timeoutSeconds":-1}}`),
			wantErr: "PATH: " + intRule + "-1", is: []error{config.ErrBadFile, config.ErrBadValue}},
		{name: "long value cut short", file: ptr(`{"tools":{"ask":"` + strings.Repeat("y", 100) + `"}}`),
			wantErr: "PATH: " + boolRule + `"` + strings.Repeat("y", 64) + `…"`, is: []error{config.ErrBadFile, config.ErrBadValue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if tt.file != nil {
				if err := os.WriteFile(path, []byte(*tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := config.Load(path)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Load = %v, want nil", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Load (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load = %+v, nil; want %q", got, tt.wantErr)
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.wantErr, "PATH", path), err.Error()); diff != "" {
				t.Errorf("Load error (-want +got):\n%s", diff)
			}
			for _, is := range tt.is {
				if !errors.Is(err, is) {
					t.Errorf("Load error %v does not match %v", err, is)
				}
			}
			if diff := cmp.Diff(config.Config{}, got); diff != "" {
				t.Errorf("Load returned a config with its error (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestLoadRefusesOtherFiles(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		wantErr string
	}{
		{
			name: "symbolic link",
			setup: func(t *testing.T, path string) {
				real := path + ".real"
				if err := os.WriteFile(real, []byte("{}"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(real, path); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "PATH is a symbolic link; wisp keeps its settings in a regular file: replace the link with a copy of its target",
		},
		{
			name: "folder",
			setup: func(t *testing.T, path string) {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "PATH is not a regular file; move it aside and run wisp again",
		},
		{
			name: "too large",
			setup: func(t *testing.T, path string) {
				data := append([]byte(`{"x":"`), bytes.Repeat([]byte("x"), 1<<20)...)
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "PATH is larger than 1048576 bytes; fix or remove the file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			tt.setup(t, path)
			_, err := config.Load(path)
			if err == nil {
				t.Fatal("Load = nil, want an error")
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.wantErr, "PATH", path), err.Error()); diff != "" {
				t.Errorf("Load error (-want +got):\n%s", diff)
			}
			if !errors.Is(err, config.ErrBadFile) {
				t.Errorf("Load error %v does not match ErrBadFile", err)
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("{}"), 0o000); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(path)
	want := "cannot read " + path + ": permission denied; check that the file is yours and readable (wisp writes it 0600)"
	if err == nil || err.Error() != want || !errors.Is(err, os.ErrPermission) {
		t.Errorf("Load of an unreadable file = %v, want %q matching os.ErrPermission", err, want)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	tests := []config.Config{
		config.Default(),
		filled(config.Config{Tools: config.Tools{Ask: true, Disabled: []string{"ask", "run_command", "shell"}}, Inquiry: config.Inquiry{TimeoutSeconds: 10}}),
		filled(config.Config{Tools: config.Tools{AskUser: true, RequestApproval: true, Disabled: []string{}}}),
		{Tools: config.Tools{Models: true, Disabled: []string{"x"}}, Inquiry: config.Inquiry{TimeoutSeconds: 86400},
			Models: config.Models{Enabled: []string{"mlx:Qwen3-4B-4bit", "ollama:qwen3:4b"}, Trusted: []string{"mlx-community"}}, Approval: config.Approval{Threshold: "safe"},
			Sandbox: config.Sandbox{Mode: "off", Network: true}, Commands: config.CommandSettings{Env: []string{"GOFLAGS", "NPM_TOKEN"}}},
	}
	for _, c := range tests {
		path := filepath.Join(t.TempDir(), "config.json")
		if err := config.Save(path, c); err != nil {
			t.Fatalf("Save(%+v) = %v", c, err)
		}
		got, err := config.Load(path)
		if err != nil {
			t.Fatalf("Load after Save(%+v) = %v", c, err)
		}
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("Load after Save (-want +got):\n%s", diff)
		}
	}
}

func TestSaveTidiesLists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	disabled := []string{"shell", "ask", "shell"}
	c := config.Default()
	c.Tools.Disabled = disabled
	if err := config.Save(path, c); err != nil {
		t.Fatalf("Save = %v", err)
	}
	got, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ask", "shell"}, got.Tools.Disabled); diff != "" {
		t.Errorf("disabled after Save (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"shell", "ask", "shell"}, disabled); diff != "" {
		t.Errorf("Save changed the caller's slice (-want +got):\n%s", diff)
	}

	c.Tools.Disabled = nil
	if err := config.Save(path, c); err != nil {
		t.Fatalf("Save = %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"disabled": []`)) {
		t.Errorf("a nil list was saved as:\n%s\nwant \"disabled\": []", data)
	}
}

func TestSaveRefusesBadValues(t *testing.T) {
	tests := []struct {
		name    string
		c       config.Config
		wantErr string
	}{
		{"timeout out of range", withDefaults(func(c *config.Config) { c.Inquiry.TimeoutSeconds = 5 }),
			"inquiry.timeoutSeconds must be 0 (wait for ever) or 10 to 86,400; got 5"},
		{"bad tool name", withDefaults(func(c *config.Config) { c.Tools.Disabled = []string{"ask", "a,b"} }),
			`tools.disabled takes tool names separated by commas (lower-case letters, digits, _); got "a,b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := config.Save(path, tt.c)
			if err == nil {
				t.Fatal("Save = nil, want an error")
			}
			if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
				t.Errorf("Save error (-want +got):\n%s", diff)
			}
			if !errors.Is(err, config.ErrBadValue) {
				t.Errorf("Save error %v does not match ErrBadValue", err)
			}
			if data, _ := os.ReadFile(path); string(data) != "{}\n" {
				t.Errorf("file after a refused Save = %q, want it unchanged", data)
			}
		})
	}
}

func TestSaveMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := config.Save(path, config.Default()); err != nil {
		t.Fatalf("Save = %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("mode after Save = %v, want %v", fi.Mode(), os.FileMode(0o600))
	}
}

func TestSaveMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "config.json")
	err := config.Save(path, config.Default())
	want := "cannot save " + path + ": no such file or directory; check that its folder exists and is yours"
	if err == nil || err.Error() != want || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Save into a missing folder = %v, want %q matching os.ErrNotExist", err, want)
	}
}

// TestSaveGolden pins the bytes of the default file. Run with -update to
// rewrite testdata/default.json after a deliberate change.
func TestSaveGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := config.Save(path, config.Default()); err != nil {
		t.Fatalf("Save = %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "default.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("saved default config (-want +got):\n%s", diff)
	}
}

// filled fills the sections a case leaves out with their defaults.
func filled(c config.Config) config.Config {
	d := config.Default()
	c.Models, c.Approval, c.Sandbox, c.Commands = d.Models, d.Approval, d.Sandbox, d.Commands
	return c
}
