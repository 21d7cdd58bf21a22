package cli

import "io"

// interruptibleStdin returns in as it is: on Windows, closing a pipe cancels a read in
// progress on it (os.File's Close calls CancelIoEx for pipes), which is what the Unix
// version arranges through the poller.
func interruptibleStdin(in io.ReadCloser) io.ReadCloser { return in }
