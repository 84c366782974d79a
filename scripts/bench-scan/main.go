// Command bench-scan measures wisp scan against gitleaks on the same
// generated tree, in one run on the same machine, and compares what each
// finds on the credential shapes both know:
//
//	go run ./scripts/bench-scan [-files 3000] [-size 40MiB] [-gitleaks PATH] [-keep DIR]
//
// The tree is files of code, configuration, logs and prose in nested
// folders, with credentials planted at known lines (AWS access keys,
// GitHub, GitLab, Slack, Stripe, npm, PyPI, SendGrid and age tokens, PEM
// private keys) and near misses that neither tool should report. It has
// no .gitignore and no .git, since gitleaks' dir does not read
// .gitignore; wisp runs with --all all the same.
//
// gitleaks is installed from the Go module proxy into the user's cache
// folder (go install github.com/zricethezav/gitleaks/v8@-version) unless
// -gitleaks names a binary. Both run with their defaults (gitleaks with
// --redact, so its report holds no value either); the page cache is
// warmed first, and wisp's best of three runs is kept. The run prints the
// wall and CPU time of each, the ratio, and, for each shape, how many
// credentials were planted, how many both tools found, and each place
// (file and line) that only one of them found or that both found where
// nothing was planted. It prints no value. It exits 1 if the findings on
// those shapes differ or wisp is less than 10 times faster. It is not
// part of .ci/run.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// shapes are the credential shapes both tools know: wisp's rule ID, and
// gitleaks' rule IDs for the same shape.
var shapes = []struct{ wisp, gitleaks string }{
	{"aws-access-key", "aws-access-token"},
	{"github-pat", "github-pat"},
	{"github-oauth", "github-oauth"},
	{"github-fine-grained-pat", "github-fine-grained-pat"},
	{"gitlab-pat", "gitlab-pat"},
	{"slack-bot-token", "slack-bot-token"},
	{"stripe-secret-key", "stripe-access-token"},
	{"npm-token", "npm-access-token"},
	{"pypi-token", "pypi-upload-token"},
	{"sendgrid-api-key", "sendgrid-api-token"},
	{"age-secret-key", "age-secret-key"},
	{"private-key", "private-key"},
}

func main() {
	files := flag.Int("files", 3000, "files in the generated tree")
	size := flag.String("size", "40MiB", "bytes in the generated tree, about (KiB, MiB)")
	gitleaks := flag.String("gitleaks", "", "the gitleaks binary (default: installed from the Go module proxy)")
	version := flag.String("version", "v8.30.1", "the gitleaks version to install")
	keep := flag.String("keep", "", "generate the tree in this folder, and keep it (default: a temporary folder)")
	flag.Parse()
	total, err := parseSize(*size)
	if err == nil {
		err = run(*files, total, *gitleaks, *version, *keep)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scan:", err)
		os.Exit(1)
	}
}

// A place is where a credential is: a file of the tree and a line.
type place struct {
	file string
	line int
}

