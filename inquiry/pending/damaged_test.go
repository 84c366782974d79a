package pending

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// A question file wisp cannot read back is never listed as waiting and
// never silently dropped: Damaged names it, with the thread it names when
// that much of it can be read.
func TestDamaged(t *testing.T) {
	tests := []struct {
		name   string
		spoil  func([]byte) []byte
		thread string // the thread Damaged names; "" when it cannot tell
	}{
		{"cut to 50 bytes", func(b []byte) []byte { return b[:50] }, ""},
		{"cut after the thread", func(b []byte) []byte { return b[:bytes.Index(b, []byte(`"turn"`))] }, "t1"},
		{"another id", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"id": "a1b2c3d4"`), []byte(`"id": "0badf00d"`), 1)
		}, "t1"},
		{"a string turn", func(b []byte) []byte { return bytes.Replace(b, []byte(`"turn": 3`), []byte(`"turn": "3"`), 1) }, "t1"},
		{"text edited", func(b []byte) []byte { return bytes.Replace(b, []byte("Which config"), []byte("Which secret"), 1) }, "t1"},
		{"too large", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"text": "`), []byte(`"text": "`+strings.Repeat("x", 2<<20)), 1)
		}, "t1"},
		{"an unknown key", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"version": 1,`), []byte(`"version": 1, "extra": true,`), 1)
		}, "t1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t, "a1b2c3d4", "0f0f0f0f")
			q := mustFile(t, s, choice)
			other := mustFile(t, s, free)
			path := s.path(q.ID, kindQuestion)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.spoil(data), 0o600); err != nil {
				t.Fatal(err)
			}
			ds, err := s.Damaged()
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != 1 || ds[0].ID != q.ID || ds[0].Thread != tt.thread || !errors.Is(ds[0].Err, ErrMalformed) {
				t.Fatalf("Damaged = %+v; want question %s of thread %q, malformed", ds, q.ID, tt.thread)
			}
			qs, err := s.List()
			if err != nil || len(qs) != 1 || qs[0].ID != other.ID {
				t.Errorf("List = %+v, %v; want only the question that can be read", qs, err)
			}
		})
	}
	s := testStore(t, "a1b2c3d4")
	if ds, err := s.Damaged(); ds != nil || err != nil {
		t.Errorf("Damaged of a missing folder = %v, %v; want nothing", ds, err)
	}
	mustFile(t, s, choice)
	if ds, err := s.Damaged(); ds != nil || err != nil {
		t.Errorf("Damaged with every file whole = %v, %v; want nothing", ds, err)
	}
}

func TestThreadOf(t *testing.T) {
	tests := map[string]string{
		`{"thread": "t-81b2c3d4"}`:                       "t-81b2c3d4",
		`{"version":1,"thread":"a.b_c-d","turn":`:        "a.b_c-d",
		`{"thread": "../x"}`:                             "",
		`{"thread": "t1", "thread": "t2"}`:               "",
		`{"thread": "t1`:                                 "",
		`{"threads": "t1"}`:                              "",
		`{"thread": "` + strings.Repeat("a", 129) + `"}`: "",
		``: "",
	}
	for in, want := range tests {
		if got := threadOf([]byte(in)); got != want {
			t.Errorf("threadOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzThreadOf: whatever a damaged file holds, threadOf never panics and
// gives a thread ID or nothing.
func FuzzThreadOf(f *testing.F) {
	data, err := os.ReadFile("testdata/question-choice.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:50])
	f.Add([]byte(`{"thread":"t1","thread":"t1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		th := threadOf(b)
		if th != "" && (len(th) > 128 || !utf8.ValidString(th) || strings.ContainsAny(th, "/\\ \"\n")) {
			t.Errorf("threadOf(%q) = %q, not a thread ID", b, th)
		}
	})
}
