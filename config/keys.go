package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/policy/secrets"
)

// Key describes one setting.
type Key struct {
	// Name is the dotted name, the contract: "tools.ask" is "ask" inside
	// "tools" in the file.
	Name string
	// Kind is "bool", "int" or "list" (of tool names).
	Kind string
	// Default is the default value as Get prints it.
	Default string
	// Doc says in one line what the setting does.
	Doc string
	// Security marks a setting that decides what wisp's model may use or
	// do without asking, or who may answer for the person: the tools,
	// the models that may run and the publishers trusted, the approval
	// settings and the client's dialog. wisp records every change to one
	// in the audit log (config.change).
	Security bool
}

// setting is one row of the key table: a Key and the functions that read,
// print and check its value in a Config.
type setting struct {
	Key
	// parse reads text as typed on the command line into c; on error c
	// is unchanged.
	parse func(c *Config, text string) error
	// decode reads a raw JSON value from the file into c.
	decode func(c *Config, raw json.RawMessage) error
	// format prints c's value as Get does.
	format func(c Config) string
	// check validates c's value before a save and puts it in canonical
	// form.
	check func(c *Config) error
}

// securityKeys are the settings whose Key is marked Security.
var securityKeys = []string{
	"approval.outOfBand", "approval.threshold", "inquiry.elicitation", "models.enabled", "models.trusted",
	"tools.ask", "tools.ask_user", "tools.disabled", "tools.memory", "tools.models", "tools.request_approval",
	"tools.read_file", "tools.list_files", "tools.search", "tools.edit_file", "tools.scan_secrets",
	"tools.run_command", "sandbox.mode", "sandbox.network", "commands.env",
}

// settings returns the key table, each Key marked Security as
// securityKeys says.
func settings() []setting {
	rows := table()
	for i := range rows {
		rows[i].Security = slices.Contains(securityKeys, rows[i].Name)
	}
	return rows
}

