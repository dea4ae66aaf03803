// Package suggest finds the nearest known name to a misspelt one, for
// "did you mean" hints in error messages.
package suggest

import "strings"

// Nearest returns the candidate closest to name: one equal to it but for
// case, else the one at the smallest edit distance (Levenshtein with
// adjacent transpositions counted as one edit, compared in lower case), and
// false when none is close enough to be a plausible typo: at most 2 edits,
// and fewer edits than the longer word has letters.
func Nearest(name string, candidates []string) (string, bool) {
	lower := strings.ToLower(name)
	best, bestD := "", -1
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return c, true
		}
		d := distance(lower, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return "", false
	}
	longest := max(len([]rune(name)), len([]rune(best)))
	if bestD > 2 || bestD >= longest {
		return "", false
	}
	return best, true
}

// Hint returns ` (did you mean "x"?)` for the nearest candidate, or "".
func Hint(name string, candidates []string) string {
	if s, ok := Nearest(name, candidates); ok {
		return ` (did you mean "` + s + `"?)`
	}
	return ""
}

func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the optimal-string-alignment distance of ra[:i] and rb[:j].
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
