package parleyapi

import "github.com/parley-acp/parley/acp"

// FileParams is the params of _parley/file: a file of the session's workspace to show in
// the page (a link of a tool call, a changed file). A relative Path is in the workspace;
// a path outside the session's roots, or in parley's own directories, is refused.
type FileParams struct {
	SessionID acp.SessionID `json:"sessionId"`
	Path      string        `json:"path"`
}

// FileResult is a file's text (_parley/file). Text is null when the file is not text or
// is larger than parley shows, Note saying which.
type FileResult struct {
	Path string  `json:"path"` // absolute
	Rel  string  `json:"rel"`  // relative to the workspace
	Text *string `json:"text"`
	Note string  `json:"note,omitempty"`
}
