package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lasagna-go/lasagna/internal/bundletext"
)

// Canonical returns the RFC 8785 (JCS) canonical form of the JSON text
// data: object members sorted by their UTF-16 code units, no insignificant
// whitespace, numbers in ECMAScript form. Integers above 2^53 lose precision,
// as RFC 8785 prescribes. Duplicate member names and invalid UTF-8 are
// errors (RFC 8785 leaves them undefined).
//
// It is jsontext.Value.Canonicalize of github.com/go-json-experiment/json,
// which rewrites the text in place without building a tree of Go values:
// for a bundle of a million ranked hits that is the difference between a
// few hundred milliseconds and seconds, and between the bytes of the text
// and gigabytes of maps. The tests hold it to gowebpki/jcs.
func Canonical(data []byte) ([]byte, error) {
	v := jsontext.Value(bytes.Clone(data))
	if err := v.Canonicalize(); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return v, nil
}

// hashJSON returns the hex sha256 of the canonical form of data.
func hashJSON(data []byte) (string, error) {
	c, err := Canonical(data)
	if err != nil {
		return "", err
	}
	return sha256Hex(c), nil
}

// hashTree returns the hex sha256 of the canonical form of the decoded
// value v (numbers as json.Number keep their text).
func hashTree(v any) (string, error) {
	data, err := marshal(v)
	if err != nil {
		return "", fmt.Errorf("canonical json: %w", err)
	}
	return hashJSON(data)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// marshal encodes v as compact JSON without HTML escaping. It fails on NaN
// and infinities, which JSON cannot hold.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ComparabilityKey returns the hex sha256 of the canonical JSON of h.
func ComparabilityKey(h HeldFixed) (string, error) {
	data, err := marshal(h)
	if err != nil {
		return "", fmt.Errorf("held_fixed: %w", err)
	}
	return hashJSON(data)
}

// RunIDOf returns the run id of the JSON object raw: the hex sha256 of the
// canonical JSON of the object without its run_id member. It hashes the
// bundle as written, including fields this release does not know, so a
// bundle of a later 1.y version verifies too. It reads the text once and
// canonicalizes a copy in place, without decoding it into Go values.
func RunIDOf(raw []byte) (string, error) {
	text, err := bundletext.Split(raw)
	if err != nil {
		return "", fmt.Errorf("bundle is not valid json: %w", err)
	}
	if len(text.Skeleton) == 0 || bytes.TrimSpace(text.Skeleton)[0] != '{' {
		return "", errors.New("a bundle is a json object")
	}
	return runIDOfText(raw, text)
}

// runIDOfText is RunIDOf of a text split into t.
func runIDOfText(raw []byte, t *bundletext.Text) (string, error) {
	h := sha256.New()
	if err := bundletext.CanonicalHash(h, raw, t); err != nil {
		return "", fmt.Errorf("canonical json: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashBundle returns the run id of b: the hex sha256 of the canonical JSON
// of b without its run_id, streamed row by row into the hash.
func hashBundle(b *Bundle) (string, error) {
	h := sha256.New()
	if _, err := encodeBundle(b, nil, h); err != nil {
		return "", fmt.Errorf("bundle: %w (a metric or score is NaN or infinite; record the query as an error instead)", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Finalize prepares b for writing: it sets an empty schema_version to
// SchemaVersion and an empty metrics_version to MetricsVersion, turns nil
// required lists and maps into empty ones (so they are written as [] and
// {}), sets every config's comparability_key, puts the integrity lines in
// their canonical order and then sets the run_id. It fails
// when a value cannot be written as JSON (NaN or an infinity).
func Finalize(b *Bundle) error {
	if err := prepare(b); err != nil {
		return err
	}
	id, err := hashBundle(b)
	if err != nil {
		return err
	}
	b.RunID = id
	return nil
}

// Prepare does what Finalize does but set the run_id, and so never encodes
// the bundle: for a bundle about to be written with WriteFile or
// WriteFileIn, which set the run_id as they write it.
func Prepare(b *Bundle) error { return prepare(b) }

// prepare does what Finalize does but set the run_id.
func prepare(b *Bundle) error {
	if b.SchemaVersion == "" {
		b.SchemaVersion = SchemaVersion
	}
	if b.MetricsVersion == "" {
		b.MetricsVersion = MetricsVersion
	}
	if b.Configs == nil {
		b.Configs = []Config{}
	}
	if b.Results == nil {
		b.Results = []Result{}
	}
	if b.Integrity.Warnings == nil {
		b.Integrity.Warnings = []Finding{}
	}
	if b.Integrity.Blocking == nil {
		b.Integrity.Blocking = []Finding{}
	}
	for i := range b.Configs {
		c := &b.Configs[i]
		if c.VariedDimensions == nil {
			c.VariedDimensions = []string{}
		}
		if c.VariedLevels == nil {
			c.VariedLevels = map[string]string{}
		}
		key, err := ComparabilityKey(c.HeldFixed)
		if err != nil {
			return fmt.Errorf("config %s/%s: %w", c.Benchmark, c.Name, err)
		}
		c.ComparabilityKey = key
	}
	for i := range b.Results {
		r := &b.Results[i]
		if r.Metrics == nil {
			r.Metrics = map[string]float64{}
		}
	}
	sortIntegrity(b)
	return nil
}
