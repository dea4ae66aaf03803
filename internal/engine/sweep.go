package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/suggest"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

// Sweep is a plan read from a sweep file (or made from a profile): the
// benchmarks to run and the arms to run on each.
type Sweep struct {
	// Benchmarks are the benchmark entries, in file order.
	Benchmarks []BenchmarkEntry `yaml:"benchmarks"`
	// Arms are the arms, in file order. Names are unique.
	Arms []ArmSpec `yaml:"arms"`
	// Seed is the sampling seed of every entry that does not set its own
	// (sampling_seed in the bundle); 0 means the default, 42.
	Seed uint64 `yaml:"seed"`
	// TopK is the depth of every arm that does not set its own; 0 means 100.
	TopK int `yaml:"top_k"`
	// Judge is the judge of every arm with a generator that does not set
	// its own; nil judges none.
	Judge *JudgeSpec `yaml:"judge"`
	// Cutoffs are the k of the @k retrieval metrics; nil means
	// DefaultMetricCutoffs() (each arm's depth is always added).
	Cutoffs []int `yaml:"cutoffs"`
	// Slices are metadata keys of the queries whose values break every
	// metric down, each value with its mean and confidence interval
	// (results.Result.Slices); nil slices by nothing but the built-in
	// answerable split.
	Slices []string `yaml:"slices"`
	// Gate sets the baseline gate of `lasagna benchmark run --baseline`.
	Gate Gate `yaml:"gate"`
	// VectorBackend is the vector backend of every arm that keeps the
	// corpus in one (dense, hybrid, weaviate-bm25, weaviate-hybrid) and
	// does not set its own; nil means the exact index.
	VectorBackend *VectorBackendSpec `yaml:"vector_backend"`
	// Repeats runs each query of every sampling arm that does not set its
	// own this many times (see Arm.Repeats); 0 or 1 runs once.
	Repeats int `yaml:"repeats"`
	// Pass is the pass rule of repeated queries for every arm that does
	// not set its own: all (the default), majority, any or rate >= X.
	Pass string `yaml:"pass"`
}

// RegistryScheme prefixes a benchmark path that names a benchmark of the
// benchmark registry: registry:NAME (its current revision) or
// registry:NAME@hash. The engine reads such a path only through a
// Resolver (LoadBenchmarksWith); it never opens the registry itself.
const RegistryScheme = "registry:"

// IsRegistryPath reports whether p is a registry:NAME[@hash] path.
func IsRegistryPath(p string) bool { return strings.HasPrefix(p, RegistryScheme) }

// BenchmarkEntry is one benchmark of a sweep (docs/data.md syntax).
type BenchmarkEntry struct {
	// Path names a JSONL or CSV file or a BEIR folder: absolute, or
	// relative to the sweep file's folder (it may climb with "..") or to
	// the fs.FS root when there is no sweep file; or a registered
	// benchmark as registry:NAME[@hash].
	Path string `yaml:"path"`
	// Name is the display name; with Path it replaces local/<stem> in the
	// registered name. A Name without Path names a registered benchmark.
	Name string `yaml:"name"`
	// Split chooses the BEIR qrels split; "" means test.
	Split string `yaml:"split"`
	// NSamples, when > 0, picks that many queries deterministically.
	NSamples int `yaml:"n_samples"`
	// Seed is this entry's sampling seed; 0 means the sweep's.
	Seed uint64 `yaml:"seed"`
	// Filters select queries on metadata keys before sampling.
	Filters map[string]any `yaml:"filters"`
	// Corpus, for a JSONL or CSV file, names a corpus file (BEIR
	// corpus.jsonl layout: _id, title, text) that replaces the pool of the
	// rows' passages: expected_docs then name its documents.
	Corpus string `yaml:"corpus"`
	// AnswerNormalization is squad (the default) or orqa: the rules that
	// normalise answers before exact match and token F1 (NQ-open is scored
	// with orqa). Held fixed in the bundle.
	AnswerNormalization string `yaml:"answer_normalization"`

	Pos lasagna.Pos `yaml:"-"`
}

