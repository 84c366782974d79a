//go:build unix

// Command interop-ollama runs wisp against a real Ollama server and fails
// on any difference from what docs/models.md promises:
//
//	go run ./scripts/interop-ollama [-realollama DIR] [-port N]
//
// The server comes from a realollama setup: a folder whose setup.sh builds
// Ollama from its Go module (minutes, the first time; cached after), writes
// tiny models that answer in milliseconds (tiny-tools, tiny-plain,
// tiny-caller, tiny-think, tiny-broken) and serves them on loopback. The
// folder is -realollama, else WISP_REALOLLAMA, else shared/realollama
// beside the clone or beside a folder above it. Nothing leaves the
// machine: the server listens on 127.0.0.1, with a models folder of the
// run's own.
//
// It runs wisp's models list, show, enable, check (of one model, and of
// every enabled one), chat with a tool call the person answers, chat with
// a thinking model, respond, and wisp mcp over stdio, and compares what
// wisp says with what Ollama's own API says: names, sizes, parameter
// counts, context lengths, capabilities, digests, the context the server
// loaded each model with, and the server's own words when a model fails.
// It is not part of .ci/run, since the first build of Ollama takes minutes.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wisp-agent/wisp/models"
)

func main() {
	dir := flag.String("realollama", "", "the realollama folder (default: WISP_REALOLLAMA, else shared/realollama beside the clone or a folder above it)")
	port := flag.Int("port", 0, "the port the server listens on (default: a free one)")
	flag.Parse()
	failed, err := run(*dir, *port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop-ollama:", err)
		os.Exit(1)
	}
	if failed > 0 {
		fmt.Printf("FAIL: %d checks differ from what the docs promise\n", failed)
		os.Exit(1)
	}
	fmt.Println("PASS: wisp and the real Ollama agree with the docs")
}

// run sets up the server and wisp, and runs every check. It returns how
// many checks failed, and an error when it could not run them.
func run(dir string, port int) (int, error) {
	setup, err := findSetup(dir)
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "interop-ollama-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)

	fmt.Println("== building ollama (setup.sh build; cached after the first time)")
	start := time.Now()
	build := exec.Command(setup, "build")
	build.Stdout, build.Stderr = os.Stdout, os.Stdout
	if err := build.Run(); err != nil {
		return 0, fmt.Errorf("%s build: %w", setup, err)
	}
	fmt.Printf("   setup.sh build took %s\n", time.Since(start).Round(time.Second))

	if port == 0 {
		if port, err = freePort(); err != nil {
			return 0, err
		}
	}
	url, stop, err := serve(setup, port, filepath.Join(tmp, "ollama-models"))
	if err != nil {
		return 0, err
	}
	defer stop()
	fmt.Println("== ollama serves", url)

	fmt.Println("== building wisp")
	bin := filepath.Join(tmp, "wisp")
	gb := exec.Command("go", "build", "-o", bin, "./cmd/wisp")
	gb.Stdout, gb.Stderr = os.Stdout, os.Stderr
	if err := gb.Run(); err != nil {
		return 0, err
	}
	r := &runner{bin: bin, url: url, env: append(os.Environ(),
		"WISP_HOME="+filepath.Join(tmp, "home"), "OLLAMA_HOST="+strings.TrimPrefix(url, "http://"), "NO_COLOR=1")}
	r.checks()
	return r.failed, nil
}

// findSetup returns the path of the realollama setup.sh.
func findSetup(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("WISP_REALOLLAMA")
	}
	if dir != "" {
		setup := filepath.Join(dir, "setup.sh")
		if _, err := os.Stat(setup); err != nil {
			return "", fmt.Errorf("no setup.sh in %s (-realollama or WISP_REALOLLAMA names the realollama folder)", dir)
		}
		return setup, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := filepath.Dir(wd); ; d = filepath.Dir(d) {
		setup := filepath.Join(d, "shared", "realollama", "setup.sh")
		if _, err := os.Stat(setup); err == nil {
			return setup, nil
		}
		if d == filepath.Dir(d) {
			return "", errors.New("no realollama folder found: name it with -realollama DIR or WISP_REALOLLAMA (run from the clone's root)")
		}
	}
}

