package files

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/fsx"
	"github.com/wisp-agent/wisp/internal/walk"
	"github.com/wisp-agent/wisp/policy"
	"github.com/wisp-agent/wisp/tools"
)

// Limits of edit_file.
const (
	// MaxEditBytes bounds the file edit_file reads and the file it
	// writes.
	MaxEditBytes = 4 << 20
	// MaxDiffLines and MaxDiffBytes bound the diff the person is shown;
	// past them it ends in a line that says how much was left out.
	MaxDiffLines = 400
	MaxDiffBytes = 16 << 10
)

// KindEdit is the kind of edit_file's approval requests
// (wisp.ApprovalRequest.Kind).
const KindEdit = "fileEdit"

//go:embed edit_file.md
var editDescription string

type editArgs struct {
	Path string `json:"path" jsonschema:"The file, relative to the workspace"`
	Mode string `json:"mode" jsonschema:"replace: old, found exactly once, becomes new; create: a new file holding new; append: new added at the end; write: the whole file becomes new"`
	Old  string `json:"old,omitempty" jsonschema:"For replace only: the exact text to replace, as read_file shows it without the line numbers; it must occur once in the file"`
	New  string `json:"new" jsonschema:"The new text"`
}

// writeFile writes a file atomically inside the root; the tests make it
// fail.
var writeFile = fsx.WriteFileIn

// EditFile returns the edit_file tool, a wisp.Guarded: each call says
// what it would do as the command "edit_file MODE PATH" (PATH the file's
// real path in the workspace, its links followed), with the change as a
// unified diff of the redacted texts (wisp.Action.Diff, within
// MaxDiffLines and MaxDiffBytes) for the person to approve, and its text
// two lines: what it changes, and how the rows of Rules rate it ("rated
// dangerous: changes git's own files: …"). An answer of "this session" covers the same mode on any
// file of the same folder, and is not offered for a file that steers
// another program.
//
// The modes: replace puts new in place of old, which must occur exactly
// once in the file as the model reads it (redacted; old with a
// redaction marker, or no match, or several, is an error that says
// which, and where); create makes a new file and is refused if the path
// exists; append adds new at the end, after a line break if the file
// lacks one; write makes new the whole file. replace, append and write
// turn new's line breaks into CRLF in a file that uses CRLF. A missing
// folder is made.
//
// When it runs, the call works out the change again and writes only if
// the command and the diff are still the ones approved (wisp.Approval),
// so a file changed while the person read the request is not written
// over; a call with no approval writes nothing. The file is written
// atomically (a temp file beside it, synced, renamed over it, the
// folder synced), keeping its permission bits; a new file gets those the
// umask leaves of 0666. A write that fails is an error the model reads,
// and the file is as it was.
func (w *Workspace) EditFile() wisp.Tool {
	return tools.New(NameEditFile, editDescription, w.editFile, &tools.Options{
		Schema: func(s *jsonschema.Schema) {
			pathLimits(s.Properties["path"], true)
			s.Properties["mode"].Enum = []any{ModeReplace, ModeCreate, ModeAppend, ModeWrite}
			s.Properties["old"].MaxLength = jsonschema.Ptr(MaxEditBytes)
			s.Properties["new"].MaxLength = jsonschema.Ptr(MaxEditBytes)
		},
		// A face shows the summary after the tool's name: together they
		// read as the command the person is asked about.
		Summary: summary(func(a editArgs) string { return a.Mode + " " + a.Path }),
		Action:  w.editAction,
	})
}

// A change is what an edit would do, worked out from the file as it is.
type change struct {
	real    string // the file's real path in the workspace
	mode    string
	command string
	diff    string
	text    string // for the person
	done    string // for the model, once written
	content string // the file's new content
	exists  bool
	perm    fs.FileMode
}

// editAction says what a call would do. A call that would be refused
// needs no approval: it changes nothing.
func (w *Workspace) editAction(_ context.Context, c wisp.Call) (wisp.Action, error) {
	var a editArgs
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		return wisp.Action{NoApproval: true}, nil
	}
	ch, err := w.change(a)
	if err != nil {
		return wisp.Action{NoApproval: true}, nil
	}
	// The person reads how the edit is rated, and why: what tells an
	// edit of .git/config from one of main.go is the rating alone.
	v := ownRows.Classify(ch.command)
	scopes := []wisp.Scope{wisp.ScopeOnce, wisp.ScopeSession}
	if v.Rating >= policy.Dangerous {
		scopes = scopes[:1]
	}
	return wisp.Action{
		Kind:    KindEdit,
		Command: ch.command,
		Pattern: NameEditFile + " " + ch.mode + " " + path.Join(path.Dir(ch.real), "*"),
		Text:    ch.text + "\nrated " + v.Rating.String() + ": " + v.Reason,
		Diff:    ch.diff,
		Scopes:  scopes,
	}, nil
}

func (w *Workspace) editFile(ctx context.Context, c wisp.Call, a editArgs) (wisp.Result, error) {
	out, err := w.edit(c.Approval, a)
	return result(ctx, out, err)
}

