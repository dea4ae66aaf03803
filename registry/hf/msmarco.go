package hf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// noAnswer is MS MARCO's answer for a query its passages do not answer.
const noAnswer = "No Answer Present."

// onlyConfig returns the MS MARCO config folder root holds when it holds
// one.
func onlyConfig(root string) (string, error) {
	var found []string
	for _, c := range []string{"v1.1", "v2.1"} {
		if isDir(filepath.Join(root, c)) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%s has no v1.1 or v2.1 folder; give --config v1.1 or v2.1 (the config of the parquet files in it)", root)
	}
	return "", fmt.Errorf("%s holds the configs v1.1 and v2.1; choose one with --config", root)
}

// msmarcoFiles returns the parquet files of config/split under root, in
// name order: <config>/<split>-*.parquet (the Hub's layout),
// <config>/<split>/*.parquet or <config>/<split>.parquet, or the same
// without the config folder (a plain folder of one config's files).
func msmarcoFiles(root, config, split string) ([]string, error) {
	all, err := listFiles(root)
	if err != nil {
		return nil, err
	}
	for _, prefix := range []string{config + "/", ""} {
		var out []string
		for _, p := range all {
			rest, ok := strings.CutPrefix(p, prefix)
			if !ok || !strings.HasSuffix(rest, ".parquet") {
				continue
			}
			if strings.HasPrefix(rest, split+"-") && !strings.Contains(rest, "/") ||
				rest == split+".parquet" ||
				path.Dir(rest) == split {
				out = append(out, filepath.Join(root, filepath.FromSlash(p)))
			}
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	var splits []string
	seen := map[string]bool{}
	for _, p := range all {
		if !strings.HasSuffix(p, ".parquet") {
			continue
		}
		s := strings.TrimSuffix(path.Base(p), ".parquet")
		s, _, _ = strings.Cut(s, "-")
		if k := path.Join(path.Dir(p), s); !seen[k] {
			seen[k] = true
			splits = append(splits, k)
		}
	}
	if len(splits) == 0 {
		return nil, fmt.Errorf("%s holds no parquet files; give the folder of %s (config %s)", root, MSMARCO, config)
	}
	return nil, fmt.Errorf("%s has no parquet files for config %s, split %s (%s-*.parquet); it has %s", root, config, split, path.Join(config, split), strings.Join(splits, ", "))
}

// msRow is one MS MARCO row as converted.
type msRow struct {
	ID           string         `json:"id"`
	Question     string         `json:"question"`
	Answer       string         `json:"answer,omitempty"`
	Answers      []string       `json:"answers,omitempty"`
	ExpectedDocs []string       `json:"expected_docs,omitempty"`
	Metadata     map[string]any `json:"metadata"`
}

type corpusDoc struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
}

func convertMSMARCO(ctx context.Context, root string, o Options, out string) (Converted, error) {
	files, err := msmarcoFiles(root, o.Config, o.Split)
	if err != nil {
		return Converted{}, err
	}
	conv := Converted{Main: "ms_marco-" + o.Config + "-" + o.Split + ".jsonl", Corpus: "corpus.jsonl"}
	mainOut, err := create(out, conv.Main)
	if err != nil {
		return conv, err
	}
	defer mainOut.Close()
	corpusOut, err := create(out, conv.Corpus)
	if err != nil {
		return conv, err
	}
	defer corpusOut.Close()
	c := &msConverter{
		main: json.NewEncoder(mainOut), corpus: json.NewEncoder(corpusOut),
		docs: map[[8]byte][8]byte{}, ids: map[int64]int{}, limit: o.Limit,
	}
	c.main.SetEscapeHTML(false)
	c.corpus.SetEscapeHTML(false)
	for _, f := range files {
		if o.Limit > 0 && c.rows >= o.Limit {
			break
		}
		if err := c.file(ctx, f); err != nil {
			return conv, err
		}
	}
	if c.rows == 0 {
		return conv, fmt.Errorf("%s: no rows in %s", MSMARCO, strings.Join(files, ", "))
	}
	if err := mainOut.Close(); err != nil {
		return conv, err
	}
	if err := corpusOut.Close(); err != nil {
		return conv, err
	}
	conv.Rows, conv.Documents = c.rows, c.ndocs
	return conv, nil
}

type msConverter struct {
	main, corpus *json.Encoder
	// docs maps the first 8 bytes of a passage's sha256 (its name) to
	// the next 8, which tell two passages with one name apart (an error,
	// never a silent merge).
	docs map[[8]byte][8]byte
	// ids maps each query id to the row (of the split) that used it.
	ids         map[int64]int
	rows, ndocs int
	limit       int
}

// file converts the rows of one parquet file, a row group at a time.
func (c *msConverter) file(ctx context.Context, name string) (err error) {
	f, err := openRegular(name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	defer func() { // a damaged file must be an error, never a panic
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: not a readable parquet file: %v", name, p)
		}
	}()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: not a readable parquet file: %w", name, err)
	}
	if err := checkColumns(name, pf.Schema()); err != nil {
		return err
	}
	row := 0
	for _, rg := range pf.RowGroups() {
		r := parquet.NewRowGroupReader(rg)
		for {
			if c.limit > 0 && c.rows >= c.limit {
				return r.Close()
			}
			if row%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			m := map[string]any{}
			err := r.Read(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			row++
			if err != nil {
				return fmt.Errorf("%s: row %d: %w", name, row, err)
			}
			if err := c.row(name, row, m); err != nil {
				return err
			}
		}
		if err := r.Close(); err != nil {
			return err
		}
	}
	return nil
}

// checkColumns requires the columns the conversion reads.
func checkColumns(name string, s *parquet.Schema) error {
	have := map[string]parquet.Field{}
	for _, f := range s.Fields() {
		have[f.Name()] = f
	}
	var missing []string
	for _, col := range []string{"query", "query_id", "answers", "passages"} {
		if _, ok := have[col]; !ok {
			missing = append(missing, col)
		}
	}
	if p, ok := have["passages"]; ok {
		sub := map[string]bool{}
		for _, f := range p.Fields() {
			sub[f.Name()] = true
		}
		for _, col := range []string{"is_selected", "passage_text", "url"} {
			if !sub[col] {
				missing = append(missing, "passages."+col)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: missing column(s) %s; an %s parquet file has query, query_id, query_type, answers, wellFormedAnswers and passages {is_selected, passage_text, url}", name, strings.Join(missing, ", "), MSMARCO)
	}
	return nil
}

func (c *msConverter) row(file string, n int, m map[string]any) error {
	bad := func(col, format string, args ...any) error { return rowError(file, n, col, format, args...) }
	q, ok := m["query"].(string)
	if !ok || strings.TrimSpace(q) == "" {
		return bad("query", "empty or missing query; every row needs one")
	}
	if !utf8.ValidString(q) {
		return bad("query", "not valid UTF-8")
	}
	qid, err := integer(m["query_id"])
	if err != nil {
		return bad("query_id", "%v", err)
	}
	if first, dup := c.ids[qid]; dup {
		return bad("query_id", "duplicate query_id %d (also row %d of the split); query ids must be unique within a split", qid, first)
	}
	c.ids[qid] = c.rows + 1
	id := strconv.FormatInt(qid, 10)
	answers, err := strings_(m["answers"], "answers")
	if err != nil {
		return bad("answers", "%v", err)
	}
	wf, err := strings_(m["wellFormedAnswers"], "wellFormedAnswers")
	if err != nil {
		return bad("wellFormedAnswers", "%v", err)
	}
	out := msRow{ID: id, Question: q, Metadata: map[string]any{"query_id": json.Number(id)}}
	if qt, ok := m["query_type"].(string); ok && qt != "" {
		out.Metadata["query_type"] = qt
	}
	var all []string
	seen := map[string]bool{}
	for _, a := range append(answers, wf...) {
		if a == noAnswer || strings.TrimSpace(a) == "" || seen[a] {
			continue
		}
		seen[a] = true
		all = append(all, a)
	}
	switch len(all) {
	case 0:
		out.Metadata["unanswerable"] = true
	case 1:
		out.Answer = all[0]
	default:
		out.Answers = all
	}
	ps, _ := m["passages"].(map[string]any)
	sel, err := ints(ps["is_selected"], "passages.is_selected")
	if err != nil {
		return bad("passages.is_selected", "%v", err)
	}
	texts, err := strings_(ps["passage_text"], "passages.passage_text")
	if err != nil {
		return bad("passages.passage_text", "%v", err)
	}
	urls, err := strings_(ps["url"], "passages.url")
	if err != nil {
		return bad("passages.url", "%v", err)
	}
	if len(sel) != len(texts) || len(urls) != len(texts) {
		return bad("passages", "is_selected has %d values, passage_text %d and url %d; they must have one per passage", len(sel), len(texts), len(urls))
	}
	inRow := map[string]bool{}
	for i, text := range texts {
		if strings.TrimSpace(text) == "" {
			return bad("passages.passage_text", "passage_text[%d] is empty", i)
		}
		docID, err := c.doc(text, urls[i])
		if err != nil {
			return bad("passages.passage_text", "passage_text[%d]: %v", i, err)
		}
		if sel[i] == 1 && len(all) > 0 && !inRow[docID] {
			inRow[docID] = true
			out.ExpectedDocs = append(out.ExpectedDocs, docID)
		}
	}
	c.rows++
	return c.main.Encode(out)
}

// doc returns the corpus id of a passage, writing it to the corpus the
// first time it is seen.
func (c *msConverter) doc(text, url string) (string, error) {
	sum := sha256.Sum256([]byte(text))
	var name, rest [8]byte
	copy(name[:], sum[:8])
	copy(rest[:], sum[8:16])
	id := "p" + hex.EncodeToString(name[:])
	if prev, ok := c.docs[name]; ok {
		if prev != rest {
			return "", fmt.Errorf("two different passages have the id %s (a sha256 prefix collision); please report this", id)
		}
		return id, nil
	}
	if !utf8.ValidString(text) || !utf8.ValidString(url) {
		return "", errors.New("not valid UTF-8")
	}
	c.docs[name] = rest
	c.ndocs++
	return id, c.corpus.Encode(corpusDoc{ID: id, Text: text, URL: url})
}

// integer reads an integer column value (query_id).
func integer(v any) (int64, error) {
	switch x := v.(type) {
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case nil:
		return 0, errors.New("missing query_id; every row needs one")
	}
	return 0, fmt.Errorf("query_id is %T, want an integer", v)
}

// strings_ reads a list-of-strings column value (nil = empty).
func strings_(v any, col string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, want a list of strings", col, v)
	}
	out := make([]string, len(list))
	for i, x := range list {
		switch s := x.(type) {
		case string:
			if !utf8.ValidString(s) {
				return nil, fmt.Errorf("%s[%d] is not valid UTF-8", col, i)
			}
			out[i] = s
		case []byte:
			if !utf8.Valid(s) {
				return nil, fmt.Errorf("%s[%d] is not valid UTF-8", col, i)
			}
			out[i] = string(s)
		case nil:
			return nil, fmt.Errorf("%s[%d] is null", col, i)
		default:
			return nil, fmt.Errorf("%s[%d] is %T, want a string", col, i, x)
		}
	}
	return out, nil
}

// ints reads a list-of-integers column value (is_selected).
func ints(v any, col string) ([]int64, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, want a list of integers", col, v)
	}
	out := make([]int64, len(list))
	for i, x := range list {
		switch n := x.(type) {
		case int32:
			out[i] = int64(n)
		case int64:
			out[i] = n
		case int:
			out[i] = int64(n)
		case bool:
			if n {
				out[i] = 1
			}
		case nil:
			return nil, fmt.Errorf("%s[%d] is null", col, i)
		default:
			return nil, fmt.Errorf("%s[%d] is %T, want an integer", col, i, x)
		}
	}
	return out, nil
}
