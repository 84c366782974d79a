package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Fake values for the vault. None is a real credential.
var (
	fakeVaultToken = "FAKE-vault-EXAMPLE-0123456789-not-real"
	fakeVaultPEM   = "-----BEGIN FAKE KEY-----\nFAKEfakeFAKEfakeEXAMPLE\nnot/a+real=key\n-----END FAKE KEY-----\n"
)

func TestVaultRoundTrip(t *testing.T) {
	tests := []struct {
		name, value string
	}{
		{"GH_TOKEN", fakeVaultToken},
		{"A", "abcd"},
		{"PEM_KEY", fakeVaultPEM},
		{"SPACES", "  pass phrase with spaces  "},
		{"UNICODE", "pässwörd-EXAMPLE-✓"},
		{"QUOTES", `pa"ss\word<&>'EXAMPLE`},
		{"LONG_" + strings.Repeat("X", 59), strings.Repeat("0123456789abcdef", MaxValueBytes/16)},
	}
	v := NewVault(NewRedactor())
	for _, tt := range tests {
		ref, err := v.Put(tt.name, tt.value)
		if err != nil {
			t.Fatalf("Put(%q) = %v", tt.name, err)
		}
		if want := "session:" + tt.name; ref != want {
			t.Errorf("Put(%q) = %q, want %q", tt.name, ref, want)
		}
	}
	for _, tt := range tests {
		got, err := v.Resolve("session:" + tt.name)
		if err != nil || got != tt.value {
			t.Errorf("Resolve(session:%s) = %q, %v; want %q", tt.name, got, err, tt.value)
		}
	}
	want := []string{"A", "GH_TOKEN", "LONG_" + strings.Repeat("X", 59), "PEM_KEY", "QUOTES", "SPACES", "UNICODE"}
	if diff := cmp.Diff(want, v.Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
}

func TestVaultPutRefused(t *testing.T) {
	tests := []struct {
		name, value string
		is          error
		wantErr     string
	}{
		{"", fakeVaultToken, ErrBadName, `"" cannot name a secret: use a capital letter, then up to 63 capital letters, digits or _ (GH_TOKEN)`},
		{"gh_token", fakeVaultToken, ErrBadName, `"gh_token" cannot name a secret: use a capital letter, then up to 63 capital letters, digits or _ (GH_TOKEN)`},
		{"1TOKEN", fakeVaultToken, ErrBadName, `"1TOKEN" cannot name a secret`},
		{"_TOKEN", fakeVaultToken, ErrBadName, `"_TOKEN" cannot name a secret`},
		{"GH-TOKEN", fakeVaultToken, ErrBadName, `"GH-TOKEN" cannot name a secret`},
		{"GH TOKEN", fakeVaultToken, ErrBadName, `"GH TOKEN" cannot name a secret`},
		{"session:GH", fakeVaultToken, ErrBadName, `"session:GH" cannot name a secret`},
		{"ÄPI_KEY", fakeVaultToken, ErrBadName, `"\u00c4PI_KEY" cannot name a secret`},
		{"GH_TOKEN\n", fakeVaultToken, ErrBadName, `"GH_TOKEN\n" cannot name a secret`},
		{"A" + strings.Repeat("B", 64), fakeVaultToken, ErrBadName, `cannot name a secret`},
		{"PATH", fakeVaultToken, ErrBadName, "PATH cannot name a secret: in a command's environment it changes how commands run; choose a name of the secret's own (GH_TOKEN)"},
		{"LD_PRELOAD", fakeVaultToken, ErrBadName, "LD_PRELOAD cannot name a secret: in a command's environment it changes how commands run"},
		{"DYLD_INSERT_LIBRARIES", fakeVaultToken, ErrBadName, "DYLD_INSERT_LIBRARIES cannot name a secret"},
		{"BASH_ENV", fakeVaultToken, ErrBadName, "BASH_ENV cannot name a secret"},
		{"GIT_SSH_COMMAND", fakeVaultToken, ErrBadName, "GIT_SSH_COMMAND cannot name a secret"},
		{"GIT_CONFIG_VALUE_0", fakeVaultToken, ErrBadName, "GIT_CONFIG_VALUE_0 cannot name a secret"},
		{"WISP_HOME", fakeVaultToken, ErrBadName, "WISP_HOME cannot name a secret"},
		{"GH_TOKEN", "", ErrBadValue, "the secret GH_TOKEN is too short: a secret is 4 bytes at least"},
		{"GH_TOKEN", "abc", ErrBadValue, "the secret GH_TOKEN is too short: a secret is 4 bytes at least"},
		{"GH_TOKEN", strings.Repeat("x", MaxValueBytes+1), ErrBadValue, "the secret GH_TOKEN is too long: a secret is 16 KiB at most"},
		{"GH_TOKEN", "FAKE\x00token", ErrBadValue, "the secret GH_TOKEN holds a NUL byte, which no command's environment can hold"},
	}
	for _, tt := range tests {
		v := NewVault(NewRedactor())
		ref, err := v.Put(tt.name, tt.value)
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.wantErr) || ref != "" {
			t.Errorf("Put(%q, …) = %q, %v; want an error matching %v containing %q", tt.name, ref, err, tt.is, tt.wantErr)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("Put(%q, …) error %q is not one line", tt.name, err)
		}
		if tt.value != "" && err != nil && strings.Contains(err.Error(), tt.value) {
			t.Errorf("Put(%q, …) error %q repeats the value", tt.name, err)
		}
		if n := v.Names(); len(n) != 0 {
			t.Errorf("after a refused Put(%q), Names() = %q, want none", tt.name, n)
		}
	}
}

