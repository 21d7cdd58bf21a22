module github.com/parley-acp/parley

go 1.26
