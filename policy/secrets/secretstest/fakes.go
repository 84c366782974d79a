package secretstest

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"strings"
)

// A Fake is one generated credential.
type Fake struct {
	// Text is the credential as a person would paste it on its own.
	Text string
	// Secret is the part of Text that the rule reports.
	Secret string
	// Key is a name to assign the credential to in configuration-style
	// contexts.
	Key string
	// Named says the rule needs Key to find the value: key-value contexts
	// then assign Secret, not Text, to Key.
	Named bool
}

const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	hexLower = "0123456789abcdef"
	b64url   = alnum + "-_"
	b64std   = alnum + "+/"
	base32   = upper + "234567"
	bech32   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// rnd returns n random bytes from alphabet.
func rnd(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// tok returns a fake credential: prefix, the marker word for alphabet, and
// random bytes from alphabet, n bytes after the prefix in all.
func tok(r *rand.Rand, prefix, alphabet string, n int) string {
	word := "FAKE"
	switch {
	case alphabet == hexLower:
		word = "fa4e"
	case !strings.Contains(alphabet, "F"):
		word = "fake"
	}
	return prefix + word + rnd(r, alphabet, n-len(word))
}

// bare is a fake that is reported whole and needs no name.
func bare(text string) Fake { return Fake{Text: text, Secret: text, Key: "app_setting"} }

// pick returns one of choices.
func pick(r *rand.Rand, choices ...string) string { return choices[r.IntN(len(choices))] }

// Rules lists the rule IDs [Generate] makes credentials for, sorted.
func Rules() []string {
	ids := make([]string, 0, len(fakers))
	for id := range fakers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Generate returns a new fake credential for the rule id, drawing from r;
// ok is false for a rule it knows no credential for.
func Generate(id string, r *rand.Rand) (f Fake, ok bool) {
	gen, ok := fakers[id]
	if !ok {
		return Fake{}, false
	}
	return gen(r), true
}

// fakers builds fakes for each rule ID.
var fakers = map[string]func(r *rand.Rand) Fake{
	"aws-access-key": func(r *rand.Rand) Fake {
		return bare(tok(r, pick(r, "AKIA", "ASIA", "ABIA", "ACCA"), base32, 16))
	},
	"aws-secret-key": func(r *rand.Rand) Fake {
		v := tok(r, "", alnum+"/+", 40)
		return Fake{Text: "aws_secret_access_key=" + v, Secret: v, Key: "aws_secret_access_key", Named: true}
	},
	"github-pat":           func(r *rand.Rand) Fake { return bare(tok(r, "ghp_", alnum, 36)) },
	"github-oauth":         func(r *rand.Rand) Fake { return bare(tok(r, "gho_", alnum, 36)) },
	"github-app-token":     func(r *rand.Rand) Fake { return bare(tok(r, pick(r, "ghu_", "ghs_"), alnum, 36)) },
	"github-refresh-token": func(r *rand.Rand) Fake { return bare(tok(r, "ghr_", alnum, 36+r.IntN(40))) },
	"github-fine-grained-pat": func(r *rand.Rand) Fake {
		return bare(tok(r, "github_pat_11", alnum, 20) + "_" + rnd(r, alnum, 59))
	},
	"gitlab-pat": func(r *rand.Rand) Fake { return bare(tok(r, "glpat-", alnum+"_-", 19) + rnd(r, alnum, 1)) },
	"gitlab-pat-routable": func(r *rand.Rand) Fake {
		return bare(tok(r, "glpat-", alnum, 27+r.IntN(20)) + ".01" + rnd(r, lower+digits, 7))
	},
	"gitlab-trigger-token": func(r *rand.Rand) Fake { return bare(tok(r, "glptt-", hexLower, 40)) },
	"gitlab-deploy-token":  func(r *rand.Rand) Fake { return bare(tok(r, "gldt-", alnum, 20)) },
	"gitlab-runner-token":  func(r *rand.Rand) Fake { return bare(tok(r, "glrt-", alnum, 20)) },
	"slack-bot-token": func(r *rand.Rand) Fake {
		return bare("xoxb-" + rnd(r, digits, 10) + "-" + rnd(r, digits, 12) + "-" + tok(r, "", alnum, 24))
	},
	"slack-user-token": func(r *rand.Rand) Fake {
		return bare(pick(r, "xoxp-", "xoxe-") + rnd(r, digits, 10) + "-" + rnd(r, digits, 11) + "-" +
			rnd(r, digits, 12) + "-" + tok(r, "", hexLower, 32))
	},
	"slack-app-token": func(r *rand.Rand) Fake {
		return bare("xapp-1-A" + tok(r, "", upper+digits, 10) + "-" + rnd(r, digits, 13) + "-" + tok(r, "", hexLower, 64))
	},
	"slack-webhook-url": func(r *rand.Rand) Fake {
		path := "hooks.slack.com/services/T" + tok(r, "", upper+digits, 8) + "/B" + rnd(r, upper+digits, 8) + "/" + tok(r, "", alnum, 24)
		return Fake{Text: "https://" + path, Secret: path, Key: "app_setting"}
	},
	"openai-api-key": func(r *rand.Rand) Fake {
		if r.IntN(2) == 0 {
			return bare(tok(r, "sk-"+pick(r, "proj", "svcacct", "admin")+"-", b64url, 74) + "T3BlbkFJ" + rnd(r, b64url, 74))
		}
		return bare(tok(r, "sk-", alnum, 20) + "T3BlbkFJ" + rnd(r, alnum, 20))
	},
	"anthropic-api-key": func(r *rand.Rand) Fake {
		return bare(tok(r, "sk-ant-"+pick(r, "api03", "admin01")+"-", b64url, 93) + "AA")
	},
	"anthropic-oauth-token": func(r *rand.Rand) Fake {
		return bare(tok(r, "sk-ant-"+pick(r, "oat01", "ort01")+"-", b64url, 95))
	},
	"stripe-secret-key": func(r *rand.Rand) Fake {
		return bare(tok(r, pick(r, "sk", "rk")+"_test_", alnum, 24+r.IntN(70)))
	},
	"stripe-webhook-secret":      func(r *rand.Rand) Fake { return bare(tok(r, "whsec_", alnum, 32)) },
	"gcp-api-key":                func(r *rand.Rand) Fake { return bare(tok(r, "AIza", b64url, 34) + rnd(r, alnum, 1)) },
	"google-oauth-client-secret": func(r *rand.Rand) Fake { return bare(tok(r, "GOCSPX-", alnum, 28)) },
	"huggingface-token": func(r *rand.Rand) Fake {
		return bare(tok(r, pick(r, "hf_", "api_org_"), upper+lower, 34))
	},
	"npm-token":  func(r *rand.Rand) Fake { return bare(tok(r, "npm_", alnum, 36)) },
	"pypi-token": func(r *rand.Rand) Fake { return bare(tok(r, "pypi-AgEIcHlwaS5vcmc", b64url, 60+r.IntN(150))) },
	"sendgrid-api-key": func(r *rand.Rand) Fake {
		return bare(tok(r, "SG.", b64url, 21) + rnd(r, alnum, 1) + "." + rnd(r, b64url, 42) + rnd(r, alnum, 1))
	},
	"twilio-api-key": func(r *rand.Rand) Fake { return bare(tok(r, "SK", hexLower, 32)) },
	"digitalocean-token": func(r *rand.Rand) Fake {
		return bare(tok(r, pick(r, "dop", "doo", "dor")+"_v1_", hexLower, 64))
	},
	"databricks-token": func(r *rand.Rand) Fake { return bare(tok(r, "dapi", hexLower, 32)) },
	"age-secret-key":   func(r *rand.Rand) Fake { return bare(tok(r, "AGE-SECRET-KEY-1", bech32, 58)) },
	"private-key":      func(r *rand.Rand) Fake { return bare(fakePEM(r)) },
	"jwt":              func(r *rand.Rand) Fake { return bare(fakeJWT(r)) },
	"onepassword-service-token": func(r *rand.Rand) Fake {
		return bare(tok(r, "ops_eyJ", b64std, 300+r.IntN(300)))
	},
	"vault-token": func(r *rand.Rand) Fake {
		if r.IntN(2) == 0 {
			return bare(tok(r, "hvs.", b64url, 95) + rnd(r, alnum, 1))
		}
		return bare(tok(r, "hvb.", b64url, 150) + rnd(r, alnum, 1))
	},
	"shopify-token": func(r *rand.Rand) Fake {
		return bare(tok(r, pick(r, "shpat_", "shpca_", "shppa_", "shpss_"), hexLower, 32))
	},
	"doppler-token": func(r *rand.Rand) Fake {
		return bare(tok(r, "dp."+pick(r, "pt", "st", "ct", "sa")+".", alnum, 43))
	},
	"linear-api-key": func(r *rand.Rand) Fake { return bare(tok(r, "lin_api_", alnum, 40)) },
	"pulumi-token":   func(r *rand.Rand) Fake { return bare(tok(r, "pul-", hexLower, 40)) },
	"postman-api-key": func(r *rand.Rand) Fake {
		return bare(tok(r, "PMAK-", hexLower, 24) + "-" + rnd(r, hexLower, 34))
	},
	"sentry-token": func(r *rand.Rand) Fake { return bare(tok(r, "sntryu_", hexLower, 64)) },
	"grafana-token": func(r *rand.Rand) Fake {
		return bare(tok(r, "glsa_", alnum, 32) + "_" + rnd(r, hexLower, 8))
	},
	"groq-api-key":       func(r *rand.Rand) Fake { return bare(tok(r, "gsk_", alnum, 48)) },
	"openrouter-api-key": func(r *rand.Rand) Fake { return bare(tok(r, "sk-or-v1-", hexLower, 64)) },
	"docker-hub-pat":     func(r *rand.Rand) Fake { return bare(tok(r, "dckr_pat_", alnum, 27)) },
	"azure-storage-key": func(r *rand.Rand) Fake {
		k := tok(r, "", alnum+"+/", 86) + "=="
		return Fake{
			Text:   "DefaultEndpointsProtocol=https;AccountName=fakeexample;AccountKey=" + k + ";EndpointSuffix=core.windows.net",
			Secret: k, Key: "storage_connection",
		}
	},
	"url-password": func(r *rand.Rand) Fake {
		pw := "FAKE-" + rnd(r, alnum, 14)
		host := pick(r, "postgres://app:%s@db.example.invalid:5432/app", "https://x-access:%s@git.example.invalid/org/repo.git",
			"redis://:%s@cache.example.invalid:6379/0", "amqp://guest:%s@mq.example.invalid/")
		return Fake{Text: strings.Replace(host, "%s", pw, 1), Secret: pw, Key: "database_url"}
	},
	"bearer-token": func(r *rand.Rand) Fake {
		t := tok(r, "", alnum, 32) + "." + rnd(r, b64url, 8)
		head := pick(r, "Authorization: Bearer ", "authorization: token ", "Authorization: Basic ", "Proxy-Authorization: Bearer ")
		return Fake{Text: head + t, Secret: t, Key: "http_header"}
	},
	"generic-secret": func(r *rand.Rand) Fake {
		v := "FAKE" + rnd(r, alnum, 12) + "-test"
		k := pick(r, "db_password", "client_secret", "api_key", "auth_token", "passphrase", "smtp_pass")
		return Fake{Text: k + "=" + v, Secret: v, Key: k, Named: true}
	},
}

// fakePEM returns a fake private key block with base64-looking lines.
func fakePEM(r *rand.Rand) string {
	label := pick(r, "RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY",
		"ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK")
	var b strings.Builder
	b.WriteString("-----BEGIN " + label + "-----\n")
	n := 3 + r.IntN(8)
	for i := range n {
		line := rnd(r, b64std, 64)
		if i == 0 {
			line = "FAKEEXAMPLEtest" + line[15:]
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(rnd(r, b64std, 20) + "==\n")
	b.WriteString("-----END " + label + "-----")
	return b.String()
}

// fakeJWT returns an unsigned-looking token whose claims say it is fake.
func fakeJWT(r *rand.Rand) string {
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims := enc.EncodeToString([]byte(`{"sub":"FAKE-EXAMPLE-` + rnd(r, alnum, 12) + `","test":true}`))
	sig := make([]byte, 32)
	for i := range sig {
		sig[i] = byte(r.IntN(256))
	}
	return header + "." + claims + "." + enc.EncodeToString(sig)
}

// Probes returns the runs of at least 8 letters and digits in s, at most
// five of them spread over s: what must not survive redaction of s, in
// whatever quoting or escaping a file holds it.
func Probes(s string) []string {
	var runs []string
	for _, f := range strings.FieldsFunc(s, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
	}) {
		if len(f) >= 8 {
			runs = append(runs, f)
		}
	}
	if len(runs) <= 5 {
		return runs
	}
	out := make([]string, 0, 5)
	for i := range 5 {
		out = append(out, runs[i*(len(runs)-1)/4])
	}
	return out
}
