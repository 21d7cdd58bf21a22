package safety

import "testing"

// TestCodeVariable: the members of the list, its families and any case; harmless
// variables are not in it.
func TestCodeVariable(t *testing.T) {
	for _, name := range []string{"BASH_ENV", "ENV", "PROMPT_COMMAND", "BASH_FUNC_ls%%", "SHELLOPTS", "BASHOPTS", "PS4",
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "LD_ANYTHING", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
		"NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PERL5OPT", "PERL5LIB",
		"PERLLIB", "RUBYOPT", "RUBYLIB", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR",
		"GIT_ASKPASS", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS", "EDITOR",
		"VISUAL", "PAGER", "IFS", "PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "ZDOTDIR", "bash_env", "Path"} {
		if why, ok := CodeVariable(name); !ok || why == "" {
			t.Errorf("%s: %q %v", name, why, ok)
		}
	}
	for _, name := range []string{"LANG", "TERM", "FAKE_LOGIN_MODE", "HOME", "ANTHROPIC_API_KEY", "NO_COLOR", "GIT_AUTHOR_NAME"} {
		if why, ok := CodeVariable(name); ok {
			t.Errorf("%s is in the list: %s", name, why)
		}
	}
}