func run(files int, total int64, gitleaks, version, keep string) error {
	tmp, err := os.MkdirTemp("", "bench-scan-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	if gitleaks == "" {
		if gitleaks, err = install(version); err != nil {
			return err
		}
	}
	fmt.Println("building wisp…")
	wisp := filepath.Join(tmp, "wisp")
	build := exec.Command("go", "build", "-o", wisp, "./cmd/wisp")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	tree := filepath.Join(tmp, "tree")
	if keep != "" {
		if tree, err = filepath.Abs(keep); err != nil {
			return err
		}
	}
	planted, written, err := generate(tree, files, total)
	if err != nil {
		return err
	}
	n := 0
	for _, ps := range planted {
		n += len(ps)
	}
	fmt.Printf("tree: %d files, %s, %d credentials planted of %d shapes\n", files, human(written), n, len(shapes))

	// Warm the page cache, then time each.
	if _, _, err := timed(wisp, "scan", "--all", "--json", tree); err != nil {
		return err
	}
	var wispOut []byte
	var wispWall, wispCPU time.Duration
	for range 3 {
		out, ru, err := timed(wisp, "scan", "--all", "--json", tree)
		if err != nil {
			return err
		}
		if wispOut == nil || ru.wall < wispWall {
			wispOut, wispWall, wispCPU = out, ru.wall, ru.cpu
		}
	}
	report := filepath.Join(tmp, "gitleaks.json")
	fmt.Printf("running gitleaks %s…\n", version)
	_, gl, err := timed(gitleaks, "dir", "--no-banner", "--redact", "--log-level", "error", "--exit-code", "0",
		"--report-format", "json", "--report-path", report, tree)
	if err != nil {
		return err
	}
	wispFound, wispAll, err := readWisp(wispOut, tree)
	if err != nil {
		return err
	}
	glFound, glAll, err := readGitleaks(report, tree)
	if err != nil {
		return err
	}

	mb := float64(written) / (1 << 20)
	fmt.Println()
	fmt.Printf("%-10s %10s %10s %10s %10s\n", "", "wall", "CPU", "MiB/s", "findings")
	fmt.Printf("%-10s %10s %10s %10.1f %10d\n", "wisp", round(wispWall), round(wispCPU), mb/wispWall.Seconds(), wispAll)
	fmt.Printf("%-10s %10s %10s %10.1f %10d\n", "gitleaks", round(gl.wall), round(gl.cpu), mb/gl.wall.Seconds(), glAll)
	ratio := gl.wall.Seconds() / wispWall.Seconds()
	fmt.Printf("wisp is %.1f× faster (wall), %.1f× (CPU)\n\n", ratio, gl.cpu.Seconds()/wispCPU.Seconds())

	same := true
	fmt.Printf("%-24s %8s %8s %10s %10s %8s\n", "shape", "planted", "both", "wisp only", "gl only", "neither")
	for _, s := range shapes {
		w, g := wispFound[s.wisp], glFound[s.gitleaks]
		both, wOnly, gOnly := diff(w, g)
		neither := missing(planted[s.wisp], append(slices.Clone(w), g...))
		fmt.Printf("%-24s %8d %8d %10d %10d %8d\n", s.wisp, len(planted[s.wisp]), len(both), len(wOnly), len(gOnly), len(neither))
		for _, p := range wOnly {
			fmt.Printf("  only wisp found %s:%d\n", p.file, p.line)
		}
		for _, p := range gOnly {
			fmt.Printf("  only gitleaks found %s:%d\n", p.file, p.line)
		}
		for _, p := range missing(both, planted[s.wisp]) {
			fmt.Printf("  both found %s:%d, where nothing was planted\n", p.file, p.line)
		}
		same = same && len(wOnly) == 0 && len(gOnly) == 0
	}
	fmt.Println("(neither: planted values both tools pass over, such as an AWS key whose random part has too little entropy)")
	fmt.Println()
	switch {
	case !same:
		return errors.New("the findings differ on the shapes both know")
	case ratio < 10:
		return fmt.Errorf("wisp is only %.1f× faster than gitleaks; the goal is 10×", ratio)
	}
	fmt.Println("same findings on every shape both know; wisp at least 10× faster")
	return nil
}

// install installs gitleaks at version into the user's cache folder, once,
// and returns its path.
func install(version string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "wisp-bench-scan", "gitleaks-"+version)
	exe := filepath.Join(bin, "gitleaks")
	if _, err := os.Stat(exe); err == nil {
		return exe, nil
	}
	fmt.Printf("installing gitleaks %s from the Go module proxy…\n", version)
	cmd := exec.Command("go", "install", "github.com/zricethezav/gitleaks/v8@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
	cmd.Dir = os.TempDir() // outside this module, so its go.mod does not apply
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install gitleaks: %w", err)
	}
	return exe, nil
}

// usage is what one run of a program took.
type usage struct{ wall, cpu time.Duration }

