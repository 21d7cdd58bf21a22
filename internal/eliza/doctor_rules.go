package eliza

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// doctorKeywordSpec and doctorDecompositionSpec are the script as written in
// doctor_script.go; compileDoctorScript turns them into doctorKeyword and
// doctorDecomposition, checking every reference on the way.
type doctorKeywordSpec struct {
	word string // lower case, as it appears after pre-substitution
	rank int
	// link names the keyword whose decompositions this one uses; it then has none itself.
	link string
	// internal keywords are reached only by links, gotos or as the fallback, never by
	// scanning what the patient said.
	internal       bool
	decompositions []doctorDecompositionSpec
}

type doctorDecompositionSpec struct {
	pattern      string
	reassemblies []string
	memorize     bool
}

type doctorScript struct {
	// scanned holds the keywords looked for in input, links already resolved to the
	// keyword whose decompositions they use but ranked as the linking word.
	scanned        map[string]doctorScannedKeyword
	fallback       *doctorKeyword
	decompositions []*doctorDecomposition // by id
	pre            map[string][]string
	greetings      []string
}

type doctorScannedKeyword struct {
	rank    int
	keyword *doctorKeyword
}

type doctorKeyword struct {
	word           string
	decompositions []*doctorDecomposition
}

type doctorDecomposition struct {
	id           int // index into Therapist.nextReassembly
	pattern      []doctorPatternElement
	reassemblies []doctorReassembly
	memorize     bool
}

type doctorPatternElement struct {
	anyWords bool            // "*"
	word     string          // a literal word, when group is nil and anyWords is false
	group    map[string]bool // "@group"
}

func (e doctorPatternElement) matchesWord(w string) bool {
	if e.group != nil {
		return e.group[w]
	}
	return e.word == w
}

// doctorReassembly is exactly one of: a goto, a newkey, or a template.
type doctorReassembly struct {
	gotoKeyword *doctorKeyword
	newKey      bool
	template    []doctorTemplatePart
}

// doctorTemplatePart is literal text, or when element > 0 the reflected words of that
// pattern element (numbered from 1).
type doctorTemplatePart struct {
	text    string
	element int
}

func mustCompileDoctorScript() *doctorScript {
	s, err := compileDoctorScript(doctorKeywords, doctorGroups(), doctorPreSubstitutions(), doctorGreetings)
	if err != nil {
		panic("eliza: the DOCTOR script is invalid:\n" + err.Error())
	}
	return s
}

