package safety

import (
	"strings"
)

// sedEffect is something a sed script does beyond editing the text it reads.
type sedEffect struct {
	kind string // "run", "write", "read"
	arg  string // the command, or the file
}

// sedEffects parses a GNU sed script and returns what it does besides editing text:
// commands it runs (e, s///e), files it writes (w, W, s///w) and reads (r, R). ok is false
// when the script cannot be parsed (it is then assumed to do anything).
func sedEffects(script string) (effects []sedEffect, ok bool) {
	s := sedScanner{src: script}
	for {
		s.skipSpaceAnd(";\n")
		if s.done() {
			return s.effects, true
		}
		if !s.command() {
			return s.effects, false
		}
	}
}

type sedScanner struct {
	src     string
	i       int
	effects []sedEffect
}

func (s *sedScanner) done() bool { return s.i >= len(s.src) }

func (s *sedScanner) peek() byte {
	if s.done() {
		return 0
	}
	return s.src[s.i]
}

func (s *sedScanner) skipSpaceAnd(extra string) {
	for !s.done() && (s.src[s.i] == ' ' || s.src[s.i] == '\t' || strings.IndexByte(extra, s.src[s.i]) >= 0) {
		s.i++
	}
}

// restOfLine returns the text up to the end of the line (GNU sed's file names, labels
// and e's command), and moves past it.
func (s *sedScanner) restOfLine() string {
	end := strings.IndexByte(s.src[s.i:], '\n')
	if end < 0 {
		end = len(s.src) - s.i
	}
	out := s.src[s.i : s.i+end]
	s.i += end
	return out
}

// address skips one address: a line number, $, first~step, /regex/ or \cregexc, with
// GNU's I and M flags.
func (s *sedScanner) address() bool {
	switch c := s.peek(); {
	case c >= '0' && c <= '9':
		for !s.done() && (s.peek() >= '0' && s.peek() <= '9' || s.peek() == '~') {
			s.i++
		}
	case c == '$':
		s.i++
	case c == '/' || c == '\\':
		if c == '\\' {
			s.i++
		}
		if s.done() {
			return false
		}
		delim := s.peek()
		s.i++
		if _, ok := s.delimited(delim); !ok {
			return false
		}
		for !s.done() && (s.peek() == 'I' || s.peek() == 'M') {
			s.i++
		}
	default:
		return true
	}
	return true
}

// delimited reads up to the unescaped delimiter and moves past it.
func (s *sedScanner) delimited(delim byte) (string, bool) {
	var b strings.Builder
	for !s.done() {
		c := s.src[s.i]
		switch {
		case c == '\\' && s.i+1 < len(s.src):
			b.WriteByte(c)
			b.WriteByte(s.src[s.i+1])
			s.i += 2
			continue
		case c == delim:
			s.i++
			return b.String(), true
		case c == '\n' && delim != '\n':
			return "", false
		}
		b.WriteByte(c)
		s.i++
	}
	return "", false
}

// command reads one command with its addresses.
func (s *sedScanner) command() bool {
	if !s.address() {
		return false
	}
	s.skipSpaceAnd("")
	if s.peek() == ',' {
		s.i++
		s.skipSpaceAnd("")
		if s.peek() == '+' || s.peek() == '~' {
			s.i++
		}
		if !s.address() {
			return false
		}
	}
	s.skipSpaceAnd("")
	for s.peek() == '!' {
		s.i++
		s.skipSpaceAnd("")
	}
	if s.done() {
		return false
	}
	c := s.src[s.i]
	s.i++
	switch c {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		return true
	case '#', ':', 'b', 't', 'T':
		s.label()
		return true
	case 'q', 'Q', 'l', 'L':
		s.skipSpaceAnd("")
		for !s.done() && s.peek() >= '0' && s.peek() <= '9' {
			s.i++
		}
		return true
	case 'a', 'i', 'c':
		s.text()
		return true
	case 'r', 'R':
		s.effects = append(s.effects, sedEffect{"read", strings.TrimSpace(s.restOfLine())})
		return true
	case 'w', 'W':
		s.effects = append(s.effects, sedEffect{"write", strings.TrimSpace(s.restOfLine())})
		return true
	case 'e':
		s.skipSpaceAnd("")
		cmd := s.restOfLine()
		s.effects = append(s.effects, sedEffect{"run", cmd}) // "" runs the pattern space
		return true
	case 'v':
		s.label()
		return true
	case 's':
		return s.substitute()
	case 'y':
		if s.done() {
			return false
		}
		delim := s.src[s.i]
		s.i++
		_, ok1 := s.delimited(delim)
		_, ok2 := s.delimited(delim)
		return ok1 && ok2
	}
	return false
}

// label skips a label or a comment: to a newline or (GNU, but for :) a semicolon.
func (s *sedScanner) label() {
	for !s.done() && s.peek() != '\n' && s.peek() != ';' {
		s.i++
	}
}

// text skips a, i and c's text: the rest of the line, and following lines while each
// ends with a backslash.
func (s *sedScanner) text() {
	for !s.done() {
		line := s.restOfLine()
		if !strings.HasSuffix(line, "\\") || s.done() {
			return
		}
		s.i++ // the newline
	}
}

// substitute reads s/regex/replacement/flags; the e flag runs the pattern space, w
// writes a file.
func (s *sedScanner) substitute() bool {
	if s.done() {
		return false
	}
	delim := s.src[s.i]
	s.i++
	if _, ok := s.delimited(delim); !ok {
		return false
	}
	if _, ok := s.delimited(delim); !ok {
		return false
	}
	for !s.done() {
		switch c := s.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
			s.i++
		case c == 'e':
			s.i++
			s.effects = append(s.effects, sedEffect{"run", ""})
		case c == 'w':
			s.i++
			s.effects = append(s.effects, sedEffect{"write", strings.TrimSpace(s.restOfLine())})
			return true
		default:
			return true
		}
	}
	return true
}
