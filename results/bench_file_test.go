package results_test

import (
	"os"
	"testing"

	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
)

// BenchmarkValidateFile validates the bundle file named by
// LASAGNA_BENCH_BUNDLE with the schema check, as `lasagna results
// validate` does, in this process (for -cpuprofile and -memprofile); it is
// skipped without the variable.
func BenchmarkValidateFile(b *testing.B) {
	name := os.Getenv("LASAGNA_BENCH_BUNDLE")
	if name == "" {
		b.Skip("set LASAGNA_BENCH_BUNDLE to a bundle file")
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if r := results.ValidateWith(raw, schema.Check); r.Blocking() > 0 {
			b.Fatalf("%s: %v", name, r.Problems)
		}
	}
}
