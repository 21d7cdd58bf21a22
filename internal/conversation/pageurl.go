package conversation

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckPageURL says whether raw is an address parley may open in the user's browser for
// an agent: an http or https page on a named host, nothing else. A javascript: address
// runs code in whatever page opens it, data: and blob: carry their own page, file: reads
// this machine, and vscode: and other schemes start programs; a user name in the address
// (https://bank.example@evil.example) passes one site off as another; control, invisible
// and space characters hide what the address really is. The conversation core checks
// every URL elicitation here before any view sees it, and whatever opens a browser checks
// again just before it does.
func CheckPageURL(raw string) error {
	if !utf8.ValidString(raw) {
		return errors.New("the address is not valid text")
	}
	for _, r := range raw {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) || r == utf8.RuneError {
			return fmt.Errorf("the address has a control, invisible or space character (%U) that can hide where it leads", r)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("the address is not a URL")
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "":
		return errors.New("the address has no scheme: parley opens only http and https pages")
	case scheme != "http" && scheme != "https":
		return fmt.Errorf("parley opens only http and https pages, not %s: addresses", scheme)
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return errors.New("the address names no host")
	case u.User != nil:
		return errors.New("the address carries a user name or password, which can make one site pass for another")
	}
	return nil
}
