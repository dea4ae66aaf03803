package registry

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/datasets"
)

// TestDiskFull: an import that fills the disk (SQLite's max_page_count
// stands in for it) says "no space left on device" with the registry
// file and what to do; it never blames a line of the input (the bytes
// read are stored as they are read, so the store's error reached the
// loader as a read error), and nothing is stored.
func TestDiskFull(t *testing.T) {
	var big strings.Builder
	for i := 0; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "{\"id\": \"q%d\", \"question\": \"question %d about soda-lime glass?\", \"answer\": \"answer %d\"}\n", i, i, i)
	}
	fsys := fstest.MapFS{"big.jsonl": {Data: []byte(big.String())}}
	for _, tc := range []struct {
		name  string
		files Files
		pages int
	}{
		{"file chunks", Files{FS: fsys, Path: "big.jsonl"}, 20}, // the first 1 MiB chunk does not fit
		{"entries", Files{FS: fsys, Path: "big.jsonl"}, 400},    // the chunks fit, the entries do not
		{"small file", faqFiles(), 2},                           // nothing fits
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "registry.db")
			r, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			r.db.SetMaxOpenConns(1) // the pragma is the connection's
			var pages int
			if err := r.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
				t.Fatal(err)
			}
			if _, err := r.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+tc.pages)); err != nil {
				t.Fatal(err)
			}
			_, err = r.Create(ctx, "big", tc.files)
			want := "registry " + dsn + ": no space left on device (database or disk is full"
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "nothing was stored: free space on the disk holding "+filepath.Dir(dsn)) {
				t.Fatalf("Create = %v\nwant %s…", err, want)
			}
			var ps datasets.Problems
			if errors.As(err, &ps) || strings.Contains(err.Error(), ".jsonl:") {
				t.Errorf("the error blames the input: %v", err)
			}
			if l, err := r.List(ctx, ListOptions{}); err != nil || len(l) != 0 {
				t.Errorf("List = %+v, %v; want nothing stored", l, err)
			}
		})
	}
}