// freePort returns a port nothing listens on, on loopback.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// serve starts setup.sh serving on port with a models folder of its own,
// and returns the server's URL and what stops it.
func serve(setup string, port int, modelsDir string) (string, func(), error) {
	cmd := exec.Command(setup)
	cmd.Env = append(os.Environ(), "WISP_OLLAMA_PORT="+strconv.Itoa(port), "WISP_OLLAMA_MODELS="+modelsDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM) // setup.sh stops the server it started
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
			go io.Copy(io.Discard, out)
			return url, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("%s did not say where it listens", setup)
}

// runner runs wisp and counts the checks that fail.
type runner struct {
	bin, url string
	env      []string
	failed   int
}

// result is what one run of wisp did.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

// wisp runs wisp with args, stdin as its input, and shows what it said.
func (r *runner) wisp(stdin string, args ...string) result {
	cmd := exec.Command(r.bin, args...)
	cmd.Env = r.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	res := result{args: args, stdout: out.String(), stderr: errb.String(), code: code}
	fmt.Printf("\n$ wisp %s   (exit %d)\n", strings.Join(args, " "), code)
	for _, l := range strings.Split(strings.TrimRight(res.stdout, "\n"), "\n") {
		fmt.Println("   " + l)
	}
	if s := strings.TrimSpace(res.stderr); s != "" {
		for _, l := range strings.Split(s, "\n") {
			fmt.Println("   stderr: " + l)
		}
	}
	return res
}

// check records one promise: ok, or what differs.
func (r *runner) check(promise string, ok bool, format string, args ...any) {
	if ok {
		fmt.Println("   ok   " + promise)
		return
	}
	r.failed++
	fmt.Printf("   FAIL %s: %s\n", promise, fmt.Sprintf(format, args...))
}

// exit checks res's exit status.
func (r *runner) exit(res result, want int) {
	r.check(fmt.Sprintf("wisp %s exits %d", res.args[0]+" "+strings.Join(res.args[1:min(2, len(res.args))], " "), want), res.code == want, "exit %d", res.code)
}

// has checks that res's standard output holds the line want.
func (r *runner) has(res result, promise, want string) {
	lines := strings.Split(res.stdout, "\n")
	found := false
	for _, l := range lines {
		if l == want {
			found = true
		}
	}
	r.check(promise, found, "no line %q", want)
}

// matches checks that a line of res's standard output matches pattern.
func (r *runner) matches(res result, promise, pattern string) {
	re := regexp.MustCompile("(?m)" + pattern)
	r.check(promise, re.MatchString(res.stdout), "no line matches %q", pattern)
}

// row is the pattern of a row of wisp models list: its cells, in order,
// columns apart.
func row(cells ...string) string {
	for i, c := range cells {
		cells[i] = regexp.QuoteMeta(c)
	}
	return "^" + strings.Join(cells, " +") + "$"
}

// api calls Ollama's own API: what wisp is compared with.
func (r *runner) api(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.url+path, body)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// model is what Ollama's API says of one model.
type model struct {
	name, digest, params string
	size                 int64
	context              int
	caps                 []string
}

// facts reads every model's facts from /api/tags and /api/show.
func (r *runner) facts() (map[string]model, error) {
	var tags struct {
		Models []struct {
			Name    string `json:"name"`
			Size    int64  `json:"size"`
			Digest  string `json:"digest"`
			Details struct {
				ParameterSize string `json:"parameter_size"`
			} `json:"details"`
		} `json:"models"`
	}
	if err := r.api(http.MethodGet, "/api/tags", nil, &tags); err != nil {
		return nil, err
	}
	out := map[string]model{}
	for _, t := range tags.Models {
		var show struct {
			Capabilities []string       `json:"capabilities"`
			ModelInfo    map[string]any `json:"model_info"`
		}
		if err := r.api(http.MethodPost, "/api/show", map[string]string{"model": t.Name}, &show); err != nil {
			return nil, err
		}
		arch, _ := show.ModelInfo["general.architecture"].(string)
		n, _ := show.ModelInfo[arch+".context_length"].(float64)
		out[t.Name] = model{name: t.Name, digest: t.Digest, params: t.Details.ParameterSize, size: t.Size, context: int(n), caps: show.Capabilities}
	}
	return out, nil
}

