package acp

// ReadTextFileRequest is the params of fs/read_text_file, gated by
// FileSystemCapabilities.ReadTextFile. The client answers with the editor's view of the
// file, unsaved changes included.
type ReadTextFileRequest struct {
	SessionID SessionID `json:"sessionId"`
	Path      string    `json:"path"`            // absolute
	Line      uint32    `json:"line,omitempty"`  // first line to read, 1-based; 0 when absent
	Limit     uint32    `json:"limit,omitempty"` // most lines to read; 0 when absent
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// ReadTextFileResponse is the result of fs/read_text_file.
type ReadTextFileResponse struct {
	Content string `json:"content"`
	Meta    Meta   `json:"_meta,omitzero"`
	Extra   Extra  `json:"-"`
}

// WriteTextFileRequest is the params of fs/write_text_file, gated by
// FileSystemCapabilities.WriteTextFile.
type WriteTextFileRequest struct {
	SessionID SessionID `json:"sessionId"`
	Path      string    `json:"path"` // absolute
	Content   string    `json:"content"`
	Meta      Meta      `json:"_meta,omitzero"`
	Extra     Extra     `json:"-"`
}

// WriteTextFileResponse is the result of fs/write_text_file. It encodes as {}; a null
// result, which the protocol's own docs show, decodes fine.
type WriteTextFileResponse struct {
	Meta  Meta  `json:"_meta,omitzero"`
	Extra Extra `json:"-"`
}
