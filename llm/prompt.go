package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Prompt is a versioned prompt: a stable ID, the system prompt and the
// user message template, whose {{name}} placeholders the caller replaces.
// Any change to the text must come with a new ID; SHA256 tells versions
// apart even when that is forgotten, so record both wherever results
// depend on the prompt.
type Prompt struct {
	ID     string
	System string
	User   string
}

// SHA256 returns the hex sha256 of the prompt's ID, system text and user
// template, each length-prefixed.
func (p Prompt) SHA256() string {
	h := sha256.New()
	for _, s := range []string{p.ID, p.System, p.User} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}
