package evaltest

import "github.com/lasagna-go/lasagna/internal/engine"

// SubtestName returns s as a subtest name that -run can select exactly:
// every '/', space and non-printing character becomes '_'. (go test would
// turn a '/' into another level of the name and rewrite spaces anyway.)
// Arms and query ids are named this way (made unique with _2, _3, …).
func SubtestName(s string) string { return engine.SubtestName(s) }

// ShortName returns the subtest name of a benchmark registered as name:
// the name without the "local/" prefix and the "@<hash>" suffix
// ("local/faq@0123456789ab" → "faq"), made -run-safe. (When two
// benchmarks of one run would share it, both subtests keep their hash.)
func ShortName(name string) string { return engine.ShortName(name) }
