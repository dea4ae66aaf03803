package engine

import (
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna/internal/suggest"
)

// Profile is a named preset of arms, so a run needs no sweep file
// (docs/cli.md).
type Profile struct {
	Name string
	// Summary says what runs, for help texts.
	Summary string
	// NeedsEmbeddings is true when the profile calls an embedding model, so
	// an endpoint and key must be configured before anything runs.
	NeedsEmbeddings bool
	// NeedsLLM is true when the profile calls a chat model (generator and
	// judge), so an endpoint, key and model must be configured before
	// anything runs.
	NeedsLLM bool
	// Arms returns the profile's arms for an embedding model name (ignored
	// by profiles that embed nothing).
	Arms func(embeddingModel string) []ArmSpec
}

// DefaultEmbeddingModel is the embedding model of the dense and hybrid
// profiles when none is configured.
const DefaultEmbeddingModel = "text-embedding-3-small"

// Profiles returns the built-in profiles in a fixed order (a new slice on
// every call).
func Profiles() []Profile {
	return []Profile{
		{
			Name:    "speed",
			Summary: "retrieval with the built-in BM25 (Snowball stemming on), top_k 100; needs no key",
			Arms: func(string) []ArmSpec {
				return []ArmSpec{{Name: "bm25", Retriever: RetrieverBM25}}
			},
		},
		{
			Name:            "dense",
			Summary:         "retrieval with an embedding model and the embedded exact vector index; needs an embedding endpoint and key",
			NeedsEmbeddings: true,
			Arms: func(model string) []ArmSpec {
				return []ArmSpec{{Name: "dense", Retriever: RetrieverDense, Embedder: EmbedderSpec{Model: model}}}
			},
		},
		{
			Name:            "hybrid",
			Summary:         "BM25 and dense retrieval fused by reciprocal-rank fusion (k 60); needs an embedding endpoint and key",
			NeedsEmbeddings: true,
			Arms: func(model string) []ArmSpec {
				return []ArmSpec{{Name: "hybrid", Retriever: RetrieverHybrid, Embedder: EmbedderSpec{Model: model}}}
			},
		},
		{
			Name:            "full",
			Summary:         "hybrid retrieval, a grounded LLM generator on the top 5 passages, and the LLM judge; needs an LLM endpoint, key and model",
			NeedsEmbeddings: true,
			NeedsLLM:        true,
			Arms: func(model string) []ArmSpec {
				return []ArmSpec{{Name: "full", Retriever: RetrieverHybrid, Embedder: EmbedderSpec{Model: model},
					Generator: &GeneratorSpec{Kind: GeneratorGrounded, Passages: DefaultPassages}, Judge: &JudgeSpec{}}}
			},
		},
		{
			Name:     "closed-book",
			Summary:  "the LLM generator without passages, judged for correctness; needs an LLM endpoint, key and model",
			NeedsLLM: true,
			Arms: func(string) []ArmSpec {
				return []ArmSpec{{Name: "closed-book", Generator: &GeneratorSpec{Kind: GeneratorClosedBook}, Judge: &JudgeSpec{}}}
			},
		},
	}
}

// ProfileNames returns the names of the built-in profiles.
func ProfileNames() []string {
	ps := Profiles()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// LookupProfile returns the profile called name, or an error listing the
// known ones.
func LookupProfile(name string) (Profile, error) {
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("unknown profile %q%s; profiles: %s", name, suggest.Hint(name, ProfileNames()), strings.Join(ProfileNames(), ", "))
}

// DefaultProfile is the profile a dataset runs with when none is named.
const DefaultProfile = "speed"

// ProfileSweep returns the sweep that runs the arms of the profile called
// name ("" means DefaultProfile), for the embedding model embeddingModel,
// on the one benchmark entry e; the error is LookupProfile's.
func ProfileSweep(name, embeddingModel string, e BenchmarkEntry) (*Sweep, error) {
	if name == "" {
		name = DefaultProfile
	}
	p, err := LookupProfile(name)
	if err != nil {
		return nil, err
	}
	return &Sweep{Benchmarks: []BenchmarkEntry{e}, Arms: p.Arms(embeddingModel)}, nil
}
