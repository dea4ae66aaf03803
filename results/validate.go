package results

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/bundletext"
)

// codeInfo looks c up in the integrity catalogue (lasagna.Catalogue()).
func codeInfo(c lasagna.Code) (lasagna.CodeInfo, bool) { return c.Info() }

// Problem is one finding of Validate: an integrity code, its level, where
// in the bundle (benchmark/arm/query ids or a field path) and what.
type Problem struct {
	Code   lasagna.Code
	Level  lasagna.Level
	Where  string
	Detail string
}

// String formats p as "CODE at where: detail (fix: …)", like
// lasagna.Finding.String.
func (p Problem) String() string {
	s := lasagna.Finding{Code: p.Code, Where: p.Where, Detail: p.Detail}.String()
	if _, ok := p.Code.Info(); !ok {
		if info, ok := codeInfo(p.Code); ok {
			s += " (fix: " + info.Fix + ")"
		}
	}
	return s
}

// Blocking reports whether p blocks.
func (p Problem) Blocking() bool { return p.Level == lasagna.LevelBlocking }

// Report is the outcome of Validate: every problem found, in a stable
// order (version, extra checks such as the JSON Schema's, hashes,
// structure, listed integrity codes).
type Report struct {
	Problems []Problem

	bundle *Bundle
}

// Bundle returns the bundle the validation read, as Unmarshal reads it,
// so that a caller that validates a bundle before it uses it parses the
// text once; nil when the text does not read as a bundle (the report
// says why). The bundle belongs to the caller.
func (r Report) Bundle() *Bundle { return r.bundle }

// Blocking returns the number of blocking problems.
func (r Report) Blocking() int {
	n := 0
	for _, p := range r.Problems {
		if p.Blocking() {
			n++
		}
	}
	return n
}

// Warnings returns the number of warnings.
func (r Report) Warnings() int { return len(r.Problems) - r.Blocking() }

// OK reports whether the bundle passes: no blocking problem, and with
// strict no warning either.
func (r Report) OK(strict bool) bool {
	if strict {
		return len(r.Problems) == 0
	}
	return r.Blocking() == 0
}

// Has reports whether the report holds a problem with code c.
func (r Report) Has(c lasagna.Code) bool {
	return slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Code == c })
}

func (r *Report) add(c lasagna.Code, where, format string, args ...any) {
	level := lasagna.LevelBlocking
	if info, ok := codeInfo(c); ok {
		level = info.Level
	}
	r.Problems = append(r.Problems, Problem{Code: c, Level: level, Where: where, Detail: fmt.Sprintf(format, args...)})
}

// versionRE compiles on first use, not at package init (every lasagna
// command links this package).
var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(SchemaVersionPattern) })

// Validate checks the bundle raw (the bytes of a bundle file):
//
//   - schema_version is present and 1.0 ≤ v < 2.0 (else SCHEMA_VERSION, and
//     nothing more is checked);
//   - run_id is the hash of the bundle as written, unknown fields included
//     (RUN_ID_MISMATCH), and each comparability_key the hash of its
//     held_fixed (COMPARABILITY_KEY_MISMATCH);
//   - the bundle reads as a Bundle (INVALID_BUNDLE with the line and column
//     of a field of the wrong type);
//   - the checks a bundle alone allows: DUPLICATE_RETRIEVED_ID in a ranked
//     list, ranks 1..n, failed queries without scores, every config with a
//     result (MISSING_RESULTS) and every result with a config, failed
//     pipeline and judge calls listed in integrity.blocking
//     (PIPELINE_ERRORS, JUDGE_ERRORS), an empty result not listed as
//     MISSING_RESULTS, corpus_ingest_gap > 0 listed as
//     PARTIAL_CORPUS, a pooled_gold corpus listed as POOLED_GOLD_CORPUS;
//   - the numbers agree (INCONSISTENT_BUNDLE): each aggregate in metrics
//     equals its metric_stats mean and the mean of the rows that score it
//     (to 1e-12), each metric_stats n is the number of those rows, each
//     interval brackets its mean and equals the one NewMetricStat
//     recomputes from the rows with the recorded seed, every value lies in
//     its metric's range (MetricRange), and every row has scores, an error
//     or its output (a ranked list of a query without judgements, an
//     answer). A run_id recomputed after an edit hides the edit from the
//     hash check, not from these;
//   - every code listed in integrity is reported at its level.
//
// Validate does not check the bundle against its JSON Schema (enums,
// patterns, required fields, null where a value is required): package
// results/schema does, with schema.Validate, which runs these checks too.
// Validate never panics on any input.
func Validate(raw []byte) Report { return ValidateWith(raw) }

