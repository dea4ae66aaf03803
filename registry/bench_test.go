package registry_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/registry"
)

// msmarcoShaped returns n JSONL rows shaped like MS MARCO: a short query,
// one answer and three passages, one of them the expected document.
func msmarcoShaped(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"q%d","question":"what is the boiling point of compound %d in kelvin","answer":"about %d kelvin","contexts":["Compound %d boils at about %d kelvin under standard pressure, as measured in the laboratory.","Compound %d is a colourless liquid used as a solvent in many industrial processes.","Unrelated passage %d about the history of the laboratory and its staff over the years."]}`+"\n", i, i, 300+i%200, i, 300+i%200, i, i)
	}
	return []byte(b.String())
}

// BenchmarkImport measures Create of an MS-MARCO-shaped JSONL file into a
// SQLite registry (validation, storage of the bytes and of one row per
// entry, in one transaction); run with -benchmem for memory.
func BenchmarkImport(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		data := msmarcoShaped(n)
		b.Run(fmt.Sprintf("sqlite/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; b.Loop(); i++ {
				r, err := registry.Open(bg(), filepath.Join(b.TempDir(), "r.db"))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Create(bg(), "m", registry.Files{FS: fstest.MapFS{"m.jsonl": {Data: data}}, Path: "m.jsonl"}); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
			b.ReportMetric(float64(n), "entries/op")
		})
	}
}
