package datasets

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

// Two passages whose sha256 share the first 6 bytes (8685fb217075), so
// that PassageID gives both the id p8685fb217075; found with Floyd's
// cycle finding over PassageID.
const (
	clashA = "passage 52f93c86ccf8"
	clashB = "passage 2449c08a613b"
)

func TestClashingPassages(t *testing.T) {
	if PassageID(clashA) != PassageID(clashB) || PassageID(clashA) != "p8685fb217075" || sha256.Sum256([]byte(clashA)) == sha256.Sum256([]byte(clashB)) {
		t.Fatalf("%s %s", PassageID(clashA), PassageID(clashB))
	}
}

// pooledRow writes row i of a pooled file: three contexts, one of them
// shared with the row before, one with a row 7 rows on.
func pooledRow(b *strings.Builder, i int) {
	fmt.Fprintf(b, `{"id": "q%d", "question": "what about %d?", "answer": "%d", "contexts": ["passage %d", "shared %d", "far %d"], "metadata": {"n": %d}}`+"\n", i, i, i, i, i/2, i%7, i)
}

// StreamPooled hands over LoadJSONL's queries and judgements and gives
// its identity and its Problems, whether the ids and passages it sorts
// stay in memory or spill to temporary files.
func TestStreamPooledIsTheLoader(t *testing.T) {
	var pooled, problems, many, clash strings.Builder
	for i := range 200 {
		pooledRow(&pooled, i)
		if i%50 == 0 {
			pooled.WriteString("\n  \n")
		}
	}
	pooled.WriteString(`{"id": "u", "question": "none?", "contexts": ["passage 3", "only here"], "metadata": {"unanswerable": true}}` + "\n")
	pooled.WriteString(`{"id": "twice", "question": "twice?", "answer": "a", "contexts": ["twice", "twice", "passage 4"]}` + "\n")
	pooled.WriteString(`{"question": "no id, no contexts?", "answer": "a"}` + "\n")
	for i := range 40 {
		pooledRow(&problems, i)
		switch i % 9 {
		case 3:
			problems.WriteString(`{"id": "q1", "question": "again?"}` + "\n")
		case 5:
			problems.WriteString(`{"id": "x", "question": ""}` + "\n")
		}
	}
	for i := range 150 {
		if i%2 == 0 {
			fmt.Fprintf(&many, `{"id": "d", "question": "dup %d?", "contexts": ["c %d"]}`+"\n", i, i)
		} else {
			many.WriteString(`{"id": 3` + "\n")
		}
	}
	for i := range 20 {
		pooledRow(&clash, i)
		switch i {
		case 4:
			fmt.Fprintf(&clash, `{"id": "a", "question": "a?", "contexts": [%q]}`+"\n", clashA)
		case 9:
			fmt.Fprintf(&clash, `{"id": "b", "question": "b?", "contexts": ["passage 1", %q, %q]}`+"\n", clashB, clashA)
		case 15:
			fmt.Fprintf(&clash, `{"id": "c", "question": "c?", "contexts": [%q]}`+"\n", clashB)
		}
	}
	plain := "{\"id\": 1, \"question\": \"q?\", \"answer\": \"a\"}\n{\"question\": \"r?\"}\n"
	files := map[string]string{
		"pooled":          pooled.String(),
		"plain":           plain,
		"problems":        problems.String(),
		"many problems":   many.String(),
		"clashing ids":    clash.String(),
		"no rows":         "\n\n",
		"not JSON":        plain + "{\"question\": \"q\"\n",
		"named":           pooled.String() + `{"id": "n", "question": "n?", "contexts": ["passage 9"], "expected_docs": ["nine"]}` + "\n" + `{"id": "m", "question": "m?", "expected_docs": ["nine"]}` + "\n",
		"named, problems": `{"id": "n", "question": "n?", "expected_docs": ["nowhere"]}` + "\n" + `{"id": "n", "question": "m?"}` + "\n",
		"named, pooled":   `{"id": "n", "question": "n?", "expected_docs": ["nowhere"]}` + "\n",
	}
	defer func(n int) { spillRecords = n }(spillRecords)
	for _, spill := range []int{1 << 16, 3} {
		spillRecords = spill
		for name, data := range files {
			t.Run(fmt.Sprintf("%s/spill %d", name, spill), func(t *testing.T) {
				fsys := fstest.MapFS{"b.jsonl": {Data: []byte(data)}}
				opts := Options{Name: "b"}
				want, wantErr := LoadJSONL(fsys, "b.jsonl", opts)
				var got []streamed
				sum, err := StreamPooled(fsys, "b.jsonl", opts, func(q lasagna.Query, relevant []string) error {
					got = append(got, streamed{q, relevant})
					return nil
				})
				if strings.HasPrefix(name, "named") {
					var p Problems
					if wantErr != nil && !errors.As(wantErr, &p) {
						t.Fatalf("loader: %v", wantErr)
					}
					if wantErr == nil && strings.Contains(name, "problems") {
						t.Fatal("the loader found no problem")
					}
					if len(p) > 0 && strings.Contains(name, "problems") {
						if !reflect.DeepEqual(err, wantErr) {
							t.Fatalf("StreamPooled: %v\nwant %v", err, wantErr)
						}
						return
					}
					if !errors.Is(err, ErrNamedPool) {
						t.Fatalf("StreamPooled: %v, want ErrNamedPool", err)
					}
					return
				}
				if wantErr != nil {
					var p Problems
					if !errors.As(wantErr, &p) {
						t.Fatalf("loader: %v, want Problems", wantErr)
					}
					if !reflect.DeepEqual(err, wantErr) {
						t.Fatalf("StreamPooled: %v\nwant %v", err, wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				wantSum := Summary{Name: want.Name, Revision: want.Revision, Format: lasagna.FormatJSONL, Queries: len(want.Queries), Documents: len(want.Corpus)}
				if sum != wantSum {
					t.Errorf("summary %+v, want %+v", sum, wantSum)
				}
				if len(got) != len(want.Queries) {
					t.Fatalf("%d queries, want %d", len(got), len(want.Queries))
				}
				for i, q := range want.Queries {
					if !reflect.DeepEqual(got[i].q, q) || !reflect.DeepEqual(got[i].relevant, want.Qrels.Relevant(q.ID)) {
						t.Fatalf("query %d: %+v %v\nwant %+v %v", i, got[i].q, got[i].relevant, q, want.Qrels.Relevant(q.ID))
					}
				}
			})
		}
	}
}

// A spill set hands its records back in (key, seq) order, from its
// buffer and its runs.
// No run is left in the temporary folder once the set is closed.
func TestSpillSetOrder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := &spillSet{max: 4}
	defer func() {
		s.close()
		if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
			t.Errorf("left in the temporary folder: %v %v", ents, err)
		}
	}()
	keys := []string{"b", "a", "c", "a", "", "bb", "b", "a", "zz", "c"}
	for i, k := range keys {
		if err := s.add([]byte(k), int64(i), int64(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.runs) != 2 {
		t.Fatalf("%d runs, want 2", len(s.runs))
	}
	var got []string
	if err := s.each(func(k []byte, seq, line int64) error {
		got = append(got, fmt.Sprintf("%s/%d/%d", k, seq, line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"/4/104", "a/1/101", "a/3/103", "a/7/107", "b/0/100", "b/6/106", "bb/5/105", "c/2/102", "c/9/109", "zz/8/108"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
