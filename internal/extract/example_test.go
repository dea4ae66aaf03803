package extract_test

import (
	"fmt"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/extract"
)

func ExampleWalk() {
	fsys := fstest.MapFS{
		"docs/guide.md":  {Data: []byte("# Guide\nWater the plots before ten.")},
		"docs/news.html": {Data: []byte(`<html><head><title>News</title><script>track()</script></head><body><nav>Home | Plots</nav><p>The festival is on Saturday.</p></body></html>`)},
		"docs/logo.png":  {Data: []byte("\x89PNG")},
	}
	l, err := extract.Walk(fsys, "docs")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range l.Documents {
		fmt.Printf("%s: %q\n", d.ID, d.Text)
	}
	for _, s := range l.Skipped {
		fmt.Printf("skipped %s: %s\n", s.Path, s.Reason)
	}
	// Output:
	// guide.md: "# Guide\nWater the plots before ten."
	// news.html: "The festival is on Saturday."
	// skipped logo.png: unsupported file type .png
}