func TestVaultResolveRefused(t *testing.T) {
	empty := NewVault(NewRedactor())
	full := NewVault(NewRedactor())
	for _, name := range []string{"GH_TOKEN", "AWS_KEY"} {
		if _, err := full.Put(name, fakeVaultToken); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		v       *Vault
		ref     string
		is      error
		wantErr string
	}{
		{full, "GH_TOKEN", ErrBadRef, `"GH_TOKEN" is not a secret reference: write session:NAME, as the answer to a secret question gave it (session:GH_TOKEN)`},
		{full, "$GH_TOKEN", ErrBadRef, `"$GH_TOKEN" is not a secret reference`},
		{full, "session:", ErrBadRef, `"session:" is not a secret reference`},
		{full, "Session:GH_TOKEN", ErrBadRef, `"Session:GH_TOKEN" is not a secret reference`},
		{full, "session:gh_token", ErrBadRef, `"session:gh_token" is not a secret reference`},
		{full, "session:GH_TOKEN ", ErrBadRef, `"session:GH_TOKEN " is not a secret reference`},
		{full, "session:\x1b[2J", ErrBadRef, `"session:\x1b[2J" is not a secret reference`},
		{full, "session:PATH", ErrBadRef, `"session:PATH" is not a secret reference`},
		{full, "session:NPM_TOKEN", ErrUnknownRef, "there is no secret session:NPM_TOKEN in this session (it holds session:AWS_KEY, session:GH_TOKEN); a secret is stored only when the person answers a secret question"},
		{empty, "session:GH_TOKEN", ErrUnknownRef, "there is no secret session:GH_TOKEN in this session (it holds none); a secret is stored only when the person answers a secret question"},
	}
	for _, tt := range tests {
		got, err := tt.v.Resolve(tt.ref)
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.wantErr) || got != "" {
			t.Errorf("Resolve(%q) = %q, %v; want an error matching %v containing %q", tt.ref, got, err, tt.is, tt.wantErr)
			continue
		}
		if strings.ContainsAny(err.Error(), "\n\r\x1b") {
			t.Errorf("Resolve(%q) error %q is not one plain line", tt.ref, err)
		}
		if env, err2 := tt.v.Environ([]string{"session:GH_TOKEN", tt.ref}); env != nil || err2 == nil || err2.Error() != err.Error() {
			t.Errorf("Environ(session:GH_TOKEN, %q) = %q, %v; want nil and %v", tt.ref, env, err2, err)
		}
	}
}

// TestVaultSeals checks that only ciphertext is kept, sealed afresh on
// every Put, bound to its name.
func TestVaultSeals(t *testing.T) {
	v := NewVault(NewRedactor())
	var seen [][]byte
	for _, name := range []string{"ONE", "TWO", "ONE"} {
		if _, err := v.Put(name, fakeVaultToken); err != nil {
			t.Fatal(err)
		}
		b := v.boxes[v.current[name]]
		if bytes.Contains(b.sealed, []byte(fakeVaultToken)) || bytes.Contains(b.sealed, []byte("FAKE-vault")) {
			t.Fatalf("the box of %s holds the value in the clear", name)
		}
		if got, want := len(b.sealed), len(fakeVaultToken)+28; got != want {
			t.Errorf("sealed %s is %d bytes, want %d (12 of nonce, the value, 16 of tag)", name, got, want)
		}
		for _, s := range seen {
			if bytes.Equal(s, b.sealed) || bytes.Equal(s[:12], b.sealed[:12]) {
				t.Errorf("Put(%s) sealed the value as before (ciphertext or nonce repeated)", name)
			}
		}
		seen = append(seen, bytes.Clone(b.sealed))
	}
	if len(v.boxes) != 2 {
		t.Errorf("putting ONE again with the same value holds %d boxes, want 2", len(v.boxes))
	}
	// The name is the box's additional data: a box moved to another name
	// does not open.
	b := v.boxes[v.current["ONE"]]
	b.name = "TWO"
	if _, err := v.open(b); err == nil {
		t.Error("a box opened under another name")
	}
	// Two vaults have two keys.
	w := NewVault(NewRedactor())
	if _, err := w.open(v.boxes[0]); err == nil {
		t.Error("one vault opened another's box")
	}
}