// edit is edit_file's work, under approval.
func (w *Workspace) edit(approval wisp.Approval, a editArgs) (string, error) {
	ch, err := w.change(a)
	if err != nil {
		return "", err
	}
	switch {
	case approval.ID == "":
		return "", problemf("%s was not changed: this edit was not approved (the file may have changed after it was judged); read it again and send the edit anew", quote(a.Path))
	case approval.Command != ch.command || approval.Diff != ch.diff:
		return "", problemf("%s was not changed: it changed while the person read the request, so the change approved is not the one it would make now; read it again and send the edit anew", quote(a.Path))
	}
	name := filepath.FromSlash(ch.real)
	perm := ch.perm
	created := false
	if !ch.exists {
		if dir := path.Dir(ch.real); dir != "." {
			if err := w.root.MkdirAll(filepath.FromSlash(dir), 0o777); err != nil {
				return "", problemf("%s was not created: %s", quote(a.Path), pathError(err))
			}
		}
		// Made empty first, with O_EXCL, so that a file that appeared
		// meanwhile is not written over and the umask sets the mode.
		f, err := w.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			return "", problemf("%s was not created: it appeared after the change was approved; read it and send the edit anew", quote(a.Path))
		}
		if err != nil {
			return "", problemf("%s was not created: %s", quote(a.Path), pathError(err))
		}
		fi, err := f.Stat()
		f.Close()
		if err == nil {
			perm = fi.Mode().Perm()
		}
		created = true
	}
	if err := writeFile(w.root, name, []byte(ch.content), perm); err != nil {
		if created {
			w.root.Remove(name)
		}
		return "", problemf("%s was not changed: the write failed (%s); the file is as it was", quote(a.Path), pathError(err))
	}
	return w.redact(ch.done), nil
}

// change works out what an edit would do to the file as it is now.
func (w *Workspace) change(a editArgs) (*change, error) {
	switch a.Mode {
	case ModeReplace:
		if a.Old == "" {
			return nil, problem("replace needs old: the exact text to replace, as read_file shows it")
		}
	case ModeCreate, ModeAppend, ModeWrite:
		if a.Old != "" {
			return nil, problemf("old is for replace only; %s takes new alone", a.Mode)
		}
	default:
		return nil, problemf("unknown mode %s; mode is replace, create, append or write", quote(a.Mode))
	}
	if strings.Contains(a.New, markerPrefix) {
		return nil, problem("new holds a redaction marker ([REDACTED:…]), which stands for a value you were never shown; writing it would put the marker in place of the value. Leave the lines that hold it out of the edit")
	}
	real, err := w.resolve(a.Path)
	if err != nil {
		return nil, err
	}
	if real == "." {
		return nil, problem("the path names the workspace itself; give a file's path")
	}
	ch := &change{real: real, mode: a.Mode, command: NameEditFile + " " + a.Mode + " " + real, perm: 0o644}
	name := filepath.FromSlash(real)
	fi, err := w.root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, problemf("%s: %s", quote(a.Path), pathError(err))
	case fi.IsDir():
		return nil, problemf("%s is a folder; give a file's path", quote(a.Path))
	case !fi.Mode().IsRegular():
		return nil, problemf("%s is not a regular file (%s); edit_file changes files", quote(a.Path), fileKind(fi.Mode()))
	default:
		ch.exists, ch.perm = true, fi.Mode().Perm()
	}
	var old string
	switch {
	case ch.exists && a.Mode == ModeCreate:
		return nil, problemf("%s exists already; read it, then use replace, append or write", quote(a.Path))
	case !ch.exists && a.Mode == ModeReplace:
		return nil, problemf("%s does not exist; make it with mode create", quote(a.Path))
	case ch.exists:
		f, err := w.root.Open(name)
		if err != nil {
			return nil, problemf("%s: %s", quote(a.Path), pathError(err))
		}
		data, err := readAll(f, MaxEditBytes)
		f.Close()
		switch {
		case errors.Is(err, errTooLarge):
			return nil, problemf("%s is larger than %d MiB, more than edit_file changes", quote(a.Path), MaxEditBytes>>20)
		case err != nil:
			return nil, problemf("%s: %s", quote(a.Path), pathError(err))
		case walk.Binary(data):
			return nil, problemf("%s is a binary file; edit_file changes text files", quote(a.Path))
		}
		old = string(data)
	}
	crlf := strings.Contains(old, "\r\n")
	newText := a.New
	if crlf && a.Mode != ModeCreate {
		newText = toCRLF(newText)
	}
	shown := a.Path
	if real != path.Clean(filepath.ToSlash(a.Path)) {
		shown = real
	}
	switch a.Mode {
	case ModeReplace:
		oldText := a.Old
		if crlf {
			oldText = toCRLF(oldText)
		}
		ch.content, err = w.replace(shown, old, oldText, newText)
		if err != nil {
			return nil, err
		}
		ch.text = fmt.Sprintf("replaces %s in %s with %s", lines(countLines(oldText)), real, lines(countLines(newText)))
		ch.done = fmt.Sprintf("replaced %s in %s with %s", lines(countLines(oldText)), shown, lines(countLines(newText)))
	case ModeCreate:
		ch.content = newText
		ch.text = fmt.Sprintf("creates %s, %s", real, lines(countLines(newText)))
		ch.done = fmt.Sprintf("created %s, %s", shown, lines(countLines(newText)))
	case ModeAppend:
		sep := ""
		if old != "" && !strings.HasSuffix(old, "\n") {
			sep = "\n"
			if crlf {
				sep = "\r\n"
			}
		}
		ch.content = old + sep + newText
		ch.text = fmt.Sprintf("adds %s at the end of %s", lines(countLines(newText)), real)
		ch.done = fmt.Sprintf("added %s at the end of %s", lines(countLines(newText)), shown)
	case ModeWrite:
		ch.content = newText
		if ch.exists {
			ch.text = fmt.Sprintf("writes %s anew: %s, where it had %s", real, lines(countLines(newText)), lines(countLines(old)))
		} else {
			ch.text = fmt.Sprintf("writes %s, a new file, %s", real, lines(countLines(newText)))
		}
		ch.done = fmt.Sprintf("wrote %s, %s", shown, lines(countLines(newText)))
	}
	if !ch.exists && a.Mode == ModeAppend {
		ch.text = fmt.Sprintf("creates %s, %s", real, lines(countLines(newText)))
	}
	switch {
	case ch.exists && ch.content == old:
		return nil, problemf("the edit leaves %s as it is; nothing to change", quote(a.Path))
	case len(ch.content) > MaxEditBytes:
		return nil, problemf("the edit would make %s larger than %d MiB, more than edit_file writes", quote(a.Path), MaxEditBytes>>20)
	}
	if real != path.Clean(filepath.ToSlash(a.Path)) {
		ch.text += " (named " + a.Path + ", which leads there through a symbolic link)"
	}
	from := "a/" + real
	if !ch.exists {
		from = "/dev/null"
	}
	ch.diff = capDiff(udiff.Unified(from, "b/"+real, w.redact(old), w.redact(ch.content)))
	return ch, nil
}

