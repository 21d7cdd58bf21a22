package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `parley vscodelm` offers the agents of the user's configuration file as models, and
// reads the file again each time the models are listed: an agent added while VS Code
// runs is offered without a restart.
func TestVSCodeModelsFollowTheConfigFile(t *testing.T) {
	env := isolatedXDG(t)
	dir := parleyConfigDir(env)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.json")
	configure := func(names ...string) {
		t.Helper()
		var servers []string
		for _, n := range names {
			servers = append(servers, fmt.Sprintf("%q:{\"command\":%q}", n, self(t)))
		}
		if err := os.WriteFile(path, []byte(`{"agent_servers":{`+strings.Join(servers, ",")+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	configure("first-configured")

	cmd := exec.CommandContext(t.Context(), self(t), "vscodelm", "--spares", "0")
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewReader(stdout)
	models := func(id int) string {
		t.Helper()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"lm/provideLanguageModelChatInformation","params":{}}`+"\n", id)
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("vscodelm: %v", err)
		}
		return line
	}
	if got := models(1); !strings.Contains(got, `"id":"first-configured"`) {
		t.Errorf("the model list lacks the configured agent: %s", got)
	}
	configure("first-configured", "added-later")
	if got := models(2); !strings.Contains(got, `"id":"first-configured"`) || !strings.Contains(got, `"id":"added-later"`) {
		t.Errorf("the model list after an agent was added to the file lacks it: %s", got)
	}
}
