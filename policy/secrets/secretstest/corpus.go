package secretstest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// A Case is one credential in the text that carries it.
type Case struct {
	// Name says which case it is, such as "github-pat/prose".
	Name string
	// Rule is the ID of the rule that finds the credential.
	Rule string
	// Text carries the credential: on its own, in a sentence, split by
	// invisible characters or encoded. It needs nothing around it to be
	// found, so it can stand as a JSON key, a tool name or a setting.
	Text string
	// Key and Value carry the credential as a member of a JSON object,
	// {Key: Value}: a name that says it is secret and the bare value when
	// the rule needs the name, otherwise a plain name and Text.
	Key, Value string
	// Probes are what must not appear in anything written: runs of the
	// credential's letters and digits (see [Probes]), or the whole of an
	// encoded credential that has none.
	Probes []string
}

// invisible are the default-ignorable characters the corpus splits
// credentials with.
var invisible = []string{"\u200b", "\u2060", "\u00ad", "\ufeff"}

// Corpus returns the credential shapes that nothing wisp writes may hold:
// two generated credentials of every rule, on their own and in a sentence,
// and shapes picked by hand: AWS secret keys with their names, private
// keys of every label (cut short, with CRLF, on one line), passwords in
// prose, and tokens split by invisible characters or encoded in base64 or
// percent escapes. It returns the same cases on every call.
func Corpus() []Case {
	r := rand.New(rand.NewPCG(12, 2026))
	var cases []Case
	for _, id := range Rules() {
		for i, wrap := range []func(string) string{
			func(s string) string { return s },
			func(s string) string { return "please use " + s + " for the deploy" },
		} {
			f, _ := Generate(id, r)
			c := Case{Name: fmt.Sprintf("%s/%d", id, i+1), Rule: id, Text: wrap(f.Text), Key: "setting", Value: f.Text, Probes: Probes(f.Secret)}
			if f.Named {
				c.Key, c.Value = f.Key, f.Secret
			}
			cases = append(cases, c)
		}
	}
	ghp := func() string { f, _ := Generate("github-pat", r); return f.Text }
	awsSecret := "FAKE" + rnd(r, alnum+"/+", 36)
	cases = append(cases,
		named("aws-secret-key/env", "aws-secret-key", "AWS_SECRET_ACCESS_KEY=%s", "AWS_SECRET_ACCESS_KEY", awsSecret),
		named("aws-secret-key/spaced", "aws-secret-key", "aws_secret_access_key = %s", "aws_secret_access_key", "FAKE"+rnd(r, alnum+"/+", 36)),
		named("generic-secret/prose", "generic-secret", "my password is %s", "password", "Tr0ub4dor&3FAKE"+rnd(r, alnum, 6)),
		named("generic-secret/json", "generic-secret", `"client_secret": %q`, "client_secret", "FAKE test "+rnd(r, alnum, 10)),
		plain("github-pat/zero-width", "github-pat", split(ghp(), invisible[0])),
		plain("github-pat/word-joiner", "github-pat", split(ghp(), invisible[1])),
		plain("github-pat/soft-hyphen", "github-pat", split(ghp(), invisible[2])),
		encoded("github-pat/base64", "github-pat", base64.StdEncoding.EncodeToString([]byte(ghp()+"\n")), "echo %s | base64 -d"),
		encoded("github-pat/percent", "github-pat", percent(ghp()), "token=%s"),
	)
	for _, label := range []string{"RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"} {
		body := pemBody(r)
		key := "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----"
		cases = append(cases, pem("private-key/"+strings.ToLower(strings.ReplaceAll(label, " ", "-")), key, body))
	}
	body := pemBody(r)
	cases = append(cases,
		pem("private-key/no-end", "-----BEGIN RSA PRIVATE KEY-----\n"+body, body),
		pem("private-key/crlf", strings.ReplaceAll("-----BEGIN PRIVATE KEY-----\n"+body+"\n-----END PRIVATE KEY-----", "\n", "\r\n"), body),
	)
	body = pemBody(r)
	cases = append(cases, pem("private-key/one-line", "-----BEGIN PRIVATE KEY----- "+strings.ReplaceAll(body, "\n", " ")+" -----END PRIVATE KEY-----", body))
	return cases
}

// plain is a case whose text is the credential itself.
func plain(name, rule, text string) Case {
	return Case{Name: name, Rule: rule, Text: text, Key: "setting", Value: text, Probes: Probes(strip(text))}
}

// named is a case whose credential, value, needs a name before it: text
// is a format that puts the name before value, and key the name alone.
func named(name, rule, text, key, value string) Case {
	return Case{Name: name, Rule: rule, Text: fmt.Sprintf(text, value), Key: key, Value: value, Probes: Probes(value)}
}

// encoded is a case whose credential is written encoded, in context.
func encoded(name, rule, enc, context string) Case {
	text := fmt.Sprintf(context, enc)
	p := Probes(enc)
	if len(p) == 0 {
		p = []string{enc}
	}
	return Case{Name: name, Rule: rule, Text: text, Key: "setting", Value: text, Probes: p}
}

// pem is a case of a private key block whose body is body.
func pem(name, text, body string) Case {
	return Case{Name: name, Rule: "private-key", Text: text, Key: "setting", Value: text, Probes: Probes(body)}
}

// pemBody returns the base64 lines of a fake private key.
func pemBody(r *rand.Rand) string {
	lines := []string{"FAKEEXAMPLEtest" + rnd(r, b64std, 49)}
	for range 3 {
		lines = append(lines, rnd(r, b64std, 64))
	}
	return strings.Join(append(lines, rnd(r, b64std, 22)+"=="), "\n")
}

// split puts sep after every fourth byte of s.
func split(s, sep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if i%4 == 3 && i+1 < len(s) {
			b.WriteString(sep)
		}
	}
	return b.String()
}

// percent writes every byte of s as a percent escape.
func percent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// strip removes the invisible characters the corpus splits credentials
// with.
func strip(s string) string {
	for _, c := range invisible {
		s = strings.ReplaceAll(s, c, "")
	}
	return s
}

// Leaks returns the names of the cases that data still holds: a case
// leaks when one of its probes appears in data, looked at with the
// invisible characters the corpus uses removed. nil means none leaks.
func Leaks(data []byte, cases []Case) []string {
	s := strip(string(data))
	var names []string
	for _, c := range cases {
		for _, p := range c.Probes {
			if strings.Contains(s, p) {
				names = append(names, c.Name)
				break
			}
		}
	}
	return names
}