// ArmSpec is the configuration of a built-in arm: one component per stage.
type ArmSpec struct {
	// Name is the arm's unique name.
	Name string `yaml:"name"`
	// Retriever is the retrieval method: "bm25", "dense" or "hybrid"
	// (BM25 and dense fused by reciprocal-rank fusion), or a Weaviate
	// server's own search: "weaviate-bm25" (its BM25) or "weaviate-hybrid"
	// (its fusion of BM25 and the vector, weighted by Alpha); "" for an arm
	// whose generator answers from gold contexts or closed-book.
	Retriever string `yaml:"retriever"`
	// TopK is the depth of the ranked list; 0 means the sweep's.
	TopK int `yaml:"top_k"`
	// BM25 sets the BM25 retriever (also the BM25 half of hybrid).
	BM25 BM25Spec `yaml:"bm25"`
	// Embedder sets the embedding model of dense and hybrid arms.
	Embedder EmbedderSpec `yaml:"embedder"`
	// RRFK is the reciprocal-rank fusion constant of hybrid arms; 0 means 60.
	RRFK int `yaml:"rrf_k"`
	// VectorBackend is where the arm keeps the corpus's vectors (and, for
	// the Weaviate retrievers, its texts); nil means the sweep's, else the
	// exact index.
	VectorBackend *VectorBackendSpec `yaml:"vector_backend"`
	// Alpha weighs a weaviate-hybrid arm's fusion: 1 is pure vector
	// search, 0 pure BM25; nil means DefaultWeaviateAlpha (Weaviate's
	// default, 0.75).
	Alpha *float64 `yaml:"alpha"`
	// Generator, when set, makes the arm answer with an LLM (see
	// GeneratorSpec); Retriever may then be empty.
	Generator *GeneratorSpec `yaml:"generator"`
	// Judge, when set, judges the arm's answers (see JudgeSpec).
	Judge *JudgeSpec `yaml:"judge"`
	// Varied lists the dimensions this arm varies on purpose (stage names
	// such as "retriever", or held_fixed fields such as "bm25_stemming");
	// they are left out of the comparability key.
	Varied []string `yaml:"varied"`
	// Thresholds are the arm's thresholds: {metric: ndcg@10, at_least:
	// 0.6}, {metric: latency_ms, at_most: 800, per_query: true}.
	Thresholds []Threshold `yaml:"thresholds"`
	// Repeats and Pass override the sweep's repeats: and pass:.
	Repeats int    `yaml:"repeats"`
	Pass    string `yaml:"pass"`

	Pos lasagna.Pos `yaml:"-"`
}

// BM25Spec sets the built-in BM25 retriever. Zero values mean the defaults
// of package retrieval/bm25; Stemming nil means on.
type BM25Spec struct {
	K1       float64 `yaml:"k1"`
	B        float64 `yaml:"b"`
	Stemming *bool   `yaml:"stemming"`
	// Analyzer is default (the built-in tokeniser and Snowball English
	// stemmer) or lucene (Lucene's EnglishAnalyzer, as Anserini indexes:
	// UAX#29 words, possessives removed, the original Porter stemmer).
	Analyzer string `yaml:"analyzer"`
	// Norms is exact (the default) or lucene: document lengths stored in
	// one lossy byte and scored as Lucene's BM25Similarity does.
	Norms string `yaml:"norms"`
	// Ties is trec_eval (the default: equal scores by descending document
	// id, scores as computed) or anserini (Anserini's run files: ties by
	// ascending id, scores rounded to 4 decimals and each tie 1e-6 lower).
	Ties string `yaml:"ties"`
}

// EmbedderSpec sets an OpenAI-compatible embedding model.
type EmbedderSpec struct {
	Model string `yaml:"model"`
}

