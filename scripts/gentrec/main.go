// Command gentrec writes a deterministic synthetic TREC run and qrels for
// benchmarking `lasagna metrics trec` (scripts/bench-trec.sh):
//
//	go run ./scripts/gentrec -queries 5000 -depth 1000 -run run.txt -qrels qrels.txt
//
// Each query retrieves depth distinct documents from a 10M-document id
// space, written best first with scores rounded to 4 decimals (so some
// scores tie); each query has 60 distinct judgements with grades 0-3, half
// of them on retrieved documents. The same flags always write the same bytes;
// -shuffle writes the same run lines in a random order.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	queries := flag.Int("queries", 5000, "number of queries")
	depth := flag.Int("depth", 1000, "documents retrieved per query")
	judged := flag.Int("judged", 60, "judgements per query")
	runPath := flag.String("run", "run.txt", "run file to write")
	qrelsPath := flag.String("qrels", "qrels.txt", "qrels file to write")
	seed := flag.Uint64("seed", 1, "random seed")
	shuffle := flag.Bool("shuffle", false, "write the run's lines in a random order (fixed by the seed) instead of grouped by query")
	flag.Parse()
	if err := write(*queries, *depth, *judged, *seed, *shuffle, *runPath, *qrelsPath); err != nil {
		fmt.Fprintln(os.Stderr, "gentrec:", err)
		os.Exit(1)
	}
}

func write(queries, depth, judged int, seed uint64, shuffle bool, runPath, qrelsPath string) error {
	rf, err := os.Create(runPath)
	if err != nil {
		return err
	}
	defer rf.Close()
	qf, err := os.Create(qrelsPath)
	if err != nil {
		return err
	}
	defer qf.Close()
	rw := bufio.NewWriterSize(rf, 1<<20)
	qw := bufio.NewWriterSize(qf, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 2))
	var line []byte
	var held [][]byte // with shuffle: every line, written at the end
	for q := range queries {
		qid := strconv.Itoa(100000 + q)
		seen := make(map[int]bool, depth)
		docs := make([]int, 0, depth)
		for len(docs) < depth {
			d := rng.IntN(10_000_000)
			if !seen[d] {
				seen[d] = true
				docs = append(docs, d)
			}
		}
		score := 30.0
		for rank, d := range docs {
			line = line[:0]
			line = append(line, qid...)
			line = append(line, " Q0 doc-"...)
			line = strconv.AppendInt(line, int64(d), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(rank+1), 10)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, score, 'f', 4, 64)
			line = append(line, " bench-run\n"...)
			if shuffle {
				held = append(held, append([]byte(nil), line...))
			} else if _, err := rw.Write(line); err != nil {
				return err
			}
			// Decrease by 0 to 0.003: about one step in ten rounds to a tie.
			score -= float64(rng.IntN(30)) * 0.0001
		}
		// judged distinct documents: half drawn from the retrieved ones
		// (at most all of them), the rest from ids never retrieved.
		fromRun := min(judged/2, len(docs))
		picked := make(map[int]bool, judged)
		for _, i := range rng.Perm(len(docs))[:fromRun] {
			picked[docs[i]] = true
			fmt.Fprintf(qw, "%s 0 doc-%d %d\n", qid, docs[i], rng.IntN(4))
		}
		for n := fromRun; n < judged; {
			d := 10_000_000 + rng.IntN(10_000_000) // never retrieved
			if picked[d] {
				continue
			}
			picked[d] = true
			fmt.Fprintf(qw, "%s 0 doc-%d %d\n", qid, d, rng.IntN(4))
			n++
		}
	}
	// The same lines and qrels as without shuffle, in another order.
	order := rand.New(rand.NewPCG(seed, 3))
	order.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
	for _, l := range held {
		if _, err := rw.Write(l); err != nil {
			return err
		}
	}
	if err := rw.Flush(); err != nil {
		return err
	}
	return qw.Flush()
}
