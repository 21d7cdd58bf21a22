package vscodelm

import (
	"slices"

	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/safety"
)

// loginArgs are the arguments of the parley command that signs in to the agent of def
// with method: `parley login --agent NAME` when parley knows the agent by that name with
// the same command (a built-in agent, or one of the configuration file's), else `parley
// login --agent-command` with its command line. Variables the definition sets are not
// part of it: their values may be secrets.
func (s *Server) loginArgs(def AgentDef, method string) []string {
	args := []string{"login"}
	switch {
	case def.Key.Kind == AgentEliza:
		args = append(args, "--agent", "eliza")
	case def.ID != "" && s.knowsAgent(def):
		args = append(args, "--agent", def.ID)
	default:
		args = append(args, "--agent-command", safety.JoinArgv(append([]string{def.Key.Command}, def.Key.Args()...)))
	}
	return append(args, "--method", method)
}

// knowsAgent reports whether parley's own catalog has def's agent under def.ID, with the
// same command, arguments and variables.
func (s *Server) knowsAgent(def AgentDef) bool {
	cfg, err := s.userConfig()
	if err != nil {
		return false
	}
	// Not Lookup: it refuses an agent that cannot run here, which says nothing of its name.
	all := catalog.New(cfg).All()
	i := slices.IndexFunc(all, func(a catalog.Agent) bool { return a.Name == def.ID })
	if i < 0 {
		return false
	}
	a := all[i]
	env := slices.Clone(a.Spec.Env)
	slices.SortFunc(env, func(x, y string) int {
		if envName(x) < envName(y) {
			return -1
		}
		if envName(x) > envName(y) {
			return 1
		}
		return 0
	})
	return a.Spec.Command == def.Key.Command && slices.Equal(a.Spec.Args, def.Key.Args()) && slices.Equal(env, def.Key.Env())
}
