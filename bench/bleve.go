package bench

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenmap"
	"github.com/blevesearch/bleve/v2/mapping"
	bleveindex "github.com/blevesearch/bleve_index_api"
	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/bm25"
)

// BleveMapping returns a bleve index mapping that matches bm25's analysis as
// closely as bleve allows: one text field, Unicode word tokenizer, lower
// case, Lucene's 33 English stopwords, Snowball English stemming; BM25
// scoring (bleve's k1 1.2, b 0.75); nothing stored, no term vectors, no doc
// values, no _all field.
func BleveMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bleveindex.BM25Scoring
	stopwords := make([]any, 0, 33)
	for _, w := range bm25.Stopwords() {
		stopwords = append(stopwords, w)
	}
	if err := im.AddCustomTokenMap("lucene_en_stop", map[string]any{"type": tokenmap.Name, "tokens": stopwords}); err != nil {
		return nil, err
	}
	if err := im.AddCustomTokenFilter("lucene_en_stop_filter", map[string]any{"type": stop.Name, "stop_token_map": "lucene_en_stop"}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer("lasagna_like", map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{lowercase.Name, "lucene_en_stop_filter", en.SnowballStemmerName},
	}); err != nil {
		return nil, err
	}
	field := bleve.NewTextFieldMapping()
	field.Analyzer = "lasagna_like"
	field.Store = false
	field.IncludeTermVectors = false
	field.IncludeInAll = false
	field.DocValues = false
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", field)
	im.DefaultMapping = doc
	im.DefaultAnalyzer = "lasagna_like"
	im.DefaultField = "text"
	return im, nil
}

// BuildBleve creates a scorch index (bleve's default, on disk) at dir and
// indexes docs in batches of 1,000; it returns once every batch is
// searchable.
func BuildBleve(dir string, docs []lasagna.Document) (bleve.Index, error) {
	m, err := BleveMapping()
	if err != nil {
		return nil, err
	}
	ix, err := bleve.New(dir, m)
	if err != nil {
		return nil, err
	}
	batch := ix.NewBatch()
	for i, d := range docs {
		if err := batch.Index(d.ID, map[string]any{"text": d.Title + " " + d.Text}); err != nil {
			ix.Close()
			return nil, fmt.Errorf("bleve: document %q: %w", d.ID, err)
		}
		if batch.Size() == 1000 || i == len(docs)-1 {
			if err := ix.Batch(batch); err != nil {
				ix.Close()
				return nil, err
			}
			batch.Reset()
		}
	}
	return ix, nil
}

// SearchBleve runs query as a match query on the text field and returns the
// top k ids.
func SearchBleve(ix bleve.Index, query string, k int) ([]string, error) {
	q := bleve.NewMatchQuery(query)
	q.SetField("text")
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	res, err := ix.Search(req)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}
