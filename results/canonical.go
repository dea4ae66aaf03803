package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// decodeTree decodes one JSON value with numbers kept as json.Number, and
// fails on trailing data.
func decodeTree(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the json value")
	}
	return v, nil
}
