package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/doctest"
	"github.com/lasagna-go/lasagna/internal/registry/hf/hftest"
	"github.com/lasagna-go/lasagna/results"
)

// TestDocsTranscripts runs every lasagna transcript of README.md and
// docs/*.md and compares what the command prints with the documentation
// (CONTRIBUTING.md, "Sample outputs in the documentation"): each "$ lasagna
// ARGS" or "$ go run ./cmd/lasagna ARGS" line of a block, and each block
// marked <!-- output: lasagna ARGS -->. The blocks of one doc section run
// in order in one fresh folder (so a block may use the files an earlier
// one wrote), which holds examples/ and internal/ of the module as links,
// the blocks marked <!-- file: NAME --> of the section, and what the
// section's setup in docSetups writes. The environment is empty of keys;
// a command's stdout and stderr are compared together, in order.
func TestDocsTranscripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := doctest.Files(root)
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{} // sections and commands the docs hold
	type section struct {
		key, name string
		blocks    []doctest.Block
	}
	var sections []section
	for _, f := range files {
		blocks, err := doctest.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		at := map[string]int{}
		for _, b := range blocks {
			b.File = rel
			key := rel + "#" + b.Section
			if _, ok := at[key]; !ok {
				at[key] = len(sections)
				sections = append(sections, section{key: key, name: rel + "/" + b.Section})
			}
			sections[at[key]].blocks = append(sections[at[key]].blocks, b)
			exists[rel+": "+b.Marker.Value] = true
			for _, c := range b.Commands() {
				exists[rel+": "+c.Text] = true
			}
		}
	}
	for _, sec := range sections {
		if !runsCLI(sec.blocks) {
			continue
		}
		exists[sec.key] = true
		// The folder's name comes from the test's: no '#' (SQLite refuses it).
		t.Run(sec.name, func(t *testing.T) {
			s := newDocSession(t, root)
			if setup, ok := docSetups[sec.key]; ok {
				setup(s)
			}
			for _, b := range sec.blocks {
				s.block(b)
			}
		})
	}
	for _, m := range []map[string]func(*docSession){docSetups, commandHooks} {
		for key := range m {
			if !exists[key] {
				t.Errorf("%q names no doc section or command of a transcript; remove it from the test", key)
			}
		}
	}
	for key := range needsTag {
		if !exists[key] {
			t.Errorf("needsTag names %q, which the docs no longer hold; remove it", key)
		}
	}
	for key := range offline {
		if !exists[key] {
			t.Errorf("the list of commands that cannot run here names %q, which the docs no longer hold; remove it", key)
		}
	}
}

// offline lists the documented commands this test cannot run, with the
// reason; the test fails when one no longer exists in the docs.
var offline = map[string]string{}

// needsTag names documented commands that only a binary built with a tag
// can run; without the tag they are skipped (make test builds every tag),
// and the documented lines of the section's later outputs that name what
// the command creates are left out of their comparison.
var needsTag = map[string]struct {
	built   bool
	creates string
}{
	"docs/registry.md: lasagna benchmark import-hf microsoft/ms_marco --from ~/.cache/huggingface/hub --name msmarco-dev --limit 2": {buildtag.Parquet, "msmarco-dev"},
}

// runsCLI reports whether a section holds a lasagna transcript or a block
// marked as a lasagna command's output.
func runsCLI(bs []doctest.Block) bool {
	for _, b := range bs {
		if b.Marker.Kind == "output" && doctest.IsLasagna(b.Marker.Value) || doctest.IsCLITranscript(b) {
			return true
		}
	}
	return false
}

// docSession is the folder and environment one doc section runs in.
type docSession struct {
	t    *testing.T
	root string // the module root
	dir  string
	last int // exit status of the last command
	file string
	// missing names what skipped commands (needsTag) would have created.
	missing []string
}

func newDocSession(t *testing.T, root string) *docSession {
	dir := t.TempDir()
	for _, d := range []string{"examples", "internal"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MODEL_NAME",
		"LASAGNA_REGISTRY", "LASAGNA_SERVE_TOKEN", "LASAGNA_SUBMITTER", "LASAGNA_SHARD", "LASAGNA_LATENCY", "LASAGNA_LLM_TIMEOUT", "LASAGNA_LLM_RETRIES",
		"HF_ENDPOINT", "HF_TOKEN", "HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("HOME", dir)
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, ".local", "share"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))
	t.Setenv("LASAGNA_CACHE_DIR", filepath.Join(dir, ".cache", "lasagna"))
	return &docSession{t: t, root: root, dir: dir}
}

