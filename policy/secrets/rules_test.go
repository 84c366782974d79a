package secrets

import (
	"encoding/base64"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRulesContract(t *testing.T) {
	rules := Rules()
	if len(rules) < 41 {
		t.Errorf("len(Rules()) = %d, want at least 41 (40 provider rules and the generic rule)", len(rules))
	}
	id := regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	var generic []string
	for _, r := range rules {
		if !id.MatchString(r.ID) {
			t.Errorf("rule ID %q is not lower-case words joined by dashes", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("rule ID %q appears twice", r.ID)
		}
		seen[r.ID] = true
		if r.Description == "" {
			t.Errorf("rule %q has no description", r.ID)
		}
		if r.Generic {
			generic = append(generic, r.ID)
		}
	}
	if diff := cmp.Diff([]string{"generic-secret"}, generic); diff != "" {
		t.Errorf("generic rules mismatch (-want +got):\n%s", diff)
	}
	// Provider rules come first.
	if !rules[len(rules)-1].Generic {
		t.Errorf("last rule is %q, want the generic rule last", rules[len(rules)-1].ID)
	}

	// Rules returns a copy.
	rules[0].ID = "changed"
	if got := Rules()[0].ID; got == "changed" {
		t.Errorf("changing the slice from Rules() changed the rule table")
	}
}

// TestRuleIDsArePinned pins the rule IDs, which appear in markers.
func TestRuleIDsArePinned(t *testing.T) {
	want := []string{
		"aws-access-key", "aws-secret-key", "github-pat", "github-oauth", "github-app-token",
		"github-refresh-token", "github-fine-grained-pat", "gitlab-pat", "gitlab-pat-routable",
		"gitlab-trigger-token", "gitlab-deploy-token", "slack-bot-token", "slack-user-token",
		"slack-app-token", "slack-webhook-url", "openai-api-key", "anthropic-api-key",
		"anthropic-oauth-token", "stripe-secret-key", "stripe-webhook-secret", "gcp-api-key",
		"google-oauth-client-secret", "huggingface-token", "npm-token", "pypi-token",
		"sendgrid-api-key", "twilio-api-key", "digitalocean-token", "databricks-token",
		"age-secret-key", "private-key", "jwt", "onepassword-service-token", "vault-token",
		"shopify-token", "doppler-token", "linear-api-key", "pulumi-token", "postman-api-key",
		"sentry-token", "grafana-token", "gitlab-runner-token", "groq-api-key",
		"openrouter-api-key", "docker-hub-pat", "azure-storage-key", "url-password",
		"bearer-token", "generic-secret",
	}
	var got []string
	for _, r := range Rules() {
		got = append(got, r.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rules() IDs mismatch (-want +got):\n%s", diff)
	}
}

// ruleCases holds, for every rule, texts it must find (true positives) and
// near misses that no provider rule may find (false positives). A near miss
// may still be found by the generic rule: a name like aws_secret_access_key
// is enough for it.
type ruleCase struct {
	tp []fake
	fp []string
}

// x repeats s n times.
func x(s string, n int) string { return strings.Repeat(s, n) }

func ruleCases() map[string]ruleCase {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(id string) fake { return fakers[id](r) }
	return map[string]ruleCase{
		"aws-access-key": {
			tp: []fake{bare("AKIA" + "FAKEKEYEXAMPLE77"), gen("aws-access-key")},
			fp: []string{"AKIA" + x("A", 16), "AKIA" + "FAKEKEYEXAMPLE7", "XAKIA" + "FAKEKEYEXAMPLE77", "AKIA" + "fakekeyexample77"},
		},
		"aws-secret-key": {
			tp: []fake{
				{text: `aws_secret_access_key = "` + "FAKE/EXAMPLE+not/a+real/secret0123456789" + `"`, secret: "FAKE/EXAMPLE+not/a+real/secret0123456789"},
				{text: `"SecretAccessKey": "` + "FAKEexample0123456789+test/EXAMPLEfake01" + `",`, secret: "FAKEexample0123456789+test/EXAMPLEfake01"},
			},
			fp: []string{
				`aws_secret_access_key = "` + x("A", 40) + `"`,
				`aws_secret_access_key = "` + "FAKE/EXAMPLE+not/a+real/secret012345678" + `"`,
				"FAKE/EXAMPLE+not/a+real/secret0123456789",
			},
		},
		"github-pat": {
			tp: []fake{bare("ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"), gen("github-pat")},
			fp: []string{"ghp_" + x("x", 36), "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6", "xghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"},
		},
		"github-oauth": {
			tp: []fake{gen("github-oauth")},
			fp: []string{"gho_" + "FAKEtest", "gho_" + x("0", 36)},
		},
		"github-app-token": {
			tp: []fake{bare("ghs_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"), bare("ghu_" + "FAKE0test1EXAMPLE2not3real4Token5w6x")},
			fp: []string{"ghx_" + "FAKE0test1EXAMPLE2not3real4Token5w6x", "ghs_" + x("ab", 18)},
		},
		"github-refresh-token": {
			tp: []fake{gen("github-refresh-token")},
			fp: []string{"ghr_" + "FAKE0test1EXAMPLE"},
		},
		"github-fine-grained-pat": {
			tp: []fake{gen("github-fine-grained-pat")},
			fp: []string{"github_pat_" + "11FAKE0EXAMPLE", "github_pat_" + x("A", 82)},
		},
		"gitlab-pat": {
			tp: []fake{bare("glpat-" + "FAKE0test1EXAMPLE2no"), gen("gitlab-pat")},
			fp: []string{"glpat-" + "FAKE0test1EXAMPLE2n", "glpat-" + x("X", 11) + "-" + x("X", 8)},
		},
		"gitlab-pat-routable": {
			tp: []fake{bare("glpat-" + "FAKE0test1EXAMPLE2not3real4Token5w6x7y8z.01fake000"), gen("gitlab-pat-routable")},
			fp: []string{"glpat-" + x("x", 8) + "-" + x("x", 18) + "." + x("x", 9)},
		},
		"gitlab-trigger-token": {
			tp: []fake{gen("gitlab-trigger-token")},
			fp: []string{"glptt-" + x("x", 40), "glptt-" + "fa4e0000deadbeef1234567890abcdef0fa4e11"},
		},
		"gitlab-deploy-token": {
			tp: []fake{gen("gitlab-deploy-token")},
			fp: []string{"gldt-" + "FAKE0test", "gldt-" + x("a", 20)},
		},
		"gitlab-runner-token": {
			tp: []fake{gen("gitlab-runner-token"), bare("glrt-" + "t1_FAKE0test1EXAMPLE2not3real4Tok.01fake000")},
			fp: []string{"glrt-" + "FAKE0test1EXAMPLE2n"},
		},
		"slack-bot-token": {
			tp: []fake{bare("xoxb-" + "0000000000-1111111111-FAKEtestEXAMPLEtoken0000"), gen("slack-bot-token")},
			fp: []string{"xoxb-" + "123-456-FAKEtest", "xoxb-" + x("0", 10) + "-" + x("0", 10)},
		},
		"slack-user-token": {
			tp: []fake{gen("slack-user-token")},
			fp: []string{"xoxp-" + "1-FAKEtest", "xoxq-" + "0000000000-1111111111-2222222222-fake0EXAMPLE1test2fake0EXAMPLE1t"},
		},
		"slack-app-token": {
			tp: []fake{bare("xapp-" + "1-AFAKE00000-0000000000000-fa4e0000deadbeeffa4e0000deadbeeffa4e0000deadbeeffa4e0000deadbeef"), gen("slack-app-token")},
			fp: []string{"xapp-" + "1-AFAKE-123-fa4e"},
		},
		"slack-webhook-url": {
			tp: []fake{{text: "https://" + "hooks.slack.com/services/TFAKE0000/BFAKE0000/FAKEexampleNOTrealFAKEex", secret: "hooks.slack.com/services/TFAKE0000/BFAKE0000/FAKEexampleNOTrealFAKEex"}},
			fp: []string{"https://" + "hooks.slack.com/services/", "https://" + "hooks.slack.com/services/TFAKE/B000"},
		},
		"openai-api-key": {
			tp: []fake{gen("openai-api-key"), bare("sk-" + "FAKE0test1EXAMPLE2no" + "T3BlbkFJ" + "FAKE0test1EXAMPLE2no")},
			fp: []string{"sk-" + "FAKE0test1EXAMPLE2not3real4Token5w6x7y8z9FAKE0test", "sk-proj-" + "FAKEtest"},
		},
		"anthropic-api-key": {
			tp: []fake{bare("sk-ant-api03-" + "FAKE-test_EXAMPLE-not_real-FAKE-test_EXAMPLE-not_real-FAKE-test_EXAMPLE-not_real-FAKE-test_EXAA"), gen("anthropic-api-key")},
			fp: []string{
				"sk-ant-api03-" + "FAKE-test_EXAMPLE-not_real-FAKE-test_EXAMPLE-not_real-FAKE-test_EXAMPLE-not_real-FAKE-test_EXBB",
				"sk-ant-api03-" + "FAKE-test_EXAMPLE-not_realAA",
			},
		},
		"anthropic-oauth-token": {
			tp: []fake{gen("anthropic-oauth-token")},
			fp: []string{"sk-ant-oat01-" + "tooShortFAKE"},
		},
		"stripe-secret-key": {
			tp: []fake{bare("sk_test_" + "FAKE0EXAMPLE1stripeFAKE0"), gen("stripe-secret-key")},
			fp: []string{"pk_test_" + "FAKE0EXAMPLE1stripeFAKE0", "sk_test_" + "FAKE"},
		},
		"stripe-webhook-secret": {
			tp: []fake{gen("stripe-webhook-secret")},
			fp: []string{"whsec_" + "FAKEtest", "whsec_" + x("a", 32)},
		},
		"gcp-api-key": {
			tp: []fake{bare("AIza" + "FAKE_test-EXAMPLE0notreal1FAKE_test"), gen("gcp-api-key")},
			fp: []string{"AIza" + "FAKE_test-EXAMPLE0notreal1FAKE_tes", "AIza" + x("ab", 17) + "a"},
		},
		"google-oauth-client-secret": {
			tp: []fake{gen("google-oauth-client-secret")},
			fp: []string{"GOCSPX-" + "FAKEtest"},
		},
		"huggingface-token": {
			tp: []fake{bare("hf_" + "FAKEtestEXAMPLEnotRealFAKEtestEXAM"), gen("huggingface-token")},
			fp: []string{"hf_" + "FAKE0000000000000000000000000000000", "hf_" + "FAKEtest"},
		},
		"npm-token": {
			tp: []fake{gen("npm-token")},
			fp: []string{"npm_" + x("x", 36), "npm_" + "FAKEtest"},
		},
		"pypi-token": {
			tp: []fake{gen("pypi-token")},
			fp: []string{"pypi-AgEIcHlwaS5vcmc" + "FAKEtest"},
		},
		"sendgrid-api-key": {
			tp: []fake{bare("SG." + "FAKEtestEXAMPLE0FAKEte.FAKE_test-EXAMPLE0notreal1FAKE_test-EXAMPLE"), gen("sendgrid-api-key")},
			fp: []string{"SG." + "FAKE.test", "SG." + "FAKEtestEXAMPLE0FAKEt.FAKE_test-EXAMPLE0notreal1FAKE_test-EXAMPLE"},
		},
		"twilio-api-key": {
			tp: []fake{gen("twilio-api-key")},
			fp: []string{"SK" + "fa4e0000deadbeef1234567890abcde", "SK" + "FAKEtestEXAMPLEnotrealFAKEtestEX"},
		},
		"digitalocean-token": {
			tp: []fake{gen("digitalocean-token")},
			fp: []string{"dop_v1_" + x("0", 64), "dop_v2_" + "fa4e0000deadbeef1234567890abcdef0fa4e111fa4e0000deadbeef12345678"},
		},
		"databricks-token": {
			tp: []fake{gen("databricks-token"), bare("dapi" + "fa4e0000deadbeef1234567890abcdef" + "-2")},
			fp: []string{"dapi" + "fa4e0000deadbeef1234567890abcde", "dapi" + "FAKEtest"},
		},
		"age-secret-key": {
			tp: []fake{gen("age-secret-key")},
			fp: []string{"AGE-SECRET-KEY-1" + "FAKEbio", "AGE-SECRET-KEY-1" + x("Q", 57)},
		},
		"private-key": {
			tp: []fake{
				gen("private-key"),
				// Cut off before the END line: everything from BEGIN on.
				bare("-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEFAKEEXAMPLEtestNOTaKEYFAKEEXAMPLEtestNOTaKEY\nFAKEEXAMPLE"),
			},
			fp: []string{
				"-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----",
				"-----BEGIN PRIVATE KEY----------END PRIVATE KEY-----",
				"-----BEGIN PUBLIC KEY-----\n" + "MIIBFAKEEXAMPLEtestNOTaKEYFAKEEXAMPLEtestNOTaKEYFAKEEXAMPLEtestNOTaKEY00" + "\n-----END PUBLIC KEY-----",
				"The file starts with -----BEGIN OPENSSH PRIVATE KEY----- and nothing else.",
			},
		},
		"jwt": {
			tp: []fake{bare("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0" + ".eyJzdWIiOiJGQUtFLUVYQU1QTEUifQ.RkFLRS1TSUdOQVRVUkU"), gen("jwt")},
			fp: []string{"eyJhbGci.eyJzdWIi.RkFLRS1", "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0", "eyJ" + x("a", 20) + ".eyJ" + x("a", 20) + ".abc"},
		},
		"onepassword-service-token": {
			tp: []fake{gen("onepassword-service-token")},
			fp: []string{"ops_eyJ" + x("FAKEtest", 12)},
		},
		"vault-token": {
			tp: []fake{gen("vault-token")},
			fp: []string{"hvs." + "FAKEtest", "hvs." + x("a", 100)},
		},
		"shopify-token": {
			tp: []fake{gen("shopify-token")},
			fp: []string{"shpat_" + "fa4e0000deadbeef1234567890abcde", "shpxx_" + "fa4e0000deadbeef1234567890abcdef"},
		},
		"doppler-token": {
			tp: []fake{bare("dp.pt." + "FAKE0test1EXAMPLE2not3real4Token5w6x7y8z9QF"), gen("doppler-token")},
			fp: []string{"dp.pt." + "FAKEtest", "dp.xx." + "FAKE0test1EXAMPLE2not3real4Token5w6x7y8z9QF"},
		},
		"linear-api-key": {
			tp: []fake{gen("linear-api-key")},
			fp: []string{"lin_api_" + "FAKEtest", "lin_api_" + x("a", 40)},
		},
		"pulumi-token": {
			tp: []fake{gen("pulumi-token")},
			fp: []string{"pul-" + "fa4e0000deadbeef", "pul-" + x("0", 40)},
		},
		"postman-api-key": {
			tp: []fake{gen("postman-api-key")},
			fp: []string{"PMAK-" + "fa4e-test"},
		},
		"sentry-token": {
			tp: []fake{gen("sentry-token")},
			fp: []string{"sntryu_" + "fa4e0000deadbeef", "sntryu_" + x("0", 64)},
		},
		"grafana-token": {
			tp: []fake{bare("glsa_" + "FAKE0test1EXAMPLE2not3real4Token_fa4e0000"), gen("grafana-token")},
			fp: []string{"glsa_" + "FAKEtest_fa4e0000"},
		},
		"groq-api-key": {
			tp: []fake{gen("groq-api-key")},
			fp: []string{"gsk_" + x("x", 48), "gsk_" + "FAKEtest"},
		},
		"openrouter-api-key": {
			tp: []fake{gen("openrouter-api-key")},
			fp: []string{"sk-or-v1-" + "fa4e0000deadbeef"},
		},
		"docker-hub-pat": {
			tp: []fake{gen("docker-hub-pat")},
			fp: []string{"dckr_pat_" + "FAKEtest"},
		},
		"azure-storage-key": {
			tp: []fake{gen("azure-storage-key")},
			fp: []string{"AccountKey=" + "FAKEtest;", "AccountKey=" + x("A", 86) + "=="},
		},
		"url-password": {
			tp: []fake{
				{text: "postgres://app:" + "FakePassw0rd-EXAMPLE" + "@db.example.invalid:5432/app", secret: "FakePassw0rd-EXAMPLE"},
				{text: "redis://:" + "FAKEtest-redis-pw" + "@cache.example.invalid:6379", secret: "FAKEtest-redis-pw"},
				{text: `"https://bob:` + "FAKE@test-pw" + `@git.example.invalid/r.git", "email": "a@b.invalid"`, secret: "FAKE@test-pw"},
			},
			fp: []string{
				"https://example.invalid:8443/path?q=1",
				"git@github.com:org/repo.git",
				"ssh://git@github.com/org/repo.git",
				"postgres://app:${DB_PASSWORD}@db.example.invalid/app",
				"https://user:****@example.invalid/",
			},
		},
		"bearer-token": {
			tp: []fake{
				{text: "Authorization: Bearer " + "FAKE.EXAMPLE.token-0000", secret: "FAKE.EXAMPLE.token-0000"},
				{text: `curl -H "authorization: token ` + "FAKEtestEXAMPLE1234" + `"`, secret: "FAKEtestEXAMPLE1234"},
				{text: "use bearer " + "FAKEtestEXAMPLEnotReal42" + " for that", secret: "FAKEtestEXAMPLEnotReal42"},
			},
			fp: []string{
				"Authorization: Bearer short",
				"Bearer authentication is required for this endpoint.",
				"Authorization: Bearer ${API_TOKEN}",
				"bearer token-based-authentication",
			},
		},
		"generic-secret": {
			tp: []fake{
				{text: `DB_PASSWORD="` + "FakePass-EXAMPLE-123" + `"`, secret: "FakePass-EXAMPLE-123"},
				{text: `{"client_secret": "` + "FAKE test EXAMPLE secret" + `"}`, secret: "FAKE test EXAMPLE secret"},
				{text: "my password is " + "Tr0ub4dor&3FAKE" + ".", secret: "Tr0ub4dor&3FAKE"},
				{text: "<password>" + "FAKEtest-xml-1" + "</password>", secret: "FAKEtest-xml-1"},
				{text: "password: " + "changeme", secret: "changeme"},
				{text: "the password is " + "hunter2", secret: "hunter2"},
				gen("generic-secret"),
			},
			fp: []string{
				"password: ${DB_PASSWORD}",
				"token: {{ .Values.token }}",
				`api_key = "%API_KEY%"`,
				"SECRET=$SECRET_FROM_VAULT",
				`password: "********"`,
				"token_limit: 4096",
				"The password is incorrect.",
				"token: default",
				"api_key: enabled",
				"password: short",
				`password = os.Getenv("DB_PASSWORD")`,
				"api_key: <your-api-key>",
				`{"token": "session:GH_TOKEN"}`,
				"password=session:DB_PASSWORD",
			},
		},
	}
}

func TestRuleCases(t *testing.T) {
	cases := ruleCases()
	for _, r := range Rules() {
		c, ok := cases[r.ID]
		if !ok || len(c.tp) == 0 || len(c.fp) == 0 {
			t.Errorf("rule %q has no true-positive or no near-miss case", r.ID)
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			for _, f := range c.tp {
				start := strings.Index(f.text, f.secret)
				want := []Match{{Rule: r.ID, Start: start, End: start + len(f.secret)}}
				if diff := cmp.Diff(want, Scan(f.text)); diff != "" {
					t.Errorf("Scan(%q) mismatch (-want +got):\n%s", f.text, diff)
				}
			}
			for _, text := range c.fp {
				for _, m := range Scan(text) {
					if m.Rule == r.ID || m.Rule != "generic-secret" {
						t.Errorf("Scan(%q) = %v, want no %s or other provider match", text, Scan(text), r.ID)
					}
				}
			}
		})
	}
	for id := range cases {
		if !slices.ContainsFunc(Rules(), func(r Rule) bool { return r.ID == id }) {
			t.Errorf("cases for unknown rule %q", id)
		}
	}
}

// TestFakesMatchTheirRuleOnly checks each generator: its fakes are found by
// their own rule, whole, and by no other provider rule.
func TestFakesMatchTheirRuleOnly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, rule := range Rules() {
		faker, ok := fakers[rule.ID]
		if !ok {
			t.Errorf("no fake generator for rule %q", rule.ID)
			continue
		}
		t.Run(rule.ID, func(t *testing.T) {
			for range 50 {
				f := faker(r)
				start := strings.Index(f.text, f.secret)
				want := []Match{{Rule: rule.ID, Start: start, End: start + len(f.secret)}}
				if diff := cmp.Diff(want, Scan(f.text)); diff != "" {
					t.Fatalf("Scan(%q) mismatch (-want +got):\n%s", f.text, diff)
				}
				if len(probes(f.secret)) == 0 {
					t.Fatalf("probes(%q) is empty", f.secret)
				}
			}
		})
	}
}

func TestMarkersMatchNoRule(t *testing.T) {
	for _, r := range Rules() {
		marker := Marker(r.ID, 12)
		texts := []string{
			marker,
			"token=" + marker,
			`"password": "` + marker + `"`,
			"postgres://app:" + marker + "@db.example.invalid/app",
			"Authorization: Bearer " + marker,
			marker + marker,
			"my password is " + marker + ".",
		}
		for _, text := range texts {
			if got := Scan(text); len(got) != 0 {
				t.Errorf("Scan(%q) = %v, want no match", text, got)
			}
		}
	}
}

func TestMaxLen(t *testing.T) {
	for _, r := range Rules() {
		s := r.spec
		if s.match == nil {
			continue
		}
		if s.maxLen <= 0 || s.maxLen > s.window {
			t.Errorf("rule %q: maxLen = %d, want 1..%d", r.ID, s.maxLen, s.window)
		}
	}
}

// TestLongValues checks values far longer than the bytes a rule's pattern
// looks at around its anchor: they must be found whole.
func TestLongValues(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	body := "FAKE" + rnd(r, alnum, 2996)
	pem := "-----BEGIN RSA PRIVATE KEY-----\n"
	for range 400 {
		pem += rnd(r, b64std, 64) + "\n"
	}
	pem += "-----END RSA PRIVATE KEY-----"
	tests := []struct{ rule, text, value string }{
		{"github-pat", "t=ghp_" + body + " x", "ghp_" + body},
		{"bearer-token", "Authorization: Bearer " + body + "\n", body},
		{"generic-secret", "DB_PASSWORD=" + body + " ", body},
		{"pypi-token", "pypi-AgEIcHlwaS5vcmc" + body, "pypi-AgEIcHlwaS5vcmc" + body},
		{"onepassword-service-token", "ops_eyJ" + body + " ", "ops_eyJ" + body},
		{"jwt", "eyJ" + body + ".eyJ" + body + "." + body, "eyJ" + body + ".eyJ" + body + "." + body},
		{"private-key", pem, pem},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			start := strings.Index(tt.text, tt.value)
			want := []Match{{tt.rule, start, start + len(tt.value)}}
			if diff := cmp.Diff(want, Scan(tt.text)); diff != "" {
				t.Errorf("Scan(%d bytes) mismatch (-want +got):\n%s", len(tt.text), diff)
			}
		})
	}
}

