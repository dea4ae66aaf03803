package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// Canonical returns the RFC 8785 (JCS) canonical form of the JSON text
// data: object members sorted by their UTF-16 code units, no insignificant
// whitespace, numbers in ECMAScript form. Integers above 2^53 lose precision,
// as RFC 8785 prescribes.
func Canonical(data []byte) ([]byte, error) {
	out, err := jcs.Transform(data)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return out, nil
}

// hashJSON returns the hex sha256 of the canonical form of data.
func hashJSON(data []byte) (string, error) {
	c, err := Canonical(data)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
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
// bundle of a later 1.y version verifies too.
func RunIDOf(raw []byte) (string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return "", fmt.Errorf("bundle is not a json object: %w", err)
	}
	delete(top, "run_id")
	data, err := marshal(top)
	if err != nil {
		return "", err
	}
	return hashJSON(data)
}

// Finalize prepares b for writing: it sets an empty schema_version to
// SchemaVersion and an empty metrics_version to MetricsVersion, turns nil
// required lists and maps into empty ones (so they are written as [] and
// {}), sets every config's comparability_key and then the run_id. It fails
// when a value cannot be written as JSON (NaN or an infinity).
func Finalize(b *Bundle) error {
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
		b.Integrity.Warnings = []string{}
	}
	if b.Integrity.Blocking == nil {
		b.Integrity.Blocking = []string{}
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
	b.RunID = ""
	data, err := marshal(b)
	if err != nil {
		return fmt.Errorf("bundle: %w (a metric or score is NaN or infinite; record the query as an error instead)", err)
	}
	id, err := RunIDOf(data)
	if err != nil {
		return err
	}
	b.RunID = id
	return nil
}
