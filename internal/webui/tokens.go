package webui

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/lazy"
)

// Tokens is the file of named tokens: one per device or person, added, listed and
// revoked with `parley web tokens`, accepted by every parley web of the user besides its
// own run token.
//
// The file holds each token's name, the SHA-256 of the token (never the token: it is
// shown once, when it is added), when it was added and when a server last let it in. It
// is mode 0600, replaced whole by a rename (a reader sees the old file or the new one,
// never half of one), and every change to it (add, revoke, a server's "last used") is a
// read, change and write under a lock on a file beside it, so that no writer undoes
// another's change: a revocation is never lost to a server that notes a use at the same
// moment.
type Tokens struct {
	path string
}

// TokenRecord is one named token in the file.
type TokenRecord struct {
	Name     string    `json:"name"`
	SHA256   string    `json:"sha256"` // hex, of the token
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"lastUsed,omitzero"`
}

type tokenFile struct {
	Tokens []TokenRecord `json:"tokens"`
}

// TokensFile is the file's name in parley's data directory.
const TokensFile = "web-tokens.json"

// RunTokenName is the name the log and the server give the token parley web makes each
// time it starts (and the page replaces): no named token may take it.
const RunTokenName = "run"

// NewTokens is the file at path (usually xdg.DataDir()/TokensFile).
func NewTokens(path string) *Tokens { return &Tokens{path: path} }

// Path is where the file is.
func (t *Tokens) Path() string { return t.path }

var tokenName = lazy.Regexp(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// CheckTokenName says what is wrong with name as a token's name, or nil.
func CheckTokenName(name string) error {
	if !tokenName().MatchString(name) {
		return fmt.Errorf("%q is not a token name: use up to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit (for example laptop or ana@team)", name)
	}
	if name == RunTokenName {
		return fmt.Errorf("%q is the name of the token parley web makes each time it starts; choose another", name)
	}
	return nil
}

// hashToken is the hex SHA-256 the file keeps of a token.
func hashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// Add makes a token named name, records its hash and returns the token: the only time
// anyone sees it.
func (t *Tokens) Add(name string, now time.Time) (string, error) {
	if err := CheckTokenName(name); err != nil {
		return "", err
	}
	tok := newSecret()
	err := t.change(func(f *tokenFile) error {
		for _, r := range f.Tokens {
			if r.Name == name {
				return fmt.Errorf("a token named %q exists already: revoke it first (parley web tokens revoke %s) or choose another name", name, name)
			}
		}
		f.Tokens = append(f.Tokens, TokenRecord{Name: name, SHA256: hashToken(tok), Created: now.UTC()})
		return nil
	})
	if err != nil {
		return "", err
	}
	return tok, nil
}

// ErrNoToken is Revoke's error for a name the file does not have.
var ErrNoToken = errors.New("no such token")

// Revoke removes the token named name.
func (t *Tokens) Revoke(name string) error {
	return t.change(func(f *tokenFile) error {
		i := slices.IndexFunc(f.Tokens, func(r TokenRecord) bool { return r.Name == name })
		if i < 0 {
			return fmt.Errorf("%w named %q (parley web tokens list shows them)", ErrNoToken, name)
		}
		f.Tokens = slices.Delete(f.Tokens, i, i+1)
		return nil
	})
}

// List returns the named tokens, oldest first.
func (t *Tokens) List() ([]TokenRecord, error) {
	data, err := t.read()
	if err != nil {
		return nil, err
	}
	f, err := parseTokens(data)
	if err != nil {
		return nil, err
	}
	return f.Tokens, nil
}

// used records that the token with hash sum let a client in at now.
func (t *Tokens) used(sum string, now time.Time) error {
	return t.change(func(f *tokenFile) error {
		for i := range f.Tokens {
			if f.Tokens[i].SHA256 == sum {
				f.Tokens[i].LastUsed = now.UTC()
			}
		}
		return nil
	})
}

// read returns the file's bytes; no file is an empty list.
func (t *Tokens) read() ([]byte, error) {
	data, err := os.ReadFile(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the named tokens: %w", err)
	}
	return data, nil
}

func parseTokens(data []byte) (tokenFile, error) {
	var f tokenFile
	if len(data) == 0 {
		return f, nil
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("the named tokens' file is damaged (%w): remove it and add the tokens again", err)
	}
	return f, nil
}

// change applies fn to the file under its lock and writes the result in its place.
func (t *Tokens) change(fn func(*tokenFile) error) error {
	dir := filepath.Dir(t.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("making parley's data directory for the named tokens: %w", err)
	}
	unlock, err := lockFile(t.path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the named tokens' file: %w", err)
	}
	defer unlock()
	data, err := t.read()
	if err != nil {
		return err
	}
	f, err := parseTokens(data)
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(t.path, append(out, '\n'))
}

// writeAtomic writes data to a new file beside path (CreateTemp's mode 0600, from its
// first byte) and
// renames it over path.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing the named tokens: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing there
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the named tokens: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the named tokens: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the named tokens: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing the named tokens: %w", err)
	}
	return nil
}