// ValidateWith is Validate with extra checks of the bundle's JSON text.
// Each check receives raw once the schema version is accepted, and its
// problems are reported after the version's and before the hashes'. When
// some check reports a problem, a bundle that does not read as a Bundle is
// not reported again. Package results/schema passes its JSON Schema check
// this way; a check must not modify raw.
//
// Validation streams: the text is read once into the rows' spans and a
// skeleton without them (internal/bundletext), the run_id is the hash of
// the text canonicalized in place, and only the skeleton is decoded as a
// generic tree; the rows are decoded once, into the typed Bundle.
func ValidateWith(raw []byte, checks ...func(raw []byte) []Problem) Report {
	r, b := validate(raw, checks)
	r.bundle = b
	return r
}

// validate is ValidateWith, also returning the bundle read (nil when it
// does not read as one).
func validate(raw []byte, checks []func(raw []byte) []Problem) (Report, *Bundle) {
	var r Report
	text, err := bundletext.Split(raw)
	if err != nil {
		r.add(lasagna.InvalidBundle, "bundle", "%v", jsonError(raw, syntaxErr(raw, err)))
		return r, nil
	}
	doc, err := decodeTree(text.Skeleton)
	if err != nil {
		r.add(lasagna.InvalidBundle, "bundle", "%v", jsonError(raw, syntaxErr(raw, err)))
		return r, nil
	}
	top, ok := doc.(map[string]any)
	if !ok {
		r.add(lasagna.InvalidBundle, "bundle", "a bundle is a json object, got %s", describe(doc))
		return r, nil
	}
	v, present := top["schema_version"]
	vs, isString := v.(string)
	switch {
	case !present:
		r.add(lasagna.SchemaVersion, "schema_version", "missing; this reader accepts 1.0 <= v < 2.0")
		return r, nil
	case !isString:
		r.add(lasagna.SchemaVersion, "schema_version", "got %s, want a string such as %q", describe(v), SchemaVersion)
		return r, nil
	case !versionRE().MatchString(vs):
		r.add(lasagna.SchemaVersion, "schema_version", "%q is not accepted; this reader accepts 1.0 <= v < 2.0", vs)
		return r, nil
	}

	found := runChecks(raw, text, checks)
	checked := len(found)
	r.Problems = append(r.Problems, found...)

	if id, err := runIDOfText(raw, text); err != nil {
		r.add(lasagna.RunIDMismatch, "run_id", "cannot hash the bundle: %v", err)
	} else if got, _ := top["run_id"].(string); got != id {
		r.add(lasagna.RunIDMismatch, "run_id", "run_id is %q but the bundle hashes to %q: the bundle was edited after it was written", got, id)
	}
	checkKeys(&r, top)

	b, err := unmarshalText(raw, text)
	if err != nil {
		if checked == 0 {
			r.add(lasagna.InvalidBundle, "bundle", "%v", err)
		}
		return r, nil
	}
	checkStructure(&r, b)
	checkSubset(&r, b)
	checkConsistency(&r, b)
	checkCalibrations(&r, b)
	checkListed(&r, b)
	return r, b
}

// runChecks runs checks on raw. The checks (the schema's) split the same
// bytes: they get text, validation's split, until runChecks returns (so
// that nothing holds raw once validation is done with it).
func runChecks(raw []byte, text *bundletext.Text, checks []func(raw []byte) []Problem) []Problem {
	if len(checks) == 0 {
		return nil
	}
	release := bundletext.Share(raw, text)
	defer release()
	var found []Problem
	for _, check := range checks {
		found = append(found, check(raw)...)
	}
	return found
}

// syntaxErr re-decodes raw with encoding/json to get an error with an
// offset.
func syntaxErr(raw []byte, fallback error) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return fallback
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// checkKeys recomputes every comparability_key from the held_fixed of the
// decoded bundle top.
func checkKeys(r *Report, top map[string]any) {
	configs, _ := top["configs"].([]any)
	for i, c := range configs {
		cfg, ok := c.(map[string]any)
		if !ok {
			continue
		}
		hf, ok := cfg["held_fixed"]
		if !ok {
			continue
		}
		where := fmt.Sprintf("configs[%d]", i)
		if n, ok := cfg["name"].(string); ok {
			if bm, ok := cfg["benchmark"].(string); ok {
				where = bm + "/" + n
			}
		}
		key, err := hashTree(hf)
		if err != nil {
			r.add(lasagna.ComparabilityKeyMismatch, where, "cannot hash held_fixed: %v", err)
			continue
		}
		if got, _ := cfg["comparability_key"].(string); got != key {
			r.add(lasagna.ComparabilityKeyMismatch, where, "comparability_key is %q but held_fixed hashes to %q: held_fixed was edited", got, key)
		}
	}
}

