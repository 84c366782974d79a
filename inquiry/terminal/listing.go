package terminal

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/pending"
	"github.com/wisp-agent/wisp/policy/outofband"
)

// A Listing is how Questions.List and Approvals.List write what waits.
type Listing int

// The listings.
const (
	// Blocks writes each one whole, as the face shows it, with the
	// commands that answer it: a chat's /questions. The default.
	Blocks Listing = iota
	// Table writes a row each under a header, its columns aligned, the
	// model's words escaped and cut to the terminal's width, then the
	// commands that answer one: wisp questions list, wisp approvals list.
	Table
	// JSON writes one JSON object for a program, every string whole and
	// every character unsafe on a terminal written as a \u escape
	// (escape.JSON): wisp questions list --json, wisp approvals list
	// --json. Its keys are in docs/questions.md.
	JSON
)

// writeTable writes rows under header, columns two spaces apart, each
// cell one line already escaped; at a terminal, the last column is cut so
// that a row fits its width.
func writeTable(w io.Writer, header []string, rows [][]string) {
	width := Width(w)
	last := len(header) - 1
	used := 0
	for c := range last {
		n := utf8.RuneCountInString(header[c])
		for _, r := range rows {
			n = max(n, utf8.RuneCountInString(r[c]))
		}
		used += n + 2
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		if width > 0 {
			r[last] = cutRunes(r[last], max(width-used-1, 20))
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// cutRunes cuts s to at most n runes, ending it with "…" when it cuts.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// writeJSON writes v as one line of JSON, every character unsafe on a
// terminal written as a \u escape.
func writeJSON(w io.Writer, v any) error {
	b, err := escape.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// damagedJSON is a damaged file in a listing's JSON.
type damagedJSON struct {
	ID     string `json:"id"`
	Thread string `json:"thread,omitempty"`
	Error  string `json:"error"`
}

// questionJSON is a parked question in wisp questions list --json.
type questionJSON struct {
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Thread   string    `json:"thread"`
	Turn     int       `json:"turn"`
	Text     string    `json:"text"`
	Options  []string  `json:"options"`
	Asked    time.Time `json:"asked"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// listQuestions writes qs and ds as listing says, the commands that
// answer one named after prefix.
func listQuestions(w io.Writer, listing Listing, qs []pending.Question, ds []pending.Damaged, now time.Time, prefix string) error {
	switch listing {
	case JSON:
		out := struct {
			Questions []questionJSON `json:"questions"`
			Damaged   []damagedJSON  `json:"damaged"`
		}{[]questionJSON{}, []damagedJSON{}}
		for _, q := range qs {
			out.Questions = append(out.Questions, questionJSON{ID: q.ID, Session: q.Session, Thread: q.Thread, Turn: q.Turn,
				Text: q.Text, Options: append([]string{}, q.Options...), Asked: q.Asked, Deadline: q.Deadline})
		}
		for _, d := range ds {
			out.Damaged = append(out.Damaged, damagedJSON{ID: d.ID, Thread: d.Thread, Error: d.Err.Error()})
		}
		return writeJSON(w, out)
	case Table:
		return writeFiled(w, qs, ds, func() {
			rows := make([][]string, len(qs))
			for i, q := range qs {
				takes := "free text"
				if !q.FreeText() {
					takes = fmt.Sprintf("%d options", len(q.Options))
				}
				rows[i] = []string{q.ID, escape.Terminal(q.Thread), ago(now.Sub(q.Asked)), takes, escape.Terminal(q.Text)}
			}
			writeTable(w, []string{"ID", "THREAD", "ASKED", "TAKES", "THE MODEL ASKS"}, rows)
			fmt.Fprintf(w, "\n%s answer ID shows a question and reads your answer; %s decline ID declines it\n", prefix, prefix)
		}, NoQuestionsWaiting, func(d pending.Damaged) { writeDamaged(w, d) })
	}
	return writeFiled(w, qs, ds, func() { writeQuestions(w, qs, now, prefix) }, NoQuestionsWaiting, func(d pending.Damaged) { writeDamaged(w, d) })
}

// approvalJSON is an approval request in wisp approvals list --json.
type approvalJSON struct {
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Thread   string    `json:"thread"`
	Turn     int       `json:"turn"`
	Kind     string    `json:"kind"`
	Command  string    `json:"command"`
	Text     string    `json:"text"`
	Diff     string    `json:"diff,omitempty"`
	Scopes   []string  `json:"scopes"`
	Asked    time.Time `json:"asked"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// listApprovals writes rs and ds as listing says.
func listApprovals(w io.Writer, listing Listing, rs []outofband.Request, ds []outofband.Damaged, now time.Time) error {
	damaged := func(d outofband.Damaged) {
		fmt.Fprintf(w, "approval %s · damaged\n! %s\n", d.ID, escape.Terminal(strings.Join(strings.Fields(d.Err.Error()), " ")))
		fmt.Fprintln(w, "nothing approves it: the request that waits on it is refused")
	}
	switch listing {
	case JSON:
		out := struct {
			Approvals []approvalJSON `json:"approvals"`
			Damaged   []damagedJSON  `json:"damaged"`
		}{[]approvalJSON{}, []damagedJSON{}}
		for _, r := range rs {
			a := approvalJSON{ID: r.ID, Session: r.Session, Thread: r.Thread, Turn: r.Turn, Kind: r.Kind,
				Command: r.Command, Text: r.Text, Diff: r.Diff, Scopes: []string{}, Asked: r.Asked, Deadline: r.Deadline}
			for _, s := range r.Scopes {
				a.Scopes = append(a.Scopes, s.String())
			}
			out.Approvals = append(out.Approvals, a)
		}
		for _, d := range ds {
			out.Damaged = append(out.Damaged, damagedJSON{ID: d.ID, Error: d.Err.Error()})
		}
		return writeJSON(w, out)
	case Table:
		return writeFiled(w, rs, ds, func() {
			rows := make([][]string, len(rs))
			for i, r := range rs {
				ends := "never"
				if !r.Deadline.IsZero() {
					ends = fromNow(r.Deadline.Sub(now))
				}
				rows[i] = []string{r.ID, escape.Terminal(r.Thread), ago(now.Sub(r.Asked)), ends, r.Offered(), escape.Terminal(r.Command)}
			}
			writeTable(w, []string{"ID", "THREAD", "ASKED", "REFUSED", "OFFERS", "COMMAND"}, rows)
			fmt.Fprintln(w, "\nwisp approvals approve ID [--scope session] shows a request in full and approves it once you confirm; wisp approvals deny ID refuses it")
		}, NoApprovalsWaiting, damaged)
	}
	return writeFiled(w, rs, ds, func() { writeApprovals(w, rs, now) }, NoApprovalsWaiting, damaged)
}

// writeFiled writes what waits with list, or none when nothing does, and
// after it each file that is damaged, with block, a blank line between
// two; when files are damaged and nothing waits, only those.
func writeFiled[T, D any](w io.Writer, waiting []T, ds []D, list func(), none string, block func(D)) error {
	switch {
	case len(waiting) > 0:
		list()
	case len(ds) == 0:
		fmt.Fprintln(w, none)
	}
	for i, d := range ds {
		if i > 0 || len(waiting) > 0 {
			fmt.Fprintln(w)
		}
		block(d)
	}
	return nil
}

// filed returns what waits (from list) and the files that are damaged
// (from damaged).
func filed[T, D any](list func() ([]T, error), damaged func() ([]D, error)) ([]T, []D, error) {
	waiting, err := list()
	if err != nil {
		return nil, nil, err
	}
	ds, err := damaged()
	if err != nil {
		return nil, nil, err
	}
	return waiting, ds, nil
}
