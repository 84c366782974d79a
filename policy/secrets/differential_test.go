package secrets

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// The rules' matchers must find what the rules' regular expressions find
// (oracleSearch): every value, at the same offsets, by the same rule, in
// the text and in every copy the scanner decodes, before overlaps are
// settled.

// rawFinding is one candidate as a rule reported it, before settling.
type rawFinding struct {
	Rule       string
	Start, End int
	Value      string
}

// rawScan returns every candidate that search reports in text and its
// decoded copies, sorted.
func rawScan(text string, search searcher) []rawFinding {
	var cands []candidate
	walk(&view{text: text}, 0, nil, search, &cands)
	out := make([]rawFinding, len(cands))
	for i, c := range cands {
		out[i] = rawFinding{Rule: ruleTable[c.rule].ID, Start: c.start, End: c.end, Value: c.value}
	}
	slices.SortFunc(out, func(a, b rawFinding) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), strings.Compare(a.Rule, b.Rule), strings.Compare(a.Value, b.Value))
	})
	return out
}

// checkAgrees fails t when the matchers and the regular expressions find
// different values in text.
func checkAgrees(t *testing.T, text string) {
	t.Helper()
	want := rawScan(text, oracleSearch)
	got := rawScan(text, nil)
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("matchers and regular expressions differ on %q (-regexp +matchers):\n%s", text, diff)
	}
}

// differentialWords are pieces that the generated texts of
// TestMatchersAgreeGenerated are made of: anchors, the starts of values,
// names, operators, quotes, white space, invisible and non-ASCII
// characters, escapes.
var differentialWords = func() []string {
	words := strings.Fields(`password passwd PASSWORD Password pwd auth secret token TOKEN credentials credential
		api_key apikey access-key private.key client_secret app_key licence_key _pass dbPass myAuth x2Pwd
		aws_secret_access_key AWS_SECRET_KEY secret_access_key SecretAccessKey accountkey AccountKey
		Authorization authorization: proxy-authorization Bearer bearer basic Token digest bot apikey sso-key
		is was IS : = := ::= :::= ?= => -> || ||= > | |- >+ |2 " ' ] [ , . ; ! ? ) } ( { < > @ / # % $
		https:// http:// s3:// a:// git+ssh:// :// user: u:p@ @@ @h x@y ${VAR} {{ $( %VAR% <x> session:GH_TOKEN
		process.env.X os.environ cfg.Key r.Header( [] map[ func( changeme hunter2 abc123XYZ
		AKIA ASIA A3T ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ glpat- glptt- gldt- glrt- xoxb- xoxp- xoxa- xapp-
		hooks.slack.com/services/ sk- sk-proj- sk-ant- sk-ant-api03- sk-ant-oat01- sk_live_ rk_test_ whsec_
		AIza GOCSPX- hf_ api_org_ npm_ pypi-AgEIcHlwaS5vcmc SG. SK dop_v1_ dapi AGE-SECRET-KEY-1 -----BEGIN
		-----END PRIVATE KEY----- eyJ ops_eyJ hvs. hvb. shpat_ dp.pt. dp.scim. lin_api_ pul- PMAK- sntryu_
		sntrys_eyJ glsa_ glc_ gsk_ sk-or-v1- dckr_pat_ T3BlbkFJ AA == = -1 -9 .abcdefghi`)
	return append(words, "`", " ", "  ", "\t", "\n", "\r\n", "\f", "\v", "\\", `\"`, `\n`, `\u0041`, "%41", "%2F",
		"\u200b", "\u00ad", "\ufeff", "é", "ſ", "\u212a", "\xff", "\xc3", "日本")
}()

