package terminal

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/wisp-agent/wisp/models"
)

// ModelsOptions configure Models. A nil *ModelsOptions or a zero field
// means the default given beside the field.
type ModelsOptions struct {
	// JSON writes list as models.ListJSON does, every model on no page,
	// for a program; false: as a table (models.FormatTable).
	JSON bool
}

// Models runs one of the person's models commands at a terminal, as
// wisp models does: models.RunCommand with args (the words after
// "models"), what it says written to out. list's table and JSON are
// escaped already and written as they are; every other line is escaped
// (Lines). A check a model fails (a *models.CheckError, which wraps
// models.ErrCheckFailed) is written as its change's lines, which say
// why, and its error is returned after them; any other error is
// returned with nothing written.
func Models(ctx context.Context, a *models.Actions, args []string, out io.Writer, opts *ModelsOptions) error {
	var o ModelsOptions
	if opts != nil {
		o = *opts
	}
	text, err := models.RunCommand(ctx, a, args, &models.CommandOptions{Table: true, JSON: o.JSON})
	var failed *models.CheckError
	if errors.As(err, &failed) {
		text = models.FormatChange(failed.Change)
	} else if err != nil {
		return err
	}
	if args[0] != "list" {
		text = Lines(strings.TrimSuffix(text, "\n")) + "\n"
	}
	if _, werr := io.WriteString(out, text); werr != nil && err == nil {
		return werr
	}
	return err
}