// write writes a file of the session's folder.
func (s *docSession) write(name string, data []byte) {
	s.t.Helper()
	p := filepath.Join(s.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// mustRun runs a lasagna command line of a setup and fails on exit != want.
func (s *docSession) mustRun(want int, args ...string) string {
	s.t.Helper()
	var out bytes.Buffer
	err := run(s.t.Context(), args, &out, &out)
	if code := exitCode(err, &out); code != want {
		s.t.Fatalf("setup: lasagna %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out.String())
	}
	return out.String()
}

func (s *docSession) block(b doctest.Block) {
	s.t.Helper()
	s.file = b.File
	switch {
	case b.Marker.Kind == "file":
		s.write(b.Marker.Value, []byte(b.Text()+"\n"))
	case b.Marker.Kind == "output" && doctest.IsLasagna(b.Marker.Value):
		s.check(b.Where(), b.Marker.Value, b.Lines)
	case doctest.IsCLITranscript(b):
		for _, c := range b.Commands() {
			s.check(fmt.Sprintf("%s:%d", b.File, c.Line), c.Text, c.Output)
		}
	}
}

// check runs one documented command and compares its output.
func (s *docSession) check(where, text string, want []string) {
	s.t.Helper()
	key := s.file + ": " + text
	if why, ok := offline[key]; ok {
		s.t.Logf("%s: not run: %s", where, why)
		return
	}
	if tag, ok := needsTag[key]; ok && !tag.built {
		s.t.Logf("%s: not run: this lasagna is built without the tag the command needs (make test builds every tag)", where)
		s.missing = append(s.missing, tag.creates)
		return
	}
	if len(s.missing) > 0 {
		var kept []string
		for _, l := range want {
			if !slices.ContainsFunc(s.missing, func(name string) bool { return strings.Contains(l, name) }) {
				kept = append(kept, l)
			}
		}
		want = kept
	}
	if hook, ok := commandHooks[key]; ok {
		hook(s)
	}
	got := s.exec(text, want)
	if err := doctest.Match(want, got); err != nil {
		s.t.Errorf("%s: $ %s\n%v", where, text, err)
	}
}

// exec runs one command line of a transcript and returns what it printed.
// Besides lasagna it knows the shell commands the docs use: export, cat,
// cmp, echo $?, a "| head -N" after a command, NAME=VALUE before it,
// ~ for $HOME and $(openssl rand -hex N).
func (s *docSession) exec(text string, want []string) string {
	s.t.Helper()
	line := doctest.StripComment(text)
	head := -1
	if i := strings.Index(line, " | head -"); i >= 0 {
		n, err := strconv.Atoi(strings.TrimSpace(line[i+len(" | head -"):]))
		if err != nil {
			s.t.Fatalf("%q: unknown pipe", text)
		}
		head, line = n, line[:i]
	}
	env, words := doctest.Words(line)
	for i, w := range words {
		if w == "~" || strings.HasPrefix(w, "~/") {
			words[i] = s.dir + w[1:]
		}
	}
	for _, kv := range env {
		v := kv[1]
		if m := regexp.MustCompile(`^\$\(openssl rand -hex (\d+)\)$`).FindStringSubmatch(v); m != nil {
			n, _ := strconv.Atoi(m[1])
			b := make([]byte, n)
			rand.Read(b)
			v = hex.EncodeToString(b)
		}
		old, had := os.LookupEnv(kv[0])
		os.Setenv(kv[0], v)
		defer func() {
			if had {
				os.Setenv(kv[0], old)
			} else {
				os.Unsetenv(kv[0])
			}
		}()
	}
	var out string
	switch words[0] {
	case "export":
		k, v, _ := strings.Cut(words[1], "=")
		s.t.Setenv(k, v)
	case "cat":
		data, err := os.ReadFile(words[1])
		out, s.last = string(data), 0
		if err != nil {
			out, s.last = fmt.Sprintf("cat: %v\n", err), 1
		}
	case "cmp":
		a, errA := os.ReadFile(words[1])
		b, errB := os.ReadFile(words[2])
		s.last = 0
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			out, s.last = fmt.Sprintf("%s %s differ\n", words[1], words[2]), 1
		}
	case "echo":
		out = strings.ReplaceAll(strings.Join(words[1:], " "), "$?", strconv.Itoa(s.last)) + "\n"
	default:
		args := words[1:]
		if words[0] == "go" {
			args = words[3:] // go run ./cmd/lasagna
		}
		if args[0] == "serve" {
			out = s.serve(args, want)
			break
		}
		var buf bytes.Buffer
		err := run(s.t.Context(), args, &buf, &buf)
		s.last = exitCode(err, &buf)
		out = buf.String()
	}
	if head >= 0 {
		lines := strings.SplitAfter(out, "\n")
		if len(lines) > head {
			lines = lines[:head]
		}
		out = strings.Join(lines, "")
	}
	return out
}

// syncBuffer is a buffer a running command writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serve runs lasagna serve on a free port of the documented host (the
// port is normalised) until it has printed the documented lines before a
// "^C" line (or all of them), then interrupts it as SIGINT does; what it
// printed after the interruption follows the "^C" line.
func (s *docSession) serve(args, want []string) string {
	s.t.Helper()
	host := "127.0.0.1"
	args = append([]string(nil), args...)
	for i := 0; i < len(args); i++ {
		if args[i] == "--addr" && i+1 < len(args) {
			host, _, _ = strings.Cut(args[i+1], ":")
			args = append(args[:i], args[i+2:]...)
			i--
		}
	}
	args = append(args, "--addr", host+":0")
	before := len(want)
	for i, l := range want {
		if l == "^C" {
			before = i
		}
	}
	ctx, cancel := context.WithCancelCause(s.t.Context())
	defer cancel(nil)
	var buf syncBuffer
	var done atomic.Bool
	var err error
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		err = run(ctx, args, &buf, &buf)
		done.Store(true)
	}()
	deadline := time.Now().Add(30 * time.Second) // a bound on a hang, not a timing
	for !done.Load() && strings.Count(buf.String(), "\n") < before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	printed := buf.String()
	if done.Load() {
		s.last = exitCode(err, &buf)
		return buf.String()
	}
	if before == len(want) { // no ^C: the documented lines are all there is
		cancel(nil)
		<-finished
		return printed
	}
	cancel(&signalError{os.Interrupt})
	<-finished
	s.last = exitCode(err, &buf)
	return printed + "^C\n" + strings.TrimPrefix(buf.String(), printed)
}

// docSetups prepare the folder of a doc section (keyed "file#heading")
// before its blocks run: the files its prose describes but does not show.
var docSetups = map[string]func(s *docSession){
	"docs/data.md#Your data: formats and `validate-data`": func(s *docSession) {
		// bad.jsonl, with the three mistakes the block lists.
		s.write("bad.jsonl", []byte(`{"id": "q1", "question": "What is lime?", "anwser": "calcium oxide", "contexts": ["Lime is calcium oxide."]}
{"id": "q2", "question": "Who minted it?", "answer": "x", "contexts": ["A coin."], "metadata": {"unanswerable": true}}
{"id": "q3", "question": "What is soda?", "answer": "sodium carbonate", "context": "Soda is sodium carbonate.", "contexts": ["Soda is sodium carbonate."]}
`))
	},
	"docs/bundles.md#Validating a bundle": func(s *docSession) {
		s.copyGolden("retrieval.json", "run.json")
		s.copyGolden("rag.json", "rag.json")
		// One recall@10 value of a row changed by hand.
		raw := s.readGolden("retrieval.json")
		s.write("edited.json", bytes.Replace(raw, []byte(`"recall@10": 0.3333333333333333`), []byte(`"recall@10": 0.75`), 1))
		// ndcg@10 of the first arm set to 0.42, the hashes recomputed.
		b, err := results.Unmarshal(raw)
		if err != nil {
			s.t.Fatal(err)
		}
		b.Results[0].Metrics["ndcg@10"] = 0.42
		if err := results.WriteFile(filepath.Join(s.dir, "forged.json"), b); err != nil {
			s.t.Fatal(err)
		}
	},
	"docs/bundles.md#Comparing arms": func(s *docSession) {
		s.copyGolden("retrieval.json", "run.json")
		raw := s.readGolden("retrieval.json")
		b, err := results.Unmarshal(raw)
		if err != nil {
			s.t.Fatal(err)
		}
		b.Configs[0].HeldFixed.SamplingSeed = 7
		if err := results.WriteFile(filepath.Join(s.dir, "seed7.json"), b); err != nil {
			s.t.Fatal(err)
		}
		b.Configs[0].HeldFixed.SamplingSeed = 42
		b.Configs[0].HeldFixed.Chunker = nil
		if err := results.WriteFile(filepath.Join(s.dir, "nochunker.json"), b); err != nil {
			s.t.Fatal(err)
		}
	},
	"docs/bundles.md#Merging shards": func(s *docSession) {
		for i := 1; i <= 3; i++ {
			s.mustRun(0, "benchmark", "run", "examples/data/faq.jsonl", "--shard", fmt.Sprintf("%d/3", i), "-o", fmt.Sprintf("shard-%d.json", i))
		}
		s.mustRun(0, "benchmark", "run", "examples/data/faq.jsonl", "-o", "whole.json")
		// Shard 2 of the same run at another depth: held_fixed differs.
		s.mustRun(0, "benchmark", "run", "examples/data/faq.jsonl", "--shard", "2/3", "--top-k", "50", "-o", "edited.json")
	},
	"docs/llm.md#Profiles": func(s *docSession) {
		writeFAQ4(s)
		// A server that answers every question from its passages but
		// glass-03 ("the wrong answer"), and names gpt-4o-mini's snapshot.
		useFakeOpenAI(s.t, fixtures.FakeOpenAIOptions{
			ModelNames: map[string]string{"gpt-4o-mini": "gpt-4o-mini-2024-07-18"},
			Reply:      faq4Reply,
		})
	},
	"docs/llm.md#RAG judge metrics and rubric judges": func(s *docSession) {
		writeFAQ4(s)
		useFakeOpenAI(s.t, fixtures.FakeOpenAIOptions{Reply: ragasDocReply})
	},
	"docs/cli.md#Dry run and cost cap": func(s *docSession) {
		// A server answering every generator call "lime" and judging
		// every answer correct and supported.
		useFakeOpenAI(s.t, fixtures.FakeOpenAIOptions{Reply: judgeEverything})
	},
	"docs/llm.md#Calibrating the judge": func(s *docSession) {
		// A judge scripted with a verdict and a reason per label
		// (calibLabels), naming gpt-4o-mini's snapshot.
		useFakeOpenAI(s.t, calibJudge())
	},
	"docs/registry.md#Managed benchmarks: the registry": func(s *docSession) {
		// The Hugging Face cache of the import-hf example, from the
		// fixtures of internal/registry/hf.
		hub := filepath.Join(s.dir, ".cache", "huggingface", "hub", "datasets--microsoft--ms_marco")
		rev := "a47ee7aae8d7b9e6d4a0e3c2b2d5f0a1c3e5f7a9"
		snap := filepath.Join(hub, "snapshots", rev, "v1.1")
		if err := os.MkdirAll(snap, 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(s.root, "internal/registry/hf/testdata/ms_marco/v1.1/validation-00000-of-00001.parquet"),
			filepath.Join(snap, "validation-00000-of-00001.parquet")); err != nil {
			s.t.Fatal(err)
		}
		s.write(".cache/huggingface/hub/datasets--microsoft--ms_marco/refs/main", []byte(rev))
		// The fixture folder of synthesize (one file of each type), and a
		// server whose verifications fail until synthSupported is set.
		if err := os.Symlink(filepath.Join(s.root, "internal/extract/testdata/docs"), filepath.Join(s.dir, "docs")); err != nil {
			s.t.Fatal(err)
		}
		synthSupported.Store(false)
		useFakeOpenAI(s.t, fixtures.FakeOpenAIOptions{Reply: func(c fixtures.ChatCall) string { return synthReply(c, synthSupported.Load()) }})
	},
	"docs/registry.md#Downloading from the Hub": func(s *docSession) {
		// A fake Hub (internal/registry/hf/hftest) whose GPQA is gated
		// behind the token the transcript exports; the cache is the
		// session's ~/.cache/huggingface/hub.
		hub := hftest.New(s.t, "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", hftest.GPQA(), hftest.MSMARCO())
		s.t.Setenv("HF_ENDPOINT", hub.URL)
	},
	"docs/registry.md#Standard datasets": func(s *docSession) {
		// A fake Hub (internal/registry/hf/hftest) whose BeIR/scifact is
		// the BEIR fixture of internal/datasets, gzipped.
		corpus, qrels := hftest.BEIR("scifact")
		hub := hftest.New(s.t, "", corpus, qrels)
		s.t.Setenv("HF_ENDPOINT", hub.URL)
	},
	"docs/synthesis.md#Synthetic questions from your documents": func(s *docSession) {
		if err := os.Symlink(filepath.Join(s.root, "internal/extract/testdata/docs"), filepath.Join(s.dir, "docs")); err != nil {
			s.t.Fatal(err)
		}
	},
	"docs/metrics.md#`lasagna metrics trec QRELS RUN [-q] [-c] [-l N] [-n] [-m measure[.params]]...`": func(s *docSession) {
		// trec_eval's own test files (cmd/lasagna/testdata/trec_eval/test,
		// as the conformance tests read them); a missing one fails.
		ref := filepath.Join(s.root, "cmd", "lasagna", "testdata", "trec_eval", "test")
		for _, f := range []string{"qrels.test", "results.test", "qrels.rel_level", "results.trunc"} {
			if _, err := os.Stat(filepath.Join(ref, f)); err != nil {
				s.t.Fatalf("trec_eval reference file missing: %v", err)
			}
			if err := os.Symlink(filepath.Join(ref, f), filepath.Join(s.dir, f)); err != nil {
				s.t.Fatal(err)
			}
		}
	},
}

// synthSupported is what the fake server of docs/registry.md's synthesis
// answers to verifications.
var synthSupported atomic.Bool

// commandHooks run before one documented command (keyed "file: command"):
// what the comment on the command, or the prose, says changed.
var commandHooks = map[string]func(s *docSession){
	"docs/cli.md: lasagna benchmark run gate.yaml        # with recal@20 in thresholds:": func(s *docSession) {
		s.edit("gate.yaml", "{metric: recall@20,", "{metric: recal@20,")
	},
	"docs/cli.md: lasagna benchmark run gate.yaml        # with cutoffs: [1, 5, 10]": func(s *docSession) {
		s.edit("gate.yaml", "{metric: recal@20,", "{metric: recall@20,")
		s.edit("gate.yaml", "cutoffs: [1, 5, 10, 20]", "cutoffs: [1, 5, 10]")
	},
	"docs/llm.md: lasagna benchmark run ragas.yaml --model gpt-4o-mini    # with concsie in thresholds:": func(s *docSession) {
		s.edit("ragas.yaml", "{metric: concise,", "{metric: concsie,")
	},
	"docs/registry.md: lasagna benchmark synthesize docs --n 6 --seed 42 --model gpt-4o-mini --into docs-synth": func(s *docSession) {
		// "run the command again to fill it": this time the server
		// supports the answers.
		synthSupported.Store(true)
		s.t.Setenv("LASAGNA_CACHE_DIR", filepath.Join(s.dir, ".cache", "lasagna-2")) // not the cached refusals
	},
}

func (s *docSession) readFile(name string) []byte {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(name)))
	if err != nil {
		s.t.Fatal(err)
	}
	return data
}