// loaded returns the context Ollama has the model loaded with (/api/ps),
// or 0.
func (r *runner) loaded(name string) int {
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if err := r.api(http.MethodGet, "/api/ps", nil, &ps); err != nil {
		return 0
	}
	for _, m := range ps.Models {
		if m.Name == name {
			return m.ContextLength
		}
	}
	return 0
}

const (
	hello = "Hello! I am a tiny test model."
	tools = "ollama:tiny-tools:latest"
)

// checks runs every check in turn, as a person would run wisp.
func (r *runner) checks() {
	facts, err := r.facts()
	if err != nil {
		r.check("Ollama's API answers", false, "%v", err)
		return
	}
	for _, name := range []string{"tiny-tools:latest", "tiny-plain:latest", "tiny-caller:latest", "tiny-think:latest", "tiny-broken:latest"} {
		if _, ok := facts[name]; !ok {
			r.check("the server has "+name, false, "it does not")
			return
		}
	}

	fmt.Println("\n== the listing: names, sizes, parameters, context and capabilities as Ollama reports them")
	list := r.wisp("", "models", "list")
	r.exit(list, 0)
	r.matches(list, "the listing has a header that names the maximum context and the context in use apart", `^NAME +RUNTIME +PARAMETERS +SIZE +CONTEXT +IN USE +STATE +CAPABILITIES$`)
	for _, name := range slices.Sorted(maps.Keys(facts)) {
		m := facts[name]
		r.matches(list, "list shows "+m.name+" as Ollama does", row("ollama:"+m.name, "ollama", m.params, models.Size(m.size), models.Thousands(m.context), "default", "disabled", strings.Join(m.caps, ", ")))
	}
	r.has(list, "a model that cannot call tools says why", "ollama:tiny-plain:latest cannot be used: cannot call tools")
	asJSON := r.wisp("", "models", "list", "--json")
	r.exit(asJSON, 0)
	var listed struct {
		Models []struct {
			Name, Digest string
			Size         int64
			Context      int
			Capabilities []string
		}
	}
	err = json.Unmarshal([]byte(asJSON.stdout), &listed)
	r.check("list --json is JSON", err == nil, "%v: %q", err, asJSON.stdout)
	for _, l := range listed.Models {
		m := facts[strings.TrimPrefix(l.Name, "ollama:")]
		r.check("list --json gives "+l.Name+"'s facts as Ollama does", l.Size == m.size && l.Context == m.context && l.Digest == m.digest && slices.Equal(l.Capabilities, m.caps),
			"%+v, Ollama says %+v", l, m)
	}

	fmt.Println("\n== show: every fact, context: N")
	show := r.wisp("", "models", "show", "tiny-tools")
	r.exit(show, 0)
	tt := facts["tiny-tools:latest"]
	r.has(show, "show prints context: N", "context: "+models.Thousands(tt.context))
	r.has(show, "show says the context in use is the server's until it loads the model", "context in use: the server's own default, known once it has loaded the model")
	r.has(show, "show prints the parameters as Ollama does", "parameters: "+tt.params)
	r.has(show, "show prints the capabilities", "capabilities: "+strings.Join(tt.caps, ", "))

	fmt.Println("\n== enable: a check that asks for no context, so the server's own setting stands")
	en := r.wisp("", "models", "enable", "tiny-tools")
	r.exit(en, 0)
	r.has(en, "enable turns it on", tools+" is enabled: wisp may run it")
	def := r.loaded("tiny-tools:latest")
	r.check("the probe loaded the model with the server's own context", def > 0 && def < tt.context, "ollama has it loaded with %d (the model takes %d)", def, tt.context)
	r.matches(en, "the check says the context Ollama loaded it with", fmt.Sprintf(`ollama has it loaded with %s tokens of context \(the server's own setting; wisp asks for none\)`, models.Thousands(def)))
	got := r.wisp("", "config", "get", "models.enabled")
	r.has(got, "the enablement holds the model's digest", tools+"@"+tt.digest)

	fmt.Println("\n== a failed check fails, with the server's own words")
	plain := r.wisp("", "models", "enable", "tiny-plain")
	r.exit(plain, 1)
	r.has(plain, "enable of a model that cannot take tools says Ollama's 400",
		"ollama:tiny-plain:latest failed its check: the model cannot take tools: ollama answers a chat that offers one with 400 Bad Request: registry.ollama.ai/library/tiny-plain:latest does not support tools")
	broken := r.wisp("", "models", "check", "tiny-broken")
	r.exit(broken, 1)
	r.matches(broken, "check of a model that cannot load says Ollama's 500",
		`^ollama:tiny-broken:latest failed its check: .*500 Internal Server Error: llama runner process has terminated: error loading model: missing tensor 'blk\.0\.ffn_up\.weight'`)
	brokenEnable := r.wisp("", "models", "enable", "tiny-broken")
	r.exit(brokenEnable, 1)
	// Ollama answers a second load of a model that failed to load either
	// with the loader's words again or with its own "model failed to load"
	// line; either way the 500 and Ollama's text must reach the person.
	r.matches(brokenEnable, "enable of a model that cannot load says Ollama's 500", `^ollama:tiny-broken:latest failed its check: .*500 Internal Server Error: (llama runner process has terminated: error loading model: missing tensor 'blk\.0\.ffn_up\.weight'|model failed to load)`)

	for _, name := range []string{"tiny-caller", "tiny-think"} {
		r.exit(r.wisp("", "models", "enable", name), 0)
	}
	all := r.wisp("", "models", "check")
	r.exit(all, 0)
	for _, name := range []string{"tiny-caller", "tiny-think", "tiny-tools"} {
		r.has(all, "check alone checks "+name, "ollama:"+name+":latest passed its check")
	}

	fmt.Println("\n== chat: a tool call the person answers, through Ollama's own parser")
	chat := r.wisp("hi\nwisp\n", "chat", "--model", "tiny-caller", "--tool", "ask")
	r.exit(chat, 0)
	r.has(chat, "the model's question is shown", "  What is your name?")
	r.matches(chat, "the person's answer goes back to the model", `↳ answer: wisp \(from the person\)$`)
	r.has(chat, "the model answers after the tool's result", hello)
	think := r.wisp("hi\n", "chat", "--model", "tiny-think")
	r.exit(think, 0)
	r.has(think, "the model's thinking is shown apart", "(thinking) The user says hi.")
	r.has(think, "the reply follows", hello)

	fmt.Println("\n== respond: one turn, the reply on stdout")
	resp := r.wisp("", "respond", "--model", "tiny-tools", "hi")
	r.exit(resp, 0)
	r.check("respond prints the reply", resp.stdout == hello+"\n", "stdout %q", resp.stdout)
	r.check("chats asked for no context: the server's own stands", r.loaded("tiny-tools:latest") == def,
		"ollama has it loaded with %d, want %d", r.loaded("tiny-tools:latest"), def)
	list = r.wisp("", "models", "list")
	r.matches(list, "the listing names the maximum and the context in use",
		row(tools, "ollama", tt.params, models.Size(tt.size), models.Thousands(tt.context), models.Thousands(def), "enabled", strings.Join(tt.caps, ", ")))

	fmt.Println("\n== models.contextLength: every request, the probe included, asks for the same")
	r.exit(r.wisp("", "config", "set", "models.contextLength", "2048"), 0)
	ck := r.wisp("", "models", "check", "tiny-tools")
	r.exit(ck, 0)
	r.matches(ck, "the probe asks for the set context", `ollama has it loaded with 2,048 tokens of context \(wisp asks for 2,048\)`)
	resp = r.wisp("", "respond", "--model", "tiny-tools", "hi")
	r.exit(resp, 0)
	r.check("the chat asks for the same, so Ollama keeps the runner", r.loaded("tiny-tools:latest") == 2048, "ollama has it loaded with %d", r.loaded("tiny-tools:latest"))
	show = r.wisp("", "models", "show", "tiny-tools")
	r.has(show, "show says the context in use", "context in use: 2,048")
	r.exit(r.wisp("", "config", "set", "models.contextLength", "0"), 0)

	fmt.Println("\n== wisp mcp: respond over stdio")
	r.mcp()

	fmt.Println("\n== a model Ollama no longer has")
	if err := r.api(http.MethodDelete, "/api/delete", map[string]string{"model": "tiny-think"}, nil); err != nil {
		r.check("ollama rm tiny-think", false, "%v", err)
	}
	list = r.wisp("", "models", "list")
	r.matches(list, "the listing shows it as gone", `^ollama:tiny-think:latest +ollama +.* +enabled +undeclared$`)
	r.has(list, "the listing says why it is gone", "ollama:tiny-think:latest cannot be used: ollama no longer has it; wisp models disable ollama:tiny-think:latest forgets it")
	dis := r.wisp("", "models", "disable", "tiny-think")
	r.exit(dis, 0)
	r.has(dis, "disable forgets it", "ollama:tiny-think:latest is disabled: wisp will not run it")
	got = r.wisp("", "config", "get", "models.enabled")
	r.check("models.enabled no longer names it", !strings.Contains(got.stdout, "tiny-think"), "models.enabled = %q", got.stdout)

	fmt.Println("\n== another model under an enabled name is not enabled until checked")
	if err := r.api(http.MethodPost, "/api/copy", map[string]string{"source": "tiny-tools", "destination": "tiny-caller"}, nil); err != nil {
		r.check("ollama cp tiny-tools tiny-caller", false, "%v", err)
	}
	list = r.wisp("", "models", "list")
	r.matches(list, "the listing shows it disabled", `^ollama:tiny-caller:latest +ollama +.* +disabled +`)
	r.has(list, "the listing says it is not the model that was enabled",
		"ollama:tiny-caller:latest cannot be used: it is not the model that was enabled: another was pulled under its name since; wisp models check ollama:tiny-caller:latest checks it and enables it again")
	refused := r.wisp("", "respond", "--model", "tiny-caller", "hi")
	r.check("respond refuses it, saying why", refused.code != 0 && strings.Contains(refused.stderr, "it is not the model that was enabled"),
		"exit %d, stderr %q", refused.code, refused.stderr)
	ck = r.wisp("", "models", "check", "tiny-caller")
	r.exit(ck, 0)
	r.has(ck, "check enables the model now under the name", "ollama:tiny-caller:latest is enabled again: the model now under its name passed")
	got = r.wisp("", "config", "get", "models.enabled")
	r.matches(got, "its enablement holds the new digest", "ollama:tiny-caller:latest@"+tt.digest)
	resp = r.wisp("", "respond", "--model", "tiny-caller", "hi")
	r.exit(resp, 0)
}

