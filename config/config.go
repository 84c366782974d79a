package config

import "time"

// Config holds every setting. Its JSON form is the file's.
//
// The zero Config is not the default one; start from [Default] or [Load].
// A Config is a plain value: copy it freely, but note that copies share
// the backing array of Tools.Disabled.
type Config struct {
	Tools    Tools           `json:"tools"`
	Inquiry  Inquiry         `json:"inquiry"`
	Models   Models          `json:"models"`
	Approval Approval        `json:"approval"`
	Sandbox  Sandbox         `json:"sandbox"`
	Commands CommandSettings `json:"commands"`
}

// Sandbox holds the settings of the sandbox run_command's commands run
// in. Only the person sets them: the sandbox keeps every command from
// the wisp home, config.json among it.
type Sandbox struct {
	// Mode is sandbox.mode: "read-only" (a command writes only its private
	// temp folder), "workspace-write" (the default: the workspace too) or
	// "off" (no sandbox, and every command is asked).
	Mode string `json:"mode"`
	// Network is sandbox.network: whether commands may reach the network.
	// Off by default.
	Network bool `json:"network"`
}

// CommandSettings holds the settings of what run_command's commands are
// given.
type CommandSettings struct {
	// Env is commands.env: the variables of the person's environment a
	// command gets beyond the defaults (PATH, HOME, the locale …), by
	// name, sorted; never a WISP_* one. Empty by default.
	Env []string `json:"env"`
}

// Models holds the person's decisions about models.
type Models struct {
	// Default is models.default: the model chat and respond use when no
	// --model is given; empty for none.
	Default string `json:"default"`
	// Enabled is models.enabled: the models wisp may run, by their full
	// names (ollama:qwen3:4b, mlx:Qwen3-4B-4bit), sorted. Written by
	// enable and disable; a model not listed is disabled.
	Enabled []string `json:"enabled"`
	// Trusted is models.trusted: the publishers the person trusts to pull
	// from. Only the person writes it.
	Trusted []string `json:"trusted"`
	// ContextLength is models.contextLength: the context, in tokens,
	// every request to a model asks for (Ollama's num_ctx), the probe of
	// enable and check included; 0 (the default) asks for none, so the
	// server's own setting stands.
	ContextLength int `json:"contextLength"`
}

// Approval holds the settings of the approval gate.
type Approval struct {
	// Threshold is approval.threshold: the lowest rating of a command
	// that asks the person ("safe", "moderate" or "dangerous"; default
	// "moderate"). Some requests, such as every change to the models the
	// model asks for, are asked whatever it says.
	Threshold string `json:"threshold"`
	// OutOfBand is approval.outOfBand: whether a request asked under wisp
	// mcp also waits for wisp approvals at a terminal (and the client's
	// dialog, with inquiry.elicitation on). On by default; off, such a
	// request is refused, since nothing in the MCP conversation may
	// approve it.
	OutOfBand bool `json:"outOfBand"`
}

// Tools holds the settings that decide which tools a conversation gets.
type Tools struct {
	// Ask is tools.ask: whether a conversation given every tool also
	// gets ask. Off by default.
	Ask bool `json:"ask"`
	// AskUser is tools.ask_user: whether a conversation given every tool
	// also gets ask_user. Off by default; an interactive agent turns it
	// on with RequestApproval (tools.Interactive).
	AskUser bool `json:"ask_user"`
	// RequestApproval is tools.request_approval: whether a conversation
	// given every tool also gets request_approval. Off by default.
	RequestApproval bool `json:"request_approval"`
	// Models is tools.models: whether a conversation given every tool
	// also gets models. Off by default.
	Models bool `json:"models"`
	// Memory is tools.memory: whether a conversation given every tool
	// also gets memory. Off by default.
	Memory bool `json:"memory"`
	// ReadFile, ListFiles and Search are tools.read_file,
	// tools.list_files and tools.search: whether a conversation given
	// every tool also gets the tools that read the workspace. Off by
	// default; a conversation with a person there gets them anyway
	// (tools.Interactive).
	ReadFile  bool `json:"read_file"`
	ListFiles bool `json:"list_files"`
	Search    bool `json:"search"`
	// EditFile is tools.edit_file: whether a conversation given every
	// tool also gets edit_file. Off by default.
	EditFile bool `json:"edit_file"`
	// ScanSecrets is tools.scan_secrets: whether a conversation given
	// every tool also gets scan_secrets, which scans the workspace for
	// credentials. Off by default.
	ScanSecrets bool `json:"scan_secrets"`
	// RunCommand is tools.run_command: whether a conversation given
	// every tool also gets run_command. Off by default.
	RunCommand bool `json:"run_command"`
	// Disabled is tools.disabled: tool names removed from every
	// conversation, sorted, without duplicates. Empty by default.
	Disabled []string `json:"disabled"`
}

// Inquiry holds the settings for questions put to the person.
type Inquiry struct {
	// TimeoutSeconds is inquiry.timeoutSeconds: how long a question waits
	// for its answer; 0 (the default) waits for ever, otherwise 10 to
	// 86,400.
	TimeoutSeconds int `json:"timeoutSeconds"`
	// Elicitation is inquiry.elicitation: whether wisp mcp also puts a
	// question or an approval to the MCP client's own dialog, when the
	// client declared it can show one. Off by default: the client's
	// dialog is drawn by the agent that called wisp.
	Elicitation bool `json:"elicitation"`
}

// Default returns the settings wisp uses when config.json is missing.
func Default() Config {
	var c Config
	for _, s := range settings() {
		// Every default parses; a test holds the table to that.
		_ = s.parse(&c, s.Default)
	}
	return c
}

// Timeout returns how long a question waits for its answer, or 0 when it
// waits for ever.
func (c Config) Timeout() time.Duration {
	if c.Inquiry.TimeoutSeconds <= 0 {
		return 0
	}
	return time.Duration(c.Inquiry.TimeoutSeconds) * time.Second
}
