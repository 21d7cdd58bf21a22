package tools

import (
	"context"

	"github.com/parley-acp/parley/internal/filelist"
	"github.com/parley-acp/parley/internal/workspace"
)

// treeFile is a file list_files and search_workspace see, its path relative to the
// directory they were asked about, with slashes.
type treeFile struct {
	rel     string
	symlink bool // must be confined before it is opened
}

// listTree lists the files under tree that git would not ignore (internal/filelist: git
// ls-files inside a work tree, a walk honouring .gitignore files elsewhere), everything
// looked at through the tree.
func listTree(ctx context.Context, s *Session, base string, tree *workspace.Tree) ([]treeFile, error) {
	files, err := filelist.List(ctx, s.Roots, base, tree)
	out := make([]treeFile, len(files))
	for i, f := range files {
		out[i] = treeFile{rel: f.Rel, symlink: f.Symlink}
	}
	return out, err
}
