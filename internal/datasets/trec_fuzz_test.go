package datasets

import (
	"strings"
	"testing"
)

// FuzzParseQrels checks that any qrels input parses or fails with an error
// naming the file and a line, and never panics.
func FuzzParseQrels(f *testing.F) {
	for _, s := range []string{
		"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n",
		"q1\t0\td1\t3\r\n",
		"q1 0 d1\n",
		"q1 0 d1 x\n",
		"q1 0 d1 1\nq1 0 d1 2\n",
		"\n\n# comment\nq 0 d -1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQrels("qrels.txt", []byte(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "qrels.txt") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for qid, m := range q {
			if qid == "" {
				t.Fatal("empty query id accepted")
			}
			for d := range m {
				if d == "" {
					t.Fatal("empty document id accepted")
				}
			}
		}
	})
}
