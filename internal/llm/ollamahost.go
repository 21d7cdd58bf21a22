package llm

import (
	"net"
	"os"
	"strings"
)

// OllamaURL is where Ollama is, as ollama's own command finds it: $OLLAMA_HOST ("host",
// "host:port", "http://host:port", "https://…"; the port 11434 unless given, and an
// address Ollama listens on for every interface, such as 0.0.0.0, reached on loopback),
// else DefaultOllamaURL.
func OllamaURL() string {
	host := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if host == "" {
		return DefaultOllamaURL
	}
	scheme := "http"
	if s, rest, ok := strings.Cut(host, "://"); ok {
		scheme, host = s, rest
	}
	host, path, _ := strings.Cut(host, "/")
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h, port = strings.Trim(host, "[]"), "11434"
		if scheme == "https" {
			port = "443"
		}
	}
	switch h {
	case "", "0.0.0.0", "::":
		h = "127.0.0.1"
	}
	u := scheme + "://" + net.JoinHostPort(h, port)
	if path = strings.TrimRight(path, "/"); path != "" {
		u += "/" + path
	}
	return u
}

// ollamaWanted rewords an unreachable Ollama for the person who started parley agent:
// the model it wanted, how to get it, and how to point parley at an Ollama elsewhere.
func ollamaWanted(err error, baseURL, model string) error {
	se, ok := err.(*serverError)
	if !ok || se.kind != ErrUnreachable {
		return err
	}
	return &serverError{kind: ErrUnreachable, cause: se.cause,
		msg: "cannot reach Ollama at " + baseURL + ", where parley agent wants the model " + model +
			": start it (`ollama serve`) and get the model (`ollama pull " + model + "`), or set OLLAMA_HOST (or --base-url) to an Ollama elsewhere"}
}
