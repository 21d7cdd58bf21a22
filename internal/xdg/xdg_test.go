package xdg

import (
	"path/filepath"
	"testing"
)

func TestDirs(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	winEnv := map[string]string{`AppData`: `C:\Users\ada\AppData\Roaming`, `LocalAppData`: `C:\Users\ada\AppData\Local`}
	xdgEnv := map[string]string{"XDG_CONFIG_HOME": "/x/config", "XDG_DATA_HOME": "/x/data", "XDG_STATE_HOME": "/x/state"}
	for _, c := range []struct {
		goos, home string
		env        map[string]string
		want       [3]string // config, data, state
	}{
		{"linux", "/home/ada", nil, [3]string{"/home/ada/.config/parley", "/home/ada/.local/share/parley", "/home/ada/.local/state/parley"}},
		{"freebsd", "/home/ada", nil, [3]string{"/home/ada/.config/parley", "/home/ada/.local/share/parley", "/home/ada/.local/state/parley"}},
		{"linux", "/home/ada", xdgEnv, [3]string{"/x/config/parley", "/x/data/parley", "/x/state/parley"}},
		{"linux", "/home/ada", map[string]string{"XDG_CONFIG_HOME": "relative"}, [3]string{"/home/ada/.config/parley", "/home/ada/.local/share/parley", "/home/ada/.local/state/parley"}},
		{"darwin", "/Users/ada", nil, [3]string{"/Users/ada/Library/Application Support/parley", "/Users/ada/Library/Application Support/parley", "/Users/ada/Library/Application Support/parley"}},
		{"darwin", "/Users/ada", xdgEnv, [3]string{"/x/config/parley", "/x/data/parley", "/x/state/parley"}},
		{"windows", `C:\Users\ada`, winEnv, [3]string{filepath.Join(winEnv["AppData"], "parley"), filepath.Join(winEnv["LocalAppData"], "parley"), filepath.Join(winEnv["LocalAppData"], "parley")}},
		{"windows", `C:\Users\ada`, xdgEnv, [3]string{"/x/config/parley", "/x/data/parley", "/x/state/parley"}},
		{"windows", "/home/ada", nil, [3]string{"/home/ada/AppData/Roaming/parley", "/home/ada/AppData/Local/parley", "/home/ada/AppData/Local/parley"}},
	} {
		for k, want := range c.want {
			if got := dir(kind(k), c.goos, env(c.env), c.home); got != want {
				t.Errorf("%s with %v: %s directory %q, want %q", c.goos, c.env, []string{"config", "data", "state"}[k], got, want)
			}
		}
	}
}
