package corpusgen

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestZipfIsDeterministic(t *testing.T) {
	d1, q1 := Zipf(300, 40)
	d2, q2 := Zipf(300, 40)
	if !reflect.DeepEqual(d1, d2) || !slices.Equal(q1, q2) {
		t.Fatal("two calls with the same arguments differ")
	}
	small, _ := Zipf(50, 0)
	if !reflect.DeepEqual(small, d1[:50]) {
		t.Fatal("Zipf(50, 0) is not a prefix of Zipf(300, 40)")
	}
	if d1[0].ID != "p000000" || d1[299].ID != "p000299" {
		t.Fatalf("ids %q … %q, want p000000 … p000299", d1[0].ID, d1[299].ID)
	}
	for _, d := range d1 {
		if n := len(strings.Fields(d.Text)); n < 40 || n > 119 || d.Title != "" {
			t.Fatalf("%s: %d words, title %q; want 40–119 words and no title", d.ID, n, d.Title)
		}
	}
	for _, q := range q1 {
		if n := len(strings.Fields(q)); n < 2 || n > 6 {
			t.Fatalf("query %q has %d words, want 2–6", q, n)
		}
	}
}
