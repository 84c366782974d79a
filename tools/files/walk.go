package files

import (
	"context"
	"io/fs"

	"github.com/wisp-agent/wisp/internal/walk"
)

// MaxWalked bounds the files and folders one list_files, search or
// scan_secrets looks at; past it the walk stops and says so.
const MaxWalked = 50_000

// walk visits what lies under dir, a real path relative to the workspace
// (resolve), as walk.Dir does: each file and symbolic link, in lexical
// order, never entering version control's folders, the wisp home or a
// folder .gitignore ignores (unless all). visit returning fs.SkipAll
// ends the walk. walk reports whether it stopped at MaxWalked.
func (w *Workspace) walk(ctx context.Context, dir string, all bool, visit func(p string, d fs.DirEntry) error) (cut bool, err error) {
	return walk.Dir(ctx, w.root.FS(), dir, walk.Options{All: all, Skip: w.inHome, Max: MaxWalked}, visit)
}
