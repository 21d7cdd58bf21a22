package agent

import (
	"os"
	"strings"

	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/xdg"
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
	ctx := safety.Context{Workspace: roots, Dir: c.Dir, Home: j.home, Files: j.files, Protected: xdg.OwnDirs()}
	var a *safety.Analysis
	if c.Line != "" {
		a = safety.Analyze(c.Line, ctx)
	} else {
		a = safety.AnalyzeArgv(c.Argv, ctx)
	}
	shape := a.Shape()
	return verdict{risk: riskOf(a.Tier), reason: a.Reason(), key: shape.Key(), covers: shape.Describe(), noAlways: strings.Join(a.CodeFiles, ", ")}
}

func (j safetyJudge) sensitive(path string, roots []string) bool {
	files := j.files
	if files == nil {
		files = defaultFiles
	}
	ok, _ := files.SensitivePath(path, roots)
	return ok
}

// defaultFiles are safety's default sensitive-file rules, compiled once.
var defaultFiles = func() *safety.FileRules {
	f, err := safety.NewFileRules(safety.DefaultFileRules())
	if err != nil {
		panic("the default sensitive-file rules do not compile: " + err.Error())
	}
	return f
}()

func riskOf(t safety.Tier) risk {
	switch t {
	case safety.Critical:
		return riskCritical
	case safety.High:
		return riskHigh
	case safety.Medium:
		return riskMedium
	}
	return riskNone
}
