// Package synth writes synthetic benchmark questions from a folder of
// documents with an LLM, from Go, as `lasagna benchmark synthesize` does:
// the same folder, N, mix, seed and model give the same plan, the same
// prompts and, with the same answers, the same rows, which
// datasets.WriteJSONL writes byte for byte as the command's --out file.
//
// Synthesize reads every supported file under the folder (.md, .markdown
// and .txt as plain text, PDF, DOCX, HTML main text), cuts each into
// 200-word passages, chooses the passages of each question with the seed
// and asks the LLM for three kinds of question: factoid (a short fact in
// one passage), multihop (a fact from a passage and one from another
// document's passage) and unanswerable (on a passage's subject but not
// answered by it). A second call checks each question; those that fail
// are dropped and counted by reason, never replaced. The rows, numbered
// synth-0001…, carry their provenance in metadata (question_type,
// source_doc_ids, prompt_id, prompt_sha256, model, seed, synthetic,
// unanswerable).
//
// Synthetic sets are for development, not for claims: questions an LLM
// wrote from a passage reuse its words, so retrievers find them easier
// than real users' questions. Compare configurations on them while you
// build; report results on human-written questions.
//
// This package links the LLM client (package llm); package datasets does
// not.
package synth

import (
	"context"
	"io/fs"

	"github.com/lasagna-go/lasagna/datasets"
	"github.com/lasagna-go/lasagna/internal/extract"
	isynth "github.com/lasagna-go/lasagna/internal/synth"
	"github.com/lasagna-go/lasagna/llm"
)

// Options are synthesize's flags. N is required; the zero value of every
// other field is the command's default.
type Options struct {
	// N is the number of questions to plan (--n); rows that fail
	// verification are dropped, so Result.Rows may hold fewer.
	N int
	// Mix is the share of each question type (--mix), such as
	// "factoid=0.6,multihop=0.3,unanswerable=0.1", summing to 1; ""
	// means the default mix.
	Mix string
	// Seed chooses the passages (--seed) and is recorded in each row.
	Seed int64
	// Model is the LLM asked (--model); "" means the client's model.
	Model string
	// Concurrency is the number of questions generated at once
	// (--concurrency); 0 means 4. It never changes the rows.
	Concurrency int
}

// Result is what Synthesize wrote.
type Result struct {
	// Rows are the verified questions in plan order, with ids synth-0001,
	// synth-0002, … in that order; write them with datasets.WriteJSONL.
	Rows []datasets.Row
	// Planned is the number of questions planned (Options.N).
	Planned int
	// Dropped counts the questions dropped, by reason (such as
	// "unsupported" or "invalid_json").
	Dropped map[string]int
	// Skipped are the files of the folder not read, each "path: reason"
	// (an unsupported type, a hidden file, a file with no text).
	Skipped []string
}

// Synthesize writes opts.N questions from the documents under dir in fsys
// (dir "." is the whole fs.FS; a document's id is its path relative to
// dir, so os.DirFS(folder), "." names documents as the command does for
// that folder) with client. A folder without documents, an invalid Mix or
// a failed LLM call is an error; questions that fail verification are
// not errors but dropped and counted.
func Synthesize(ctx context.Context, client *llm.Client, fsys fs.FS, dir string, opts Options) (Result, error) {
	var mix isynth.Mix
	if opts.Mix != "" {
		m, err := isynth.ParseMix(opts.Mix)
		if err != nil {
			return Result{}, err
		}
		mix = m
	}
	listing, err := extract.Walk(fsys, dir)
	if err != nil {
		return Result{}, err
	}
	res, err := isynth.Synthesize(ctx, client, listing.Documents, isynth.Options{N: opts.N, Mix: mix, Seed: opts.Seed, Model: opts.Model, Concurrency: opts.Concurrency})
	out := Result{Rows: res.Rows, Planned: len(res.Plan.Questions), Dropped: res.Dropped}
	for _, s := range listing.Skipped {
		out.Skipped = append(out.Skipped, s.Path+": "+s.Reason)
	}
	return out, err
}
