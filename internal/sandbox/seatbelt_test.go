package sandbox

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateSeatbelt = flag.Bool("update-seatbelt", false, "rewrite testdata/seatbelt/*.sb from SeatbeltProfile")

// The profile of a sample agent, as a golden file: what the README's macOS paragraph
// and a reviewer read.
func TestSeatbeltProfileGolden(t *testing.T) {
	for name, policy := range map[string]SeatbeltPolicy{
		"proxy": {
			Write:     []string{"/Users/ana/src/app", "/private/var/folders/xy/T/parley-agent-1", "/Users/ana/.codex"},
			DenyRead:  []string{"/Users/ana/.ssh", "/Users/ana/.aws", "/Users/ana/Library/Keychains"},
			ProxyPort: 50123,
		},
		"open-network": {
			Write:    []string{"/Users/ana/src/app"},
			DenyRead: []string{"/Users/ana/.ssh"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := SeatbeltProfile(policy)
			if err != nil {
				t.Fatal(err)
			}
			checkSBPL(t, got, policy)
			golden := filepath.Join("testdata", "seatbelt", name+".sb")
			if *updateSeatbelt {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-seatbelt to write it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("profile differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// Path names that try to end a string and add a rule of their own stay one string, as
// they are; names in other scripts are written in both Unicode forms.
func TestSeatbeltProfileHostilePaths(t *testing.T) {
	hostile := []string{
		`/Users/ana/a") (allow file-write* (subpath "/`,
		`/Users/ana/back\slash\`,
		`/Users/ana/\") (allow default) ; \`,
		`/Users/ana/semi;colon (paren) #"regex"`,
		"/Users/ana/Projets/Été", // composed É and é
		"/Users/ana/日本語/プロジェクト",
		"/Users/ana/emoji 🦜",
	}
	policy := SeatbeltPolicy{Write: hostile, DenyRead: hostile[:2], ProxyPort: 8080}
	profile, err := SeatbeltProfile(policy)
	if err != nil {
		t.Fatal(err)
	}
	strs := checkSBPL(t, profile, policy)
	decomposed := "/Users/ana/Projets/E\u0301te\u0301"
	if !slices.Contains(strs, decomposed) {
		t.Errorf("the decomposed form of %q is missing", hostile[4])
	}
	if !strings.Contains(profile, `"/Users/ana/a\") (allow file-write* (subpath \""`) { // the final / trimmed
		t.Errorf("quotes are not escaped as expected:\n%s", profile)
	}
	if !strings.Contains(profile, `"/Users/ana/back\\slash\\"`) {
		t.Errorf("backslashes are not escaped as expected:\n%s", profile)
	}
}

func TestSeatbeltProfileRefuses(t *testing.T) {
	for name, policy := range map[string]SeatbeltPolicy{
		"relative write":   {Write: []string{"src/app"}},
		"relative secret":  {DenyRead: []string{"~/.ssh"}},
		"newline":          {Write: []string{"/Users/ana/a\n(allow default)"}},
		"nul":              {DenyRead: []string{"/Users/ana/.ssh\x00"}},
		"escape character": {Write: []string{"/Users/ana/\x1b[31m"}},
		"not utf-8":        {Write: []string{"/Users/ana/\xff"}},
		"bad port":         {ProxyPort: 70000},
		"bad loopback":     {ProxyPort: 8080, LoopbackPorts: []int{0}},
		"loopback alone":   {LoopbackPorts: []int{9000}},
	} {
		if profile, err := SeatbeltProfile(policy); err == nil {
			t.Errorf("%s: no error, profile:\n%s", name, profile)
		}
	}
}

func TestSeatbeltResolvesLinks(t *testing.T) {
	links := map[string]string{"/var": "/private/var", "/Users/ana": "/Volumes/home/ana"}
	eval := func(path string) (string, error) {
		for from, to := range links {
			if path == from {
				return to, nil
			}
			if rest, ok := strings.CutPrefix(path, from+"/"); ok && !strings.Contains(rest, "missing") {
				return to + "/" + rest, nil
			}
		}
		if path == "/" || path == "/Users" || path == "/private" {
			return path, nil
		}
		return "", errors.New("no such file")
	}
	got := SeatbeltPolicy{
		Write:    []string{"/var/folders/parley-1", "/opt/x", "/var/folders/parley-1"},
		DenyRead: []string{"/Users/ana/.ssh", "/Users/ana/missing/.aws"},
	}.withResolved(eval)
	want := SeatbeltPolicy{
		Write:    []string{"/var/folders/parley-1", "/private/var/folders/parley-1", "/opt/x"},
		DenyRead: []string{"/Users/ana/.ssh", "/Volumes/home/ana/.ssh", "/Users/ana/missing/.aws", "/Volumes/home/ana/missing/.aws"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolved policy (-want +got):\n%s", diff)
	}
}

// checkSBPL reads profile as SBPL: balanced parentheses, every string closed and
// escaped only as SeatbeltProfile escapes, top-level forms only version, allow and deny,
// and every path of policy present as one string. It returns the strings read.
func checkSBPL(t *testing.T, profile string, policy SeatbeltPolicy) []string {
	t.Helper()
	forms, strs, err := readSBPL(profile)
	if err != nil {
		t.Fatalf("the profile is not well-formed: %v\n%s", err, profile)
	}
	if len(forms) == 0 || forms[0] != "version" {
		t.Errorf("the profile should start with (version 1): %v", forms)
	}
	for _, f := range forms[1:] {
		if f != "allow" && f != "deny" {
			t.Errorf("top-level form %q in the profile", f)
		}
	}
	for _, path := range slices.Concat(policy.Write, policy.DenyRead) {
		if !slices.Contains(strs, strings.TrimSuffix(path, "/")) {
			t.Errorf("path %q is not one string of the profile (strings: %q)", path, strs)
		}
	}
	return strs
}

// readSBPL is a reader of the SBPL SeatbeltProfile writes: it returns the operator of
// each top-level form and every string (and #"regex") with its escapes undone.
func readSBPL(src string) (forms, strs []string, err error) {
	depth := 0
	expectOperator := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '(':
			depth++
			expectOperator = depth == 1
			i++
		case c == ')':
			if depth == 0 {
				return nil, nil, errors.New("a ) closes nothing")
			}
			depth--
			i++
		case c == '"' || strings.HasPrefix(src[i:], `#"`):
			if depth == 0 {
				return nil, nil, errors.New("a string outside a form")
			}
			if c == '#' {
				i++
			}
			s, n, err := readString(src[i:])
			if err != nil {
				return nil, nil, err
			}
			strs = append(strs, s)
			expectOperator = false
			i += n
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \n\t();\"", rune(src[j])) {
				j++
			}
			if depth == 0 {
				return nil, nil, errors.New("an atom outside a form: " + src[i:j])
			}
			if expectOperator {
				forms = append(forms, src[i:j])
				expectOperator = false
			}
			i = j
		}
	}
	if depth != 0 {
		return nil, nil, errors.New("unbalanced parentheses")
	}
	return forms, strs, nil
}

// readString reads the string literal at the start of src, returning it unescaped and
// the bytes it took.
func readString(src string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			return b.String(), i + 1, nil
		case c == '\\':
			if i+1 == len(src) || (src[i+1] != '\\' && src[i+1] != '"') {
				return "", 0, errors.New("an escape SeatbeltProfile does not write")
			}
			i++
			b.WriteByte(src[i])
		case c < 0x20 || c == 0x7f:
			return "", 0, errors.New("a control character in a string")
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("a string never closed")
}
