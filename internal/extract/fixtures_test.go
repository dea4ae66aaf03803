package extract

import (
	"archive/zip"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/internal/golden"
)

// The PDF and DOCX files of testdata/docs are made by makePDF and makeDOCX
// below from the texts in manualPages and policyParagraphs.
// TestFixturesUpToDate checks the committed bytes against the generators;
// LASAGNA_UPDATE_GOLDEN=1 rewrites them (internal/golden).

// manualPages is the text of testdata/docs/manual.pdf: two pages, one
// line per text object.
var manualPages = [][]string{
	{
		"Greenhouse irrigation manual",
		"The greenhouse of the Riverside Community Garden is watered by a drip",
		"irrigation system fed from the rainwater tank. A pump lifts the water",
		"through a sand filter to forty drip lines, one for each bench and bed.",
		"The timer runs two cycles a day, at six in the morning and at eight in",
		"the evening, for twelve minutes each from May to August and for six",
		"minutes in spring and autumn. Only the volunteer coordinator changes",
		"the timer settings (see the member guide).",
	},
	{
		"The sand filter is rinsed every second Sunday by reversing the flow",
		"for three minutes with the blue valve. If the pressure gauge reads",
		"below 0.8 bar while the pump runs, the filter is blocked or a line is",
		"broken: switch the pump off at the red switch by the door and call",
		"the coordinator. In November the lines are drained and the pump is",
		"stored in the tool shed until March to protect it from frost.",
	},
}

// policyParagraphs is the text of testdata/docs/policy.docx, one paragraph
// each (a tab inside the third).
var policyParagraphs = []string{
	"Pest control policy",
	"The Riverside Community Garden is an organic garden. Synthetic pesticides, herbicides and slug pellets containing metaldehyde are not allowed anywhere in the garden, including on private plots.",
	"Allowed:\tcopper tape, beer traps, nematodes, insect netting and hand picking.",
	"Members may spray a soap solution against aphids, but never within ten metres of the two beehives. A member who breaks this policy receives one warning; a second breach ends the membership at the end of the season, as decided by the garden committee at its monthly meeting.",
	"Questions about this policy go to the committee secretary, Ana Lindqvist.",
}

// makePDF writes a minimal valid PDF 1.4 file: one page per element of
// pages, each line a text object in Helvetica (WinAnsiEncoding), with a
// correct cross-reference table.
func makePDF(pages [][]string) []byte {
	var objs []string
	// Object numbers: 1 catalog, 2 pages, 3 font, then page/content pairs.
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	)
	esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	for i, lines := range pages {
		var content strings.Builder
		for j, l := range lines {
			fmt.Fprintf(&content, "BT /F1 11 Tf 72 %d Td (%s) Tj ET\n", 720-16*j, esc.Replace(l))
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()),
		)
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// makeDOCX writes a minimal DOCX (WordprocessingML) file: the three parts
// Word needs, stored uncompressed with a fixed time so the bytes are
// reproducible. A tab in a paragraph becomes a <w:tab/>.
func makeDOCX(paragraphs []string) []byte {
	const ns = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	var body strings.Builder
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	for _, p := range paragraphs {
		body.WriteString("<w:p>")
		for i, run := range strings.Split(p, "\t") {
			if i > 0 {
				body.WriteString("<w:r><w:tab/></w:r>")
			}
			fmt.Fprintf(&body, `<w:r><w:t xml:space="preserve">%s</w:t></w:r>`, esc.Replace(run))
		}
		body.WriteString("</w:p>")
	}
	parts := []struct{ name, data string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
			`</Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
			`</Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<w:document xmlns:w="` + ns + `"><w:body>` + body.String() + `</w:body></w:document>`},
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Store, Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(p.data)); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func TestFixturesUpToDate(t *testing.T) {
	for name, want := range map[string][]byte{
		"manual.pdf":  makePDF(manualPages),
		"policy.docx": makeDOCX(policyParagraphs),
	} {
		golden.Check(t, filepath.Join("testdata", "docs", name), want)
	}
}