// parseTies returns the bm25.Options.Ties of a sweep's ties: "" for
// trec_eval (or nothing), "anserini" for anserini.
func parseTies(s string) (string, error) {
	switch s {
	case "", "trec_eval":
		return "", nil
	case "anserini":
		return s, nil
	}
	return "", fmt.Errorf("ties %q is not one of trec_eval, anserini%s", s, suggest.Hint(s, []string{"trec_eval", "anserini"}))
}

// Stemming reports whether BM25 stems (the default) for s.
func (s BM25Spec) StemmingOn() bool { return s.Stemming == nil || *s.Stemming }

// Retriever kinds of built-in arms.
const (
	RetrieverBM25   = "bm25"
	RetrieverDense  = "dense"
	RetrieverHybrid = "hybrid"
	// RetrieverWeaviateBM25 is a Weaviate server's BM25 over the corpus's
	// texts (no embedder).
	RetrieverWeaviateBM25 = "weaviate-bm25"
	// RetrieverWeaviateHybrid is a Weaviate server's hybrid search (its
	// BM25 and the query's vector, weighted by alpha).
	RetrieverWeaviateHybrid = "weaviate-hybrid"
)

var retrieverKinds = []string{RetrieverBM25, RetrieverDense, RetrieverHybrid, RetrieverWeaviateBM25, RetrieverWeaviateHybrid}

// Known keys of each level of a sweep file.
var (
	sweepKeys     = []string{"benchmarks", "arms", "seed", "top_k", "judge", "cutoffs", "slices", "gate", "vector_backend", "repeats", "pass"}
	benchmarkKeys = []string{"path", "name", "split", "n_samples", "seed", "filters", "corpus", "answer_normalization"}
	armKeys       = []string{"name", "retriever", "top_k", "bm25", "embedder", "rrf_k", "vector_backend", "alpha", "generator", "judge", "varied", "thresholds", "repeats", "pass"}
	thresholdKeys = []string{"metric", "at_least", "at_most", "per_query", "not_worse_than", "tolerance"}
	gateKeys      = []string{"metrics", "tolerance", "alpha"}
	bm25Keys      = []string{"k1", "b", "stemming", "analyzer", "norms", "ties"}
	embedderKeys  = []string{"model"}
)

// ReadSweep reads and checks the sweep file at name in fsys (a regular
// file; see datasets.Open). Relative benchmark and corpus paths are
// resolved against the sweep file's folder, so the returned entries' Path
// values are paths in fsys; absolute paths are kept. Paths that are
// absolute or climb above fsys's root need an fs.FS that holds them, such
// as datasets.OSFS (os.DirFS does not). Unknown keys, missing
// or duplicate arm names, and bad values are errors naming file:line and,
// for a misspelt key, the nearest known one.
func ReadSweep(fsys fs.FS, name string) (*Sweep, error) {
	return readSweep(fsys, name, true)
}

// ReadSweepArms reads the sweep file at name in fsys as ReadSweep does,
// for a caller that gives the benchmarks itself (the dashboard runs a
// sweep's arms and settings on the benchmark the page shows): the file may
// have no benchmarks: list, and the benchmarks it lists are returned
// unchecked for the caller to replace.
func ReadSweepArms(fsys fs.FS, name string) (*Sweep, error) {
	return readSweep(fsys, name, false)
}

func readSweep(fsys fs.FS, name string, needBenchmarks bool) (*Sweep, error) {
	data, err := datasets.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read sweep file: %w", err)
	}
	s, err := parseSweep(data, name, needBenchmarks)
	if err != nil {
		return nil, err
	}
	if err := s.readCalibrations(fsys); err != nil {
		return nil, err
	}
	return s, nil
}

