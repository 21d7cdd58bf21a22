// Package host serves what an agent asks of parley as its ACP client: fs/read_text_file
// and fs/write_text_file (FileSystem) and terminal/* (Terminals), inside each session's
// workspace roots, through internal/workspace's confined access and internal/proc. The
// conversation core (internal/conversation) answers an agent with them; deciding whether
// a terminal may run is the permission policy's, before it reaches Terminals.
package host
