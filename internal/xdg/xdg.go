// Package xdg says where parley keeps its files: its configuration (config.json), its data
// (the permission store) and its state (agents' logs).
//
// The XDG base directory variables decide wherever they are set to an absolute path, on
// every platform: $XDG_CONFIG_HOME/parley, $XDG_DATA_HOME/parley, $XDG_STATE_HOME/parley.
// Otherwise each platform's own place:
//
//	Linux and other Unix  ~/.config/parley, ~/.local/share/parley, ~/.local/state/parley
//	macOS                 ~/Library/Application Support/parley for all three (os.UserConfigDir)
//	Windows               %AppData%\parley for the configuration, which roams with the user
//	                      (os.UserConfigDir); %LocalAppData%\parley for data and state, which
//	                      belong to this machine (the remembered decisions name its paths)
package xdg

import (
	"os"
	"path/filepath"
	"runtime"
)

const app = "parley"

// kind is one of the three directories.
type kind int

const (
	config kind = iota
	data
	state
)

// ConfigDir is where the user's configuration lives.
func ConfigDir() string { return dirHere(config) }

// DataDir is where parley keeps what it learns (the permission store).
func DataDir() string { return dirHere(data) }

// StateDir is where parley keeps logs (agents' stderr).
func StateDir() string { return dirHere(state) }

// OwnDirs are the directories that hold parley's configuration, data and state: nothing
// an agent does may change them (see internal/workspace and internal/safety).
func OwnDirs() []string { return []string{ConfigDir(), DataDir(), StateDir()} }

func dirHere(k kind) string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
	return dir(k, runtime.GOOS, os.Getenv, home)
}

// dir is where the directory of kind k is on goos, given the environment and the user's
// home directory ("" when unknown).
func dir(k kind, goos string, getenv func(string) string, home string) string {
	if base := getenv([...]string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"}[k]); filepath.IsAbs(base) {
		return filepath.Join(base, app)
	}
	var base string
	switch goos {
	case "darwin":
		base = inHome(home, "Library", "Application Support")
	case "windows":
		if k == config {
			base = nonEmpty(getenv("AppData"), inHome(home, "AppData", "Roaming"))
		} else {
			base = nonEmpty(getenv("LocalAppData"), inHome(home, "AppData", "Local"))
		}
	default:
		base = inHome(home, [...]string{".config", filepath.Join(".local", "share"), filepath.Join(".local", "state")}[k])
	}
	if base == "" {
		return filepath.Join(os.TempDir(), app)
	}
	return filepath.Join(base, app)
}

func inHome(home string, names ...string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(append([]string{home}, names...)...)
}

func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
