package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/lasagna-go/lasagna"
	"github.com/ledongthuc/pdf"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxFileSize is the largest file (and, for DOCX, the largest uncompressed
// word/document.xml) File reads: 256 MiB. A larger file is an error, not a
// truncated text.
const MaxFileSize = 256 << 20

// Kind is a supported document type.
type Kind string

// The supported kinds.
const (
	KindText Kind = "text" // .md, .markdown, .txt
	KindPDF  Kind = "pdf"  // .pdf
	KindDOCX Kind = "docx" // .docx
	KindHTML Kind = "html" // .html, .htm
)

// Extensions returns a map from every supported file extension (lowercase,
// with the dot) to its kind. Each call returns a new map, which the caller
// may keep and modify.
func Extensions() map[string]Kind { return maps.Clone(extensions) }

// extensions is the table Extensions copies; nothing modifies it.
var extensions = map[string]Kind{
	".md":       KindText,
	".markdown": KindText,
	".txt":      KindText,
	".pdf":      KindPDF,
	".docx":     KindDOCX,
	".html":     KindHTML,
	".htm":      KindHTML,
}

// KindOf returns the kind of the file at name by its extension (case does
// not matter), and false for an unsupported type.
func KindOf(name string) (Kind, bool) {
	k, ok := extensions[strings.ToLower(path.Ext(name))]
	return k, ok
}

// supported lists the supported extensions for error messages.
func supported() string {
	exts := make([]string, 0, len(extensions))
	for e := range extensions {
		exts = append(exts, e)
	}
	slices.Sort(exts)
	return strings.Join(exts, ", ")
}

// File returns the plain text of the file at name in fsys, by its
// extension (see Extensions): text files as they are, PDF pages joined by
// newlines, DOCX paragraphs one per line, HTML main text. An unsupported
// extension, an unreadable or malformed file, a file over MaxFileSize or a
// text file that is not UTF-8 is an error naming the file. A file with no
// text (a scanned PDF) returns "" and no error.
func File(fsys fs.FS, name string) (text string, err error) {
	kind, ok := KindOf(name)
	if !ok {
		return "", fmt.Errorf("extract %s: unsupported file type %q; supported: %s", name, path.Ext(name), supported())
	}
	data, err := readLimited(fsys, name)
	if err != nil {
		return "", fmt.Errorf("extract %s: %w", name, err)
	}
	switch kind {
	case KindText:
		text, err = plainText(data)
	case KindPDF:
		text, err = pdfText(data)
	case KindDOCX:
		text, err = docxText(data)
	case KindHTML:
		text, _, err = htmlText(data)
	}
	if err != nil {
		return "", fmt.Errorf("extract %s: %w", name, err)
	}
	return text, nil
}

func readLimited(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file is larger than %d MiB; split it into smaller documents", MaxFileSize>>20)
	}
	return data, nil
}

func plainText(data []byte) (string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidAt(data)], []byte("\n"))
		return "", fmt.Errorf("line %d: not UTF-8 text; save the file as UTF-8", line)
	}
	return string(data), nil
}

// invalidAt returns the offset of the first invalid UTF-8 sequence.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// pdfText returns the text of every page, pages separated by a newline.
func pdfText(data []byte) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("malformed PDF: %w", err)
	}
	var b strings.Builder
	fonts := map[string]*pdf.Font{}
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			// Fewer pages than /Count claims: stop rather than walk the
			// page tree up to a corrupt count.
			break
		}
		for _, name := range p.Fonts() {
			if _, ok := fonts[name]; !ok {
				f := p.Font(name)
				fonts[name] = &f
			}
		}
		t, err := p.GetPlainText(fonts)
		if err != nil {
			return "", fmt.Errorf("PDF page %d: %w", i, err)
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimLeft(t, "\n"))
	}
	return b.String(), nil
}

// docxText returns the paragraphs of word/document.xml, one per line; tabs
// become tabs and line breaks newlines.
func docxText(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("not a DOCX file (not a zip archive): %w", err)
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
			break
		}
	}
	if doc == nil {
		return "", errors.New("not a DOCX file: no word/document.xml inside")
	}
	rc, err := doc.Open()
	if err != nil {
		return "", fmt.Errorf("word/document.xml: %w", err)
	}
	defer rc.Close()
	lr := &io.LimitedReader{R: rc, N: MaxFileSize + 1}
	dec := xml.NewDecoder(lr)
	var b strings.Builder
	inText := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if lr.N <= 0 {
				return "", fmt.Errorf("word/document.xml is larger than %d MiB uncompressed", MaxFileSize>>20)
			}
			return "", fmt.Errorf("word/document.xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inText++
			case "tab":
				b.WriteByte('\t')
			case "br", "cr":
				b.WriteByte('\n')
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText--
			case "p":
				b.WriteByte('\n')
			}
		case xml.CharData:
			if inText > 0 {
				b.Write(t)
			}
		}
	}
	return b.String(), nil
}

// htmlText returns the main text of an HTML page and its title.
func htmlText(data []byte) (text, title string, err error) {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return "", "", fmt.Errorf("malformed HTML: %w", err)
	}
	stripChrome(doc)
	art, rerr := readability.FromDocument(doc, nil)
	if rerr == nil && art.Node != nil {
		text = strings.TrimSpace(render.InnerText(art.Node))
		title = strings.TrimSpace(art.Title())
	}
	if text == "" {
		text = strings.TrimSpace(visibleText(doc))
	}
	if title == "" {
		title = titleOf(doc)
	}
	return text, title, nil
}

