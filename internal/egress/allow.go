package egress

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// rule is one destination the proxy lets through: a host name, every name under a
// domain (`*.example.com`) or an IP address, on one port.
type rule struct {
	name   string     // lower case, no trailing dot; for a suffix rule the domain ("example.com")
	suffix bool       // the rule is `*.name`: names under name, not name itself
	addr   netip.Addr // valid for an IP literal (unmapped, no zone)
	port   uint16
}

// destination is where a request asks to go: a host name or an IP address, and a port.
type destination struct {
	name string     // lower case, no trailing dot; "" for an IP literal
	addr netip.Addr // valid for an IP literal
	port uint16
}

// parseRules reads the allow list, naming the first entry it cannot read.
func parseRules(allow []string) ([]rule, error) {
	rules := make([]rule, 0, len(allow))
	for _, entry := range allow {
		r, err := parseRule(entry)
		if err != nil {
			return nil, fmt.Errorf("allowed destination %q: %w (want HOST:PORT, *.DOMAIN:PORT or IP:PORT, [IPv6]:PORT)", entry, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func parseRule(entry string) (rule, error) {
	host, port, err := splitHostPort(entry)
	if err != nil {
		return rule{}, err
	}
	if addr, ok := parseAddr(host); ok {
		return rule{addr: addr, port: port}, nil
	}
	suffix := strings.HasPrefix(host, "*.")
	if suffix {
		host = host[2:]
	}
	name, err := hostName(host)
	if err != nil {
		return rule{}, err
	}
	return rule{name: name, suffix: suffix, port: port}, nil
}

// parseDestination reads a request's target, HOST:PORT (CONNECT's authority, or a
// URL's host with its port made explicit).
func parseDestination(hostport string) (destination, error) {
	host, port, err := splitHostPort(hostport)
	if err != nil {
		return destination{}, err
	}
	if addr, ok := parseAddr(host); ok {
		return destination{addr: addr, port: port}, nil
	}
	name, err := hostName(host)
	if err != nil {
		return destination{}, err
	}
	return destination{name: name, port: port}, nil
}

// matches reports whether r lets d through. A host name never matches an address rule
// (nor the other way round), whatever it resolves to: the rule says what may be asked
// for, and the proxy dials what was asked for.
func (r rule) matches(d destination) bool {
	if r.port != d.port {
		return false
	}
	if r.addr.IsValid() || d.addr.IsValid() {
		return r.addr == d.addr
	}
	if r.suffix {
		return strings.HasSuffix(d.name, "."+r.name)
	}
	return d.name == r.name
}

// String is the destination as the proxy dials it and as it is reported.
func (d destination) String() string {
	host := d.name
	if d.addr.IsValid() {
		host = d.addr.String()
	}
	return net.JoinHostPort(host, strconv.Itoa(int(d.port)))
}

func (r rule) String() string {
	host := r.name
	switch {
	case r.addr.IsValid():
		host = r.addr.String()
	case r.suffix:
		host = "*." + r.name
	}
	return net.JoinHostPort(host, strconv.Itoa(int(r.port)))
}

func splitHostPort(hostport string) (string, uint16, error) {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 || portText[0] == '+' {
		return "", 0, fmt.Errorf("port %q is not a number from 1 to 65535", portText)
	}
	if host == "" {
		return "", 0, fmt.Errorf("no host")
	}
	return host, uint16(port), nil
}

// parseAddr reads an IP literal. IPv4 in IPv6 (::ffff:127.0.0.1) is the IPv4 address,
// so that one address has one form; a zone (fe80::1%eth0) is not an address a rule can
// name, so it is not read as one and then fails as a host name.
func parseAddr(host string) (netip.Addr, bool) {
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.Zone() != "" {
		return netip.Addr{}, false
	}
	return addr.Unmap(), true
}

// hostName checks that host is a DNS name (letters, digits, hyphens and underscores in
// labels of 1 to 63 characters, 253 in all) and returns it in lower case without a
// final dot: only such names are compared and dialed, so no spelling a resolver reads
// differently (a NUL, a percent sign, a space) ever reaches one.
func hostName(host string) (string, error) {
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "" || len(name) > 253 {
		return "", fmt.Errorf("host %q is not a host name", host)
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", fmt.Errorf("host %q is not a host name", host)
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("host %q is not a host name", host)
			}
		}
	}
	return name, nil
}
