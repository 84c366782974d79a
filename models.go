package wisp

// An Actor is who asks for a change: the person, or the model through a
// tool (with the person's approval).
type Actor int

// The actors. The zero Actor is ActorModel, the one with fewer rights.
const (
	ActorModel Actor = iota
	ActorPerson
)

// String returns "model" or "person".
func (a Actor) String() string {
	if a == ActorPerson {
		return "person"
	}
	return "model"
}

// ModelInfo is what wisp knows of one local model.
type ModelInfo struct {
	Name         string // "ollama:qwen3:4b", "mlx:Qwen3-4B-4bit"
	Runtime      string // "ollama", "mlx"
	Parameters   string // "4.0B"
	Quantization string // "Q4_K_M", "4-bit"
	Size         int64  // bytes on disk
	// Context is the most context the model takes, in tokens, as its
	// facts state it; 0 when unknown.
	Context int
	// RunContext is the context, in tokens, the model runs with: the
	// length config.json sets (models.contextLength), else the one its
	// runner has it loaded with (Ollama's /api/ps); 0 when neither is
	// known, as for a model Ollama has not loaded, which gets the
	// server's own default.
	RunContext int
	// Digest names the model's files as its backend knows them:
	// Ollama's manifest digest, the commit an MLX model was pulled at;
	// "" when there is none (a folder of one's own). An enablement holds
	// to the digest the model had when it was checked.
	Digest  string
	Enabled bool
	// Capabilities are what the model can do: "completion", "tools",
	// "thinking", "vision", "embedding".
	Capabilities []string
	// Repo is where an MLX model came from ("mlx-community/Qwen3-4B-4bit").
	Repo string
	// Licence names the model's licence, when it states one.
	Licence string
	// Usable is false when the model cannot run here; Why says why.
	Usable bool
	Why    string
}

// A Listing is one page of the models wisp can run.
type Listing struct {
	Models []ModelInfo
	Page   int
	Pages  int
	// Unreachable names the backends that did not answer, with why.
	Unreachable []string
}

// PullStarted says a pull is running in the background.
type PullStarted struct {
	Repo     string
	Approval string
	Bytes    int64 // still to fetch
	Files    int   // files still to fetch
	Total    int   // files in the repository
}

// A Change is what an enable, disable or check did, as lines the person
// and the model read.
type Change struct {
	Name  string
	Lines []string
}
