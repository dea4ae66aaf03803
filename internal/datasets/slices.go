package datasets

import (
	"fmt"
	"slices"

	"github.com/lasagna-go/lasagna"
)

// AnswerableSlice is the key of the built-in slice that splits a result's
// rows into answerable ("true") and unanswerable ("false") queries, as
// SQuAD v2.0's HasAns and NoAns figures do.
const AnswerableSlice = "answerable"

// SliceValues returns the slice values of query q under key: for
// "answerable", "true" or "false" (the query is marked unanswerable);
// otherwise its metadata value under key as text (a string as is, a
// number or boolean as JSON writes it), one per element for a list, and
// none when q lacks the key or holds null. An object, or a list holding
// one, is an error: slices group queries by a scalar value.
func SliceValues(q *lasagna.Query, key string) ([]string, error) {
	if key == AnswerableSlice {
		return []string{fmt.Sprint(!q.Unanswerable)}, nil
	}
	v, ok := q.Metadata[key]
	if !ok || v == nil {
		return nil, nil
	}
	var out []string
	var add func(v any, top bool) error
	add = func(v any, top bool) error {
		switch x := v.(type) {
		case nil:
			return nil
		case string:
			out = append(out, x)
		case bool:
			out = append(out, fmt.Sprint(x))
		case float64, float32, int, int64, int32, uint, uint64, uint32:
			out = append(out, fmt.Sprint(x))
		case []string:
			out = append(out, x...)
		case []any:
			if !top {
				return fmt.Errorf("query %q: metadata %q holds a list inside a list; slices group queries by a string, number or boolean, or a list of them", q.ID, key)
			}
			for _, e := range x {
				if err := add(e, false); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("query %q: metadata %q is %s; slices group queries by a string, number or boolean, or a list of them", q.ID, key, fmt.Sprintf("a %T", v))
		}
		return nil
	}
	if err := add(v, true); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
