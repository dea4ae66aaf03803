//go:build !parquet

package hf

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna/internal/buildtag"
)

// readParquet needs the parquet reader, which this build lacks: the
// default lasagna links no parquet code (build tag parquet adds it).
func readParquet(_ context.Context, _, dataset string, _ [][]string, _ []bool, _ func(int, [][]string) error) error {
	return fmt.Errorf("%s: reading its parquet files needs a lasagna built with the parquet reader; build one, from a clone of the repository: %s", dataset, buildtag.Install)
}