// readCalibrations reads the calibration records every judge of s cites
// into its Records.
func (s *Sweep) readCalibrations(fsys fs.FS) error {
	var errs []error
	read := func(j *JudgeSpec) {
		if j == nil || len(j.Records) == len(j.Calibrations) {
			return
		}
		j.Records = nil
		for _, p := range j.Calibrations {
			rec, err := ReadJudgeCalibration(fsys, p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			j.Records = append(j.Records, rec)
		}
	}
	read(s.Judge)
	for i := range s.Arms {
		read(s.Arms[i].Judge)
	}
	return errors.Join(errs...)
}

// ParseSweep parses sweep file bytes; file names the file in errors and is
// the base of relative benchmark paths.
func ParseSweep(data []byte, file string) (*Sweep, error) {
	return parseSweep(data, file, true)
}

func parseSweep(data []byte, file string, needBenchmarks bool) (*Sweep, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty sweep file; it needs benchmarks: and arms: lists", file)
	}
	root := doc.Content[0]
	var errs []error
	check := func(n *yaml.Node, known []string, where string) {
		if n == nil {
			return
		}
		if n.Kind != yaml.MappingNode {
			errs = append(errs, fmt.Errorf("%s:%d: %s must be a mapping of keys to values", file, n.Line, where))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if !slices.Contains(known, k.Value) {
				errs = append(errs, fmt.Errorf("%s:%d: unknown key %q in %s%s; known keys: %s",
					file, k.Line, k.Value, where, suggest.Hint(k.Value, known), strings.Join(known, ", ")))
			}
		}
	}
	check(root, sweepKeys, "the sweep")
	checkJudge := func(n *yaml.Node) {
		check(n, judgeKeys, "judge")
		for _, r := range seqOf(mapValue(n, "rubrics")) {
			check(r, rubricKeys, "a rubric")
		}
	}
	checkJudge(mapValue(root, "judge"))
	check(mapValue(root, "gate"), gateKeys, "gate")
	errs = append(errs, checkVectorBackendNode(mapValue(root, "vector_backend"), file, "vector_backend")...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	benchNodes := seqOf(mapValue(root, "benchmarks"))
	armNodes := seqOf(mapValue(root, "arms"))
	for _, b := range benchNodes {
		check(b, benchmarkKeys, "a benchmark entry")
	}
	for _, a := range armNodes {
		check(a, armKeys, "an arm")
		if a.Kind == yaml.MappingNode {
			check(mapValue(a, "bm25"), bm25Keys, "bm25")
			check(mapValue(a, "embedder"), embedderKeys, "embedder")
			check(mapValue(a, "generator"), generatorKeys, "generator")
			checkJudge(mapValue(a, "judge"))
			errs = append(errs, checkVectorBackendNode(mapValue(a, "vector_backend"), file, "vector_backend")...)
			for _, th := range seqOf(mapValue(a, "thresholds")) {
				check(th, thresholdKeys, "a threshold")
			}
		}
	}
	zero := func(n *yaml.Node, where string) {
		for _, key := range []string{"top_k", "repeats"} {
			if v := mapValue(n, key); v != nil && v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) == "0" {
				errs = append(errs, fmt.Errorf("%s:%d: %s%s is 0; it must be positive (omit it for %s)", file, v.Line, where, key, map[string]string{"top_k": "the default depth, 100", "repeats": "one run of each query"}[key]))
			}
		}
	}
	zero(root, "")
	for _, a := range armNodes {
		if a.Kind == yaml.MappingNode {
			zero(a, "arm "+strings.TrimSpace(mapValueString(a, "name"))+": ")
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var s Sweep
	if err := root.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "))
	}
	if s.VectorBackend != nil {
		s.VectorBackend.Pos = lasagna.Pos{File: file, Line: mapKey(root, "vector_backend").Line}
	}
	dir := path.Dir(file)
	for i := range s.Benchmarks {
		e := &s.Benchmarks[i]
		e.Pos = lasagna.Pos{File: file, Line: benchNodes[i].Line}
		if !IsRegistryPath(e.Path) {
			e.Path = sweepPath(dir, e.Path)
		}
		e.Corpus = sweepPath(dir, e.Corpus)
	}
	resolveCalibrations := func(j *JudgeSpec) {
		if j != nil {
			for i, p := range j.Calibrations {
				j.Calibrations[i] = sweepPath(dir, p)
			}
		}
	}
	resolveCalibrations(s.Judge)
	for i := range s.Arms {
		a := &s.Arms[i]
		resolveCalibrations(a.Judge)
		a.Pos = lasagna.Pos{File: file, Line: armNodes[i].Line}
		if a.VectorBackend != nil {
			a.VectorBackend.Pos = lasagna.Pos{File: file, Line: mapKey(armNodes[i], "vector_backend").Line}
		}
		ths := seqOf(mapValue(armNodes[i], "thresholds"))
		for j := range a.Thresholds {
			if j < len(ths) {
				a.Thresholds[j].Pos = lasagna.Pos{File: file, Line: ths[j].Line}
			}
		}
	}
	if err := s.check(needBenchmarks); err != nil {
		return nil, err
	}
	return &s, nil
}

// sweepPath resolves a path p written in a sweep file whose folder is dir:
// an absolute path stays as written (in slash form), a relative one,
// which may climb with "..", is joined to dir. Reading such paths needs an
// fs.FS that holds them, as datasets.OSFS does.
func sweepPath(dir, p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) || path.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	return path.Join(dir, filepath.ToSlash(p))
}

