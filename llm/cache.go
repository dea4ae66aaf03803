package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// cacheVersion is part of every key; bump it when the entry format or the
// key's contents change, so old entries are never misread.
const cacheVersion = 1

// cache is a persistent content-addressed store of successful responses:
// one JSON file per key under dir/<first 2 hex digits>/<key>.json. An entry
// is written to a temporary file in the same directory and renamed into
// place, so concurrent writers (goroutines or processes) never leave a
// partial file and readers see either nothing or a whole entry. Entries
// are never deleted by this package; remove the directory to clear it.
// A cache is safe for concurrent use.
type cache struct {
	dir string
}

// openCache opens (creating if needed) a cache rooted at dir.
func openCache(dir string) (*cache, error) {
	if dir == "" {
		return nil, errors.New("llm cache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llm cache: %w", err)
	}
	return &cache{dir: dir}, nil
}

// Dir returns the cache's root directory.
func (c *cache) Dir() string { return c.dir }

// cacheKey returns the hex sha256 key of a call: the endpoint (base URL and
// path), the model requested, the canonical JSON of the full logical
// request and the repeat index.
func cacheKey(endpoint, model string, request any, repeat int) (string, error) {
	req, err := json.Marshal(request)
	if err != nil {
		return "", fmt.Errorf("llm cache key: %w", err)
	}
	b, err := json.Marshal(struct {
		V        int             `json:"v"`
		Endpoint string          `json:"endpoint"`
		Model    string          `json:"model"`
		Request  json.RawMessage `json:"request"`
		Repeat   int             `json:"repeat"`
	}{cacheVersion, endpoint, model, req, repeat})
	if err != nil {
		return "", fmt.Errorf("llm cache key: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func (c *cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

func validKey(key string) bool {
	if len(key) != 64 {
		return false
	}
	_, err := hex.DecodeString(key)
	return err == nil
}

// Get reads the entry for key into v. It reports false (and no error) when
// there is no entry; an unreadable or undecodable entry is also a miss (it
// will be overwritten by the next Put), reported with its error.
func (c *cache) Get(key string, v any) (bool, error) {
	if !validKey(key) {
		return false, fmt.Errorf("llm cache: invalid key %q", key)
	}
	b, err := os.ReadFile(c.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("llm cache: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("llm cache: entry %s: %w", c.path(key), err)
	}
	return true, nil
}

// Put stores v (as JSON) under key, atomically.
func (c *cache) Put(key string, v any) error {
	if !validKey(key) {
		return fmt.Errorf("llm cache: invalid key %q", key)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("llm cache: %w", err)
	}
	dir := filepath.Join(c.dir, key[:2])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("llm cache: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+key[:8]+"-*")
	if err != nil {
		return fmt.Errorf("llm cache: %w", err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(b)
	if werr == nil {
		werr = tmp.Sync()
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, c.path(key))
	}
	if werr != nil {
		_ = os.Remove(name)
		return fmt.Errorf("llm cache: %w", werr)
	}
	return nil
}
