//go:build !unix

package acp

import (
	"io"
	"os"
)

func stdio() io.ReadWriteCloser {
	return &stdioStream{in: os.Stdin, out: os.Stdout}
}
