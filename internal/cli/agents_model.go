package cli

import (
	"context"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/llm"
)

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
