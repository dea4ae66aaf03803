package engine

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/results"
)

// ReadBaseline reads the baseline bundle name of fsys and checks it with
// checkBaseline. A missing file is an error that wraps fs.ErrNotExist, so
// that the front end can say how to record one.
func ReadBaseline(fsys fs.FS, name, updateHint string) (*results.Bundle, error) {
	raw, err := datasets.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return checkBaseline(name, raw, updateHint)
}

// checkBaseline checks the bytes of a baseline bundle read from path and
// decodes them. A bundle whose hashes or structure do not check out (the
// findings RUN_ID_MISMATCH, COMPARABILITY_KEY_MISMATCH, SCHEMA_VERSION and
// INVALID_BUNDLE of `lasagna results validate`) is refused, since its
// numbers cannot be trusted: an edited number changes the content the
// run_id hashes. updateHint is how the user records a new baseline
// ("--update-baseline", "LASAGNA_UPDATE_BASELINE=1"). Every front end
// reads its baseline through it, so `go test` and `lasagna benchmark run
// --baseline` refuse the same bundles with the same message.
func checkBaseline(path string, raw []byte, updateHint string) (*results.Bundle, error) {
	var bad []string
	for _, p := range results.Validate(raw).Problems {
		switch p.Code {
		case lasagna.RunIDMismatch, lasagna.ComparabilityKeyMismatch, lasagna.SchemaVersion, lasagna.InvalidBundle:
			bad = append(bad, p.String())
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("baseline %s is not a valid bundle (%s); record a new one with %s", path, strings.Join(bad, "; "), updateHint)
	}
	b, err := results.Unmarshal(raw)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	return b, nil
}