// timed runs name with args and returns its standard output and what it
// took. Exit status 1 is what both tools say when they find anything.
func timed(name string, args ...string) ([]byte, usage, error) {
	cmd := exec.Command(name, args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, usage{}, fmt.Errorf("%s: %w: %s", filepath.Base(name), err, strings.TrimSpace(errs.String()))
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return out.Bytes(), usage{wall: wall, cpu: cpu}, nil
}

// readWisp reads wisp scan --json's findings, by rule, and counts them.
func readWisp(out []byte, tree string) (map[string][]place, int, error) {
	var r struct {
		Findings []struct {
			Rule, File string
			Line       int
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, 0, fmt.Errorf("wisp scan --json: %w", err)
	}
	found := map[string][]place{}
	for _, f := range r.Findings {
		found[f.Rule] = append(found[f.Rule], place{rel(tree, f.File), f.Line})
	}
	return found, len(r.Findings), nil
}

// readGitleaks reads gitleaks' JSON report, by rule, and counts it.
func readGitleaks(report, tree string) (map[string][]place, int, error) {
	data, err := os.ReadFile(report)
	if err != nil {
		return nil, 0, err
	}
	var r []struct {
		RuleID, File string
		StartLine    int
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, 0, fmt.Errorf("gitleaks' report: %w", err)
	}
	found := map[string][]place{}
	for _, f := range r {
		found[f.RuleID] = append(found[f.RuleID], place{rel(tree, f.File), f.StartLine})
	}
	return found, len(r), nil
}

// rel returns file relative to the tree, slash-separated.
func rel(tree, file string) string {
	if r, err := filepath.Rel(tree, file); err == nil {
		return filepath.ToSlash(r)
	}
	return file
}

// diff returns the places a and b both hold, those only a holds and
// those only b holds.
func diff(a, b []place) (both, aOnly, bOnly []place) {
	for _, p := range a {
		if slices.Contains(b, p) {
			both = append(both, p)
		} else {
			aOnly = append(aOnly, p)
		}
	}
	return both, aOnly, missing(b, a)
}

// missing returns what of want got does not hold.
func missing(want, got []place) []place {
	var out []place
	for _, p := range want {
		if !slices.Contains(got, p) {
			out = append(out, p)
		}
	}
	return out
}

// generate writes a tree of n files, about total bytes, under dir, and
// returns the places of the credentials it planted, by wisp's rule ID,
// and the bytes it wrote.
func generate(dir string, n int, total int64) (map[string][]place, int64, error) {
	r := rand.New(rand.NewPCG(2026, 8))
	planted := map[string][]place{}
	exts := []string{".go", ".py", ".yaml", ".env", ".json", ".md", ".log", ".txt"}
	var written int64
	per := total / int64(n)
	for i := range n {
		name := fmt.Sprintf("pkg%02d/mod%02d/file%04d%s", i%37, i%11, i, exts[i%len(exts)])
		var b strings.Builder
		line := 1
		add := func(s string) {
			b.WriteString(s)
			line += strings.Count(s, "\n")
		}
		// One file in four holds a credential, one in three a near miss.
		plantAt := -1
		if i%4 == 0 {
			plantAt = int(per) / 2
		}
		for int64(b.Len()) < per {
			if plantAt >= 0 && b.Len() >= plantAt {
				s := shapes[r.IntN(len(shapes))].wisp
				f, _ := secretstest.Generate(s, r)
				add(fmt.Sprintf("# settings %d\n", i))
				planted[s] = append(planted[s], place{name, line})
				add(setting(r, f.Text))
				plantAt = -1
				continue
			}
			if i%3 == 0 && r.IntN(40) == 0 {
				add(nearMisses[r.IntN(len(nearMisses))] + "\n")
				continue
			}
			add(filler(r, i) + "\n")
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, 0, err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return nil, 0, err
		}
		written += int64(b.Len())
	}
	return planted, written, nil
}

// setting writes a credential as configuration or code holds one.
func setting(r *rand.Rand, v string) string {
	if strings.HasPrefix(v, "-----BEGIN") {
		return v
	}
	switch r.IntN(4) {
	case 0:
		return "SERVICE_CREDENTIAL=" + v + "\n"
	case 1:
		return "  credential: \"" + v + "\"\n"
	case 2:
		return "\t\"auth\": \"" + v + "\",\n"
	}
	return "export DEPLOY_CREDENTIAL='" + v + "'\n"
}

// nearMisses are lines that look like credentials to a prefilter and are
// none: short tokens, public keys, placeholders.
var nearMisses = []string{
	"token := \"ghp_\" + suffix // built at run time",
	"see AKIA in the AWS docs for the access key format",
	"slack: xoxb-123-456 is the shape of a bot token",
	"stripe test key prefix is sk_test_ and then 24 characters",
	"-----BEGIN PUBLIC KEY-----",
	"npm_config_cache=/tmp/npm",
	"password: ${DB_PASSWORD}",
	"api_key = os.environ[\"API_KEY\"]",
	"glpat- tokens expire after a year",
	"SG. is SendGrid's prefix",
}

// words make the filler.
var words = strings.Fields(`request response handler server client config value
	parse format write read open close error result context timeout retry buffer stream
	index count length offset cursor page limit order filter select insert update delete
	user account session cache queue worker job task event message header body status`)

// filler returns a line of ordinary code, configuration, log or prose.
func filler(r *rand.Rand, i int) string {
	w := func() string { return words[r.IntN(len(words))] }
	switch (i + r.IntN(5)) % 5 {
	case 0:
		return fmt.Sprintf("func %s%s(%s %s, %s int) (%s, error) {", w(), strings.ToUpper(w()[:1]), w(), w(), w(), w())
	case 1:
		return fmt.Sprintf("2026-08-%02dT%02d:%02d:%02dZ INFO %s %s %s=%d %s=%s", 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), w(), w(), w(), r.IntN(10000), w(), w())
	case 2:
		return fmt.Sprintf("  %s_%s: %d  # %s %s", w(), w(), r.IntN(1000), w(), w())
	case 3:
		return fmt.Sprintf("\tif err := %s.%s(ctx, %s); err != nil { return fmt.Errorf(\"%s: %%w\", err) }", w(), w(), w(), w())
	}
	return fmt.Sprintf("The %s %s the %s before the %s %s, so the %s %s.", w(), w(), w(), w(), w(), w(), w())
}

// parseSize reads a size such as 40MiB, 512KiB or 1000000.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("-size takes a size such as 40MiB, not %q", s)
	}
	return n * mult, nil
}

// human writes bytes in MiB.
func human(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// round rounds a duration for a table.
func round(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}
