package sandbox

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sandbox-exec's flags (Rules) as macOS carries them out: the agent's spec, a terminal
// command's rules, and --tcp-connect none.
func TestSeatbeltPolicyOfRules(t *testing.T) {
	agent := AgentSpec{
		Write: []string{"/Users/ana/src", "/Users/ana/.claude"}, DenyRead: []string{"/Users/ana/.ssh"},
		Net: []string{"api.anthropic.com:443", "127.0.0.1:9000"}, Ports: []uint16{50123, 9000, 50123}, PTY: true,
	}
	for name, c := range map[string]struct {
		rules Rules
		want  SeatbeltPolicy
	}{
		"agent": {agent.Rules("/private/var/folders/T/agent"), SeatbeltPolicy{
			Write:    []string{"/Users/ana/src", "/Users/ana/.claude", "/private/var/folders/T/agent"},
			DenyRead: []string{"/Users/ana/.ssh"}, ProxyPort: 50123, LoopbackPorts: []int{9000}, PTY: true,
		}},
		"terminal command": {Rules{Write: []string{"/Users/ana/src"}, Tmp: "/private/var/folders/T/cmd"}, SeatbeltPolicy{
			Write: []string{"/Users/ana/src", "/private/var/folders/T/cmd"},
		}},
		"no network": {Rules{Write: []string{"/w"}, LimitNet: true}, SeatbeltPolicy{Write: []string{"/w"}, Offline: true}},
	} {
		if diff := cmp.Diff(c.want, SeatbeltPolicyOf(c.rules)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// The profile says what the policy adds to the golden one: further loopback ports
// beside the proxy's, pseudo-terminals, no network at all.
func TestSeatbeltProfileLoopbackPTYOffline(t *testing.T) {
	profile, err := SeatbeltProfile(SeatbeltPolicy{Write: []string{"/w"}, ProxyPort: 50123, LoopbackPorts: []int{9000}, PTY: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(deny network-outbound)\n(allow network-outbound (remote ip \"localhost:50123\")\n  (remote ip \"localhost:9000\"))\n",
		"(literal \"/dev/ptmx\")\n  (regex #\"^/dev/ttys[0-9]+$\")",
	} {
		if !strings.Contains(profile, want) {
			t.Errorf("profile lacks %q:\n%s", want, profile)
		}
	}
	offline, err := SeatbeltProfile(SeatbeltPolicy{Write: []string{"/w"}, Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(offline, "(deny network-outbound)\n(allow network-outbound\n  (remote unix-socket") || strings.Contains(offline, "remote ip") || strings.Contains(offline, "/dev/ptmx") {
		t.Errorf("offline profile:\n%s", offline)
	}
}