// Check reports problems a sweep can have whatever its source: no
// benchmarks or arms, entries without path or name, missing or duplicate
// arm names, unknown retrievers, negative sizes.
func (s *Sweep) Check() error { return s.check(true) }

// check is Check; without needBenchmarks an empty benchmarks list is no
// problem (the caller gives the benchmarks).
func (s *Sweep) check(needBenchmarks bool) error {
	var errs []error
	at := func(p lasagna.Pos) string {
		if p.File == "" {
			return ""
		}
		return p.String() + ": "
	}
	if needBenchmarks && len(s.Benchmarks) == 0 {
		errs = append(errs, errors.New("the sweep lists no benchmarks; add a benchmarks: entry such as {path: data.jsonl}"))
	}
	if len(s.Arms) == 0 {
		errs = append(errs, errors.New("the sweep lists no arms; add an arms: entry such as {name: bm25, retriever: bm25}"))
	}
	if len(s.Benchmarks) > MaxBenchmarks || len(s.Arms) > MaxArms {
		errs = append(errs, fmt.Errorf("the sweep lists %d benchmarks and %d arms; a plan holds at most %d benchmarks and %d arms (docs/cli.md, \"Limits\"): split it into several sweep files", len(s.Benchmarks), len(s.Arms), MaxBenchmarks, MaxArms))
	}
	if s.TopK < 0 {
		errs = append(errs, fmt.Errorf("top_k is %d; it must be positive (or absent for 100)", s.TopK))
	}
	for _, k := range s.Cutoffs {
		if k < 1 {
			errs = append(errs, fmt.Errorf("cutoffs holds %d; every cutoff must be a positive rank", k))
		}
	}
	if s.Gate.Tolerance < 0 || s.Gate.Alpha < 0 || s.Gate.Alpha >= 1 {
		errs = append(errs, errors.New("gate: tolerance must be ≥ 0 and alpha in (0, 1)"))
	}
	if vb := s.VectorBackend; vb != nil {
		errs = append(errs, vb.problems(at(vb.Pos))...)
	}
	if s.Repeats < 0 {
		errs = append(errs, fmt.Errorf("repeats is %d; it must be positive (or absent to run each query once)", s.Repeats))
	}
	if _, err := ParsePassRule(s.Pass); err != nil {
		errs = append(errs, fmt.Errorf("pass: %w", err))
	}
	for _, e := range s.Benchmarks {
		if _, err := metrics.ParseNormalization(e.AnswerNormalization); err != nil {
			errs = append(errs, fmt.Errorf("%sanswer_normalization: %w", at(e.Pos), err))
		}
		if e.Path == "" && e.Name == "" {
			errs = append(errs, fmt.Errorf("%sa benchmark entry needs a path (a file or BEIR folder) or a name", at(e.Pos)))
		}
		if e.Path == "" && e.Name != "" {
			errs = append(errs, fmt.Errorf("%sbenchmark %q has no path:; give the file or folder as path, or a registered benchmark as path: registry:%s", at(e.Pos), e.Name, e.Name))
		}
		if IsRegistryPath(e.Path) && (e.Name != "" || e.Split != "" || e.Corpus != "") {
			errs = append(errs, fmt.Errorf("%sbenchmark %s: name:, split: and corpus: apply to files; a registered benchmark has its own (drop them)", at(e.Pos), e.Path))
		}
		if e.NSamples < 0 {
			errs = append(errs, fmt.Errorf("%sn_samples is %d; it must be positive (or absent for all queries)", at(e.Pos), e.NSamples))
		}
	}
	seen := map[string]bool{}
	for _, a := range s.Arms {
		switch {
		case a.Name == "":
			errs = append(errs, fmt.Errorf("%san arm needs a name", at(a.Pos)))
		case seen[a.Name]:
			errs = append(errs, fmt.Errorf("%sarm name %q is used twice; arm names must be unique", at(a.Pos), a.Name))
		}
		seen[a.Name] = true
		errs = append(errs, checkGeneration(a, at(a.Pos))...)
		if !slices.Contains(retrieverKinds, a.Retriever) && (a.Generator == nil || a.Retriever != "") {
			errs = append(errs, fmt.Errorf("%sarm %q: retriever %q is not one of %s%s", at(a.Pos), a.Name, a.Retriever,
				strings.Join(retrieverKinds, ", "), suggest.Hint(a.Retriever, retrieverKinds)))
		}
		if a.TopK < 0 {
			errs = append(errs, fmt.Errorf("%sarm %q: top_k is %d; it must be positive", at(a.Pos), a.Name, a.TopK))
		}
		if a.Repeats < 0 {
			errs = append(errs, fmt.Errorf("%sarm %q: repeats is %d; it must be positive (or absent for the sweep's)", at(a.Pos), a.Name, a.Repeats))
		}
		if _, err := ParsePassRule(a.Pass); err != nil {
			errs = append(errs, fmt.Errorf("%sarm %q: pass: %w", at(a.Pos), a.Name, err))
		}
		for _, th := range a.Thresholds {
			if err := th.check(); err != nil {
				errs = append(errs, fmt.Errorf("%sarm %q: %w", at(th.Pos), a.Name, err))
			}
		}
		if a.BM25.K1 < 0 || a.BM25.B < 0 || a.BM25.B > 1 {
			errs = append(errs, fmt.Errorf("%sarm %q: bm25 needs k1 ≥ 0 and 0 ≤ b ≤ 1", at(a.Pos), a.Name))
		}
		if _, err := bm25.ParseAnalyzer(a.BM25.Analyzer); err != nil {
			errs = append(errs, fmt.Errorf("%sarm %q: bm25: %w", at(a.Pos), a.Name, err))
		}
		if _, err := bm25.ParseNorms(a.BM25.Norms); err != nil {
			errs = append(errs, fmt.Errorf("%sarm %q: bm25: %w", at(a.Pos), a.Name, err))
		}
		if _, err := parseTies(a.BM25.Ties); err != nil {
			errs = append(errs, fmt.Errorf("%sarm %q: bm25: %w", at(a.Pos), a.Name, err))
		}
		if a.NeedsEmbedder() && a.Embedder.Model == "" {
			errs = append(errs, fmt.Errorf("%sarm %q: retriever %s needs embedder: {model: …}", at(a.Pos), a.Name, a.Retriever))
		}
		if vb := a.VectorBackend; vb != nil {
			p := vb.Pos
			if p.File == "" {
				p = a.Pos
			}
			errs = append(errs, vb.problems(at(p))...)
		}
		errs = append(errs, checkArmVectorBackend(a, s.ArmVectorBackend(a), at(a.Pos))...)
	}
	return errors.Join(errs...)
}

