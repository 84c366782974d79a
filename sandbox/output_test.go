package sandbox

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  int
		writes []string
		want   Output
	}{
		{"empty", 10, nil, Output{}},
		{"fits", 10, []string{"abc", "de"}, Output{Head: []byte("abcde"), Bytes: 5}},
		{"exactly", 10, []string{"0123456789"}, Output{Head: []byte("0123456789"), Bytes: 10}},
		{"one over", 10, []string{"0123456789x"}, Output{Head: []byte("01234"), Tail: []byte("6789x"), Bytes: 11, Cut: 1}},
		{"many small", 4, []string{"a", "b", "c", "d", "e", "f", "g"}, Output{Head: []byte("ab"), Tail: []byte("fg"), Bytes: 7, Cut: 3}},
		{"ring wraps", 6, []string{"abc", "de", "fg", "hij", "k"}, Output{Head: []byte("abc"), Tail: []byte("ijk"), Bytes: 11, Cut: 5}},
		{"big write", 6, []string{"ab", strings.Repeat("x", 100) + "yz"}, Output{Head: []byte("abx"), Tail: []byte("xyz"), Bytes: 104, Cut: 98}},
		// A character split at a seam goes to the cut part whole.
		{"seams", 8, []string{"ab€cd" + strings.Repeat("-", 10) + "ef€g"}, Output{Head: []byte("ab"), Tail: []byte("€g"), Bytes: 23, Cut: 17}},
		{"tail seam", 8, []string{"abcd-----€gh"}, Output{Head: []byte("abcd"), Tail: []byte("gh"), Bytes: 14, Cut: 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCapture(tc.limit)
			for _, w := range tc.writes {
				c.Write([]byte(w))
			}
			got := c.output()
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(bytes.Equal)); diff != "" {
				t.Errorf("capture(%d) of %q (-want +got):\n%s", tc.limit, tc.writes, diff)
			}
		})
	}
}

func TestOutputString(t *testing.T) {
	for _, tc := range []struct {
		o    Output
		want string
	}{
		{Output{Head: []byte("all\n"), Bytes: 4}, "all\n"},
		{Output{Head: []byte("start\n"), Tail: []byte("end\n"), Bytes: 20, Cut: 10}, "start\n[… 10 bytes cut …]\nend\n"},
		{Output{Head: []byte("start"), Tail: []byte("end"), Bytes: 18, Cut: 10}, "start\n[… 10 bytes cut …]\nend"},
	} {
		if got := tc.o.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.o, got, tc.want)
		}
	}
}

// Whatever is written, the capture counts every byte and keeps at most its
// limit, in valid characters when the input was.
func FuzzCapture(f *testing.F) {
	f.Add(10, []byte("hello, world"), 3)
	f.Add(7, []byte("€€€€€€"), 1)
	f.Add(1, []byte{0xff, 0xfe, 0xe2}, 2)
	f.Fuzz(func(t *testing.T, limit int, data []byte, chunk int) {
		if limit < 1 || limit > 1<<16 || chunk < 1 {
			return
		}
		c := newCapture(limit)
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			c.Write(p[:n])
			p = p[n:]
		}
		o := c.output()
		if o.Bytes != int64(len(data)) {
			t.Fatalf("Bytes = %d, want %d", o.Bytes, len(data))
		}
		if int64(len(o.Head)+len(o.Tail))+o.Cut != o.Bytes {
			t.Fatalf("head %d + tail %d + cut %d != %d", len(o.Head), len(o.Tail), o.Cut, o.Bytes)
		}
		if len(o.Head)+len(o.Tail) > max(limit/2, 1)*2 {
			t.Fatalf("kept %d bytes over the limit %d", len(o.Head)+len(o.Tail), limit)
		}
		if !bytes.HasPrefix(data, o.Head) || !bytes.HasSuffix(data, o.Tail) {
			t.Fatalf("kept %q…%q of %q", o.Head, o.Tail, data)
		}
		if utf8.Valid(data) && (!utf8.Valid(o.Head) || !utf8.Valid(o.Tail)) {
			t.Fatalf("cut inside a character: %q…%q", o.Head, o.Tail)
		}
	})
}
