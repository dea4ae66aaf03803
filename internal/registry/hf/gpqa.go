package hf

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// gpqaRow is one GPQA row as converted: a closed-book entry.
type gpqaRow struct {
	ID       string         `json:"id"`
	Question string         `json:"question"`
	Answer   string         `json:"answer"`
	Metadata map[string]any `json:"metadata"`
}

var (
	gpqaRequired = []string{"Question", "Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3"}
	gpqaOptional = []string{"Explanation", "Subdomain", "Record ID", "High-level domain"}
)

func convertGPQA(ctx context.Context, root string, o Options, out string) (Converted, error) {
	name := filepath.Join(root, o.Config+".csv")
	f, err := openRegular(name)
	if err != nil {
		return Converted{}, fmt.Errorf("%s: %s.csv: %w (give the folder holding the %s files)", GPQA, o.Config, err, GPQA)
	}
	defer f.Close()
	conv := Converted{Main: o.Config + ".jsonl"}
	w, err := create(out, conv.Main)
	if err != nil {
		return conv, err
	}
	defer w.Close()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)

	cr := csv.NewReader(bufio.NewReader(f))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return conv, fmt.Errorf("%s: line 1: no header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		col[strings.TrimSpace(h)] = i
	}
	var missing []string
	for _, c := range gpqaRequired {
		if _, ok := col[c]; !ok {
			missing = append(missing, fmt.Sprintf("%q", c))
		}
	}
	if len(missing) > 0 {
		return conv, fmt.Errorf("%s: line 1: missing column(s) %s; a GPQA CSV has Question, Correct Answer, Incorrect Answer 1..3, Explanation, Subdomain, Record ID and High-level domain", name, strings.Join(missing, ", "))
	}
	ids := map[string]int{}
	for {
		if o.Limit > 0 && conv.Rows >= o.Limit {
			break
		}
		if err := ctx.Err(); err != nil {
			return conv, err
		}
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return conv, fmt.Errorf("%s: %w", name, err)
		}
		bad := func(c, format string, args ...any) error {
			return fmt.Errorf("%s:%d: column %q: %s", name, line, c, fmt.Sprintf(format, args...))
		}
		get := func(c string) (string, error) {
			i, ok := col[c]
			if !ok || i >= len(rec) {
				return "", nil
			}
			if !utf8.ValidString(rec[i]) {
				return "", bad(c, "not valid UTF-8")
			}
			if strings.IndexByte(rec[i], 0) >= 0 {
				return "", bad(c, "%s", nulMsg)
			}
			return strings.TrimSpace(rec[i]), nil
		}
		vals := map[string]string{}
		for _, c := range slices.Concat(gpqaRequired, gpqaOptional) {
			v, err := get(c)
			if err != nil {
				return conv, err
			}
			vals[c] = v
		}
		for _, c := range gpqaRequired {
			if vals[c] == "" {
				return conv, bad(c, "empty; every GPQA row needs its question, correct answer and three incorrect answers")
			}
		}
		id := vals["Record ID"]
		if id == "" { // stable, from the content
			sum := sha256.Sum256([]byte(vals["Question"]))
			id = "gpqa-" + hex.EncodeToString(sum[:6])
		}
		if first, dup := ids[id]; dup {
			return conv, bad("Record ID", "duplicate id %q (first at line %d); ids must be unique", id, first)
		}
		ids[id] = line
		incorrect := []string{vals["Incorrect Answer 1"], vals["Incorrect Answer 2"], vals["Incorrect Answer 3"]}
		choices := append([]string{vals["Correct Answer"]}, incorrect...)
		sort.Strings(choices)
		md := map[string]any{"choices": choices, "incorrect_answers": incorrect}
		for c, key := range map[string]string{"High-level domain": "domain", "Subdomain": "subdomain", "Explanation": "explanation", "Record ID": "record_id"} {
			if vals[c] != "" {
				md[key] = vals[c]
			}
		}
		if err := enc.Encode(gpqaRow{ID: id, Question: vals["Question"], Answer: vals["Correct Answer"], Metadata: md}); err != nil {
			return conv, err
		}
		conv.Rows++
	}
	if conv.Rows == 0 {
		return conv, fmt.Errorf("%s: no rows after the header", name)
	}
	return conv, w.Close()
}
