package runcommand

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets"
)

// However a command's output is cut into pieces, the live view never
// shows a vault's value, never shows more than MaxLiveBytes, and shows
// every line it shows whole and in order; and the model's view of a cut
// stream never shows one either.
func FuzzLive(f *testing.F) {
	const value = "vAlUe-0f-th3-s3cret"
	f.Add([]byte("a\nb "+value+"\nc"), uint8(3))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIEFAKE\n"+value+"\n-----END RSA PRIVATE KEY-----\nafter"), uint8(7))
	f.Add([]byte(strings.Repeat("x", 300)+"\n"+value), uint8(200))
	f.Add([]byte(value+value+"\n\n\n"), uint8(1))
	f.Fuzz(func(t *testing.T, out []byte, step uint8) {
		red := secrets.NewRedactor()
		v := secrets.NewVault(red)
		if _, err := v.Put("TOKEN", value); err != nil {
			t.Fatal(err)
		}
		var shown strings.Builder
		l := newLive(func(o wisp.ToolOutput) { shown.WriteString(o.Text) }, wisp.ToolOutput{}, red.Replace)
		n := int(step%64) + 1
		for i := 0; i < len(out); i += n {
			l.write(Stdout, out[i:min(i+n, len(out))])
		}
		l.close()
		l.write(Stdout, []byte(value)) // after close: never shown
		got := shown.String()
		if strings.Contains(got, value) {
			t.Fatalf("the live view shows the secret: %q", got)
		}
		if len(got) > MaxLiveBytes {
			t.Fatalf("the live view showed %d bytes, more than %d", len(got), MaxLiveBytes)
		}

		half := len(out) / 2
		o := Output{Head: out[:half/2], Tail: out[half:], Bytes: int64(len(out) + 1)}
		text, cut := streamText(o, red.Replace)
		if !cut || strings.Contains(text, value) {
			t.Fatalf("the model's view of a cut stream = %q (cut %v); it shows the secret or no cut", text, cut)
		}
	})
}