// mcp runs wisp mcp over stdio, as a host would, and calls respond.
func (r *runner) mcp() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fmt.Println("\n$ wisp mcp --model ollama:tiny-tools   (an MCP client over stdio)")
	c, err := client.NewStdioMCPClient(r.bin, r.env, "mcp", "--model", "ollama:tiny-tools")
	if err != nil {
		r.check("wisp mcp starts", false, "%v", err)
		return
	}
	defer c.Close()
	var ir mcp.InitializeRequest
	ir.Params.ClientInfo = mcp.Implementation{Name: "interop-ollama", Version: "1"}
	ir.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init, err := c.Initialize(ctx, ir)
	r.check("wisp mcp initializes", err == nil, "%v", err)
	if err != nil {
		return
	}
	fmt.Printf("   server %s %s, protocol %s\n", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)
	tl, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	hasRespond := false
	if err == nil {
		for _, t := range tl.Tools {
			hasRespond = hasRespond || t.Name == "respond"
		}
	}
	r.check("wisp mcp offers respond", hasRespond, "tools/list = %v, %v", tl, err)
	var call mcp.CallToolRequest
	call.Params.Name = "respond"
	call.Params.Arguments = map[string]any{"prompt": "hi"}
	res, err := c.CallTool(ctx, call)
	if err != nil {
		r.check("respond over MCP answers", false, "%v", err)
		return
	}
	sc, _ := res.StructuredContent.(map[string]any)
	fmt.Printf("   respond → %v\n", sc)
	r.check("respond over MCP returns the model's reply", !res.IsError && sc["reply"] == hello, "result %+v", res)
	r.check("respond over MCP names the thread and the turn", sc["thread_id"] != "" && sc["turn"] == float64(1), "structured %v", sc)
}
