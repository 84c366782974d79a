package secrets

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// negativeCorpus returns lines that hold no credential: identifiers and
// hashes that look random, prose, code, logs and placeholders.
func negativeCorpus() []string {
	r := rand.New(rand.NewPCG(7, 8))
	hexN := func(n int) string { return rnd(r, hexLower, n) }
	uuid := func() string {
		return hexN(8) + "-" + hexN(4) + "-4" + hexN(3) + "-" + pick(r, "8", "9", "a", "b") + hexN(3) + "-" + hexN(12)
	}
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	words := strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor
		incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation
		ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit
		voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non
		proident sunt culpa qui officia deserunt mollit anim id est laborum`)
	sentence := func() string {
		n := 6 + r.IntN(14)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.ToUpper(ws[0][:1]) + strings.Join(ws, " ")[1:] + "."
	}
	modules := []string{"github.com/google/go-cmp", "golang.org/x/text", "golang.org/x/sys", "github.com/spf13/cobra",
		"gopkg.in/yaml.v3", "github.com/stretchr/testify", "go.uber.org/zap", "github.com/gofrs/flock"}
	files := []string{"wisp-linux-amd64.tar.gz", "wisp-darwin-arm64.zip", "checksums.txt", "go1.26.8.src.tar.gz"}

	var lines []string
	add := func(n int, f func() string) {
		for range n {
			lines = append(lines, f())
		}
	}
	// Random-looking identifiers and hashes.
	add(600, uuid)
	add(400, func() string { return fmt.Sprintf(`{"id": "%s", "parent_id": "%s"}`, uuid(), uuid()) })
	add(400, func() string { return "request_id=" + uuid() + " trace_id=" + hexN(32) + " span_id=" + hexN(16) })
	add(800, func() string { return "commit " + hexN(40) })
	add(400, func() string { return hexN(7) + " " + sentence() })
	add(300, func() string { return "Merge: " + hexN(7) + " " + hexN(7) })
	add(800, func() string { return hexN(64) + "  " + pick(r, files...) })
	add(300, func() string { return "sha256:" + hexN(64) })
	add(300, func() string { return "docker pull ghcr.io/wisp-agent/wisp@sha256:" + hexN(64) })
	add(800, func() string {
		m := pick(r, modules...)
		v := fmt.Sprintf("v%d.%d.%d", r.IntN(3), r.IntN(40), r.IntN(20))
		if r.IntN(2) == 0 {
			return m + " " + v + "/go.mod h1:" + base64.StdEncoding.EncodeToString(randBytes(32))
		}
		return m + " " + v + " h1:" + base64.StdEncoding.EncodeToString(randBytes(32))
	})
	add(300, func() string {
		return `"integrity": "sha512-` + base64.StdEncoding.EncodeToString(randBytes(64)) + `",`
	})
	// Base64 chunks of a PNG image, 76 characters a line.
	png := append([]byte("\x89PNG\r\n\x1a\n"), randBytes(60000)...)
	enc := base64.StdEncoding.EncodeToString(png)
	for i := 0; i+76 <= len(enc) && i < 76*1000; i += 76 {
		lines = append(lines, enc[i:i+76])
	}
	add(200, func() string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(randBytes(120)) })
	add(200, func() string {
		return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(randBytes(51)) + " bob@laptop"
	})
	// Prose.
	add(1200, sentence)
	prose := []string{
		"The token limit for this model is 128000 tokens per request.",
		"Please rotate the API key every 90 days; the password policy requires 12 characters.",
		"Should the secret santa list be sorted alphabetically?",
		"Your password was successfully changed.",
		"The password is incorrect.",
		"The access token expires after one hour and is refreshed automatically.",
		"Keys in the map are sorted before the tokens are written out.",
		"Set the passphrase in your keychain, not in the repository.",
		"The secret is stored in Vault under the team path.",
		"Bearer authentication is required for every endpoint.",
		"The private key never leaves the hardware token.",
		"Authorization header missing or malformed.",
		"We tokenize the input and count the secret-looking strings.",
		"Use a credential helper instead of typing the password each time.",
		"The webhook secret is generated when you create the endpoint.",
	}
	add(600, func() string { return pick(r, prose...) })
	// Code.
	code := []string{
		`token := lexer.Next()`,
		`tok, err := p.scanner.Scan()`,
		`password := r.FormValue("password")`,
		`apiKey := cfg.APIKey`,
		`secret := os.Getenv("WEBHOOK_SECRET")`,
		`token = tokens[i]`,
		`if token == nil { return errNoToken }`,
		`key := fmt.Sprintf("user:%d", id)`,
		`for key, value := range m {`,
		`self.token = token`,
		`const tokenHeader = "Authorization"`,
		`func (s *Store) Password(user string) (string, error) {`,
		`passwordHash, err := bcrypt.GenerateFromPassword(pw, 12)`,
		`api_key = settings.API_KEY`,
		`secret_name: db-credentials`,
		`token_url: https://auth.example.invalid/oauth/token`,
		`auth: true`,
		`password_min_length: 12`,
		`- name: GITHUB_TOKEN`,
		`  valueFrom: {secretKeyRef: {name: gh, key: token}}`,
		`const DefaultTokenTTL = 15 * time.Minute`,
		`assert.Equal(t, wantToken, gotToken)`,
		`headers["Authorization"] = "Bearer " + token`,
		`keyring.Set(service, user, password)`,
		`http.Header{"X-Api-Key": []string{key}}`,
	}
	add(800, func() string { return pick(r, code...) })
	// Logs and URLs without credentials.
	add(600, func() string {
		return fmt.Sprintf("2026-0%d-1%dT12:%02d:%02dZ level=info msg=%q duration=%dms path=/v1/items/%s",
			1+r.IntN(9), r.IntN(9), r.IntN(60), r.IntN(60), pick(r, "request done", "cache miss", "token refreshed", "auth ok"),
			r.IntN(900), uuid())
	})
	add(300, func() string {
		return "https://example.invalid:8443/api/v1/search?q=" + pick(r, words...) + "&page=" + fmt.Sprint(r.IntN(50)) + "&sort=desc"
	})
	add(200, func() string { return "git clone git@github.com:wisp-agent/" + pick(r, words...) + ".git" })
	// Placeholders.
	placeholders := []string{
		"password: ${DB_PASSWORD}", "token: {{ .Values.token }}", `api_key = "%API_KEY%"`, "SECRET=$SECRET_FROM_VAULT",
		`password: "********"`, "api_key: <your-api-key>", "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
		`"client_secret": "${CLIENT_SECRET}"`, "export AUTH_TOKEN=$(cat /run/secrets/token)", "password=xxxxxxxxxxxx",
		"Authorization: Bearer ${API_TOKEN}", "postgres://app:${DB_PASSWORD}@db:5432/app", `token: "{{ token }}"`,
		"aws_secret_access_key = %AWS_SECRET%", "passphrase: <passphrase>",
	}
	add(600, func() string { return pick(r, placeholders...) })
	// The near misses of every rule.
	for _, c := range ruleCases() {
		lines = append(lines, c.fp...)
	}
	return lines
}

// TestNegativeCorpus checks that at most 0.5% of lines without a credential
// get anything redacted.
func TestNegativeCorpus(t *testing.T) {
	lines := negativeCorpus()
	if len(lines) < 10000 {
		t.Fatalf("negative corpus has %d lines, want at least 10000", len(lines))
	}
	step := 1
	if raceEnabled {
		step = 5
	}
	checked, hits := 0, 0
	for i := 0; i < len(lines); i += step {
		checked++
		if m := Scan(lines[i]); len(m) > 0 {
			hits++
			t.Logf("false redaction: %q -> %v", lines[i], m)
		}
	}
	rate := float64(hits) / float64(checked)
	t.Logf("false redactions: %d of %d lines (%.3f%%)", hits, checked, 100*rate)
	if rate > 0.005 {
		t.Errorf("false redaction rate = %.3f%%, want <= 0.5%%", 100*rate)
	}
}
