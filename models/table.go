package models

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
)

// FormatTable writes a page of the listing as wisp models list shows it
// at a terminal: a header, then a row a model, its columns aligned (the
// most context the model takes, and the context it runs with, apart);
// after them why each model that cannot be used cannot, the backends that
// did not answer, and where the next page is. Every word of a backend's
// is escaped for a terminal (escape.Terminal), so the text is printed as
// it is.
func FormatTable(l wisp.Listing) string {
	var b strings.Builder
	if len(l.Models) == 0 {
		b.WriteString("no models\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tRUNTIME\tPARAMETERS\tSIZE\tCONTEXT\tIN USE\tSTATE\tCAPABILITIES")
		for _, m := range l.Models {
			size, context, inUse, caps := "?", "?", "default", "undeclared"
			if m.Size > 0 {
				size = Size(m.Size)
			}
			if m.Context > 0 {
				context = Thousands(m.Context)
			}
			if m.RunContext > 0 {
				inUse = Thousands(m.RunContext)
			}
			if len(m.Capabilities) > 0 {
				caps = strings.Join(m.Capabilities, ", ")
			}
			row := []string{m.Name, m.Runtime, or(m.Parameters, "?"), size, context, inUse, enabled(m.Enabled), caps}
			for i := range row {
				row[i] = escape.Terminal(row[i])
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	for _, m := range l.Models {
		if !m.Usable && m.Why != "" {
			b.WriteString(escape.Terminal(m.Name+" cannot be used: "+m.Why) + "\n")
		}
	}
	for _, u := range strings.Split(unreachable(l.Unreachable), "\n") {
		if u != "" {
			b.WriteString(escape.Terminal(u) + "\n")
		}
	}
	switch {
	case l.Page < l.Pages:
		fmt.Fprintf(&b, "page %d of %d; wisp models list --page %d shows more\n", l.Page, l.Pages, l.Page+1)
	case l.Pages > 1:
		fmt.Fprintf(&b, "page %d of %d\n", l.Page, l.Pages)
	}
	return b.String()
}

// modelJSON is a model in wisp models list --json.
type modelJSON struct {
	Name         string   `json:"name"`
	Runtime      string   `json:"runtime"`
	Parameters   string   `json:"parameters,omitempty"`
	Quantization string   `json:"quantization,omitempty"`
	Size         int64    `json:"size,omitempty"`
	Context      int      `json:"context,omitempty"`
	RunContext   int      `json:"runContext,omitempty"`
	Digest       string   `json:"digest,omitempty"`
	Enabled      bool     `json:"enabled"`
	Usable       bool     `json:"usable"`
	Why          string   `json:"why,omitempty"`
	Capabilities []string `json:"capabilities"`
	Repo         string   `json:"repo,omitempty"`
	Licence      string   `json:"licence,omitempty"`
}

// ListJSON returns every model of the listing, on no page, and the
// backends that did not answer, as wisp models list --json writes them:
// one line of JSON, {"models": [...], "unreachable": [...]}, each model
// with its facts under the keys docs/models.md names, every character
// unsafe on a terminal written as a \u escape (escape.JSON).
func ListJSON(ctx context.Context, a *Actions) ([]byte, error) {
	ms, unreachable, err := a.every(ctx)
	if err != nil {
		return nil, err
	}
	out := struct {
		Models      []modelJSON `json:"models"`
		Unreachable []string    `json:"unreachable"`
	}{[]modelJSON{}, append([]string{}, unreachable...)}
	for _, m := range ms {
		out.Models = append(out.Models, modelJSON{Name: m.Name, Runtime: m.Runtime, Parameters: m.Parameters, Quantization: m.Quantization,
			Size: m.Size, Context: m.Context, RunContext: m.RunContext, Digest: m.Digest, Enabled: m.Enabled, Usable: m.Usable,
			Why: m.Why, Capabilities: append([]string{}, m.Capabilities...), Repo: m.Repo, Licence: m.Licence})
	}
	return escape.Marshal(out)
}
