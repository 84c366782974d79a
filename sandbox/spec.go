package sandbox

// launcherArg is the argument that makes a program a launcher: the
// program's own binary, started by Run with it as its first argument, sets
// up the sandbox and execs the shell.
const launcherArg = "__wisp-sandbox-launcher"

// spec is what Run tells the launcher, as JSON over the launcher's fd 3,
// kept off the command line (which any process may read) because the
// environment can hold secrets.
type spec struct {
	// Probe sets up everything, reports on fd 4 and exits instead of
	// running a command.
	Probe bool `json:"probe,omitempty"`
	// Confine is false in mode off: the launcher only sets limits.
	Confine bool `json:"confine,omitempty"`
	Mode    Mode `json:"mode"`
	// Argv is what the launcher execs; Argv[0] is an absolute path.
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`

	Workspace string   `json:"workspace"`
	Temp      string   `json:"temp"`
	Hide      []string `json:"hide,omitempty"`
	ReadOnly  []string `json:"readOnly,omitempty"`
	Network   bool     `json:"network,omitempty"`

	Processes int   `json:"processes"`
	FileSize  int64 `json:"fileSize"`
	OpenFiles int   `json:"openFiles"`
}

// The launcher's reports on fd 4, each a first byte and its text. Nothing
// at all means the program is not a launcher: it never called Main.
const (
	statusReady = 'R' // the spec was read; the exec or an error follows
	statusError = 'E' // the rest is one line saying what failed
	statusProbe = 'P' // the rest is a probeReport as JSON
)

// probeReport is what a probing launcher found.
type probeReport struct {
	LandlockABI int      `json:"landlockABI"`
	Weaknesses  []string `json:"weaknesses,omitempty"`
}
