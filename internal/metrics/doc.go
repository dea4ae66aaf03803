// Package metrics scores retrieval and answers and summarises the scores. It
// is pure: it reads no files and calls no model (beyond the standard library
// it imports only golang.org/x/text, for the Unicode normalisation of
// NQ-open's answer rules), so every function is deterministic and safe for
// concurrent use.
//
// Retrieval metrics ([Retrieval], [EvaluateQuery], [EvaluateRun]) reproduce
// trec_eval: ties by document id descending, the rank column ignored, graded
// nDCG, MAP divided by all relevant documents, and named averaging modes.
//
// Answer metrics ([ScoreAnswer], [ExactMatch], [TokenF1], [NormalizeAnswer])
// reproduce the official SQuAD v1.1/v2.0 evaluation scripts, including
// Python's Unicode semantics for lower-casing, the \b of the article regular
// expression and str.split. A question without a prediction scores 0 and
// stays in the denominator, as in SQuAD v1.1.
//
// Vecta set metrics ([ScoreVecta], [MeanVecta]) give chunk-, page- and
// document-level precision, recall and F1 of a benchmark entry's retrieved
// chunks against its chunk_ids, page_nums and source_paths; a level without
// ground truth is "not available", never 0.
//
// Statistics ([Summarize], [ComparePaired], [Holm]) give the mean with a
// seeded percentile bootstrap confidence interval, paired comparisons (mean
// difference, paired bootstrap CI, d_z, sign-flip randomisation p-value,
// paired t-test p-value) and Holm's adjustment across a family of
// comparisons. Equal seeds and inputs give identical numbers, and no output
// is ever NaN or infinite.
package metrics
