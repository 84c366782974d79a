package secrets

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
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
		out[i] = rawFinding{Rule: ruleTable[c.rule].ID, Start: c.start, End: c.end, Value: c.stripped()}
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

// TestFindQuarters checks that find, which reads a long text as four
// quarters at once, finds the anchors that one pass over the text finds,
// among them anchors that straddle the end of a quarter.
func TestFindQuarters(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	texts := []string{adversarial(64 << 10), denseAnchors(64 << 10), denseAnchors(splitFind), denseAnchors(splitFind + 3)}
	for range 20 {
		texts = append(texts, generatedText(r, splitFind+r.IntN(20<<10)))
	}
	var all []string
	for _, rule := range Rules() {
		all = append(all, rule.spec.anchors...)
	}
	for range 200 {
		n := splitFind + r.IntN(8<<10)
		b := []byte(rnd(r, " x=_-", n))
		// An anchor across each quarter's end and near the text's end.
		for _, end := range []int{n / 4, n / 2, 3 * (n / 4), n} {
			a := all[r.IntN(len(all))]
			at := max(0, min(n-len(a), end-r.IntN(len(a)+1)))
			copy(b[at:], a)
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		got := make([][]int, len(ruleTable))
		anchors.find(text, got)
		want := make([][]int, len(ruleTable))
		anchors.findIn(text, 0, len(text), want, nil)
		for i := range want {
			g := slices.Sorted(slices.Values(got[i]))
			slices.Sort(want[i])
			if !slices.Equal(g, want[i]) {
				t.Fatalf("anchors of rule %s in a text of %d bytes: %v, want %v", ruleTable[i].ID, len(text), g, want[i])
			}
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
		// A run of base64 that a value runs into, which decodes once the
		// value is a marker.
		blob := base64.RawStdEncoding.EncodeToString([]byte("config: " + b.Text + " end"))
		key, _ := secretstest.Generate("private-key", r)
		texts = append(texts, a.Text+sep+blob, blob+sep+a.Text+" "+blob, blob+key.Text+" "+a.Text, a.Text+" "+blob+key.Text)
	}
	for range 1000 {
		texts = append(texts, generatedText(r, 1+r.IntN(3000)))
	}
	for _, text := range texts {
		gotOut, gotFindings := NewRedactor().redact(text, true, nil)
		wantOut, wantFindings := NewRedactor().redact(text, false, nil)
		if gotOut != wantOut || !slices.Equal(gotFindings, wantFindings) {
			t.Errorf("Redact(%q) = %q, %v; scanning each pass whole gives %q, %v", text, gotOut, gotFindings, wantOut, wantFindings)
		}
	}
}

// TestCopiesReuse checks that copies which take what their parent found
// wherever they hold its bytes unchanged find what copies that scan all
// their anchors find: the same values once overlaps are settled, and no
// value that the others do not find before.
func TestCopiesReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	texts := differentialCorpus()
	// Values near invisible characters and escapes, which make copies,
	// and near the start of a copy, where a window starts with the text.
	ids := secretstest.Rules()
	seps := []string{"\u200b", "%41", `\u0041`, "%2B", "\u00ad\u200c", `\n`, " ", "="}
	for range 3000 {
		a, _ := secretstest.Generate(ids[r.IntN(len(ids))], r)
		b, _ := secretstest.Generate(ids[r.IntN(len(ids))], r)
		pad := strings.Repeat("x", r.IntN(3000))
		sep := seps[r.IntN(len(seps))]
		texts = append(texts, a.Text+sep+b.Text, pad+sep+"key="+a.Secret+" "+b.Text+sep, sep+pad[:len(pad)/2]+a.Text+sep+pad+b.Text)
	}
	for range 500 {
		texts = append(texts, generatedText(r, 1+r.IntN(6000)))
	}
	key := func(c candidate) rawFinding {
		return rawFinding{Rule: ruleTable[c.rule].ID, Start: c.start, End: c.end, Value: c.stripped()}
	}
	for _, text := range texts {
		var got, want []candidate
		root := &view{text: text, record: true}
		walk(root, 0, nil, nil, &got)
		root.release()
		walk(&view{text: text}, 0, nil, nil, &want)
		set := func(cands []candidate) map[rawFinding]bool {
			m := map[rawFinding]bool{}
			for _, c := range cands {
				m[key(c)] = true
			}
			return m
		}
		gotSet, wantSet := set(got), set(want)
		for k := range wantSet {
			if !gotSet[k] {
				t.Fatalf("copies that reuse their parent's scan of %q miss %v", text, k)
			}
		}
		for k := range gotSet {
			if !wantSet[k] {
				t.Fatalf("copies that reuse their parent's scan of %q find %v, which scanning whole does not", text, k)
			}
		}
		if g, w := matches(settle(text, got)), matches(settle(text, want)); !slices.Equal(g, w) {
			t.Fatalf("Scan(%q) with copies that reuse = %v, want %v", text, g, w)
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
			cands = append(cands, candidate{rule: vaultRule, start: ostart, end: oend, value: k.name, n: len(k.name)})
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

// TestStrippedLen checks strippedLen against the length of what
// stripIgnorable makes.
func TestStrippedLen(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	pieces := []string{"a", "%", "é", "\u200b", "\u00ad", "\xff", "\xe2\x80", "\U000e0041", "日", "\ufeff", "\u2060x"}
	for i := range pieces {
		pieces[i], _ = strconv.Unquote(`"` + pieces[i] + `"`)
	}
	for range 5000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := strippedLen(s), len(stripIgnorable(s)); got != want {
			t.Fatalf("strippedLen(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestBitset checks the bitset that settle marks taken bytes in against a
// set of offsets.
func TestBitset(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for range 200 {
		n := 1 + r.IntN(300)
		b := newBitset(n)
		want := make([]bool, n)
		for range 20 {
			start := r.IntN(n + 1)
			end := start + r.IntN(n-start+1)
			anyWant := slices.Contains(want[start:end], true)
			if got := b.any(start, end); got != anyWant {
				t.Fatalf("any(%d, %d) = %v, want %v", start, end, got, anyWant)
			}
			if r.IntN(2) == 0 {
				b.set(start, end)
				for i := start; i < end; i++ {
					want[i] = true
				}
			}
		}
	}
}

// TestInvalidUTF8 checks that a head of a decoded run that invalidUTF8
// rejects by its first bytes never reads as text, whatever follows them.
func TestInvalidUTF8(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	bytes := []byte{'a', ' ', '\n', 0x01, 0x7f, 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff}
	texts := 0
	for range 100000 {
		// Six random bytes, then text: letters, spaces and a character
		// that continues one the random bytes may have started.
		b := make([]byte, 6, 48)
		for i := range b {
			b[i] = 'a'
			if r.IntN(3) == 0 {
				b[i] = bytes[r.IntN(len(bytes))]
			}
		}
		b = append(b, []string{"", "\x80", "\x80\x80", "\x80\x80\x80"}[r.IntN(4)]...)
		for len(b) < 16+r.IntN(32) {
			b = append(b, []string{"a", " ", "é"}[r.IntN(3)]...)
		}
		if !readsAsText(trimRune(b)) {
			continue
		}
		texts++
		for _, k := range []int{4, 6} {
			if invalidUTF8(b[:k]) {
				t.Fatalf("invalidUTF8(%q) is true, but %q reads as text", b[:k], b)
			}
		}
	}
	if texts < 1000 {
		t.Fatalf("only %d of the heads read as text", texts)
	}
}

// TestRunEnd checks byteClass.runEnd, which tests eight bytes a step,
// against testing one at a time.
func TestRunEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for range 2000 {
		text := rnd(r, "ab1_-. =\xff", r.IntN(40))
		for _, c := range []*byteClass{clsAlnum, clsName, clsB64URL, clsBare} {
			for i := 0; i <= len(text); i++ {
				want := i
				for want < len(text) && c.in[text[want]] {
					want++
				}
				if got := c.runEnd(text, i); got != want {
					t.Fatalf("runEnd(%q, %d) = %d, want %d", text, i, got, want)
				}
			}
		}
	}
}

// TestEntropy checks entropy, which counts the bytes of a short value four
// to a word, against the sum of -p·log2(p) over its bytes in ascending
// order: the same float, bit for bit, since a rule compares it with a
// bound.
func TestEntropy(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	want := func(s string) float64 {
		var counts [256]int
		for i := 0; i < len(s); i++ {
			counts[s[i]]++
		}
		h := 0.0
		for _, n := range counts {
			if n > 0 {
				p := float64(n) / float64(len(s))
				h -= p * math.Log2(p)
			}
		}
		return h
	}
	all := string(func() []byte {
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}())
	texts := []string{"", "a", "ab", "aaaa", all, strings.Repeat("x", maxEntropyRow), strings.Repeat("xy", maxEntropyRow)}
	for range 3000 {
		texts = append(texts, rnd(r, []string{"ab", alnum, all, b64std}[r.IntN(4)], r.IntN(maxEntropyRow+200)))
	}
	for _, s := range texts {
		if got, w := entropy(s), want(s); got != w {
			t.Fatalf("entropy(%q) = %v, want %v", s, got, w)
		}
	}
}

// TestLitWord checks engine.litWord, which compares a head with eight
// bytes of the text at once, against engine.lit: the same answer, and the
// same bytes read.
func TestLitWord(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for range 20000 {
		text := rnd(r, "aAbB-_.0#", 1+r.IntN(24))
		lit := rnd(r, "abB-_.0#", 1+r.IntN(10))
		fold := r.IntN(2) == 0
		if fold {
			lit = strings.ToLower(lit)
		}
		w := newLitWord(lit, fold)
		i := r.IntN(len(text)+2) - 1
		hi := r.IntN(len(text) + 1)
		got := &engine{text: text, hi: hi}
		want := &engine{text: text, hi: hi}
		if g, w := got.litWord(i, lit, &w, fold), want.lit(i, lit, fold); g != w || got.touch != want.touch {
			t.Fatalf("litWord(%q at %d in %q, hi %d, fold %v) = %v, read to %d; lit gives %v, %d", lit, i, text, hi, fold, g, got.touch, w, want.touch)
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
