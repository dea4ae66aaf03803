package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func fixtureFS() fs.FS { return os.DirFS("testdata/docs") }

func TestFileText(t *testing.T) {
	for _, name := range []string{"guide.md", "faq.txt"} {
		raw, err := os.ReadFile("testdata/docs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := File(fixtureFS(), name)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(raw) {
			t.Errorf("%s: File changed the text of a plain text file", name)
		}
	}
}

func TestFilePDF(t *testing.T) {
	got, err := File(fixtureFS(), "manual.pdf")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range manualPages {
		lines = append(lines, p...)
	}
	if want := strings.Join(lines, "\n"); got != want {
		t.Errorf("manual.pdf text:\n got %q\nwant %q", got, want)
	}
}

func TestFileDOCX(t *testing.T) {
	got, err := File(fixtureFS(), "policy.docx")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(policyParagraphs, "\n") + "\n"; got != want {
		t.Errorf("policy.docx text:\n got %q\nwant %q", got, want)
	}
}

func TestFileHTMLMainText(t *testing.T) {
	got, err := File(fixtureFS(), "page.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"holds its harvest festival on Saturday the nineteenth of September",
		"whose pumpkin weighed 41 kilograms",
		"please add your name to the list in the tool shed.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("page.html text lacks %q:\n%s", want, got)
		}
	}
	for _, markup := range []string{"<p>", "trackingId", "footer script", "font-family", "Join the garden", "Copyright"} {
		if strings.Contains(got, markup) {
			t.Errorf("page.html text holds %q, which is markup, script, style, navigation or footer:\n%s", markup, got)
		}
	}
}

func TestHTMLFallbackWithoutArticle(t *testing.T) {
	fsys := fstest.MapFS{"tiny.htm": {Data: []byte(`<html><head><title>T</title><script>x()</script></head><body><nav>Menu</nav><p>Only line.</p></body></html>`)}}
	got, err := File(fsys, "tiny.htm")
	if err != nil {
		t.Fatal(err)
	}
	if got != "Only line." {
		t.Errorf("text = %q, want %q", got, "Only line.")
	}
}

func TestFileErrors(t *testing.T) {
	var emptyZip bytes.Buffer
	zw := zip.NewWriter(&emptyZip)
	w, _ := zw.Create("other.xml")
	w.Write([]byte("<a/>"))
	zw.Close()
	fsys := fstest.MapFS{
		"notes.rtf":   {Data: []byte(`{\rtf1 hi}`)},
		"latin1.txt":  {Data: []byte("line one\ncaf\xe9\n")},
		"bad.pdf":     {Data: []byte("%PDF-1.4\nthis is not a pdf\n")},
		"trunc.pdf":   {Data: makePDF(manualPages)[:300]},
		"bad.docx":    {Data: []byte("not a zip")},
		"nodoc.docx":  {Data: emptyZip.Bytes()},
		"broken.docx": {Data: makeDOCX(nil)[:100]},
	}
	for name, want := range map[string]string{
		"notes.rtf":   `extract notes.rtf: unsupported file type ".rtf"; supported: .docx, .htm, .html, .markdown, .md, .pdf, .txt`,
		"latin1.txt":  "extract latin1.txt: line 2: not UTF-8 text; save the file as UTF-8",
		"bad.pdf":     "extract bad.pdf: malformed PDF",
		"trunc.pdf":   "extract trunc.pdf: malformed PDF",
		"bad.docx":    "extract bad.docx: not a DOCX file (not a zip archive)",
		"nodoc.docx":  "extract nodoc.docx: not a DOCX file: no word/document.xml inside",
		"broken.docx": "extract broken.docx: not a DOCX file",
		"missing.md":  "extract missing.md: open missing.md: file does not exist",
	} {
		_, err := File(fsys, name)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("File(%s) error = %v, want prefix %q", name, err, want)
		}
	}
}

