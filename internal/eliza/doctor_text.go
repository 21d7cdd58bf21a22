package eliza

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// doctorClauseEnds end a clause, as "." and "," did in the original; "but" does too.
const doctorClauseEnds = ".,;:!?"

// firstClauseWithKeywords returns the words of the first clause of input that holds a
// keyword, after pre-substitution, with its keyword stack: highest rank first, ties in the
// order they were said. Like the original, it ignores everything after that clause, and
// returns no words and no keywords when no clause has one.
func (s *doctorScript) firstClauseWithKeywords(input string) ([]string, []*doctorKeyword) {
	var clause []string
	var word strings.Builder
	var found []*doctorKeyword

	// endWord adds the word being read to the clause; it reports true at "but".
	endWord := func() bool {
		w := strings.Trim(word.String(), "'-")
		word.Reset()
		if w == "but" {
			return true
		}
		if w != "" {
			clause = append(clause, s.preSubstitute(w)...)
		}
		return false
	}
	// endClause reports whether the finished clause has keywords; if not, it starts afresh.
	endClause := func() bool {
		found = s.keywordStack(clause)
		if len(found) > 0 {
			return true
		}
		clause = clause[:0]
		return false
	}

	for _, r := range strings.ToLower(input) {
		switch {
		case r == '’' || r == '‘':
			word.WriteByte('\'')
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '\'' || r == '-':
			word.WriteRune(r)
		case strings.ContainsRune(doctorClauseEnds, r):
			endWord()
			if endClause() {
				return clause, found
			}
		default:
			if endWord() && endClause() {
				return clause, found
			}
		}
	}
	endWord()
	if endClause() {
		return clause, found
	}
	return nil, nil
}

func (s *doctorScript) preSubstitute(w string) []string {
	if sub, ok := s.pre[w]; ok {
		return sub
	}
	return []string{w}
}

func (s *doctorScript) keywordStack(words []string) []*doctorKeyword {
	var found []doctorScannedKeyword
	for _, w := range words {
		if k, ok := s.scanned[w]; ok {
			found = append(found, k)
		}
	}
	slices.SortStableFunc(found, func(a, b doctorScannedKeyword) int { return cmp.Compare(b.rank, a.rank) })
	var stack []*doctorKeyword
	for _, k := range found {
		// A keyword said twice, or two words linked to it, is tried once: its
		// decompositions would match the same way again.
		if !slices.Contains(stack, k.keyword) {
			stack = append(stack, k.keyword)
		}
	}
	return stack
}

// tidyDoctorReply repairs what filling a template can leave behind (doubled spaces, a
// space before punctuation where an element matched no words) and capitalises the reply.
func tidyDoctorReply(reply string) string {
	reply = strings.Join(strings.Fields(reply), " ")
	for _, p := range []string{"?", ".", ",", "!"} {
		reply = strings.ReplaceAll(reply, " "+p, p)
	}
	reply = strings.ReplaceAll(reply, ",?", "?")
	reply = strings.ReplaceAll(reply, ",.", ".")
	if reply == "" {
		return ""
	}
	first, size := utf8.DecodeRuneInString(reply)
	return string(unicode.ToUpper(first)) + reply[size:]
}
