package catalog

import "strings"

// Suggest returns the known name closest to name, when one is close enough to be a
// slip of the keyboard (elisa for eliza, cladue for claude): at most one edit in four
// letters, never a guess for a name unlike any of them. It is the one "did you mean"
// of every flag that takes an agent's name.
func Suggest(name string, known []string) string {
	best, bestDist := "", 0
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if best == "" || d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" || bestDist > max(1, len([]rune(best))/4) {
		return ""
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string alignment) of a and
// b: insertions, deletions, substitutions and swaps of two neighbours, one each.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