// TestScanSpans checks offsets into the original text for secrets split by
// invisible characters or written with escapes.
func TestScanSpans(t *testing.T) {
	ghp := "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"
	tests := []struct {
		name, text string
		want       []Match
	}{
		{"plain", "token " + ghp + " ok", []Match{{"github-pat", 6, 6 + len(ghp)}}},
		{"zero-width space inside", "x " + ghp[:10] + "\u200b" + ghp[10:] + " y", []Match{{"github-pat", 2, 2 + len(ghp) + 3}}},
		{"soft hyphen and word joiner", ghp[:4] + "\u00ad" + ghp[4:20] + "\u2060" + ghp[20:], []Match{{"github-pat", 0, len(ghp) + 5}}},
		{"tag characters", ghp[:8] + "\U000E0041\U000E0042" + ghp[8:], []Match{{"github-pat", 0, len(ghp) + 8}}},
		{"byte order mark", "\ufeff" + ghp, []Match{{"github-pat", 3, 3 + len(ghp)}}},
		{"percent-escaped", "u=" + strings.Replace(ghp, "_", "%5F", 1) + "&", []Match{{"github-pat", 2, 2 + len(ghp) + 2}}},
		{"json unicode escape", `{"t":"` + strings.Replace(ghp, "_", `\u005f`, 1) + `"}`, []Match{{"github-pat", 6, 6 + len(ghp) + 5}}},
		{"escaped zero-width space", `"` + ghp[:6] + `\u200b` + ghp[6:] + `"`, []Match{{"github-pat", 1, 1 + len(ghp) + 6}}},
		{"double percent-encoding", "v=" + strings.Replace(ghp, "_", "%255F", 1), []Match{{"github-pat", 2, 2 + len(ghp) + 4}}},
		{"two secrets", ghp + " and " + ghp, []Match{{"github-pat", 0, len(ghp)}, {"github-pat", len(ghp) + 5, 2*len(ghp) + 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Scan(tt.text)); diff != "" {
				t.Errorf("Scan(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestScanBase64Blob(t *testing.T) {
	ghp := "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"
	blob := base64.StdEncoding.EncodeToString([]byte("GITHUB_TOKEN=" + ghp + "\n"))
	text := "config: " + blob + " end"
	want := []Match{{"github-pat", 8, 8 + len(blob)}}
	if diff := cmp.Diff(want, Scan(text)); diff != "" {
		t.Errorf("Scan(%q) mismatch (-want +got):\n%s", text, diff)
	}
}

func TestScanOverlaps(t *testing.T) {
	ghp := "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"
	jwt := "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0" + ".eyJzdWIiOiJGQUtFLUVYQU1QTEUifQ.RkFLRS1TSUdOQVRVUkU"
	tests := []struct {
		name, text string
		want       []Match
	}{
		// The generic rule finds the same value; the provider rule wins.
		{"provider beats generic", "GITHUB_TOKEN=" + ghp, []Match{{"github-pat", 13, 13 + len(ghp)}}},
		// A longer generic value that holds a token still loses to it.
		{"provider beats longer generic", "password=abc," + ghp, []Match{{"github-pat", 13, 13 + len(ghp)}}},
		// The bearer rule and the JWT rule find the same token; the
		// earlier rule in the table names it.
		{"equal spans go to the earlier rule", "Authorization: Bearer " + jwt, []Match{{"jwt", 22, 22 + len(jwt)}}},
		// A token used as a URL password: both rules find the same bytes.
		{"token as url password", "https://x:" + ghp + "@github.com/o/r", []Match{{"github-pat", 10, 10 + len(ghp)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Scan(tt.text)); diff != "" {
				t.Errorf("Scan(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}
