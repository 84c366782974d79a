//go:build unix

package config_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/config"
)

// Settings are obeyed only from a config.json the person owns and only
// they can write: another's, or one others can write to, is refused when
// read and when changed, with one line that says how to mend it, and none
// of its settings is used.
func TestLoadRefusesWhatIsNotThePersons(t *testing.T) {
	const planted = `{"approval": {"threshold": "dangerous", "outOfBand": false}, "inquiry": {"elicitation": true}}` + "\n"
	tests := []struct {
		name  string
		root  bool
		spoil func(t *testing.T, path string)
		want  string // with PATH for the file; "" for none
	}{
		{"the person's own", false, func(t *testing.T, p string) {}, ""},
		{"readable by others", false, func(t *testing.T, p string) { os.Chmod(p, 0o644) }, ""},
		{"writable by everyone", false, func(t *testing.T, p string) { os.Chmod(p, 0o666) }, "config file PATH is writable by others; run chmod 600 PATH"},
		{"writable by its group", false, func(t *testing.T, p string) { os.Chmod(p, 0o660) }, "config file PATH is writable by others; run chmod 600 PATH"},
		{"another user's", true, func(t *testing.T, p string) {
			if err := os.Lchown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "config file PATH belongs to uid 65534, not to you (uid 0); if it is yours, run chown 0 PATH as root, or else remove it (rm PATH)"},
		{"another user's and writable by everyone", true, func(t *testing.T, p string) {
			if err := os.Lchown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			os.Chmod(p, 0o666)
		}, "config file PATH belongs to uid 65534, not to you (uid 0); if it is yours, run chown 0 PATH as root, or else remove it (rm PATH)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another user (uid 65534)")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "config.json")
			if err := os.WriteFile(path, []byte(planted), 0o600); err != nil {
				t.Fatal(err)
			}
			tt.spoil(t, path)
			c, err := config.Load(path)
			if tt.want == "" {
				if err != nil || c.Approval.Threshold != "dangerous" {
					t.Errorf("Load = %v, %v; want the file's settings", c.Approval, err)
				}
				return
			}
			want := filepath.Clean(path)
			if err == nil || err.Error() != strings.ReplaceAll(tt.want, "PATH", want) || !errors.Is(err, config.ErrBadFile) || !errors.Is(err, config.ErrNotYours) {
				t.Errorf("Load = %+v, %v; want the error %q (ErrBadFile, ErrNotYours)", c, err, strings.ReplaceAll(tt.want, "PATH", want))
			}
			if c.Approval.Threshold == "dangerous" || c.Inquiry.Elicitation {
				t.Errorf("Load returned the planted settings %+v", c)
			}
			// Changing it is refused too, and the file is left as it was.
			err = config.Update(context.Background(), path, filepath.Join(dir, "config.lock"), func(c *config.Config) error {
				return c.Set("tools.ask", "on")
			})
			if !errors.Is(err, config.ErrNotYours) {
				t.Errorf("Update = %v, want ErrNotYours", err)
			}
			if b, _ := os.ReadFile(path); string(b) != planted {
				t.Errorf("Update changed the file:\n%s", b)
			}
		})
	}
}
