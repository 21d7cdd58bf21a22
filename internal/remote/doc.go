// Package remote is the client side of a parley server reached over the network: the
// address `parley web` prints (http(s)://host:port[/prefix]/?token=…) turned into its
// ACP WebSocket (ws(s)://host:port[/prefix]/acp, the token offered as the subprotocol
// parley-token.TOKEN beside acp), dialled with clear errors for the ways it fails (a
// wrong token, a host that cannot be reached, something that is not parley), and two
// ways to use the connection:
//
//   - Relay (parley acp --connect): newline-delimited JSON-RPC from a local ACP client,
//     one line a WebSocket text message, and back, without decoding more of a message
//     than its top-level members (a message is forwarded as it came). The relay keeps
//     the ids of the client's requests the server has not answered, so that when the
//     server goes (the connection drops, the token is revoked: the close reason says)
//     every one of them is answered with an error naming what happened, and the relay
//     ends; an oversized line is answered with an error instead of ending the relay;
//     the end of the client's input closes the WebSocket normally.
//   - Stream (parley chat --connect): the connection as the newline-delimited stream
//     parley's own ACP client reads and writes, so the conversation core can use the
//     server as its agent in-process (conversation.AgentOptions.Dial).
//
// Everything the agents do happens on the server: its files, its commands, its
// confinement, its record of changes. The client only carries messages.
package remote
