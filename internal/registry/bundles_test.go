package registry_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/internal/registry"
)

// TestBundlesStored: PutBundle stores a bundle's bytes under its run_id,
// once; the same bytes again are no change (created false), other bytes
// under the same run_id an ErrExists error that changes nothing; Bundles
// lists the metadata newest first, Bundle returns the bytes, and an
// unknown run_id is ErrNotFound. Concurrent identical submissions store
// one row. On both backends.
func TestBundlesStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		r, err := registry.Open(bg(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if bs, err := r.Bundles(bg()); err != nil || len(bs) != 0 {
			t.Fatalf("Bundles of an empty registry = %v, %v", bs, err)
		}
		idA, idB := strings.Repeat("a", 64), strings.Repeat("b", 64)
		dataA, dataB := []byte(`{"run_id":"a…","bytes":"\u0000"}`+"\x00\xff"), []byte(`{"b":2}`)
		at := time.Date(2026, 3, 4, 5, 6, 7, 800, time.UTC)
		meta := registry.StoredBundle{Submitter: "ci <bot>", SubmittedAt: at, Benchmark: "faq", ContentHash: "ea3e86b12545", Size: 99, RunID: "ignored"}
		if created, err := r.PutBundle(bg(), idA, meta, dataA); err != nil || !created {
			t.Fatalf("first PutBundle = %v, %v", created, err)
		}
		if created, err := r.PutBundle(bg(), idA, meta, dataA); err != nil || created {
			t.Fatalf("same bytes again = %v, %v; want false, nil", created, err)
		}
		if created, err := r.PutBundle(bg(), idA, meta, dataB); !errors.Is(err, registry.ErrExists) || created || !strings.Contains(err.Error(), "never changes") {
			t.Fatalf("other bytes under the same run_id = %v, %v; want ErrExists", created, err)
		}
		if got, err := r.Bundle(bg(), idA); err != nil || string(got) != string(dataA) {
			t.Fatalf("Bundle(a) = %q, %v; want the first bytes", got, err)
		}
		var wg sync.WaitGroup
		results := make([]bool, 4)
		errs := make([]error, 4)
		for i := range 4 {
			wg.Go(func() { results[i], errs[i] = r.PutBundle(bg(), idB, registry.StoredBundle{Submitter: "x"}, dataB) })
		}
		wg.Wait()
		n := 0
		for i := range 4 {
			if errs[i] != nil {
				t.Fatalf("concurrent PutBundle: %v", errs[i])
			}
			if results[i] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d of 4 concurrent identical submissions created the bundle, want 1", n)
		}
		bs, err := r.Bundles(bg())
		if err != nil || len(bs) != 2 {
			t.Fatalf("Bundles = %v, %v", bs, err)
		}
		want := registry.StoredBundle{RunID: idA, Submitter: "ci <bot>", SubmittedAt: at, Size: int64(len(dataA)), Benchmark: "faq", ContentHash: "ea3e86b12545"}
		if bs[0].RunID != idB || bs[1] != want {
			t.Errorf("Bundles = %+v; want b first, then %+v", bs, want)
		}
		if bs[0].SubmittedAt.IsZero() || time.Since(bs[0].SubmittedAt) > time.Hour {
			t.Errorf("a zero SubmittedAt is stored as now: %v", bs[0].SubmittedAt)
		}
		if _, err := r.Bundle(bg(), strings.Repeat("c", 64)); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("Bundle(unknown) = %v, want ErrNotFound", err)
		}
		if _, err := r.PutBundle(bg(), "../etc", meta, dataA); err == nil {
			t.Error("PutBundle accepted a run_id that is not 64 hex digits")
		}
	})
}