func (s *docSession) edit(name, old, new string) {
	s.t.Helper()
	data := string(s.readFile(name))
	if !strings.Contains(data, old) {
		s.t.Fatalf("%s holds no %q", name, old)
	}
	s.write(name, []byte(strings.Replace(data, old, new, 1)))
}

func (s *docSession) readGolden(name string) []byte {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(s.root, "results", "testdata", "golden", name))
	if err != nil {
		s.t.Fatal(err)
	}
	return data
}

func (s *docSession) copyGolden(name, as string) { s.write(as, s.readGolden(name)) }

// writeFAQ4 writes faq4.jsonl: four rows of examples/data/faq.jsonl,
// three answerable and one not.
func writeFAQ4(s *docSession) {
	var rows [][]byte
	for _, l := range bytes.Split(s.readFile("examples/data/faq.jsonl"), []byte("\n")) {
		for _, id := range []string{`"glass-01"`, `"glass-02"`, `"glass-03"`, `"glass-23"`} {
			if bytes.HasPrefix(l, []byte(`{"id": `+id)) {
				rows = append(rows, l)
			}
		}
	}
	s.write("faq4.jsonl", append(bytes.Join(rows, []byte("\n")), '\n'))
}

// ragasDocReply answers the generator as faq4Reply does and scripts the
// RAG judge metrics and the rubric: an answer's statements are its words,
// each supported when the context holds it; a passage is useful when it
// holds the reference; the reference's statements are its words; the
// question generated from an answer is "What is <answer>?"; every answer
// is concise (5) but "the wrong answer" (2).
func ragasDocReply(c fixtures.ChatCall) string {
	sys, u := c.Messages[0].Content, c.LastUser
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	line := func(name string) string {
		_, v, _ := strings.Cut(u, name+": ")
		v, _, _ = strings.Cut(v, "\n")
		return v
	}
	in := func(w, text string) int {
		if strings.Contains(strings.ToLower(text), w) {
			return 1
		}
		return 0
	}
	switch {
	case strings.HasPrefix(sys, "You break an answer"):
		return js(map[string]any{"statements": fixtures.Words(line("Answer"))})
	case strings.HasPrefix(sys, "You judge the faithfulness"):
		ctx, sts, _ := strings.Cut(strings.TrimPrefix(u, "Context:\n"), "\n\nStatements:\n")
		var out []map[string]any
		for _, l := range strings.Split(sts, "\n") {
			_, st, _ := strings.Cut(l, ". ")
			out = append(out, map[string]any{"statement": st, "reason": "r", "verdict": in(st, ctx)})
		}
		return js(map[string]any{"statements": out})
	case strings.HasPrefix(sys, "You write the question"):
		return js(map[string]any{"question": "What is " + line("Answer") + "?", "noncommittal": 0})
	case strings.HasPrefix(sys, "You check whether a context"):
		return js(map[string]any{"reason": "r", "verdict": in(strings.ToLower(line("Answer")), line("Context"))})
	case strings.HasPrefix(sys, "You check which statements"):
		_, rest, _ := strings.Cut(u, "Context:\n")
		ctx, ref, _ := strings.Cut(rest, "\n\nAnswer: ")
		var out []map[string]any
		for _, w := range fixtures.Words(ref) {
			out = append(out, map[string]any{"statement": w, "reason": "r", "attributed": in(w, ctx)})
		}
		return js(map[string]any{"classifications": out})
	case strings.HasPrefix(sys, "You grade an answer"):
		if line("Answer") == "the wrong answer" {
			return `{"score": 2, "reason": "vague"}`
		}
		return `{"score": 5, "reason": "short"}`
	}
	return faq4Reply(c)
}

