package hf

import "strings"

// Datasets this package imports (Catalogue lists them with their rules).
const (
	MSMARCO = "microsoft/ms_marco"
	GPQA    = "Idavidrein/gpqa"
	SQuAD   = "rajpurkar/squad"
	SQuADv2 = "rajpurkar/squad_v2"
	NQOpen  = "google-research-datasets/nq_open"
	// BEIROwner owns the BEIR datasets: BEIROwner/NAME holds a corpus and
	// its queries, BEIROwner/NAME-qrels the judgements of each split.
	BEIROwner = "BeIR"
)

// Spec describes a dataset of the catalogue: where it is on the Hub, what
// is read of it and what it becomes.
type Spec struct {
	// Repo is the Hub repository (BeIR/NAME for the BEIR family).
	Repo string
	// Configs are the configs --config takes; Config is the default (""
	// when the one on disk or on the Hub is taken).
	Configs []string
	Config  string
	// Splits are the splits there are (nil: any qrels file); Split is the
	// default.
	Splits []string
	Split  string
	// Format is what the files are: parquet, csv, or jsonl.gz + tsv.
	Format string
	// Files are the files read, as they are named in the repository.
	Files string
	// Maps says what the import makes of a row (docs/registry.md,
	// "Standard datasets").
	Maps string
	// Parquet reports that reading it needs the parquet build tag.
	Parquet bool
}

// Catalogue returns the datasets import-hf knows, in the order
// `lasagna benchmark import-hf --list` prints them.
func Catalogue() []Spec {
	return []Spec{
		{Repo: MSMARCO, Configs: []string{"v1.1", "v2.1"}, Split: "validation", Splits: []string{"train", "validation", "test"},
			Format: "parquet", Files: "<config>/<split>-*.parquet", Parquet: true,
			Maps: "id = query_id; answers, then well-formed answers (\"No Answer Present.\" = unanswerable); each passage a corpus document p<16 hex of its sha256>, the selected ones expected_docs"},
		{Repo: GPQA, Configs: []string{"gpqa_diamond", "gpqa_main", "gpqa_extended", "gpqa_experts"}, Config: "gpqa_diamond", Split: "train", Splits: []string{"train"},
			Format: "csv", Files: "<config>.csv",
			Maps: "closed-book; id = Record ID; answer = Correct Answer; metadata choices (sorted), incorrect_answers, domain, subdomain, explanation"},
		{Repo: BEIROwner + "/NAME", Split: "test",
			Format: "jsonl.gz + tsv", Files: "corpus.jsonl.gz, queries.jsonl.gz; BeIR/NAME-qrels (at main): <split>.tsv",
			Maps: "a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv), ids as they are: the identity and numbers of the same folder on disk"},
		{Repo: SQuAD, Configs: []string{"plain_text"}, Config: "plain_text", Split: "validation", Splits: []string{"train", "validation"},
			Format: "parquet", Files: "plain_text/<split>-*.parquet", Parquet: true,
			Maps: "id = id; answers = answers.text (distinct, in order); contexts = [context] (pooled corpus); metadata title"},
		{Repo: SQuADv2, Configs: []string{"squad_v2"}, Config: "squad_v2", Split: "validation", Splits: []string{"train", "validation"},
			Format: "parquet", Files: "squad_v2/<split>-*.parquet", Parquet: true,
			Maps: "as rajpurkar/squad; no answer = unanswerable (its context stays in the pool, relevant to nothing)"},
		{Repo: NQOpen, Configs: []string{"nq_open"}, Config: "nq_open", Split: "validation", Splits: []string{"train", "validation"},
			Format: "parquet", Files: "nq_open/<split>-*.parquet", Parquet: true,
			Maps: "closed-book; id = nq- + 12 hex of sha256(question) (-2, -3… on a repeated question); answers = answer"},
	}
}

// repos lists the catalogue's repositories for messages.
func repos() []string {
	var out []string
	for _, c := range Catalogue() {
		out = append(out, c.Repo)
	}
	return out
}

// beirName returns NAME of BeIR/NAME (the owner in any case) and whether
// dataset is in the BEIR family.
func beirName(dataset string) (string, bool) {
	owner, name, ok := strings.Cut(dataset, "/")
	if !ok || !strings.EqualFold(owner, BEIROwner) || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// Known reports whether dataset is in the catalogue (a BEIR dataset is
// BeIR/NAME, whatever NAME).
func Known(dataset string) bool {
	if _, ok := beirName(dataset); ok {
		return true
	}
	for _, c := range Catalogue() {
		if strings.EqualFold(dataset, c.Repo) {
			return true
		}
	}
	return false
}
