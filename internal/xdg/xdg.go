// Package xdg says where parley keeps its files, following the XDG base directory
// specification: configuration in $XDG_CONFIG_HOME/parley (default ~/.config/parley), data
// such as the permission store in $XDG_DATA_HOME/parley (~/.local/share/parley), and logs in
// $XDG_STATE_HOME/parley (~/.local/state/parley).
package xdg

import (
	"os"
	"path/filepath"
)

const app = "parley"

// ConfigDir is where the user's configuration lives.
func ConfigDir() string { return dir("XDG_CONFIG_HOME", ".config") }

// DataDir is where parley keeps what it learns (the permission store).
func DataDir() string { return dir("XDG_DATA_HOME", filepath.Join(".local", "share")) }

// StateDir is where parley keeps logs (agents' stderr).
func StateDir() string { return dir("XDG_STATE_HOME", filepath.Join(".local", "state")) }

func dir(env, fallback string) string {
	if base := os.Getenv(env); filepath.IsAbs(base) {
		return filepath.Join(base, app)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), app)
	}
	return filepath.Join(home, fallback, app)
}

// OwnDirs are the directories that hold parley's configuration, data and state: nothing
// an agent does may change them (see internal/workspace and internal/safety).
func OwnDirs() []string { return []string{ConfigDir(), DataDir(), StateDir()} }