// differentialAlphabets are the runs the generated texts put values of.
var differentialAlphabets = []string{alnum, hexLower, b64url, b64std + "=", base32, digits, upper, lower, "ab", "A",
	"-_.~+/=", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", alnum + "@:/.", alnum + " \t"}

// generatedText returns a text of about n bytes made of differentialWords,
// random runs, and fake credentials of every rule, some cut short.
func generatedText(r *rand.Rand, n int) string {
	var b strings.Builder
	ids := secretstest.Rules()
	for b.Len() < n {
		switch k := r.IntN(10); {
		case k < 5:
			b.WriteString(differentialWords[r.IntN(len(differentialWords))])
		case k < 8:
			a := differentialAlphabets[r.IntN(len(differentialAlphabets))]
			m := []int{1, 2, 3, 8, 9, 10, 12, 16, 20, 22, 24, 32, 35, 36, 40, 43, 48, 58, 64, 82, 90, 93, 138, 300}[r.IntN(24)]
			b.WriteString(rnd(r, a, m+r.IntN(3)-1))
		default:
			f, _ := secretstest.Generate(ids[r.IntN(len(ids))], r)
			text := f.Text
			if r.IntN(3) == 0 {
				text = text[:r.IntN(len(text)+1)]
			}
			b.WriteString(text)
		}
	}
	return b.String()
}

// differentialCorpus returns the texts of the package's other tests.
func differentialCorpus() []string {
	var texts []string
	texts = append(texts, fuzzSeeds()...)
	for _, c := range ruleCases() {
		for _, f := range c.tp {
			texts = append(texts, f.text)
		}
		texts = append(texts, c.fp...)
	}
	for _, c := range secretstest.Corpus() {
		texts = append(texts, c.Text, fmt.Sprintf("{%q: %q}", c.Key, c.Value))
	}
	r := rand.New(rand.NewPCG(23, 24))
	for _, rule := range Rules() {
		f := fakers[rule.ID](r)
		for _, c := range syntaxContexts {
			texts = append(texts, c.wrap(f.key, f.secret), c.wrap(f.key, f.text))
		}
	}
	texts = append(texts, negativeCorpus()...)
	texts = append(texts, answer10KB(), adversarial(16<<10), denseAnchors(16<<10))
	return texts
}

// TestMatchersAgreeCorpus checks the matchers against the regular
// expressions on every text the package's other tests use.
func TestMatchersAgreeCorpus(t *testing.T) {
	for _, text := range differentialCorpus() {
		checkAgrees(t, text)
	}
}

// TestMatchersAgreeGenerated checks the matchers against the regular
// expressions on generated texts dense in anchors, names, operators and
// runs of token characters.
func TestMatchersAgreeGenerated(t *testing.T) {
	n := 3000
	if raceEnabled || testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(25, 26))
	for range n {
		checkAgrees(t, generatedText(r, 1+r.IntN(600)))
		if t.Failed() {
			return
		}
	}
}

// TestMarkerEnd checks markerEnd against markerPattern.
func TestMarkerEnd(t *testing.T) {
	texts := []string{
		"[REDACTED:github-pat#1]", "[REDACTED:session:GH_TOKEN]", "[REDACTED:a#1", "[REDACTED:#1]",
		"[REDACTED:" + strings.Repeat("a", 64) + "#1]", "[REDACTED:" + strings.Repeat("a", 65) + "#1]",
		"[REDACTED:x#" + strings.Repeat("9", 19) + "]", "[REDACTED:x#" + strings.Repeat("9", 20) + "]",
		"[REDACTED:session:A" + strings.Repeat("B", 63) + "]", "[REDACTED:session:A" + strings.Repeat("B", 64) + "]",
		"[REDACTED:session:a]", "[REDACTED:session:]", "[REDACTED:session#1]", "[REDACTED:Session:A]",
		"x[REDACTED:[REDACTED:jwt#2]]", "[REDACTED:", "[REDACTED:a-b-9#007]y",
	}
	for _, text := range texts {
		var got [][]int
		eachMarker(text, func(start, end int) { got = append(got, []int{start, end}) })
		if want := markerPattern.FindAllStringIndex(text, -1); !gocmp.Equal(want, got) {
			t.Errorf("markers of %q = %v, want %v", text, got, want)
		}
	}
}

// FuzzMatchersAgree checks the matchers against the regular expressions on
// any text.
func FuzzMatchersAgree(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	r := rand.New(rand.NewPCG(27, 28))
	for range 20 {
		f.Add(generatedText(r, 200))
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkAgrees(t, text)
	})
}

