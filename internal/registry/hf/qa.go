package hf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// qaRow is one SQuAD or NQ-open row as converted.
type qaRow struct {
	ID       string         `json:"id"`
	Question string         `json:"question"`
	Answer   string         `json:"answer,omitempty"`
	Answers  []string       `json:"answers,omitempty"`
	Contexts []string       `json:"contexts,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// qaColumns are the columns read of each dataset, as paths (a list or a
// struct's field goes by its top-level names, whatever the file calls the
// list's elements), and which of them a file must have.
func qaColumns(dataset string) (cols [][]string, required []bool) {
	if dataset == NQOpen {
		return [][]string{{"question"}, {"answer"}}, []bool{true, true}
	}
	return [][]string{{"id"}, {"title"}, {"context"}, {"question"}, {"answers", "text"}},
		[]bool{true, false, true, true, true}
}

// errLimit stops a parquet read once the limit's rows are converted.
var errLimit = errors.New("limit reached")

// convertQA converts SQuAD v1.1 or v2.0, or NQ-open (see the package
// documentation) from the parquet files of o's config and split.
func convertQA(ctx context.Context, root string, o Options, out string) (Converted, error) {
	files, err := parquetFiles(root, o.Dataset, o.Config, o.Split)
	if err != nil {
		return Converted{}, err
	}
	_, repo, _ := strings.Cut(o.Dataset, "/")
	conv := Converted{Main: repo + "-" + o.Split + ".jsonl"}
	w, err := create(out, conv.Main)
	if err != nil {
		return conv, err
	}
	defer w.Close()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	cols, required := qaColumns(o.Dataset)
	ids := map[string]string{}     // id → where it was first
	asked := map[string][]string{} // NQ-open: question hash → the questions given it
	for _, f := range files {
		err := readParquet(ctx, f, o.Dataset, cols, required, func(row int, v [][]string) error {
			if o.Limit > 0 && conv.Rows >= o.Limit {
				return errLimit
			}
			bad := func(col, format string, args ...any) error { return rowError(f, row, col, format, args...) }
			for i, vals := range v {
				for _, s := range vals {
					if !utf8.ValidString(s) {
						return bad(strings.Join(cols[i], "."), "not valid UTF-8")
					}
					if strings.IndexByte(s, 0) >= 0 {
						return bad(strings.Join(cols[i], "."), "%s", nulMsg)
					}
				}
			}
			var r qaRow
			var golds []string
			if o.Dataset == NQOpen {
				if len(v[0]) == 0 || strings.TrimSpace(v[0][0]) == "" {
					return bad("question", "empty or missing question; every row needs one")
				}
				r.Question, golds = v[0][0], v[1]
				sum := sha256.Sum256([]byte(r.Question))
				r.ID = "nq-" + hex.EncodeToString(sum[:6])
				// A repeated question (the same text) is another entry:
				// -2, -3… in order of appearance.
				n := 0
				for _, q := range asked[r.ID] {
					if q != r.Question {
						return bad("question", "two different questions have the id %s (a sha256 prefix collision); please report this", r.ID)
					}
					n++
				}
				asked[r.ID] = append(asked[r.ID], r.Question)
				if n > 0 {
					r.ID += "-" + strconv.Itoa(n+1)
				}
			} else {
				if len(v[0]) == 0 || strings.TrimSpace(v[0][0]) == "" {
					return bad("id", "empty or missing id; every SQuAD row has one")
				}
				if len(v[3]) == 0 || strings.TrimSpace(v[3][0]) == "" {
					return bad("question", "empty or missing question; every row needs one")
				}
				if len(v[2]) == 0 || strings.TrimSpace(v[2][0]) == "" {
					return bad("context", "empty or missing context; every SQuAD row has its paragraph")
				}
				r.ID, r.Question, r.Contexts, golds = v[0][0], v[3][0], []string{v[2][0]}, v[4]
				if len(v[1]) > 0 && v[1][0] != "" {
					r.Metadata = map[string]any{"title": v[1][0]}
				}
			}
			where := fmt.Sprintf("%s row %d", f, row)
			if first, dup := ids[r.ID]; dup {
				return bad(strings.Join(cols[0], "."), "duplicate id %q (first at %s); ids must be unique within a split", r.ID, first)
			}
			ids[r.ID] = where
			var answers []string
			for _, a := range golds {
				if strings.TrimSpace(a) != "" && !slices.Contains(answers, a) {
					answers = append(answers, a)
				}
			}
			switch {
			case len(answers) == 0 && o.Dataset == SQuADv2:
				if r.Metadata == nil {
					r.Metadata = map[string]any{}
				}
				r.Metadata["unanswerable"] = true
			case len(answers) == 0:
				col := "answers.text"
				if o.Dataset == NQOpen {
					col = "answer"
				}
				return bad(col, "no answer; every %s row has one (SQuAD v2.0, with unanswerable questions, is %s)", o.Dataset, SQuADv2)
			case len(answers) == 1:
				r.Answer = answers[0]
			default:
				r.Answers = answers
			}
			conv.Rows++
			return enc.Encode(r)
		})
		if errors.Is(err, errLimit) {
			break
		}
		if err != nil {
			return conv, err
		}
	}
	if conv.Rows == 0 {
		return conv, fmt.Errorf("%s: no rows in %s", o.Dataset, strings.Join(files, ", "))
	}
	return conv, w.Close()
}
