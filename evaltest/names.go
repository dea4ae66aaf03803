package evaltest

import (
	"fmt"
	"strings"
	"unicode"
)

// SubtestName returns s as a subtest name that -run can select exactly:
// every '/', space and non-printing character becomes '_'. (go test would
// turn a '/' into another level of the name and rewrite spaces anyway.)
// Arms and query ids are named this way (made unique with _2, _3, …).
func SubtestName(s string) string { return safeName(s) }

// ShortName returns the subtest name of a benchmark registered as name:
// the name without the "local/" prefix and the "@<hash>" suffix
// ("local/faq@0123456789ab" → "faq"), made -run-safe. (When two
// benchmarks of one run would share it, both subtests keep their hash.)
func ShortName(name string) string {
	s := strings.TrimPrefix(name, "local/")
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		s = s[:at]
	}
	return safeName(s)
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return '_'
		}
		return r
	}, s)
}

// uniqueNames returns safeName of each of ids, made unique in order: a name
// already taken gets the suffix _2, _3, … (the first free one).
func uniqueNames(ids []string) []string {
	out := make([]string, len(ids))
	taken := make(map[string]bool, len(ids))
	for _, id := range ids {
		taken[safeName(id)] = false
	}
	for i, id := range ids {
		n := safeName(id)
		if taken[n] {
			for k := 2; ; k++ {
				c := fmt.Sprintf("%s_%d", n, k)
				if _, ok := taken[c]; !ok {
					n = c
					break
				}
			}
		}
		taken[n] = true
		out[i] = n
	}
	return out
}

// benchmarkName returns the subtest name of a benchmark registered as name:
// the name without the "local/" prefix and the "@<hash>" suffix
// ("local/faq@0123456789ab" → "faq", "scifact@…" → "scifact"), made
// -run-safe. When two benchmarks of a run would share a name, both keep
// their "@<hash>".
func benchmarkNames(names []string) []string {
	short := make([]string, len(names))
	count := map[string]int{}
	for i, n := range names {
		short[i] = ShortName(n)
		count[short[i]]++
	}
	for i, n := range names {
		if count[short[i]] > 1 {
			short[i] = safeName(strings.TrimPrefix(n, "local/"))
		}
	}
	return uniqueNames(short)
}
