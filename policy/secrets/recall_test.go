package secrets

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// A syntaxContext embeds a credential in some surrounding text.
type syntaxContext struct {
	name string
	// keyed says the context assigns the value to a name; rules that need a
	// name get (key, secret), the others (key, text).
	keyed bool
	// encoded says the value is hidden in a way that leaves none of its
	// characters in place, so only the marker shows it was found.
	encoded bool
	wrap    func(key, value string) string
}

func jsonQuote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// camel turns "db_password" into "dbPassword".
func camel(key string) string {
	parts := strings.Split(key, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// pyQuote writes s as a single-quoted Python string.
func pyQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`)
	return "'" + r.Replace(s) + "'"
}

func indent(s, by string) string { return by + strings.ReplaceAll(s, "\n", "\n"+by) }

// invisible are default-ignorable characters used to split a secret.
var invisible = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\U000E0020", "\u180e"}

// splitInvisible puts an invisible character after every fifth byte of s.
func splitInvisible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if i%5 == 4 && i+1 < len(s) {
			b.WriteString(invisible[(i/5)%len(invisible)])
		}
	}
	return b.String()
}

var syntaxContexts = []syntaxContext{
	{name: "bare", wrap: func(_, v string) string { return v }},
	{name: "prose", wrap: func(_, v string) string { return "Sure, here it is: " + v + " (let me know if it works)." }},
	{name: "prose-end", wrap: func(_, v string) string { return "I think the value you need is " + v + "." }},
	{name: "double-quoted", wrap: func(_, v string) string { return `"` + v + `"` }},
	{name: "single-quoted", wrap: func(_, v string) string { return `'` + v + `'` }},
	{name: "backticks", wrap: func(_, v string) string { return "`" + v + "`" }},
	{name: "markdown-fence", wrap: func(_, v string) string { return "```\n" + v + "\n```" }},
	{name: "csv", wrap: func(_, v string) string { return "bob,admin," + v + ",2026-01-01" }},
	{name: "zwsp-split", wrap: func(_, v string) string { return "here: " + splitInvisible(v) + " ok" }},
	{name: "base64", encoded: true, wrap: func(_, v string) string {
		return "echo " + base64.StdEncoding.EncodeToString([]byte(v+"\n")) + " | base64 -d"
	}},
	{name: "log-line", keyed: true, wrap: func(k, v string) string {
		return `2026-01-01T00:00:00Z level=info msg="login ok" ` + k + "=" + v + " user=bob"
	}},
	{name: "json", keyed: true, wrap: func(k, v string) string { return `{"` + k + `": ` + jsonQuote(v) + `}` }},
	{name: "json-pretty", keyed: true, wrap: func(k, v string) string {
		return "{\n  \"name\": \"demo\",\n  \"" + k + "\": " + jsonQuote(v) + ",\n  \"debug\": false\n}"
	}},
	{name: "yaml", keyed: true, wrap: func(k, v string) string { return "service:\n  " + k + ": " + v + "\n  port: 8080" }},
	{name: "yaml-double", keyed: true, wrap: func(k, v string) string { return k + `: "` + v + `"` }},
	{name: "yaml-single", keyed: true, wrap: func(k, v string) string { return k + `: '` + v + `'` }},
	{name: "yaml-block", keyed: true, wrap: func(k, v string) string { return "data:\n  " + k + ": |\n" + indent(v, "    ") + "\n  other: 1" }},
	{name: "env", keyed: true, wrap: func(k, v string) string { return strings.ToUpper(k) + "=" + v }},
	{name: "env-export", keyed: true, wrap: func(k, v string) string { return "export " + strings.ToUpper(k) + `="` + v + `"` }},
	{name: "ini", keyed: true, wrap: func(k, v string) string { return "[default]\n" + k + " = " + v + "\nregion = eu-west-1" }},
	{name: "go-var", keyed: true, wrap: func(k, v string) string { return "var " + camel(k) + " = " + strconv.Quote(v) }},
	{name: "go-short", keyed: true, wrap: func(k, v string) string { return camel(k) + " := " + strconv.Quote(v) }},
	{name: "go-raw", keyed: true, wrap: func(k, v string) string { return camel(k) + " := `" + v + "`" }},
	{name: "python", keyed: true, wrap: func(k, v string) string { return k + " = " + pyQuote(v) }},
	{name: "python-dict", keyed: true, wrap: func(k, v string) string { return "{'" + k + "': " + pyQuote(v) + "}" }},
	{name: "js-const", keyed: true, wrap: func(k, v string) string { return "const " + camel(k) + " = " + jsonQuote(v) + ";" }},
	{name: "xml", keyed: true, wrap: func(k, v string) string { return "<config><" + k + ">" + v + "</" + k + "></config>" }},
	{name: "makefile", keyed: true, wrap: func(k, v string) string { return strings.ToUpper(k) + " ?= " + v }},
	{name: "cli-flag", keyed: true, wrap: func(k, v string) string {
		return "mytool --" + strings.ReplaceAll(k, "_", "-") + "=" + v + " --verbose"
	}},
	{name: "url-query", keyed: true, wrap: func(k, v string) string {
		return "https://api.example.invalid/v1/items?" + k + "=" + url.QueryEscape(v) + "&page=2"
	}},
	{name: "zwsp-split-keyed", keyed: true, wrap: func(k, v string) string { return k + "=" + splitInvisible(v) }},
	{name: "crlf", keyed: true, wrap: func(k, v string) string {
		return "A=1\r\n" + strings.ToUpper(k) + "=" + strings.ReplaceAll(v, "\n", "\r\n") + "\r\nB=2"
	}},
}

// TestRecall embeds generated fakes for every rule in every context and
// redacts them. It fails when a provider-rule secret, or any run of eight
// letters and digits from one, survives redaction, or when the rule's
// marker is missing. The generic rule needs a name, so it is only counted
// in keyed contexts, and its recall must stay at or above 99.5%.
func TestRecall(t *testing.T) {
	if len(syntaxContexts) < 30 {
		t.Fatalf("%d syntax contexts, want at least 30", len(syntaxContexts))
	}
	perRule := 50
	if testing.Short() || raceEnabled {
		perRule = 20
	}
	r := rand.New(rand.NewPCG(5, 6))
	total, missed, genericTotal, genericMissed := 0, 0, 0, 0
	for _, rule := range Rules() {
		faker := fakers[rule.ID]
		if faker == nil {
			t.Errorf("no fake generator for rule %q", rule.ID)
			continue
		}
		t.Run(rule.ID, func(t *testing.T) {
			for range perRule {
				f := faker(r)
				for _, c := range syntaxContexts {
					var text string
					switch {
					case c.keyed && f.named:
						text = c.wrap(f.key, f.secret)
					case c.keyed:
						text = c.wrap(f.key, f.text)
					default:
						text = c.wrap("", f.text)
					}
					out, _ := NewRedactor().Redact(text)
					visible := stripIgnorable(out)
					leaked := !strings.Contains(out, "[REDACTED:"+rule.ID+"#")
					if !c.encoded {
						for _, p := range probes(f.secret) {
							if strings.Contains(visible, p) {
								leaked = true
							}
						}
					}
					if rule.Generic {
						if c.keyed {
							genericTotal++
							if leaked {
								genericMissed++
								t.Logf("context %s: generic value survived:\n%s\n->\n%s", c.name, text, out)
							}
						}
						continue
					}
					total++
					if leaked {
						missed++
						t.Errorf("context %s: secret survived:\n%q\n->\n%q", c.name, text, out)
					}
				}
			}
		})
	}
	t.Logf("provider rules: %d of %d cases redacted (%d contexts)", total-missed, total, len(syntaxContexts))
	if genericTotal > 0 {
		recall := 1 - float64(genericMissed)/float64(genericTotal)
		t.Logf("generic rule: %d of %d keyed cases redacted (recall %.4f)", genericTotal-genericMissed, genericTotal, recall)
		if recall < 0.995 {
			t.Errorf("generic rule recall = %.4f, want >= 0.995", recall)
		}
	}
}
