package config_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// No setting holds a credential: a credential-shaped value is refused for
// every key, whether set, read from the file or saved, with one line that
// names the key and the kind of credential but never repeats the value;
// the file is left as it was.
func TestCredentialsAreRefused(t *testing.T) {
	cases := secretstest.Corpus()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := config.Save(path, config.Default()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	for _, c := range cases {
		for _, k := range config.Keys() {
			for _, value := range []string{c.Text, "mlx-community," + c.Text} {
				cfg := config.Default()
				err := cfg.Set(k.Name, value)
				if !errors.Is(err, config.ErrBadValue) || !strings.Contains(err.Error(), "never holds a credential") {
					t.Fatalf("case %s: Set(%s, …) = %v, want the refusal of a credential", c.Name, k.Name, err)
				}
				if leaks := secretstest.Leaks([]byte(err.Error()), cases); leaks != nil || strings.Contains(err.Error(), "\n") {
					t.Errorf("case %s: Set(%s, …) = %q, which holds %v or is not one line", c.Name, k.Name, err, leaks)
				}
				if diff := cmp.Diff(config.Default(), cfg); diff != "" {
					t.Errorf("case %s: Set(%s, …) changed the settings (-want +got):\n%s", c.Name, k.Name, diff)
				}
			}
		}
		// A key that is a credential is not repeated either.
		cfg := config.Default()
		if err := cfg.Set(c.Text, "on"); !errors.Is(err, config.ErrUnknownKey) || secretstest.Leaks([]byte(err.Error()), cases) != nil {
			t.Errorf("case %s: Set with the credential as key = %v, want ErrUnknownKey without it", c.Name, err)
		}
		// Saved from a Config changed by hand.
		cfg = config.Default()
		cfg.Models.Trusted = []string{"mlx-community", c.Text}
		cfg.Models.Default = c.Text
		if err := config.Save(path, cfg); !errors.Is(err, config.ErrBadValue) || secretstest.Leaks([]byte(err.Error()), cases) != nil {
			t.Errorf("case %s: Save = %v, want a refusal without the value", c.Name, err)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("case %s: Save changed the file:\n%s", c.Name, after)
		}
	}
}

// A credential written into config.json by hand, as a value or a key, is
// refused when the file is read, without being repeated.
func TestLoadRefusesCredentials(t *testing.T) {
	cases := secretstest.Corpus()
	path := filepath.Join(t.TempDir(), "config.json")
	for _, c := range cases {
		for _, doc := range []map[string]any{
			{"models": map[string]any{"trusted": []string{"mlx-community", c.Text}}},
			{"models": map[string]any{"default": c.Text}},
			{"approval": map[string]any{"threshold": c.Text}},
			{"tools": map[string]any{c.Text: true}},
			{c.Text: map[string]any{"ask": true}},
		} {
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = config.Load(path)
			if !errors.Is(err, config.ErrBadFile) {
				t.Fatalf("case %s: Load(%s) = %v, want ErrBadFile", c.Name, b, err)
			}
			if leaks := secretstest.Leaks([]byte(err.Error()), cases); leaks != nil || strings.Contains(err.Error(), "\n") {
				t.Errorf("case %s: Load(%s) = %q, which holds %v or is not one line", c.Name, b, err, leaks)
			}
		}
	}
}
