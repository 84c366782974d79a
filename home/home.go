// Package home is the wisp home folder ($WISP_HOME, ~/.wisp by default):
// where each of its files lives, the checks that it is the person's own,
// and the stores kept in it. Every program that works in the home (the
// conversation, the CLI's commands, an embedder's own) opens it here, so
// that the same checks hold for all of them.
//
// The layout, under the home:
//
//	config.json          the settings (config)
//	locks/               config.lock, thread-<id>.lock, the locks of pulls
//	audit/               the hash-chained audit log (audit)
//	threads/<id>.json    the conversations (agent/threadfile)
//	pending/             questions wisp mcp parked (inquiry/pending)
//	approvals/           approval requests wisp mcp waits on (policy/outofband)
//	approval-rules.json  the person's answers of project and always (policy/standing)
//	hub/, models/mlx/    pulled models (models/hf, models/mlx)
//	memory.json          facts kept across conversations (tools/memory)
//
// Folders are 0700 and files 0600, whatever the umask; a folder that is a
// symbolic link, someone else's, or writable by others is refused.
package home

import (
	"context"
	"path/filepath"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/agent/threadfile"
	"github.com/wisp-agent/wisp/audit"
	"github.com/wisp-agent/wisp/config"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/policy/outofband"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/policy/standing"
	"github.com/wisp-agent/wisp/tools/memory"
)

// A Home is a wisp home folder that Open has checked. Its methods name
// the files in it and return the stores kept there; none of them touches
// the disk, except OpenAudit and Events.
type Home struct{ dir string }

// Find returns the home folder's path: wispHome when it is not empty (a
// program passes the WISP_HOME environment variable), otherwise ".wisp"
// in the folder userHome returns (a program passes os.UserHomeDir). It
// must be an absolute path. Find neither creates nor checks the folder;
// Open does.
func Find(wispHome string, userHome func() (string, error)) (string, error) {
	return fsx.Home(wispHome, userHome)
}

// Open makes sure dir, its locks folder and its audit folder exist and
// are the person's own and closed to others, creating them (0700) when
// they are missing. It refuses, with one line that says how to mend it, a
// folder that is a symbolic link, belongs to someone else, is writable by
// others, or sits below a folder someone else could swap.
func Open(dir string) (*Home, error) {
	for _, d := range []string{dir, filepath.Join(dir, "locks"), filepath.Join(dir, "audit")} {
		if err := fsx.EnsureDir(d); err != nil {
			return nil, err
		}
	}
	return &Home{dir: dir}, nil
}

// Dir returns the home folder's path.
func (h *Home) Dir() string { return h.dir }

// Settings returns config.json, changed under locks/config.lock.
func (h *Home) Settings() config.Store {
	return config.Store{Path: filepath.Join(h.dir, "config.json"), LockPath: h.locks("config.lock")}
}

// AuditDir returns the folder of the audit log.
func (h *Home) AuditDir() string { return filepath.Join(h.dir, "audit") }

// OpenAudit opens the audit log with opts (nil: the defaults). When opts
// sets no Redact, every string of a record passes a secrets.Redactor of
// the log's own, so that no credential reaches the disk; give the
// session's to keep a credential's marker the same in every record of
// the session.
func (h *Home) OpenAudit(opts *audit.Options) (*audit.Log, error) {
	var o audit.Options
	if opts != nil {
		o = *opts
	}
	if o.Redact == nil {
		o.Redact = secrets.NewRedactor().Replace
	}
	return audit.Open(h.AuditDir(), &o)
}

// Events returns a sink that appends each event to the audit log,
// opening the log for the write (credentials redacted), for a program
// that records a few events and exits. A decision (audit.SyncDecisions)
// waits for the disk, as it does in a conversation.
func (h *Home) Events() wisp.EventSink {
	return wisp.EventSinkFunc(func(ctx context.Context, e wisp.Event) error {
		log, err := h.OpenAudit(&audit.Options{Sync: audit.SyncDecisions})
		if err != nil {
			return err
		}
		defer log.Close()
		return log.Record(ctx, e)
	})
}

// Witness returns what records the answers a person gives to what wisp
// mcp filed (a parked question, an approval request) before they are
// filed, in session, and vouches for answers on file: the audit log,
// opened for each record as Events opens it, so that a program that
// answers one and exits opens the log only when there is an answer to
// record.
func (h *Home) Witness(session string) wisp.Witness { return witness{h: h, session: session} }

// witness is Home.Witness.
type witness struct {
	h       *Home
	session string
}

func (w witness) Record(ctx context.Context, e wisp.Event) error {
	e.Session = w.session
	return w.h.Events().Record(ctx, e)
}

func (w witness) Vouched(_ context.Context, kind, id, sum string) (bool, error) {
	_, ok, err := audit.Find(w.h.AuditDir(), kind, map[string]string{"id": id, "fileSHA256": sum})
	return ok, err
}

// Threads returns the folder of the threads, each saved under its lock in
// locks/, every string passed through redact first (nil: a Redactor of
// each save's own).
func (h *Home) Threads(redact func(string) string) threadfile.Dir {
	return threadfile.Dir{Path: filepath.Join(h.dir, "threads"), Locks: filepath.Join(h.dir, "locks"), Redact: redact}
}

// Questions returns the folder of the questions wisp mcp parked, whose
// answers w witnesses: it records who answers, and only what it vouches
// for is taken. A nil w serves to list and show questions, never to
// answer them or take their answers.
func (h *Home) Questions(w wisp.Witness) pending.Store {
	return pending.Store{Dir: filepath.Join(h.dir, "pending"), Witness: w}
}

// Approvals returns the folder of the approval requests wisp mcp waits
// on, whose decisions w witnesses, as Questions does for answers.
func (h *Home) Approvals(w wisp.Witness) outofband.Store {
	return outofband.Store{Dir: filepath.Join(h.dir, "approvals"), Witness: w}
}

// Memory returns memory.json, the facts kept across conversations,
// changed under locks/memory.lock, every fact passed through redact
// before it is kept (nil: a Redactor of each change's own).
func (h *Home) Memory(redact func(string) string) memory.Store {
	return memory.Store{Path: filepath.Join(h.dir, "memory.json"), LockPath: h.locks("memory.lock"), Redact: redact}
}

// ApprovalRules returns approval-rules.json, where the approval gate
// keeps the person's answers of project and always (a policy.Keeper),
// changed under locks/approval-rules.lock.
func (h *Home) ApprovalRules() standing.Store {
	return standing.Store{Path: filepath.Join(h.dir, "approval-rules.json"), LockPath: h.locks("approval-rules.lock")}
}

// locks returns the path of a lock file in locks/.
func (h *Home) locks(name string) string { return filepath.Join(h.dir, "locks", name) }
