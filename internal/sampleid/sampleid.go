// Package sampleid computes sample_id_digest, the hash of a run's sampled
// query ids that a bundle's held_fixed records. Package datasets computes it
// when it samples; package results recomputes it when it merges shards.
package sampleid

import (
	"crypto/sha256"
	"encoding/hex"
)

// Digest returns the sha256 hex of ids (which must be sorted byte-wise),
// each followed by "\n".
func Digest(sortedIDs []string) string {
	h := sha256.New()
	for _, id := range sortedIDs {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
