package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/config"
)

// FuzzLoad feeds arbitrary bytes to Load as config.json: it returns either
// a config that encodes and decodes back unchanged, or a one-line error
// that matches ErrBadFile; it never panics. (The round trip skips the disk:
// Save's fsync would slow fuzzing a hundredfold, and TestSaveLoadRoundTrip
// covers it.) Run it with
//
//	go test ./config -run '^$' -fuzz FuzzLoad -fuzzminimizetime 200x
//
// since the default minutes-long minimisation of each new input shows as a
// stall.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"",
		"{}",
		`{"tools":{"ask":true,"disabled":["shell","ask"]},"inquiry":{"timeoutSeconds":30}}`,
		`{"tools":{"ask":"on","disabled":"a, b"},"inquiry":{"timeoutSeconds":"10"}}`,
		`{"tools":{"foo":1}}`,
		`{"tools.ask":true}`,
		`{"tools":{"ask":true,"ask":false}}`,
		`{"inquiry":{"timeoutSeconds":5}}`,
		`{"inquiry":{"timeoutSeconds":1e400}}`,
		`{"tools":{"disabled":[1,"Ask!"]}}`,
		"{\n\"tools\": {\"ask\": tru}\n}",
		"[]",
		"\xff\xfe{}",
		`{"tools":{"a\nb":1}}`,
		`{"models":{"enabled":["ollama:qwen3:4b@0123456789abcdef","mlx:X"],"contextLength":8192}}`,
		`{"models":{"enabled":["ollama:qwen3:4b@XYZ"],"contextLength":"255"}}`,
	} {
		f.Add([]byte(seed))
	}
	if golden, err := os.ReadFile(filepath.Join("testdata", "default.json")); err == nil {
		f.Add(golden)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "config.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(path)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("Load error has more than one line: %q", err)
			}
			if !errors.Is(err, config.ErrBadFile) {
				t.Errorf("Load error %q does not match ErrBadFile", err)
			}
			return
		}
		roundTrip(t, c)
	})
}

// roundTrip checks that c encodes as Save writes it and decodes as Load
// reads it, unchanged.
func roundTrip(t *testing.T, c config.Config) {
	t.Helper()
	data, err := config.Encode(c)
	if err != nil {
		t.Fatalf("encoding %+v = %v", c, err)
	}
	again, err := config.Decode(data)
	if err != nil {
		t.Fatalf("decoding %q = %v", data, err)
	}
	if diff := cmp.Diff(c, again); diff != "" {
		t.Errorf("decode after encode (-want +got):\n%s", diff)
	}
}

// FuzzSet sets arbitrary keys to arbitrary values: a failed Set leaves
// the config as it was and says why in one line; a good one reads back
// through Get, sets again to the same config, and survives the file.
func FuzzSet(f *testing.F) {
	for _, tt := range setCases {
		f.Add(tt.key, tt.value)
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		c := config.Default()
		err := c.Set(key, value)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("Set(%q, %q) error has more than one line: %q", key, value, err)
			}
			if !errors.Is(err, config.ErrUnknownKey) && !errors.Is(err, config.ErrBadValue) {
				t.Errorf("Set(%q, %q) = %v, want ErrUnknownKey or ErrBadValue", key, value, err)
			}
			if diff := cmp.Diff(config.Default(), c); diff != "" {
				t.Errorf("failed Set(%q, %q) changed the config (-want +got):\n%s", key, value, diff)
			}
			return
		}
		got, err := c.Get(key)
		if err != nil {
			t.Fatalf("Get(%q) after a good Set = %v", key, err)
		}
		again := config.Default()
		if err := again.Set(key, got); err != nil {
			t.Fatalf("Set(%q, %q) of what Get printed = %v", key, got, err)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Errorf("Set of what Get printed (-want +got):\n%s", diff)
		}
		roundTrip(t, c)
	})
}