// stripChrome removes a page's navigation before readability sees it: every
// nav and aside element, and the header and footer elements that are not
// inside an article or main element (the site's, not the article's).
func stripChrome(doc *html.Node) {
	var drop []*html.Node
	var walk func(n *html.Node, inContent bool)
	walk = func(n *html.Node, inContent bool) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Nav, atom.Aside:
				drop = append(drop, n)
				return
			case atom.Header, atom.Footer:
				if !inContent {
					drop = append(drop, n)
					return
				}
			case atom.Article, atom.Main:
				inContent = true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inContent)
		}
	}
	walk(doc, false)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// skipped are the elements whose text is not part of a page's main text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
	atom.Head: true, atom.Svg: true, atom.Iframe: true, atom.Form: true,
}

// visibleText is the fallback when readability finds no article: the text
// of the page without the elements in skipped, block elements on their own
// lines.
func visibleText(doc *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && skipped[n.DataAtom] {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(strings.Join(strings.Fields(n.Data), " "))
			if strings.TrimSpace(n.Data) != "" {
				b.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.P, atom.Div, atom.Li, atom.Br, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
				atom.Tr, atom.Pre, atom.Blockquote, atom.Section, atom.Article, atom.Table:
				b.WriteByte('\n')
			}
		}
	}
	walk(doc)
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func titleOf(doc *html.Node) string {
	var title string
	var find func(*html.Node) bool
	find = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			title = strings.Join(strings.Fields(b.String()), " ")
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if find(c) {
				return true
			}
		}
		return false
	}
	find(doc)
	return title
}

// Skip is a file Walk did not turn into a document, and why.
type Skip struct {
	Path   string // relative to the folder walked
	Reason string
}

// Listing is what Walk found: the documents, in sorted path order, and the
// files skipped (unsupported types, hidden files and folders, files with no
// text), in the same order.
type Listing struct {
	Documents []lasagna.Document
	Skipped   []Skip
}

// Walk extracts every supported file under dir in fsys (dir "." is the
// whole FS), in sorted path order. Each document's ID is its path relative
// to dir (slash-separated) and its Text the extracted text; an HTML
// document's Title is the page title. Files of unsupported types, hidden
// files and folders (names starting with "."), and files from which no
// text was extracted are listed in Skipped with the reason. A supported file
// that fails to extract is an error; every such failure is reported, joined.
// dir itself must exist and be a folder.
func Walk(fsys fs.FS, dir string) (Listing, error) {
	var l Listing
	st, err := fs.Stat(fsys, dir)
	if err != nil {
		return l, fmt.Errorf("extract: %w", err)
	}
	if !st.IsDir() {
		return l, fmt.Errorf("extract: %s is not a folder", dir)
	}
	var errs []error
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		rel := relPath(dir, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("extract %s: %w", rel, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				l.Skipped = append(l.Skipped, Skip{rel + "/", "hidden folder"})
				return fs.SkipDir
			}
			l.Skipped = append(l.Skipped, Skip{rel, "hidden file"})
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// A link to a file is read; a link to a folder is not followed
			// (it could loop).
			if st, err := fs.Stat(fsys, p); err != nil || !st.Mode().IsRegular() {
				l.Skipped = append(l.Skipped, Skip{rel, "symbolic link to a folder or to nothing (not followed)"})
				return nil
			}
		} else if !d.Type().IsRegular() {
			l.Skipped = append(l.Skipped, Skip{rel, "not a regular file"})
			return nil
		}
		kind, ok := KindOf(p)
		if !ok {
			ext := path.Ext(p)
			if ext == "" {
				ext = "(none)"
			}
			l.Skipped = append(l.Skipped, Skip{rel, fmt.Sprintf("unsupported file type %s", ext)})
			return nil
		}
		data, err := readLimited(fsys, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("extract %s: %w", rel, err))
			return nil
		}
		doc := lasagna.Document{ID: rel}
		switch kind {
		case KindText:
			doc.Text, err = plainText(data)
		case KindPDF:
			doc.Text, err = pdfText(data)
		case KindDOCX:
			doc.Text, err = docxText(data)
		case KindHTML:
			doc.Text, doc.Title, err = htmlText(data)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("extract %s: %w", rel, err))
			return nil
		}
		if strings.TrimSpace(doc.Text) == "" {
			reason := "no text found"
			if kind == KindPDF {
				reason += " (a scanned PDF needs OCR first)"
			}
			l.Skipped = append(l.Skipped, Skip{rel, reason})
			return nil
		}
		l.Documents = append(l.Documents, doc)
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("extract: %w", err))
	}
	if len(errs) > 0 {
		return Listing{}, errors.Join(errs...)
	}
	return l, nil
}

// Dir is Walk without the list of skipped files: the documents of every
// supported file under dir, in sorted path order, ids relative to dir.
func Dir(fsys fs.FS, dir string) ([]lasagna.Document, error) {
	l, err := Walk(fsys, dir)
	return l.Documents, err
}

func relPath(dir, p string) string {
	if dir == "." {
		return p
	}
	if r, ok := strings.CutPrefix(p, dir+"/"); ok {
		return r
	}
	return p
}