// compileDoctorScript checks the script and builds the form Respond runs. It reports every
// problem it finds, not just the first, so a script author can fix them in one pass.
func compileDoctorScript(specs []doctorKeywordSpec, groups map[string][]string, pre map[string]string, greetings []string) (*doctorScript, error) {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	s := &doctorScript{
		scanned:   make(map[string]doctorScannedKeyword),
		pre:       make(map[string][]string),
		greetings: greetings,
	}
	if len(greetings) == 0 {
		fail("no greetings")
	}
	for from, to := range pre {
		s.pre[from] = strings.Fields(to)
	}
	groupSets := make(map[string]map[string]bool)
	for name, words := range groups {
		set := make(map[string]bool)
		for _, w := range words {
			if w != strings.ToLower(w) {
				fail("group @%s: word %q is not lower case", name, w)
			}
			set[w] = true
		}
		groupSets[name] = set
	}

	// First pass: every keyword exists before any decomposition refers to one. A goto may
	// only lead to a keyword with decompositions of its own.
	byWord := make(map[string]*doctorKeyword)
	gotoTargets := make(map[string]*doctorKeyword)
	for _, spec := range specs {
		switch {
		case spec.word == "" || spec.word != strings.ToLower(spec.word) || strings.ContainsAny(spec.word, " \t"):
			fail("keyword %q: must be one lower-case word", spec.word)
		case byWord[spec.word] != nil:
			fail("keyword %q: defined twice", spec.word)
		}
		if _, ok := s.pre[spec.word]; ok && !spec.internal {
			fail("keyword %q: pre-substitution rewrites it, so it can never be seen", spec.word)
		}
		if (spec.link == "") == (len(spec.decompositions) == 0) {
			fail("keyword %q: needs either a link or decompositions, not both or neither", spec.word)
		}
		byWord[spec.word] = &doctorKeyword{word: spec.word}
		if spec.link == "" {
			gotoTargets[spec.word] = byWord[spec.word]
		}
	}

	for _, spec := range specs {
		k := byWord[spec.word]
		for _, ds := range spec.decompositions {
			d, err := compileDoctorDecomposition(ds, groupSets, gotoTargets)
			if err != nil {
				fail("keyword %q, decomposition %q: %w", spec.word, ds.pattern, err)
				continue
			}
			d.id = len(s.decompositions)
			s.decompositions = append(s.decompositions, d)
			k.decompositions = append(k.decompositions, d)
		}
	}

	for _, spec := range specs {
		k := byWord[spec.word]
		if spec.link != "" {
			target := byWord[spec.link]
			switch {
			case target == nil:
				fail("keyword %q: link to unknown keyword %q", spec.word, spec.link)
				continue
			case len(target.decompositions) == 0:
				fail("keyword %q: link to %q, which has no decompositions of its own", spec.word, spec.link)
				continue
			}
			k = target
		}
		if !spec.internal {
			s.scanned[spec.word] = doctorScannedKeyword{rank: spec.rank, keyword: k}
		}
	}

	s.fallback = byWord[doctorFallbackKeyword]
	if s.fallback == nil {
		fail("no fallback keyword %q", doctorFallbackKeyword)
	} else if err := checkDoctorFallback(s.fallback); err != nil {
		fail("fallback keyword %q: %w", doctorFallbackKeyword, err)
	}
	if cycle := findDoctorGotoCycle(specs, byWord); cycle != nil {
		fail("gotos loop: %s", strings.Join(cycle, " → "))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

func compileDoctorDecomposition(spec doctorDecompositionSpec, groups map[string]map[string]bool, gotoTargets map[string]*doctorKeyword) (*doctorDecomposition, error) {
	d := &doctorDecomposition{memorize: spec.memorize}
	fields := strings.Fields(spec.pattern)
	if len(fields) == 0 {
		return nil, errors.New("empty pattern")
	}
	for i, f := range fields {
		switch {
		case f == "*":
			// Two stars in a row would make the split between them arbitrary.
			if i > 0 && fields[i-1] == "*" {
				return nil, errors.New(`"* *" is ambiguous`)
			}
			d.pattern = append(d.pattern, doctorPatternElement{anyWords: true})
		case strings.HasPrefix(f, "@"):
			group, ok := groups[f[1:]]
			if !ok {
				return nil, fmt.Errorf("unknown group %s", f)
			}
			d.pattern = append(d.pattern, doctorPatternElement{group: group})
		case f != strings.ToLower(f):
			return nil, fmt.Errorf("word %q is not lower case", f)
		default:
			d.pattern = append(d.pattern, doctorPatternElement{word: f})
		}
	}
	if len(spec.reassemblies) == 0 {
		return nil, errors.New("no reassemblies")
	}
	for _, text := range spec.reassemblies {
		r, err := compileDoctorReassembly(text, len(d.pattern), gotoTargets)
		if err != nil {
			return nil, fmt.Errorf("reassembly %q: %w", text, err)
		}
		if spec.memorize && r.template == nil {
			return nil, fmt.Errorf("reassembly %q: a memorized decomposition needs a reply to remember", text)
		}
		d.reassemblies = append(d.reassemblies, r)
	}
	return d, nil
}

func compileDoctorReassembly(text string, elements int, gotoTargets map[string]*doctorKeyword) (doctorReassembly, error) {
	switch {
	case text == "newkey":
		return doctorReassembly{newKey: true}, nil
	case strings.HasPrefix(text, "="):
		target := gotoTargets[text[1:]]
		if target == nil {
			return doctorReassembly{}, fmt.Errorf("goto %q, which is not a keyword with decompositions", text[1:])
		}
		return doctorReassembly{gotoKeyword: target}, nil
	case strings.TrimSpace(text) == "":
		return doctorReassembly{}, errors.New("empty reply")
	}
	var template []doctorTemplatePart
	rest := text
	for rest != "" {
		open := strings.IndexByte(rest, '(')
		if open < 0 {
			template = append(template, doctorTemplatePart{text: rest})
			break
		}
		end := strings.IndexByte(rest[open:], ')')
		if end < 0 {
			return doctorReassembly{}, errors.New(`"(" without ")"`)
		}
		n, err := strconv.Atoi(rest[open+1 : open+end])
		if err != nil || n < 1 || n > elements {
			return doctorReassembly{}, fmt.Errorf("%s is not an element of a %d-element pattern", rest[open:open+end+1], elements)
		}
		template = append(template, doctorTemplatePart{text: rest[:open]}, doctorTemplatePart{element: n})
		rest = rest[open+end+1:]
	}
	if !slices.ContainsFunc(template, func(tp doctorTemplatePart) bool { return strings.TrimSpace(tp.text) != "" }) {
		return doctorReassembly{}, errors.New("a reply of only captured words could be empty")
	}
	return doctorReassembly{template: template}, nil
}

// checkDoctorFallback makes sure the fallback always answers: it is used for input with no
// words at all, so every one of its decompositions must match anything and reply.
func checkDoctorFallback(k *doctorKeyword) error {
	if len(k.decompositions) == 0 {
		return errors.New("has no decompositions")
	}
	for _, d := range k.decompositions {
		if len(d.pattern) != 1 || !d.pattern[0].anyWords || d.memorize {
			return errors.New(`every decomposition must be a plain "*"`)
		}
		for _, r := range d.reassemblies {
			if r.template == nil {
				return errors.New("every reassembly must be a reply, not a goto or newkey")
			}
		}
	}
	return nil
}

// findDoctorGotoCycle returns a chain of keywords whose gotos (and links) lead back to its
// start, or nil. A cycle would let Respond recurse forever on some input.
func findDoctorGotoCycle(specs []doctorKeywordSpec, keywords map[string]*doctorKeyword) []string {
	next := make(map[string][]string)
	for _, spec := range specs {
		if spec.link != "" {
			next[spec.word] = append(next[spec.word], spec.link)
		}
		for _, d := range spec.decompositions {
			for _, r := range d.reassemblies {
				if target, ok := strings.CutPrefix(r, "="); ok && keywords[target] != nil {
					next[spec.word] = append(next[spec.word], target)
				}
			}
		}
	}
	const (
		unvisited = iota
		onPath
		done
	)
	state := make(map[string]int)
	var path []string
	var visit func(word string) []string
	visit = func(word string) []string {
		switch state[word] {
		case onPath:
			start := slices.Index(path, word)
			return append(slices.Clone(path[start:]), word)
		case done:
			return nil
		}
		state[word] = onPath
		path = append(path, word)
		for _, n := range next[word] {
			if cycle := visit(n); cycle != nil {
				return cycle
			}
		}
		path = path[:len(path)-1]
		state[word] = done
		return nil
	}
	for _, spec := range specs {
		if cycle := visit(spec.word); cycle != nil {
			return cycle
		}
	}
	return nil
}

// match reports whether words fit the pattern and, if so, the words each element took.
//
// It is the linear-time wildcard algorithm: every element other than "*" takes exactly
// one word, so on a mismatch only the most recent "*" needs to grow by one word. Each
// "*" therefore takes as few words as it can, leftmost first, and a long input cannot
// make matching explode the way naive backtracking would.
func (d *doctorDecomposition) match(words []string) ([][]string, bool) {
	p := d.pattern
	starts := make([]int, len(p)+1)
	pi, wi := 0, 0
	lastStar, lastStarWords := -1, 0 // the most recent "*" and where its words end
	for pi < len(p) || wi < len(words) {
		if pi < len(p) {
			e := p[pi]
			switch {
			case e.anyWords && pi == len(p)-1: // a final "*" takes the rest
				starts[pi] = wi
				pi, wi = len(p), len(words)
				continue
			case e.anyWords:
				starts[pi] = wi
				lastStar, lastStarWords = pi, wi
				pi++
				continue
			case wi < len(words) && e.matchesWord(words[wi]):
				starts[pi] = wi
				pi++
				wi++
				continue
			}
		}
		if lastStar < 0 || lastStarWords == len(words) {
			return nil, false
		}
		lastStarWords++
		pi, wi = lastStar+1, lastStarWords
	}
	starts[len(p)] = len(words)
	parts := make([][]string, len(p))
	for i := range p {
		parts[i] = words[starts[i]:starts[i+1]]
	}
	return parts, true
}

// assemble fills the template with the reflected words of the pattern elements.
func (r doctorReassembly) assemble(parts [][]string) string {
	var b strings.Builder
	for _, tp := range r.template {
		if tp.element == 0 {
			b.WriteString(tp.text)
			continue
		}
		b.WriteString(strings.Join(reflectDoctorWords(parts[tp.element-1]), " "))
	}
	return tidyDoctorReply(b.String())
}

// reflectDoctorWords turns the patient's words into the therapist's point of view:
// "i am afraid of you" → "you are afraid of me".
func reflectDoctorWords(words []string) []string {
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) {
			if pair, ok := doctorPostPairs()[[2]string{words[i], words[i+1]}]; ok {
				out = append(out, pair[0], pair[1])
				i++
				continue
			}
		}
		w := words[i]
		switch {
		case w == "you" && (i == 0 || doctorSubjectMarkers()[words[i-1]]):
			out = append(out, "I")
		case w == "you":
			out = append(out, "me")
		case doctorPostSubstitutions()[w] != "":
			out = append(out, doctorPostSubstitutions()[w])
		default:
			out = append(out, w)
		}
	}
	return out
}