// checkStructure applies the structural rules a bundle alone can be checked
// against.
func checkStructure(r *Report, b *Bundle) {
	if !slices.Contains(knownMetricsVersions, b.MetricsVersion) {
		r.add(lasagna.InvalidBundle, "metrics_version", "metrics_version %q is not one this reader knows (%s): its metrics may be defined differently, so they are not checked or compared; read it with the lasagna release that wrote it", b.MetricsVersion, strings.Join(knownMetricsVersions, ", "))
	}
	type armKey struct{ bench, name string }
	configs := map[armKey]*Config{}
	for i := range b.Configs {
		c := &b.Configs[i]
		k := armKey{c.Benchmark, c.Name}
		where := c.Benchmark + "/" + c.Name
		if _, dup := configs[k]; dup {
			r.add(lasagna.InvalidBundle, where, "configs list benchmark %q arm %q twice", c.Benchmark, c.Name)
			continue
		}
		configs[k] = c
		if c.HeldFixed.Benchmark != c.Benchmark {
			r.add(lasagna.InvalidBundle, where, "held_fixed.benchmark is %q but the config's benchmark is %q", c.HeldFixed.Benchmark, c.Benchmark)
		}
		if c.HeldFixed.MetricsVersion != b.MetricsVersion {
			r.add(lasagna.InvalidBundle, where, "held_fixed.metrics_version is %q but the bundle's metrics_version is %q", c.HeldFixed.MetricsVersion, b.MetricsVersion)
		}
		for _, d := range c.VariedDimensions {
			if _, ok := c.VariedLevels[d]; !ok {
				r.add(lasagna.InvalidBundle, where, "varied dimension %q has no entry in varied_levels", d)
			}
		}
	}
	seen := map[armKey]bool{}
	for i := range b.Results {
		res := &b.Results[i]
		k := armKey{res.BenchmarkName, res.ConfigName}
		where := res.BenchmarkName + "/" + res.ConfigName
		if _, ok := configs[k]; !ok {
			r.add(lasagna.InvalidBundle, where, "result names benchmark %q arm %q, which no entry of configs describes", res.BenchmarkName, res.ConfigName)
		}
		if seen[k] {
			r.add(lasagna.InvalidBundle, where, "results list benchmark %q arm %q twice", res.BenchmarkName, res.ConfigName)
		}
		seen[k] = true
		if len(res.Metrics) == 0 && len(res.PerSampleScores) == 0 && !listed(b.Integrity.Blocking, lasagna.MissingResults, where) {
			r.add(lasagna.MissingResults, where, "the result has no metrics and no per-query rows")
		}
		checkRows(r, b, res, where)
		checkLists(r, b, res, where)
		checkSmallSample(r, b, res, where)
	}
	for i := range b.Configs {
		c := &b.Configs[i]
		if !seen[armKey{c.Benchmark, c.Name}] {
			r.add(lasagna.MissingResults, c.Benchmark+"/"+c.Name, "the config has no entry in results")
		}
	}
}