func TestVaultReplace(t *testing.T) {
	r := NewRedactor()
	v := NewVault(r)
	old, new := "FAKE-old-EXAMPLE-value-1", "FAKE-new-EXAMPLE-value-2"
	for _, val := range []string{old, new} {
		if _, err := v.Put("API_KEY", val); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := v.Resolve("session:API_KEY"); err != nil || got != new {
		t.Errorf("Resolve after a second Put = %q, %v; want the new value", got, err)
	}
	if diff := cmp.Diff([]string{"API_KEY"}, v.Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
	out, _ := r.Redact("old " + old + " new " + new)
	if want := "old [REDACTED:session:API_KEY] new [REDACTED:session:API_KEY]"; out != want {
		t.Errorf("Redact(old and new values) = %q, want %q", out, want)
	}
}

func TestVaultFull(t *testing.T) {
	v := NewVault(NewRedactor())
	for i := range MaxValues {
		if _, err := v.Put("KEY", fmt.Sprintf("FAKE-value-%03d", i)); err != nil {
			t.Fatalf("Put #%d = %v", i+1, err)
		}
	}
	_, err := v.Put("OTHER", fakeVaultToken)
	if !errors.Is(err, ErrVaultFull) || err.Error() != "the session's vault holds 64 secrets already and takes no more" {
		t.Errorf("Put beyond MaxValues = %v, want ErrVaultFull", err)
	}
	if _, err := v.Put("KEY", "FAKE-value-063"); err != nil {
		t.Errorf("putting the current value again on a full vault = %v, want nil", err)
	}
}

func TestVaultEnviron(t *testing.T) {
	v := NewVault(NewRedactor())
	for name, val := range map[string]string{"GH_TOKEN": fakeVaultToken, "PEM_KEY": fakeVaultPEM} {
		if _, err := v.Put(name, val); err != nil {
			t.Fatal(err)
		}
	}
	got, err := v.Environ([]string{"session:PEM_KEY", "session:GH_TOKEN", "session:PEM_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PEM_KEY=" + fakeVaultPEM, "GH_TOKEN=" + fakeVaultToken}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Environ (-want +got):\n%s", diff)
	}
	if got, err := v.Environ(nil); got != nil || err != nil {
		t.Errorf("Environ(nil) = %q, %v; want nil, nil", got, err)
	}
}

// TestVaultRedact holds the Redactor to replacing a vault's value in any
// text, in every form the scanner decodes, with the vault's marker.
func TestVaultRedact(t *testing.T) {
	quoted := `pa"ss\word<&>-EXAMPLE`
	ghp := "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x" // a GitHub token's shape
	values := map[string]string{"TOKEN": fakeVaultToken, "QUOTED": quoted, "GH_TOKEN": ghp, "PEM_KEY": fakeVaultPEM, "PIN": "4711"}
	jsonOf := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name string
		text string
		want string // "" to check only that no value is left
	}{
		{name: "alone", text: fakeVaultToken, want: "[REDACTED:session:TOKEN]"},
		{name: "in prose, twice", text: "a " + fakeVaultToken + " b " + fakeVaultToken + ".",
			want: "a [REDACTED:session:TOKEN] b [REDACTED:session:TOKEN]."},
		{name: "inside a word", text: "x" + fakeVaultToken + "y", want: "x[REDACTED:session:TOKEN]y"},
		{name: "no rule would find it", text: "pin is 4711, not 4712", want: "pin is [REDACTED:session:PIN], not 4712"},
		{name: "wins over a provider rule", text: "token " + ghp, want: "token [REDACTED:session:GH_TOKEN]"},
		{name: "JSON-escaped", text: jsonOf(map[string]string{"out": "v=" + quoted}), want: `{"out":"v=[REDACTED:session:QUOTED]"}`},
		{name: "JSON-escaped twice", text: jsonOf(map[string]string{"out": jsonOf(map[string]string{"v": quoted})})},
		{name: "JSON-escaped PEM", text: jsonOf(map[string]string{"key": fakeVaultPEM}), want: `{"key":"[REDACTED:session:PEM_KEY]"}`},
		{name: "tool result in JSON", text: jsonOf(map[string]any{"content": "GH_TOKEN=" + ghp + "\n", "isError": false}),
			want: `{"content":"GH_TOKEN=[REDACTED:session:GH_TOKEN]\n","isError":false}`},
		{name: "percent-encoded", text: "https://example.invalid/?q=" + url.QueryEscape(quoted), want: "https://example.invalid/?q=[REDACTED:session:QUOTED]"},
		{name: "split by zero-width spaces", text: "FAKE-vault\u200b-EXAMPLE-0123\u200b456789-not-real", want: "[REDACTED:session:TOKEN]"},
		{name: "base64", text: "b64: " + base64.StdEncoding.EncodeToString([]byte(fakeVaultToken+"\n")), want: "b64: [REDACTED:session:TOKEN]"},
		{name: "hex", text: "hex " + hex.EncodeToString([]byte(fakeVaultToken)), want: "hex [REDACTED:session:TOKEN]"},
		{name: "Go-quoted", text: fmt.Sprintf("%q", "k="+quoted), want: `"k=[REDACTED:session:QUOTED]"`},
		{name: "beside a rule's finding", text: "DB_PASSWORD=FakePass-EXAMPLE-123 and " + fakeVaultToken,
			want: "DB_PASSWORD=[REDACTED:generic-secret#1] and [REDACTED:session:TOKEN]"},
		{name: "looks like a marker", text: "[REDACTED:session:PIN] 4711", want: "[REDACTED:session:PIN] [REDACTED:session:PIN]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRedactor()
			v := NewVault(r)
			for name, val := range values {
				if _, err := v.Put(name, val); err != nil {
					t.Fatal(err)
				}
			}
			out, findings := r.Redact(tt.text)
			if tt.want != "" && out != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.text, out, tt.want)
			}
			for name, val := range values {
				if strings.Contains(out, val) {
					t.Errorf("Redact(%q) = %q, still holds %s", tt.text, out, name)
				}
			}
			if !strings.Contains(out, "[REDACTED:session:") {
				t.Errorf("Redact(%q) = %q, no vault marker", tt.text, out)
			}
			for _, f := range findings {
				if strings.HasPrefix(f.Rule, "session:") && f.Marker != VaultMarker(strings.TrimPrefix(f.Rule, "session:")) {
					t.Errorf("finding %v: marker does not match its reference", f)
				}
			}
			if again, f := r.Redact(out); again != out || len(f) != 0 {
				t.Errorf("Redact(Redact(%q)) = %q, %v; want %q and no findings", tt.text, again, f, out)
			}
		})
	}
}

