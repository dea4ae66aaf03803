// Package suggest finds the nearest known name to a misspelt one, for
// "did you mean" hints in error messages.
package suggest

// Nearest returns the candidate closest to name by edit distance
// (Levenshtein, case-sensitive), and false when none is close enough to be
// a plausible typo: at most 2 edits, and fewer edits than half the length
// of the longer word.
func Nearest(name string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		d := distance(name, c)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return "", false
	}
	longest := max(len([]rune(name)), len([]rune(best)))
	if bestD > 2 || 2*bestD >= longest {
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
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
