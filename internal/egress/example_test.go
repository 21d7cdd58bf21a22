package egress_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/parley-acp/parley/internal/egress"
)

// An agent started with the proxy's environment reaches the allowed destinations
// through it; the sandbox lets it connect to p.Port() only.
func ExampleStart() {
	p, err := egress.Start(context.Background(), egress.Config{
		Allow:   []string{"api.openai.com:443", "*.googleapis.com:443", "127.0.0.1:11434"},
		Refused: func(r egress.Refusal) { fmt.Println("the agent tried to reach", r.Destination) },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	agent := exec.Command("codex-acp")
	agent.Env = p.Environ(os.Environ())
	fmt.Println(p.Allowed())
	// Output: [api.openai.com:443 *.googleapis.com:443 127.0.0.1:11434]
}
