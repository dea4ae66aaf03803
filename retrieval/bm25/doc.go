// Package bm25 is the built-in lexical retriever: an in-memory inverted index
// scored with Okapi BM25, the `speed` profile's retriever.
//
// # Scoring
//
// The score of document d for query q is
//
//	score(q, d) = Σ_{t ∈ q} qtf(t) · idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·dl(d)/avgdl))
//	idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//
// with Lucene's idf, which is never negative. tf(t,d) is the number of times
// the term occurs in d, dl(d) the number of indexed terms of d (stopwords
// removed), avgdl their mean over the N documents of the index, df(t) the
// number of documents holding t, and qtf(t) the number of times t occurs in
// the query (a repeated query word counts again, as repeated clauses of a
// Lucene boolean query do). The (k1+1) factor of the classic formula is kept;
// Lucene 8 and later drop it, which divides every score by the same constant
// (k1+1) and so leaves rankings unchanged.
//
// The defaults are k1 = 0.9 and b = 0.4, Anserini's and Pyserini's, because the
// published BEIR and TREC BM25 baselines that users compare with were computed
// with them (Lucene and Elasticsearch default to k1 = 1.2, b = 0.75; set
// Options.K1 and Options.B for those).
//
// # Tokenisation
//
// A text (a document's Title + " " + Text, or a query) is cut into tokens at
// every character that is not a Unicode letter, digit or combining mark, so
// "state-of-the-art" gives "state", "of", "the", "art" and "don't" gives
// "don", "t". Each token is lower-cased rune by rune (unicode.ToLower).
// Tokens in Lucene's English stopword set (the 33 words of EnglishAnalyzer:
// a an and are as at be but by for if in into is it no not of on or such that
// the their then there these they this to was will with) are dropped unless
// Options.KeepStopwords is set. With Options.Stemming each remaining token is
// replaced by its Snowball English ("Porter2") stem, computed by
// github.com/blevesearch/snowballstem; "running" and "runs" both become
// "run". Its stems match the Snowball project's English reference
// vocabulary except for 57 of its 42,649 words, which the 2023–2025 revisions
// of the algorithm changed after snowballstem v0.9.0 was generated ("added"
// stems to "ad", not "add"; "university" to "univers", not "universiti");
// testdata/snowball_english_known_diffs.tsv lists them and the conformance
// test holds the rest to the reference.
//
// # The Lucene analyzer
//
// Options.Analyzer = AnalyzerLucene analyses text as Lucene's EnglishAnalyzer
// does, the analysis of Anserini's and Pyserini's BM25 indexes, so that
// their published runs can be reproduced:
//
//   - Tokens are the word-boundary segments of Unicode's UAX #29
//     (Lucene's StandardTokenizer), computed by
//     github.com/clipperhouse/uax29/v2 (Unicode 17), that hold a letter, a
//     digit, an ideograph or an emoji: "e.g." gives "e.g", "don't" stays
//     whole, "U.S.A." gives "u.s.a", "3.14" and "1,000" are one token each,
//     "state-of-the-art" gives four. A run of Thai, Lao, Myanmar or Khmer
//     letters is one token; every Han ideograph and Hiragana character is
//     its own. A token longer than 255 UTF-16 code units is cut there.
//   - A final possessive 's ('s, ’s or ＇s) is removed
//     (EnglishPossessiveFilter), then the token is lower-cased and the 33
//     stopwords are dropped as above.
//   - With Options.Stemming, the analyzer replaces each token by its stem
//     under Martin Porter's original algorithm as Lucene's PorterStemFilter
//     implements it (not Snowball English): "generalizations" becomes
//     "gener", "archaeology" "archaeolog".
//
// Checked against Lucene itself (lucene-analyzers-common 8.7) on 3,022 lines
// of hand-written and random text, and against Unicode's WordBreakTest. Two
// kinds of difference remain, both from the newer Unicode: a zero-width
// joiner before a pictograph joins it to the word before (rule WB3c, since
// Unicode 11; Lucene 8.7 follows Unicode 9), and letters added to Unicode
// after version 9 make tokens. Its stemmer gives Lucene's stem for every word
// of the Porter reference vocabulary (testdata/porter_lucene_known_diffs.tsv
// lists the 67 words where Lucene departs from it) and for 200,000 random
// words.
//
// Options.Norms = NormsLucene scores as Lucene's BM25Similarity (Lucene 8
// and later, Anserini): each document length is stored in one byte by
// SmallFloat.intToByte4 (exact up to 39 terms, then with 4 significant
// bits, so 40 and 41 terms both count as 40), N and avgdl count only
// documents with at least one term, the (k1+1) factor is dropped and each
// term's score is computed in float32 as Lucene computes it,
// w − w/(1 + tf·(1/norm)). Documents whose lengths share a byte tie, as in
// Lucene. With both options and k1 0.9, b 0.4, an index reproduces an
// Anserini index's ranking up to float32 rounding of sums; Index.Stats
// gives the statistics (documents, unique terms, total terms) to compare
// with Anserini's.
//
// The default analyzer stays the default: it is what existing bundles and
// baselines were made with (a different analysis is a different retriever
// stage, so they would no longer compare), and Snowball English stems better
// than the original Porter algorithm. Choose the Lucene analyzer to
// reproduce or compare with Lucene-based BM25; it builds an index for the
// same CPU time (BENCHMARKS.md).
//
// # Ranking and ties
//
// Search returns the k best documents by score, best first; documents that
// share no term with the query are never returned, so fewer than k hits come
// back when fewer documents match. Equal scores are ordered by document id
// (byte-wise descending, the order trec_eval gives ties, so a run file
// exported from these lists ranks the same under trec_eval), and a ranking
// does not depend on the order in which documents were given to Build.
// Options.Ties "anserini" reproduces Anserini's run files instead: ties by
// ascending id (Lucene's sort by score, then id), and each reported score
// rounded to 4 decimals and lowered by 1e-6 for every document above it
// that it ties with (Anserini's ScoreTiesAdjusterReranker, in float32), so
// that scores decrease down the list and trec_eval ranks the run as written. Scores are accumulated in float32,
// and a Hit's Score is recorded at that precision: the float64 nearest to
// the float32's shortest decimal (12.9640255, not 12.964025497436523), so
// that bundles and printed runs carry float32's digits; float32(Score) is
// the float32 the index computed.
//
// # Concurrency and memory
//
// An Index is immutable once built: Search and Retrieve are safe for
// concurrent use. Postings hold, per term, the ascending integer ids of the
// documents with the term and each posting's precomputed BM25 contribution
// (float32), 8 bytes a posting; per-query scratch space is pooled. While
// an index is built, the analysis holds each document's distinct terms in
// 5 bytes a pair (term id and a one-byte frequency, larger ones aside).
package bm25