func checkRows(r *Report, b *Bundle, res *Result, where string) {
	ids := map[string]bool{}
	seen := map[string]bool{} // firstDuplicateIn's, reused
	var hitIDs []string
	var failed, judgeFailed []string
	for i, row := range res.PerSampleScores {
		w := where + "/" + row.QueryID
		if row.QueryID == "" {
			w = fmt.Sprintf("%s/per_sample_scores[%d]", where, i)
		}
		if ids[row.QueryID] {
			r.add(lasagna.InvalidBundle, w, "query %q has two rows", row.QueryID)
		}
		ids[row.QueryID] = true
		if row.Error != "" {
			failed = append(failed, row.QueryID)
			if len(row.Scores) > 0 {
				r.add(lasagna.InvalidBundle, w, "a failed query carries scores; it must carry its error and no scores (never 0)")
			}
		}
		if row.JudgeError != "" {
			judgeFailed = append(judgeFailed, row.QueryID)
		}
		dupIDs := firstDuplicateIn(seen, row.RetrievedIDs)
		if dupIDs != "" {
			r.add(lasagna.DuplicateRetrievedID, w, "_retrieved_ids holds %q more than once", dupIDs)
		}
		if row.Retrieved != nil {
			// hitIDs is reused from row to row (a depth-1000 bundle has a
			// million hits); an id after a wrong rank stays "".
			hitIDs = slices.Grow(hitIDs[:0], len(row.Retrieved))[:len(row.Retrieved)]
			clear(hitIDs)
			for j, h := range row.Retrieved {
				hitIDs[j] = h.ID
				if h.Rank != j+1 {
					r.add(lasagna.InvalidBundle, w, "_retrieved[%d] (id %q) has rank %d, want %d: ranks are 1..n in list order", j, h.ID, h.Rank, j+1)
					break
				}
			}
			// The same list as _retrieved_ids has its duplicate, reported.
			same := slices.Equal(hitIDs, row.RetrievedIDs)
			if !same {
				if d := firstDuplicateIn(seen, hitIDs); d != "" && d != dupIDs {
					r.add(lasagna.DuplicateRetrievedID, w, "_retrieved holds %q more than once", d)
				}
			}
			if row.RetrievedIDs != nil && !same {
				r.add(lasagna.InvalidBundle, w, "_retrieved_ids and the ids of _retrieved differ; both are the same ranked list")
			}
		}
	}
	if len(failed) > 0 && !listed(b.Integrity.Blocking, lasagna.PipelineErrors, where) {
		r.add(lasagna.PipelineErrors, where, "%d failed quer%s (%s) not listed in integrity.blocking", len(failed), plural(len(failed), "y", "ies"), firstFew(failed))
	}
	if len(judgeFailed) > 0 && !listed(b.Integrity.Blocking, lasagna.JudgeErrors, where) {
		r.add(lasagna.JudgeErrors, where, "%d failed judge call%s (%s) not listed in integrity.blocking", len(judgeFailed), plural(len(judgeFailed), "", "s"), firstFew(judgeFailed))
	}
}

// listed reports whether lines hold a finding of code c whose where is
// arm (benchmark/arm), a prefix of it, a query below it, or empty.
func listed(fs []Finding, c lasagna.Code, arm string) bool {
	for _, f := range fs {
		if f.Code != c {
			continue
		}
		if f.Where == "" || f.Where == arm || strings.HasPrefix(arm, f.Where+"/") || strings.HasPrefix(f.Where, arm+"/") {
			return true
		}
	}
	return false
}

// checkListed reports the codes the bundle lists in integrity, and the
// ones its held_fixed implies but it does not list.
func checkListed(r *Report, b *Bundle) {
	for i := range b.Configs {
		c := &b.Configs[i]
		where := c.Benchmark + "/" + c.Name
		if g := c.HeldFixed.CorpusIngestGap; g != nil && *g > 0 && !listed(b.Integrity.Blocking, lasagna.PartialCorpus, where) {
			r.add(lasagna.PartialCorpus, where, "corpus_ingest_gap is %d but integrity.blocking does not list PARTIAL_CORPUS", *g)
		}
		if c.HeldFixed.CorpusProvenance == lasagna.ProvenancePooledGold && !listed(b.Integrity.Warnings, lasagna.PooledGoldCorpus, where) {
			r.add(lasagna.PooledGoldCorpus, where, "corpus_provenance is pooled_gold but integrity.warnings does not list POOLED_GOLD_CORPUS")
		}
	}
	for _, list := range []struct {
		name  string
		lines []Finding
		level lasagna.Level
	}{{"integrity.blocking", b.Integrity.Blocking, lasagna.LevelBlocking}, {"integrity.warnings", b.Integrity.Warnings, lasagna.LevelWarning}} {
		for i, f := range list.lines {
			if f.Code == "" {
				r.Problems = append(r.Problems, Problem{Code: lasagna.InvalidBundle, Level: list.level,
					Where:  fmt.Sprintf("%s[%d]", list.name, i),
					Detail: fmt.Sprintf("%q does not start with an integrity code", f.String())})
				continue
			}
			level := list.level
			if info, ok := codeInfo(f.Code); ok {
				level = info.Level
			}
			detail, _, _ := strings.Cut(f.Detail, " (fix: ")
			r.Problems = append(r.Problems, Problem{Code: f.Code, Level: level, Where: f.Where, Detail: detail + " (listed in " + list.name + ")"})
		}
	}
}

func firstDuplicate(ids []string) string {
	return firstDuplicateIn(make(map[string]bool, len(ids)), ids)
}

// firstDuplicateIn is firstDuplicate with seen, cleared first, as its
// set of the ids seen.
func firstDuplicateIn(seen map[string]bool, ids []string) string {
	clear(seen)
	for _, id := range ids {
		if seen[id] {
			return id
		}
		seen[id] = true
	}
	return ""
}

func firstFew(ids []string) string {
	const n = 5
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(", … %d more", len(ids)-n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