func TestVaultFindings(t *testing.T) {
	r := NewRedactor()
	v := NewVault(r)
	if _, err := v.Put("GH_TOKEN", fakeVaultToken); err != nil {
		t.Fatal(err)
	}
	_, findings := r.Redact(fakeVaultToken + " " + fakeGHP1)
	want := []Finding{
		{Rule: "session:GH_TOKEN", Marker: "[REDACTED:session:GH_TOKEN]"},
		{Rule: "github-pat", Marker: "[REDACTED:github-pat#1]"},
	}
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	// Scan knows no vault: it finds only what the rules find.
	if m := Scan(fakeVaultToken); len(m) != 0 {
		t.Errorf("Scan(a vault's value) = %v, want nothing", m)
	}
	// A Redactor that made no vault does not know the value.
	if out, _ := NewRedactor().Redact(fakeVaultToken); out != fakeVaultToken {
		t.Errorf("another Redactor redacted the value: %q", out)
	}
}

// TestVaultPrintsNothing holds every way of printing a vault to saying
// nothing of what it holds.
func TestVaultPrintsNothing(t *testing.T) {
	v := NewVault(NewRedactor())
	if _, err := v.Put("GH_TOKEN", fakeVaultToken); err != nil {
		t.Fatal(err)
	}
	const want = "secrets.Vault(1 sealed)"
	holder := struct {
		V *Vault
		v *Vault
	}{v, v}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%p", "%10.3v", "%-#+ 0v", "%[1]v %[1]s"} {
		got := fmt.Sprintf(verb, v)
		outs = append(outs, got, fmt.Sprintf(verb, holder), fmt.Sprintf(verb, []*Vault{v}), fmt.Sprintf(verb, map[string]any{"v": v}))
		if verb == "%v" || verb == "%s" || verb == "%#v" || verb == "%x" || verb == "%d" {
			if got != want {
				t.Errorf("Sprintf(%q, vault) = %q, want %q", verb, got, want)
			}
		}
	}
	outs = append(outs, fmt.Sprint(v), fmt.Sprintln(v), v.String(), v.GoString())
	j, err := json.Marshal(map[string]any{"vault": v, "holder": holder})
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(j))
	if !strings.Contains(string(j), `"vault":"`+want+`"`) {
		t.Errorf("json.Marshal = %s, want the vault as %q", j, want)
	}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("x", "vault", v, "holder", holder)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "vault", v, "holder", holder)
	outs = append(outs, logs.String())

	for _, out := range outs {
		for _, leak := range []string{fakeVaultToken, "FAKE-vault", "sealed:", "aead", "boxes", "current"} {
			if strings.Contains(out, leak) {
				t.Errorf("printed vault %q holds %q", out, leak)
			}
		}
	}
	var nilVault *Vault
	if got := fmt.Sprint(nilVault); got != "secrets.Vault(nil)" {
		t.Errorf("Sprint(nil vault) = %q", got)
	}
}

