package cli

import (
	"context"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/llm"
)

// agentAvailability is whether agent a can run here (dir: where npx would find a local
// install), as every list of agents says it: parley agents, the terminal UI's first
// screen, the web page's agent list. It is the catalog's word, and for parley's own agent
// whether its model server answers (the catalog cannot know: it needs no download, but
// without a model server it cannot say a word).
func agentAvailability(ctx context.Context, a catalog.Agent, dir string) string {
	if a.Name == "parley" && catalog.Reserved(a.Name) && a.NotRunnable == "" {
		return modelServer.availability(ctx)
	}
	return a.Availability(dir)
}

// modelServer keeps the last probe of the model server for a little while: a page asks
// for the agents each time it shows them, and a server that is not there may take the
// whole probe to say so.
var modelServer probeCache

type probeCache struct {
	mu   sync.Mutex
	at   time.Time
	said string
}

// probeKept is how long a probe's answer is used again.
const probeKept = 10 * time.Second

func (c *probeCache) availability(ctx context.Context) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.said == "" || time.Since(c.at) > probeKept {
		c.said, c.at = parleyAgentRunnable(ctx), time.Now()
	}
	return c.said
}

// modelServerProbe bounds how long parley agents waits for the model server parley's own
// agent would use.
const modelServerProbe = time.Second

// parleyAgentRunnable is what parley agents says of parley's own agent: it runs only with
// a model server, so it says which one it tried and what to do when there is none.
func parleyAgentRunnable(ctx context.Context) string {
	model := os.Getenv("PARLEY_MODEL")
	if model == "" {
		model = defaultModel
	}
	name, ok := strings.CutPrefix(model, "ollama:")
	if !ok {
		return "needs a model server: give parley agent --base-url for " + model
	}
	url := llm.OllamaURL()
	ctx, cancel := context.WithTimeout(ctx, modelServerProbe)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/version", nil)
	if err == nil {
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return "yes (Ollama at " + url + ", with the model " + name + ": `ollama pull " + name + "` if it lacks it)"
		}
	}
	return "needs a model server: no Ollama at " + url + " (start it with `ollama serve`, then `ollama pull " + name + "`; OLLAMA_HOST for one elsewhere)"
}
