// Package parleyapi is the extension parley adds to ACP for its own front-ends: the
// `_parley/*` methods and notifications, their params and results, and the error codes
// they answer with. Only a front-end that declares clientCapabilities._meta.parley in
// initialize (the web page, the VS Code webview) is sent the notifications; the requests
// answer anyone. Every name and type is defined here once: internal/acpserver serves them,
// internal/vscodelm answers its lm/* requests about the same things (changes, diff, undo)
// with the same types, and the TypeScript of the page and the extension is generated from
// this package (web/src/parleyapi.ts, editors/vscode/src/parleyapi.ts: `go test
// ./internal/parleyapi -run TestTypeScript -update` writes them; the test fails when they
// are stale).
//
// Methods lists every method with its params and result types: the generator reads it, and
// it is the protocol's table of contents. The package holds data only (it imports acp for
// the ids and nothing of parley's), so that a front-end's generated file says all there is.
//
// Conventions: every request about a session names it in sessionId; a session parley does
// not know is CodeUnknownSession; a request the session cannot carry out as asked is
// CodeInvalidParams with a message to show; an undo that would overwrite a later change is
// CodeUndoConflict with ConflictData.
package parleyapi