// replace puts newText in place of the one occurrence of oldText in the
// file's text as the model reads it (redacted), and returns the raw
// text with the change. shown names the file in what the model reads.
func (w *Workspace) replace(shown, raw, oldText, newText string) (string, error) {
	if strings.Contains(oldText, markerPrefix) {
		return "", problem("old holds a redaction marker ([REDACTED:…]), which stands for a value you were never shown; the file holds the value, not the marker. Choose old so that it leaves that value out")
	}
	v := newView(raw, 1, w.redact)
	var at []int
	for i := 0; ; {
		j := strings.Index(v.red[i:], oldText)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + len(oldText)
	}
	switch len(at) {
	case 0:
		return "", w.noMatch(shown, v, oldText)
	case 1:
	default:
		var ns []string
		for _, i := range at[:min(len(at), 10)] {
			ns = append(ns, fmt.Sprint(v.lines[v.lineAt(i)].n))
		}
		more := ""
		if len(at) > 10 {
			more = ", …"
		}
		return "", problemf("old occurs %d times in %s, at lines %s%s; add the lines around it to old so that it occurs once", len(at), shown, strings.Join(ns, ", "), more)
	}
	start, end, ok := v.rawSpan(at[0], at[0]+len(oldText))
	if !ok {
		return "", problemf("old reaches into a part of %s that holds a credential, shown as a [REDACTED:…] marker; choose old so that it leaves that line out", shown)
	}
	return raw[:start] + newText + raw[end:], nil
}

// noMatch says why old is not in the file, and what to send instead.
func (w *Workspace) noMatch(shown string, v *view, oldText string) error {
	want := strings.Split(strings.TrimSuffix(strings.ReplaceAll(oldText, "\r\n", "\n"), "\n"), "\n")
	for i := range want {
		want[i] = strings.Join(strings.Fields(want[i]), " ")
	}
	for i := 0; i+len(want) <= len(v.lines); i++ {
		same := true
		for j, line := range want {
			got := strings.Join(strings.Fields(v.lines[i+j].text), " ")
			if j == 0 && len(want) == 1 {
				same = strings.Contains(got, line)
			} else if got != line {
				same = false
			}
			if !same {
				break
			}
		}
		if same && want[0] != "" {
			return problemf("old does not occur in %s as it is, but does at line %d if spaces and tabs are ignored: copy it exactly as read_file shows it, without the line number and its tab", shown, v.lines[i].n)
		}
	}
	return problemf("old does not occur in %s; read the file again and copy old exactly as it shows", shown)
}

// toCRLF turns s's line breaks into CRLF.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// lines says how many lines.
func lines(n int) string { return fmt.Sprintf("%d %s", n, plural(n, "line", "lines")) }

// capDiff keeps a diff within MaxDiffLines and MaxDiffBytes, saying how
// many lines it left out.
func capDiff(d string) string {
	ls, _ := splitLines(d)
	var b strings.Builder
	for i, l := range ls {
		if i == MaxDiffLines || b.Len()+len(l)+1 > MaxDiffBytes-100 {
			fmt.Fprintf(&b, "… %d more %s of the diff not shown\n", len(ls)-i, plural(len(ls)-i, "line", "lines"))
			break
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}