func TestCheckName(t *testing.T) {
	for _, name := range []string{"GH_TOKEN", "A", "GITHUB_TOKEN", "GIT_TOKEN", "PATHFINDER_KEY", "HOMEBREW_GITHUB_API_TOKEN", "OPENAI_API_KEY", "X" + strings.Repeat("9", 63)} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{"PATH", "HOME", "IFS", "LD_LIBRARY_PATH", "LC_ALL", "BASH_FUNC_X", "NODE_OPTIONS", "GIT_CONFIG_GLOBAL", "gh_token", ""} {
		if err := CheckName(name); !errors.Is(err, ErrBadName) {
			t.Errorf("CheckName(%q) = %v, want ErrBadName", name, err)
		}
	}
}

func TestNewVaultNeedsRedactor(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewVault(nil) did not panic")
		}
	}()
	NewVault(nil)
}

// TestVaultConcurrent runs Put, Resolve, Environ, Names and Redact at once;
// run it with -race.
func TestVaultConcurrent(t *testing.T) {
	r := NewRedactor()
	v := NewVault(r)
	var wg sync.WaitGroup
	for i := range 8 {
		name := fmt.Sprintf("KEY_%d", i)
		val := fmt.Sprintf("FAKE-concurrent-EXAMPLE-%d", i)
		wg.Go(func() {
			for range 50 {
				if _, err := v.Put(name, val); err != nil {
					t.Error(err)
					return
				}
				if got, err := v.Resolve("session:" + name); err != nil || got != val {
					t.Errorf("Resolve(%s) = %q, %v", name, got, err)
					return
				}
				if _, err := v.Environ([]string{"session:" + name}); err != nil {
					t.Error(err)
				}
				if out, _ := r.Redact("v=" + val); out != "v="+VaultMarker(name) {
					t.Errorf("Redact = %q", out)
				}
				_ = v.Names()
			}
		})
	}
	wg.Wait()
}

func FuzzVaultRedact(f *testing.F) {
	f.Add("token: %s.", fakeVaultToken)
	f.Add(`{"k":"%s"}`, `pa"ss\word<&>`)
	f.Add("%s%s", "abab")
	f.Add("[REDACTED:session:V]%s", "N]ab")
	f.Add("x=%s", fakeVaultPEM)
	f.Add("%s", "ghp_"+"FAKE0test1EXAMPLE2not3real4Token5w6x")
	f.Fuzz(func(t *testing.T, format, value string) {
		r := NewRedactor()
		v := NewVault(r)
		if _, err := v.Put("V", value); err != nil {
			return
		}
		text := strings.ReplaceAll(format, "%s", value)
		out, _ := r.Redact(text)
		if again, findings := r.Redact(out); again != out || len(findings) != 0 {
			t.Fatalf("Redact(Redact(%q)) = %q, %v; want %q and no findings", text, again, findings, out)
		}
		// Outside the markers, no occurrence of the value is left.
		if rest := markerPattern.ReplaceAllString(out, "\x00"); strings.Contains(rest, value) {
			t.Fatalf("Redact(%q) = %q, still holds the value %q", text, out, value)
		}
	})
}
