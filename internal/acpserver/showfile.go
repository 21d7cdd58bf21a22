package acpserver

import (
	"bytes"
	"errors"
	"path/filepath"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/workspace"
)

// maxShownFile is the largest file _parley/file shows: a page is no place for more.
const maxShownFile = 2 << 20

// showFile answers _parley/file: a file of the session's workspace, read through
// internal/workspace (inside the roots only, parley's own directories refused, symlinks
// resolved), as text when it is text.
func (ss *session) showFile(path string) (parleyapi.FileResult, error) {
	dir := ss.roots.Dirs()[0]
	if path == "" {
		return parleyapi.FileResult{}, acp.ErrInvalidParams("no path")
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	res := parleyapi.FileResult{Path: path, Rel: path}
	if rel, err := filepath.Rel(dir, path); err == nil {
		res.Rel = filepath.ToSlash(rel)
	}
	b, err := ss.roots.ReadFile(path, maxShownFile)
	if _, ok := errors.AsType[*workspace.TooLargeError](err); ok {
		res.Note = "the file is larger than the page shows (2 MiB)"
		return res, nil
	}
	if err != nil {
		return parleyapi.FileResult{}, acp.Errorf(parleyapi.CodeInvalidParams, "%v", err)
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		res.Note = "the file is not text"
		return res, nil
	}
	text := string(b)
	res.Text = &text
	return res, nil
}
