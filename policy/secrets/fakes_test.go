package secrets

import (
	"math/rand/v2"

	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// Fake credentials for the tests come from secretstest, which builds every
// one from random characters in the rule's alphabet and a fixed marker
// word. None of them is a real credential.

// A fake is one generated credential: see secretstest.Fake.
type fake struct {
	text, secret, key string
	named             bool
}

// Alphabets for the random text of the benchmarks.
const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	hexLower = "0123456789abcdef"
	b64url   = alnum + "-_"
	b64std   = alnum + "+/"
	base32   = upper + "234567"
)

// rnd returns n random bytes from alphabet.
func rnd(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// pick returns one of choices.
func pick(r *rand.Rand, choices ...string) string { return choices[r.IntN(len(choices))] }

// bare is a fake that is reported whole and needs no name.
func bare(text string) fake { return fake{text: text, secret: text, key: "app_setting"} }

// fakers builds fakes for each rule ID that secretstest knows.
var fakers = func() map[string]func(r *rand.Rand) fake {
	m := map[string]func(r *rand.Rand) fake{}
	for _, id := range secretstest.Rules() {
		m[id] = func(r *rand.Rand) fake {
			f, _ := secretstest.Generate(id, r)
			return fake{text: f.Text, secret: f.Secret, key: f.Key, named: f.Named}
		}
	}
	return m
}()

// probes returns what must not survive redaction of s: see
// secretstest.Probes.
func probes(s string) []string { return secretstest.Probes(s) }
