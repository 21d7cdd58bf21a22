package coder

import (
	"os"
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/coder/tools"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/safety"
)

// safetyJudge is the approvals' judge: internal/safety's analysis of commands and its
// sensitive-file rules.
type safetyJudge struct {
	files *safety.FileRules // nil means the defaults
	home  string
}

func newSafetyJudge(files *safety.FileRules) safetyJudge {
	home, _ := os.UserHomeDir()
	return safetyJudge{files: files, home: home}
}

func (j safetyJudge) command(c tools.Command, roots []string) verdict {
	a := permission.JudgeCommand(c.Line, c.Argv, safety.Context{Workspace: roots, Dir: c.Dir, Home: j.home, Files: j.files})
	return verdict{tier: a.Tier, reason: a.Reason(), key: permission.CommandKey(a), covers: permission.CommandCovers(a), noAlways: strings.Join(a.CodeFiles, ", ")}
}

func (j safetyJudge) sensitive(path string, roots []string) bool {
	files := j.files
	if files == nil {
		files = defaultFiles()
	}
	ok, _ := files.SensitivePath(path, roots)
	return ok
}

// defaultFiles are safety's default sensitive-file rules, compiled once.
var defaultFiles = sync.OnceValue(func() *safety.FileRules {
	f, err := safety.NewFileRules(safety.DefaultFileRules())
	if err != nil {
		panic("the default sensitive-file rules do not compile: " + err.Error())
	}
	return f
})