// ArmTopK returns the depth of arm a in s.
func (s *Sweep) ArmTopK(a ArmSpec) int {
	switch {
	case a.TopK > 0:
		return a.TopK
	case s.TopK > 0:
		return s.TopK
	default:
		return DefaultTopK
	}
}

// EntrySeed returns the sampling seed of entry e in s.
func (s *Sweep) EntrySeed(e BenchmarkEntry) uint64 {
	switch {
	case e.Seed != 0:
		return e.Seed
	case s.Seed != 0:
		return s.Seed
	default:
		return DefaultSeed
	}
}

// Defaults of a sweep.
const (
	DefaultTopK = 100
	DefaultSeed = 42
)

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// mapKey returns the key node of key in mapping n, or nil.
func mapKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func seqOf(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// SetNSamples makes every benchmark entry of s run n of its queries,
// chosen deterministically by the seed (the CLI's --n-samples), overriding
// each entry's n_samples.
func (s *Sweep) SetNSamples(n int) {
	for i := range s.Benchmarks {
		s.Benchmarks[i].NSamples = n
	}
}

// SetSeed makes seed the sampling seed of every benchmark entry of s (the
// CLI's --seed), overriding the sweep's seed: and each entry's own.
func (s *Sweep) SetSeed(seed uint64) {
	s.Seed = seed
	for i := range s.Benchmarks {
		s.Benchmarks[i].Seed = 0
	}
}

// SetTopK makes k the depth of every arm of s (the CLI's --top-k),
// overriding the sweep's top_k: and each arm's own.
func (s *Sweep) SetTopK(k int) {
	s.TopK = k
	for i := range s.Arms {
		s.Arms[i].TopK = 0
	}
}

// SetJudgeModel makes model the model of every judge of s, the sweep's
// judge: and each arm's (the CLI's --judge-model). Each judge is copied
// before it changes, so a JudgeSpec shared with another sweep is left as
// it was.
func (s *Sweep) SetJudgeModel(model string) {
	for i := range s.Arms {
		if a := &s.Arms[i]; a.Judge != nil {
			j := *a.Judge
			j.Model = model
			a.Judge = &j
		}
	}
	if s.Judge != nil {
		j := *s.Judge
		j.Model = model
		s.Judge = &j
	}
}

// SetRepeats makes every arm of s run n times (the CLI's --repeats,
// evaltest's Config.Repeats): it overrides the sweep's repeats: and each
// arm's own.
func (s *Sweep) SetRepeats(n int) {
	s.Repeats = n
	for i := range s.Arms {
		s.Arms[i].Repeats = 0
	}
}

// SetPass makes rule the pass rule of every arm of s (the CLI's --pass,
// evaltest's Config.Pass), overriding the sweep's pass: and each arm's
// own.
func (s *Sweep) SetPass(rule string) {
	s.Pass = rule
	for i := range s.Arms {
		s.Arms[i].Pass = ""
	}
}

// The limits of one plan (docs/cli.md, "Limits"): the benchmarks and
// arms a sweep lists, checked before any data is read, and the query runs
// (queries × arms × repeats, over the benchmarks, in this shard), checked
// once the benchmarks are loaded and before any pipeline call. A larger
// evaluation is split into shards (--shard i/n, LASAGNA_SHARD) whose
// bundles lasagna results merge joins.
const (
	MaxBenchmarks = 1000
	MaxArms       = 1000
	MaxQueryRuns  = 2_000_000
)

// mapValueString returns the scalar value of key in mapping n, or "".
func mapValueString(n *yaml.Node, key string) string {
	if v := mapValue(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
