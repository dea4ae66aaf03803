package doctest

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	md := "# A\n\ntext\n\n<!-- output: TestX -->\n```console\n$ lasagna x\nout\n\n```\n## B\n- item\n\n  <!-- file: a.yaml -->\n  ```yaml\n  k: v\n  ```\n"
	bs := Parse("d.md", []byte(md))
	if len(bs) != 2 {
		t.Fatalf("%d blocks, want 2: %+v", len(bs), bs)
	}
	if b := bs[0]; b.Info != "console" || b.Line != 6 || b.Section != "A" || b.Marker != (Marker{"output", "TestX"}) || b.Text() != "$ lasagna x\nout\n" {
		t.Errorf("first block %+v", b)
	}
	if b := bs[1]; b.Info != "yaml" || b.Section != "B" || b.Marker != (Marker{"file", "a.yaml"}) || b.Text() != "k: v" {
		t.Errorf("indented block %+v", b)
	}
	cmds := bs[0].Commands()
	if len(cmds) != 1 || cmds[0].Text != "lasagna x" || cmds[0].Line != 7 || strings.Join(cmds[0].Output, "|") != "out" {
		t.Errorf("commands %+v", cmds)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		want []string
		got  string
		ok   bool
	}{
		{[]string{"a", "b"}, "a\nb\n", true},
		{[]string{"a", "b"}, "a\nc\n", false},
		{[]string{"a"}, "a\nb\n", false},
		{[]string{"a", "…"}, "a\nb\nc\n", true},
		{[]string{"…", "c"}, "a\nb\nc\n", true},
		{[]string{"a", "…", "c"}, "a\nc\n", true},
		{[]string{"x: … (fix: …)"}, "x: long text (fix: do it)\n", true},
		{[]string{"x: … (fix: …)"}, "y: long text (fix: do it)\n", false},
		{[]string{"bundle: lasagna-out/0123456789ab.json"}, "bundle: lasagna-out/ba9876543210.json", true},
		{[]string{"--- PASS: T (0.17s)"}, "--- PASS: T (1.02s)", true},
		{[]string{"faq  2026-12-01 15:08 UTC  src"}, "faq  2027-01-02 03:04 UTC  src", true},
		{[]string{"one line  "}, "one line\n", true},
	} {
		if err := Match(tc.want, tc.got); (err == nil) != tc.ok {
			t.Errorf("Match(%q, %q) = %v, want ok %v", tc.want, tc.got, err, tc.ok)
		}
	}
}

func TestExcerpt(t *testing.T) {
	got := "=== RUN x\n    file.go:1: first\n        second\nthird\n"
	if err := Excerpt([]string{"first", "  second"}, strings.ReplaceAll(got, "file.go:1: ", "")); err != nil {
		t.Error(err)
	}
	if err := Excerpt([]string{"first", "third"}, got); err == nil {
		t.Error("lines not next to each other matched")
	}
}

func TestWords(t *testing.T) {
	env, words := Words(`K=v T=$(openssl rand -hex 32) lasagna run -run 'A B$' "c d"`)
	if len(env) != 2 || env[1][1] != "$(openssl rand -hex 32)" || strings.Join(words, "|") != "lasagna|run|-run|A B$|c d" {
		t.Errorf("env %q, words %q", env, words)
	}
	if StripComment("lasagna x        # a note") != "lasagna x" || StripComment("show glass.md#0") != "show glass.md#0" {
		t.Error("StripComment")
	}
}