// TestViewAnchors checks the anchors of every copy the scanner makes of the
// corpus texts: those it takes from the parent and those it reads around
// its changes must be all the anchors it holds.
func TestViewAnchors(t *testing.T) {
	var check func(v *view, depth int)
	check = func(v *view, depth int) {
		anchors.inView(v)
		want := make([][]int, len(ruleTable))
		anchors.find(v.text, want)
		for r := range want {
			got := slices.Sorted(slices.Values(v.at[r]))
			slices.Sort(want[r])
			if !slices.Equal(got, want[r]) {
				t.Errorf("anchors of rule %s in a copy of %q: %v, want %v", ruleTable[r].ID, v.text, got, want[r])
			}
		}
		views := []*view{v}
		if s := stripView(v); s != nil {
			check(s, depth)
			views = append(views, s)
		}
		if depth >= maxDecodeDepth {
			return
		}
		for _, w := range views {
			for _, decode := range decoders {
				if d := decode(w); d != nil {
					check(d, depth+1)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(29, 30))
	texts := differentialCorpus()
	// Every anchor split at every byte by an invisible character and by
	// an escape, which a copy joins again.
	for _, rule := range Rules() {
		for _, a := range rule.spec.anchors {
			for k := 1; k < len(a); k++ {
				texts = append(texts, "x"+a[:k]+"\u200b"+a[k:]+"x", a[:k]+`\u00`+fmt.Sprintf("%02x", a[k])+a[k+1:])
			}
			// Anchors that a copy moves nearer to the start of the text,
			// or farther from it.
			for _, before := range []string{"%41", "%41%41", strings.Repeat("%41", 12), "\u200b", `\u0041\u0041`, strings.Repeat("\u200b", 9)} {
				for _, after := range []string{"x", "_", "=", " "} {
					texts = append(texts, before+a+after, "x"+a+after+before+a+after)
				}
			}
		}
	}
	for range 300 {
		texts = append(texts, generatedText(r, 1+r.IntN(3000)))
	}
	for _, text := range texts {
		check(&view{text: text}, 0)
		if t.Failed() {
			return
		}
	}
}

// TestRedactRescans checks that a pass of Redact that reuses what the pass
// before it read finds what a scan of the whole text finds.
func TestRedactRescans(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	texts := differentialCorpus()
	// Credentials side by side, where a marker in place of one changes
	// what the bytes around the other read.
	ids := secretstest.Rules()
	for range 2000 {
		a, _ := secretstest.Generate(ids[r.IntN(len(ids))], r)
		b, _ := secretstest.Generate(ids[r.IntN(len(ids))], r)
		sep := []string{"", "", "_", "-", ".", " ", "=", ":", "@", "/", "\u200b", "%41"}[r.IntN(12)]
		texts = append(texts, a.Text+sep+b.Text, "key="+a.Secret+sep+b.Text, b.Text+sep+a.Text+sep+b.Text)
	}
	for range 1000 {
		texts = append(texts, generatedText(r, 1+r.IntN(3000)))
	}
	for _, text := range texts {
		gotOut, gotFindings := NewRedactor().redact(text, true)
		wantOut, wantFindings := NewRedactor().redact(text, false)
		if gotOut != wantOut || !slices.Equal(gotFindings, wantFindings) {
			t.Errorf("Redact(%q) = %q, %v; scanning each pass whole gives %q, %v", text, gotOut, gotFindings, wantOut, wantFindings)
		}
	}
}

// knownByIndex is what knownSet.find finds, found value by value as Redact
// once did: from the left, each occurrence that does not overlap the one
// before.
func knownByIndex(v *view, vals []known) []candidate {
	var cands []candidate
	for _, k := range vals {
		if len(k.value) == 0 {
			continue
		}
		for at := 0; ; {
			i := strings.Index(v.text[at:], string(k.value))
			if i < 0 {
				break
			}
			start, end := at+i, at+i+len(k.value)
			ostart, oend := v.orig(start, end)
			cands = append(cands, candidate{rule: vaultRule, start: ostart, end: oend, value: k.name})
			at = end
		}
	}
	return cands
}

// TestKnownSet checks that one pass of a Vault's automaton finds every
// occurrence of every value that a search for each value finds, values that
// overlap each other or themselves included.
func TestKnownSet(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	sortCands := func(c []candidate) {
		slices.SortFunc(c, func(a, b candidate) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), strings.Compare(a.value, b.value))
		})
	}
	for range 2000 {
		alphabet := []string{"ab", "abc", alnum, "a\u200b%41"}[r.IntN(4)]
		var vals []known
		for i := range 1 + r.IntN(6) {
			vals = append(vals, known{name: fmt.Sprintf("V%d", i), value: []byte(rnd(r, alphabet, 1+r.IntN(8)))})
		}
		text := rnd(r, alphabet, r.IntN(400))
		for _, v := range vals {
			text += string(v.value) + rnd(r, alphabet, r.IntN(3))
		}
		ks := newKnownSet(vals)
		v := &view{text: text}
		var got []candidate
		ks.find(v, &got)
		want := knownByIndex(v, vals)
		sortCands(got)
		sortCands(want)
		if diff := gocmp.Diff(want, got, gocmp.AllowUnexported(candidate{})); diff != "" {
			t.Fatalf("values %q in %q (-by value +one pass):\n%s", vals, text, diff)
		}
		ks.wipe()
		if slices.ContainsFunc(ks.auto.delta, func(d int32) bool { return d != 0 }) || slices.ContainsFunc(ks.auto.class[:], func(c uint8) bool { return c != 0 }) {
			t.Fatalf("the automaton of %q is not wiped", vals)
		}
	}
}

// TestASCIIEnd checks asciiEnd, which reads eight bytes at a time, against
// reading one at a time.
func TestASCIIEnd(t *testing.T) {
	for n := range 24 {
		for at := range n + 1 {
			b := []byte(strings.Repeat("a", n))
			if at < n {
				b[at] = 0x80 | byte(at)
			}
			for from := range n + 1 {
				want := from
				for want < n && b[want] < 0x80 {
					want++
				}
				if got := asciiEnd(string(b), from); got != want {
					t.Errorf("asciiEnd(%q, %d) = %d, want %d", b, from, got, want)
				}
			}
		}
	}
}
