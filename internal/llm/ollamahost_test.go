package llm

import "testing"

func TestOllamaURLReadsOllamaHostAsOllamaDoes(t *testing.T) {
	for host, want := range map[string]string{
		"":                       DefaultOllamaURL,
		"gpu-box":                "http://gpu-box:11434",
		"gpu-box:8000":           "http://gpu-box:8000",
		"http://10.0.0.2:11434/": "http://10.0.0.2:11434",
		"https://ollama.example": "https://ollama.example:443",
		"0.0.0.0":                "http://127.0.0.1:11434",
		"[::1]:9000":             "http://[::1]:9000",
	} {
		t.Setenv("OLLAMA_HOST", host)
		if got := OllamaURL(); got != want {
			t.Errorf("OLLAMA_HOST=%q: %q, want %q", host, got, want)
		}
	}
}
