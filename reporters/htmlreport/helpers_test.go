package htmlreport

import (
	"context"

	"github.com/lasagna-go/lasagna/reporters"
)

func contextWithBundle(path string) context.Context {
	return reporters.WithBundlePath(context.Background(), path)
}
