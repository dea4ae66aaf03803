package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// calibrationLayout is what the browser lays out of a judge metric's
// section: the calibration table's caption, header and rows as shown
// (innerText), whether the table and the note are drawn with a size,
// whether the table lies below the metric's mean plot in the same section
// and within the page's width, and the note's text.
type calibrationLayout struct {
	Caption      string     `json:"caption"`
	Header       []string   `json:"header"`
	Rows         [][]string `json:"rows"`
	TableShown   bool       `json:"tableShown"`
	BelowPlot    bool       `json:"belowPlot"`
	WithinPage   bool       `json:"withinPage"`
	Note         string     `json:"note"`
	NoteShown    bool       `json:"noteShown"`
	OtherTables  int        `json:"otherTables"`
	OtherNotes   int        `json:"otherNotes"`
	SectionCount int        `json:"sectionCount"`
}

// TestCalibrationInBrowser opens in headless Chromium a report whose
// first arm cites a calibration record of judge_correctness and whose
// second has none: the judge metric's section draws the calibration table
// under the metric's plot (the record's numbers as the report formats
// them) and the note that the other arm's judge is uncalibrated; no other
// section shows either; the page has no console error or outside request.
func TestCalibrationInBrowser(t *testing.T) {
	ctx := browser(t)
	b := calibratedRun(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte(render(t, []Input{{Bundle: b}}, Options{Metrics: []string{"ndcg@10", "judge_correctness"}})), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(path)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	var ev pageEvents
	ev.listen(t, ctx, url)
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(`section[data-metric="judge_correctness"] table.calibration`)); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[calibrationLayout](`(() => {
		const s = document.querySelector('section[data-metric="judge_correctness"]');
		const tab = s.querySelector("table.calibration"), note = s.querySelector("p.uncalibrated"), plot = s.querySelector("figure.means");
		const shown = e => !!e && e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().height > 0 && getComputedStyle(e).visibility !== "hidden";
		const tr = tab.getBoundingClientRect();
		return {
			caption: tab.caption.innerText,
			header: Array.from(tab.tHead.rows[0].cells).map(c => c.innerText),
			rows: Array.from(tab.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.innerText)),
			tableShown: shown(tab),
			belowPlot: !!plot && plot.getBoundingClientRect().bottom <= tr.top,
			withinPage: tr.left >= 0 && tr.right <= document.documentElement.scrollWidth,
			note: note ? note.innerText : "",
			noteShown: shown(note),
			otherTables: document.querySelectorAll("table.calibration").length - 1,
			otherNotes: document.querySelectorAll("p.uncalibrated").length - 1,
			sectionCount: document.querySelectorAll("section.metric").length,
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if got.SectionCount != 2 || !got.TableShown || !got.BelowPlot || !got.WithinPage || got.OtherTables != 0 || got.OtherNotes != 0 {
		t.Errorf("layout %+v", got)
	}
	if got.Caption != "Judge calibration against human labels (lasagna judge calibrate)" {
		t.Errorf("caption %q", got.Caption)
	}
	wantHeader := []string{"arm", "judge model", "prompt", "labels", "n", "accuracy", "Cohen's κ [95% CI]", "confusion (TP FN / FP TN)", "disagreements", "date"}
	if strings.Join(got.Header, "|") != strings.Join(wantHeader, "|") {
		t.Errorf("header %q", got.Header)
	}
	wantRow := []string{"bm25", "gpt-4o-mini (gpt-4o-mini-2024-07-18)", "judge-correctness-v1@1d1d1d1d1d1d…", "labels.jsonl sha256 eaeaeaeaeaea…", "12", "0.750", "0.471 [-0.125, 1.000]", "6 1 / 2 3", "l07, l12, l04", "2026-12-02"}
	if len(got.Rows) != 1 || strings.Join(got.Rows[0], "|") != strings.Join(wantRow, "|") {
		t.Errorf("rows %q\nwant %q", got.Rows, wantRow)
	}
	if !got.NoteShown || !strings.HasPrefix(got.Note, "judge_correctness is judged by an LLM with no calibration record for bm25-nostem: its agreement with human labels is unmeasured") {
		t.Errorf("the no-calibration note: shown %v, %q", got.NoteShown, got.Note)
	}
	if problems := ev.List(); len(problems) > 0 {
		t.Errorf("the page had problems:\n%s", strings.Join(problems, "\n"))
	}
}