// faq4Reply answers the generator with each question's reference answer
// from the faq4.jsonl rows (glass-03 wrongly), judges those answers
// correct, and every answer supported.
func faq4Reply(c fixtures.ChatCall) string {
	sys := c.Messages[0].Content
	switch {
	case strings.HasPrefix(sys, "You grade answers"):
		if strings.Contains(c.LastUser, "the wrong answer") {
			return `{"verdict": "incorrect"}`
		}
		return `{"verdict": "correct"}`
	case strings.HasPrefix(sys, "You check whether"):
		return `{"verdict": "supported"}`
	}
	data, _ := os.ReadFile("faq4.jsonl") // in the section's folder
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r struct {
			ID       string   `json:"id"`
			Question string   `json:"question"`
			Answer   string   `json:"answer"`
			Answers  []string `json:"answers"`
		}
		if json.Unmarshal(l, &r) != nil || !strings.Contains(c.LastUser, "Question: "+r.Question) {
			continue
		}
		if r.Answer == "" && len(r.Answers) > 0 {
			r.Answer = r.Answers[0]
		}
		switch {
		case r.ID == "glass-03":
			return `{"answer": "the wrong answer", "abstained": false}`
		case r.Answer == "":
			return `{"answer": "", "abstained": true}`
		}
		a, _ := json.Marshal(r.Answer)
		return `{"answer": ` + string(a) + `, "abstained": false}`
	}
	return `{"answer": "", "abstained": true}`
}