// table returns the rows of the key table. A new setting is one row here
// and one field in Config; the field's JSON path must match the dotted
// name, which a test checks.
func table() []setting {
	return []setting{
		boolSetting(Key{
			Name:    "tools.ask",
			Default: "false",
			Doc:     "give ask, the tool that puts questions to you, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.Ask }),
		boolSetting(Key{
			Name:    "tools.ask_user",
			Default: "false",
			Doc:     "give ask_user, the tool that puts structured questions to you and collects secrets, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.AskUser }),
		boolSetting(Key{
			Name:    "tools.request_approval",
			Default: "false",
			Doc:     "give request_approval, the tool that asks your permission before a destructive, irreversible or outward-facing action, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.RequestApproval }),
		boolSetting(Key{
			Name:    "tools.models",
			Default: "false",
			Doc:     "give models, the tool that lists models and asks you to change them, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.Models }),
		boolSetting(Key{
			Name:    "tools.memory",
			Default: "false",
			Doc:     "give memory, the tool that keeps facts across conversations with your approval, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.Memory }),
		boolSetting(Key{
			Name:    "tools.read_file",
			Default: "false",
			Doc:     "give read_file, the tool that reads a file in the workspace, to conversations that get every tool (a chat has it anyway)",
		}, func(c *Config) *bool { return &c.Tools.ReadFile }),
		boolSetting(Key{
			Name:    "tools.list_files",
			Default: "false",
			Doc:     "give list_files, the tool that lists the workspace's files, to conversations that get every tool (a chat has it anyway)",
		}, func(c *Config) *bool { return &c.Tools.ListFiles }),
		boolSetting(Key{
			Name:    "tools.search",
			Default: "false",
			Doc:     "give search, the tool that searches the workspace's files, to conversations that get every tool (a chat has it anyway)",
		}, func(c *Config) *bool { return &c.Tools.Search }),
		boolSetting(Key{
			Name:    "tools.edit_file",
			Default: "false",
			Doc:     "give edit_file, the tool that changes a file in the workspace once you approved its diff, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.EditFile }),
		boolSetting(Key{
			Name:    "tools.scan_secrets",
			Default: "false",
			Doc:     "give scan_secrets, the tool that scans the workspace's files for credentials and names each by a marker, never its value, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.ScanSecrets }),
		boolSetting(Key{
			Name:    "tools.run_command",
			Default: "false",
			Doc:     "give run_command, the tool that runs shell commands in the workspace through the classifier, your approval and the sandbox, to conversations that get every tool",
		}, func(c *Config) *bool { return &c.Tools.RunCommand }),
		enumSetting(Key{
			Name:    "sandbox.mode",
			Default: "workspace-write",
			Doc:     "where run_command's commands may write: read-only, workspace-write (the workspace and a private temp folder) or off (no sandbox, and every command is asked)",
		}, []string{"read-only", "workspace-write", "off"}, func(c *Config) *string { return &c.Sandbox.Mode }),
		boolSetting(Key{
			Name:    "sandbox.network",
			Default: "false",
			Doc:     "let run_command's commands reach the network",
		}, func(c *Config) *bool { return &c.Sandbox.Network }),
		listSetting(Key{
			Name:    "commands.env",
			Default: "",
			Doc:     "variables of your environment that run_command's commands get beyond the defaults, as comma-separated names (never WISP_*)",
		}, envNames, isEnvName, func(c *Config) *[]string { return &c.Commands.Env }),
		listSetting(Key{
			Name:    "tools.disabled",
			Default: "",
			Doc:     "tools taken out of every conversation, as comma-separated names",
		}, toolNames, isToolName, func(c *Config) *[]string { return &c.Tools.Disabled }),
		stringSetting(Key{
			Name:    "models.default",
			Default: "",
			Doc:     "the model chat and respond use when --model is not given (ollama:NAME[:TAG] or mlx:NAME)",
		}, "a model name (ollama:NAME[:TAG] or mlx:NAME), or nothing to have none", isModelName, func(c *Config) *string { return &c.Models.Default }),
		listSetting(Key{
			Name:    "models.enabled",
			Default: "",
			Doc:     "the models wisp may run, as comma-separated names, each with @ and the digest it was checked at (set by wisp models enable, disable and check)",
		}, enabledNames, isEnabledModel, func(c *Config) *[]string { return &c.Models.Enabled }),
		listSetting(Key{
			Name:    "models.trusted",
			Default: "",
			Doc:     "publishers you trust to pull models from (set by wisp models trust)",
		}, publisherNames, isPublisher, func(c *Config) *[]string { return &c.Models.Trusted }),
		intSetting(Key{
			Name:    "models.contextLength",
			Default: "0",
			Doc:     "tokens of context every request to a model asks for (Ollama's num_ctx); 0 leaves it to the server (OLLAMA_CONTEXT_LENGTH)",
		}, "0 (the server's own) or 256 to 16,777,216",
			func(n int) bool { return n == 0 || 256 <= n && n <= 1<<24 },
			func(c *Config) *int { return &c.Models.ContextLength }),
		enumSetting(Key{
			Name:    "approval.threshold",
			Default: "moderate",
			Doc:     "the lowest rating of a command that asks your approval: safe, moderate or dangerous",
		}, []string{"safe", "moderate", "dangerous"}, func(c *Config) *string { return &c.Approval.Threshold }),
		boolSetting(Key{
			Name:    "approval.outOfBand",
			Default: "true",
			Doc:     "under wisp mcp, let you answer an approval with wisp approvals (and the client's dialog, with inquiry.elicitation)",
		}, func(c *Config) *bool { return &c.Approval.OutOfBand }),
		boolSetting(Key{
			Name:    "inquiry.elicitation",
			Default: "false",
			Doc:     "under wisp mcp, also put questions and approvals to the MCP client's dialog when it can show one",
		}, func(c *Config) *bool { return &c.Inquiry.Elicitation }),
		intSetting(Key{
			Name:    "inquiry.timeoutSeconds",
			Default: "0",
			Doc:     "seconds a question waits for your answer; 0 waits for ever, otherwise 10 to 86,400",
		}, "0 (wait for ever) or 10 to 86,400",
			func(n int) bool { return n == 0 || 10 <= n && n <= 86_400 },
			func(c *Config) *int { return &c.Inquiry.TimeoutSeconds }),
	}
}

// Keys returns every setting, sorted by name.
func Keys() []Key {
	var keys []Key
	for _, s := range settings() {
		keys = append(keys, s.Key)
	}
	slices.SortFunc(keys, func(a, b Key) int { return strings.Compare(a.Name, b.Name) })
	return keys
}

// A Change is one setting whose value differs between two Configs.
type Change struct {
	Key Key
	// From and To are the values before and after, as Get prints them.
	From, To string
	// Added and Removed, for a list, are the names it gained and lost,
	// in order.
	Added, Removed []string
}

// Diff returns the settings whose values differ from before to after, by
// key name.
func Diff(before, after Config) []Change {
	var changes []Change
	for _, s := range settings() {
		from, to := s.format(before), s.format(after)
		if from == to {
			continue
		}
		ch := Change{Key: s.Key, From: from, To: to}
		if s.Kind == "list" {
			was, is := splitList(from), splitList(to)
			for _, n := range is {
				if !slices.Contains(was, n) {
					ch.Added = append(ch.Added, n)
				}
			}
			for _, n := range was {
				if !slices.Contains(is, n) {
					ch.Removed = append(ch.Removed, n)
				}
			}
		}
		changes = append(changes, ch)
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Key.Name, b.Key.Name) })
	return changes
}

// splitList reads a list as Get prints it.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// lookup finds the row for key.
func lookup(key string) (setting, error) {
	for _, s := range settings() {
		if s.Name == key {
			return s, nil
		}
	}
	return setting{}, unknownKey(key)
}

// unknownKey builds the ErrUnknownKey error for key.
func unknownKey(key string) error {
	var names []string
	for _, k := range Keys() {
		names = append(names, k.Name)
	}
	return &lineError{
		msg:  fmt.Sprintf(msgUnknownKey, clip(key), strings.Join(names, ", ")),
		errs: []error{ErrUnknownKey},
	}
}

// credential returns the rule ID of the first credential package secrets
// finds in s, or "" when it finds none. No setting ever holds one.
func credential(s string) string {
	if m := secrets.Scan(s); len(m) > 0 {
		return m[0].Rule
	}
	return ""
}

// Set sets the setting key to value, given as on the command line: a bool
// takes true, false, on or off in any case; an int a plain decimal number;
// a list comma-separated tool names, each a lower-case letter followed by
// up to 63 lower-case letters, digits or underscores, which Set sorts and
// rids of duplicates (the empty string clears the list). On error c is
// unchanged; the error matches ErrUnknownKey or ErrBadValue. A value that
// looks like a credential (package secrets finds one in it) is refused for
// every key, without being repeated: no setting holds a secret.
func (c *Config) Set(key, value string) error {
	s, err := lookup(key)
	if err != nil {
		return err
	}
	if rule := credential(value); rule != "" {
		return badValue(fmt.Sprintf(msgCredential, key, rule))
	}
	return s.parse(c, value)
}

// Get prints the setting key as Set takes it: a bool as true or false, an
// int in decimal, a list comma-separated. The error matches ErrUnknownKey.
func (c Config) Get(key string) (string, error) {
	s, err := lookup(key)
	if err != nil {
		return "", err
	}
	return s.format(c), nil
}

// boolSetting builds a row for a bool field.
func boolSetting(k Key, field func(*Config) *bool) setting {
	k.Kind = "bool"
	parse := func(text, shown string) (bool, error) {
		switch asciiLower(text) {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		}
		return false, badValue(fmt.Sprintf(msgBadBool, k.Name, shown))
	}
	return setting{
		Key: k,
		parse: func(c *Config, text string) error {
			v, err := parse(text, quote(text))
			if err == nil {
				*field(c) = v
			}
			return err
		},
		decode: func(c *Config, raw json.RawMessage) error {
			var v bool
			switch text, isString := jsonString(raw); {
			case isString:
				var err error
				if v, err = parse(text, quote(text)); err != nil {
					return err
				}
			case string(raw) == "true" || string(raw) == "false":
				v = string(raw) == "true"
			default:
				return badValue(fmt.Sprintf(msgBadBool, k.Name, showJSON(raw)))
			}
			*field(c) = v
			return nil
		},
		format: func(c Config) string { return strconv.FormatBool(*field(&c)) },
		check:  func(*Config) error { return nil },
	}
}

// intSetting builds a row for an int field whose valid values ok accepts;
// rule says which they are.
func intSetting(k Key, rule string, ok func(int) bool, field func(*Config) *int) setting {
	k.Kind = "int"
	bad := func(shown string) error { return badValue(fmt.Sprintf(msgBadInt, k.Name, rule, shown)) }
	parse := func(text, shown string) (int, error) {
		if !isDecimal(text) {
			return 0, bad(shown)
		}
		n, err := strconv.Atoi(text)
		if err != nil || !ok(n) {
			return 0, bad(clip(text))
		}
		return n, nil
	}
	return setting{
		Key: k,
		parse: func(c *Config, text string) error {
			n, err := parse(text, quote(text))
			if err == nil {
				*field(c) = n
			}
			return err
		},
		decode: func(c *Config, raw json.RawMessage) error {
			text, isString := jsonString(raw)
			shown := quote(text)
			if !isString {
				text, shown = string(raw), showJSON(raw)
			}
			n, err := parse(text, shown)
			if err == nil {
				*field(c) = n
			}
			return err
		},
		format: func(c Config) string { return strconv.Itoa(*field(&c)) },
		check: func(c *Config) error {
			if n := *field(c); !ok(n) {
				return bad(strconv.Itoa(n))
			}
			return nil
		},
	}
}

// listSetting builds a row for a list of names that valid accepts; what
// says what they are, for the error.
func listSetting(k Key, what string, valid func(string) bool, field func(*Config) *[]string) setting {
	k.Kind = "list"
	bad := func(shown string) error { return badValue(fmt.Sprintf(msgBadList, k.Name, what, shown)) }
	parse := func(text string) ([]string, error) {
		names := []string{}
		if strings.TrimSpace(text) == "" {
			return names, nil
		}
		for item := range strings.SplitSeq(text, ",") {
			item = strings.TrimSpace(item)
			if !valid(item) {
				return nil, bad(quote(item))
			}
			names = append(names, item)
		}
		return tidy(names), nil
	}
	return setting{
		Key: k,
		parse: func(c *Config, text string) error {
			names, err := parse(text)
			if err == nil {
				*field(c) = names
			}
			return err
		},
		decode: func(c *Config, raw json.RawMessage) error {
			if text, isString := jsonString(raw); isString {
				names, err := parse(text)
				if err == nil {
					*field(c) = names
				}
				return err
			}
			var items []json.RawMessage
			if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
				return bad(showJSON(raw))
			}
			names := []string{}
			for _, item := range items {
				name, isString := jsonString(item)
				if !isString {
					return bad(showJSON(item))
				}
				if !valid(name) {
					return bad(quote(name))
				}
				names = append(names, name)
			}
			*field(c) = tidy(names)
			return nil
		},
		format: func(c Config) string { return strings.Join(*field(&c), ",") },
		check: func(c *Config) error {
			names := *field(c)
			for _, name := range names {
				if !valid(name) {
					return bad(quote(name))
				}
			}
			*field(c) = tidy(slices.Clone(names))
			return nil
		},
	}
}

// What each list holds, for its error.
const (
	toolNames      = "tool names separated by commas (lower-case letters, digits, _)"
	enabledNames   = "model names separated by commas (ollama:NAME[:TAG] or mlx:NAME, each maybe with @DIGEST, 12 to 64 lower-case hex digits)"
	publisherNames = "publishers separated by commas (Hugging Face organisations or users, like mlx-community)"
	envNames       = "environment variable names separated by commas (letters, digits, _; never WISP_*)"
)

// isEnvName reports whether s is an environment variable's name that
// commands may be given: a letter or _, then up to 127 letters, digits or
// _, and not one of wisp's own (WISP_*).
func isEnvName(s string) bool {
	if s == "" || len(s) > 128 || '0' <= s[0] && s[0] <= '9' || strings.HasPrefix(asciiLower(s), "wisp_") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// isModelName reports whether s is a model name as wisp writes it:
// ollama:NAME[:TAG] or mlx:NAME, with no spaces or control characters.
func isModelName(s string) bool {
	runtime, rest, ok := strings.Cut(s, ":")
	if !ok || (runtime != "ollama" && runtime != "mlx") || rest == "" || len(rest) > 200 {
		return false
	}
	for _, r := range rest {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._-:/", r)) {
			return false
		}
	}
	return !strings.Contains(rest, "..")
}

// isEnabledModel reports whether s is an entry of models.enabled: a
// model name (isModelName), maybe followed by @ and the digest the model
// had when it was checked, 12 to 64 lower-case hex digits. An entry
// without one, as older files have, names the model whatever its digest.
func isEnabledModel(s string) bool {
	name, digest, bound := strings.Cut(s, "@")
	if !bound {
		return isModelName(s)
	}
	if len(digest) < 12 || len(digest) > 64 {
		return false
	}
	for _, r := range digest {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return isModelName(name)
}

// isPublisher reports whether s is a Hugging Face organisation or user
// name.
func isPublisher(s string) bool {
	if s == "" || len(s) > 96 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return !strings.Contains(s, "..")
}

// stringSetting builds a row for a string that valid accepts, or that is
// empty; what says what it must be, for the error.
func stringSetting(k Key, what string, valid func(string) bool, field func(*Config) *string) setting {
	k.Kind = "string"
	ok := func(v string) bool { return v == "" || valid(v) }
	bad := func(shown string) error { return badValue(fmt.Sprintf(msgBadEnum, k.Name, what, shown)) }
	return setting{
		Key: k,
		parse: func(c *Config, text string) error {
			v := strings.TrimSpace(text)
			if !ok(v) {
				return bad(quote(text))
			}
			*field(c) = v
			return nil
		},
		decode: func(c *Config, raw json.RawMessage) error {
			text, isString := jsonString(raw)
			if !isString || !ok(text) {
				return bad(showJSON(raw))
			}
			*field(c) = text
			return nil
		},
		format: func(c Config) string { return *field(&c) },
		check: func(c *Config) error {
			if !ok(*field(c)) {
				return bad(quote(*field(c)))
			}
			return nil
		},
	}
}

// enumSetting builds a row for a string that takes one of values.
func enumSetting(k Key, values []string, field func(*Config) *string) setting {
	k.Kind = "enum"
	bad := func(shown string) error {
		return badValue(fmt.Sprintf(msgBadEnum, k.Name, strings.Join(values[:len(values)-1], ", ")+" or "+values[len(values)-1], shown))
	}
	parse := func(text, shown string) (string, error) {
		v := asciiLower(strings.TrimSpace(text))
		if !slices.Contains(values, v) {
			return "", bad(shown)
		}
		return v, nil
	}
	return setting{
		Key: k,
		parse: func(c *Config, text string) error {
			v, err := parse(text, quote(text))
			if err == nil {
				*field(c) = v
			}
			return err
		},
		decode: func(c *Config, raw json.RawMessage) error {
			text, isString := jsonString(raw)
			if !isString {
				return bad(showJSON(raw))
			}
			v, err := parse(text, quote(text))
			if err == nil {
				*field(c) = v
			}
			return err
		},
		format: func(c Config) string { return *field(&c) },
		check: func(c *Config) error {
			if !slices.Contains(values, *field(c)) {
				return bad(quote(*field(c)))
			}
			return nil
		},
	}
}

// tidy sorts names and drops duplicates, in place; nil becomes empty.
func tidy(names []string) []string {
	if names == nil {
		return []string{}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// isToolName reports whether s is a tool name: a lower-case ASCII letter,
// then up to 63 lower-case letters, digits or underscores.
func isToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		b := s[i]
		if !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is a plain decimal number: digits, with an
// optional leading minus sign.
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// asciiLower lower-cases the ASCII letters of s and nothing else, so that
// no other script's letters can fold into "true" or "off".
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// jsonString returns the text of raw when raw is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// maxShown caps how much of a bad value an error repeats.
const maxShown = 64

// clip makes s fit to show in an error: credentials in it replaced by
// markers, then cut to maxShown bytes on a rune boundary, marking the
// cut.
func clip(s string) string {
	s, _ = secrets.NewRedactor().Redact(s)
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// quote shows a value typed by a person, quoted and on one line.
func quote(s string) string { return strconv.Quote(clip(s)) }

// showJSON shows a raw JSON value from the file, compacted onto one line.
func showJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return quote(string(raw))
	}
	return clip(b.String())
}