func TestWalk(t *testing.T) {
	l, err := Walk(fixtureFS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range l.Documents {
		ids = append(ids, d.ID)
		if strings.TrimSpace(d.Text) == "" {
			t.Errorf("%s: empty text", d.ID)
		}
	}
	if got, want := strings.Join(ids, " "), "faq.txt guide.md manual.pdf page.html policy.docx"; got != want {
		t.Errorf("ids = %s, want %s", got, want)
	}
	if len(l.Skipped) != 0 {
		t.Errorf("skipped %v, want none", l.Skipped)
	}
	if l.Documents[3].Title != "Harvest festival 2026 - Riverside Community Garden" {
		t.Errorf("page.html title = %q", l.Documents[3].Title)
	}
}

func TestWalkSkipsAndReports(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/b.md":            {Data: []byte("bee")},
		"docs/a/z.txt":         {Data: []byte("zed")},
		"docs/a/img.png":       {Data: []byte("\x89PNG")},
		"docs/README":          {Data: []byte("no extension")},
		"docs/.DS_Store":       {Data: []byte("x")},
		"docs/.git/config":     {Data: []byte("x")},
		"docs/empty.txt":       {Data: []byte(" \n\t")},
		"docs/blank.pdf":       {Data: makePDF([][]string{{}})},
		"other/not-walked.txt": {Data: []byte("x")},
	}
	l, err := Walk(fsys, "docs")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range l.Documents {
		ids = append(ids, d.ID+"="+d.Text)
	}
	if got, want := strings.Join(ids, " "), "a/z.txt=zed b.md=bee"; got != want {
		t.Errorf("documents = %s, want %s", got, want)
	}
	var skips []string
	for _, s := range l.Skipped {
		skips = append(skips, s.Path+": "+s.Reason)
	}
	want := []string{
		".DS_Store: hidden file",
		".git/: hidden folder",
		"README: unsupported file type (none)",
		"a/img.png: unsupported file type .png",
		"blank.pdf: no text found (a scanned PDF needs OCR first)",
		"empty.txt: no text found",
	}
	if strings.Join(skips, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(skips, "\n"), strings.Join(want, "\n"))
	}
	docs, err := Dir(fsys, "docs")
	if err != nil || len(docs) != 2 {
		t.Errorf("Dir = %d documents, %v; want 2, nil", len(docs), err)
	}
}

func TestWalkReportsEveryFailure(t *testing.T) {
	fsys := fstest.MapFS{
		"good.md":  {Data: []byte("fine")},
		"bad.pdf":  {Data: []byte("garbage")},
		"bad.docx": {Data: []byte("garbage")},
	}
	_, err := Walk(fsys, ".")
	if err == nil {
		t.Fatal("no error for two broken files")
	}
	for _, want := range []string{"extract bad.pdf: malformed PDF", "extract bad.docx: not a DOCX file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := Walk(fsys, "good.md"); err == nil || err.Error() != "extract: good.md is not a folder" {
		t.Errorf("Walk(file) error = %v", err)
	}
	if _, err := Walk(fsys, "nope"); err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Walk(missing) error = %v, want fs.ErrNotExist", err)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("x.pdf", makePDF(manualPages))
	f.Add("x.docx", makeDOCX(policyParagraphs))
	f.Add("x.html", []byte("<p>hello</p>"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ext := ".pdf"
		switch {
		case strings.HasSuffix(name, "docx"):
			ext = ".docx"
		case strings.HasSuffix(name, "html"):
			ext = ".html"
		case strings.HasSuffix(name, "txt"):
			ext = ".txt"
		}
		fsys := fstest.MapFS{"f" + ext: {Data: data}}
		text, err := File(fsys, "f"+ext) // must not panic
		if err != nil && text != "" {
			t.Errorf("error %v with text %q", err, text)
		}
	})
}

func BenchmarkFilePDF(b *testing.B) {
	fsys := fixtureFS()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := File(fsys, "manual.pdf"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWalk(b *testing.B) {
	fsys := fixtureFS()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Walk(fsys, "."); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWalkSymlinks(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	must(os.WriteFile(dir+"/a.md", []byte("alpha"), 0o644))
	must(os.Mkdir(dir+"/sub", 0o755))
	must(os.Symlink("a.md", dir+"/link.md"))
	must(os.Symlink(".", dir+"/sub/loop"))
	must(os.Symlink("missing.md", dir+"/dangling.md"))
	l, err := Walk(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range l.Documents {
		got = append(got, d.ID+"="+d.Text)
	}
	for _, s := range l.Skipped {
		got = append(got, s.Path+": "+s.Reason)
	}
	want := "a.md=alpha link.md=alpha dangling.md: symbolic link to a folder or to nothing (not followed) sub/loop: symbolic link to a folder or to nothing (not followed)"
	if strings.Join(got, " ") != want {
		t.Errorf("got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestExtensionsIsACopy(t *testing.T) {
	m := Extensions()
	delete(m, ".pdf")
	m[".exe"] = KindText
	if _, ok := KindOf("a.pdf"); !ok {
		t.Error("deleting from the result of Extensions made .pdf unsupported")
	}
	if _, ok := KindOf("a.exe"); ok {
		t.Error("adding to the result of Extensions made .exe supported")
	}
	if len(Extensions()) != 7 {
		t.Errorf("Extensions() has %d entries, want 7", len(Extensions()))
	}
}
