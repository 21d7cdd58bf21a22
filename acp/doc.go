// Package acp is the Agent Client Protocol (ACP) v1 as parley speaks it: the wire types of
// every stable method, notification and session update, and (later) connections for both
// roles, the client that drives an agent and the agent that serves a client.
//
// The types follow the $defs of the v1 JSON Schema and keep their names (InitializeRequest,
// SessionNotification, ToolCallUpdate, ...). Fields use Go names; the JSON member names
// are in the tags.
//
// # Lossless
//
// parley forwards what it does not understand, so decoding and re-encoding a message must
// not lose anything a newer peer sent:
//   - Every object type keeps the members it has no field for in Extra and writes them
//     back on encode, and keeps _meta in Meta.
//   - A union (SessionUpdate, ContentBlock, ToolCallContent, MCPServer, AuthMethod,
//     RequestPermissionOutcome, SessionConfigOption, ...) has one pointer per known
//     variant and keeps an unknown variant's raw JSON in Unknown, re-encoded as it came.
//     Its Kind method names the variant, also an unknown one. An unknown kind is never
//     read as a known one.
//   - Enumerations (ToolKind, StopReason, ...) are strings: unknown values decode and
//     are kept.
//
// # Leniency
//
// Decoding follows the schema's x-deserialize-default-on-error: a malformed _meta, a null
// optional member and an optional member of the wrong type decode as absent (the wrong
// value stays in Extra, so it is still forwarded). Member names match exactly. Encoding is
// strict: required arrays are written as [] when empty, optional members are omitted
// when zero, and null is written only where it means something (SessionInfoUpdate).
//
// The MarshalJSON and UnmarshalJSON methods of plain object types are generated into
// lossless_gen.go by ./internal/genlossless; unions write their own.
package acp

//go:generate go run ./internal/genlossless
