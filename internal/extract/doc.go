// Package extract turns document files into plain text for synthesis and
// uploads: .md, .markdown and .txt files as they are (UTF-8), PDF (the text
// of every page, through github.com/ledongthuc/pdf), DOCX (the paragraphs of
// word/document.xml, one line each, read with archive/zip and
// encoding/xml) and HTML (the page's main text, not its markup: nav and
// aside elements and the page's own header and footer are removed, then
// codeberg.org/readeck/go-readability/v2 finds the article; when it finds
// none, the body's visible text without script, style and navigation is
// used).
//
// File extracts one file; Dir and Walk extract every supported file of a
// folder tree, in sorted path order, with document ids equal to the paths
// relative to the folder. Files of other types are skipped and reported
// (Walk's Listing.Skipped), never silently dropped; a supported file that
// cannot be read is an error naming it.
//
// Everything reads from an fs.FS (os.DirFS, embed.FS and fstest.MapFS all
// work). The package holds no state; its functions are safe for concurrent
// use. A malformed file never panics: the PDF reader's panics are recovered
// and returned as errors naming the file.
package extract
