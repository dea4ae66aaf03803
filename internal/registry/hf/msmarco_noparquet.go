//go:build !parquet

package hf

import (
	"context"
	"fmt"

	"github.com/lasagna-go/lasagna/internal/buildtag"
)

// convertMSMARCO needs the parquet reader, which this build lacks: the
// default lasagna links no parquet code (build tag parquet adds it).
func convertMSMARCO(_ context.Context, root string, o Options, _ string) (Converted, error) {
	if _, err := parquetFiles(root, o.Dataset, o.Config, o.Split); err != nil {
		return Converted{}, err
	}
	return Converted{}, fmt.Errorf("%s: reading its parquet files needs a lasagna built with the parquet reader; build one, from a clone of the repository: %s", MSMARCO, buildtag.Install)
}
