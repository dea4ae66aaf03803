package main

import (
	"regexp"
	"strings"
	"testing"
)

// exitCodesRE matches a help text's "Exit status: 0 …; 1 …; 2 usage …".
var exitCodesRE = regexp.MustCompile(`Exit status: 0 [^;,]+[;,]\s+1 (?s:.+?)[;,]\s+2\s+usage`)

// TestHelpListsExitCodes: the root command and the commands that gate
// (run, score, validate, merge, compare, bundle, metrics trec) list their
// exit codes in --help.
func TestHelpListsExitCodes(t *testing.T) {
	out, _, code := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"Exit status", "  0  done", "  1  a failed verdict", "  2  a usage or configuration error", "130, 143  interrupted"} {
		if !strings.Contains(out, want) {
			t.Errorf("lasagna --help lacks %q:\n%s", want, out)
		}
	}
	for _, cmd := range [][]string{
		{"benchmark", "run"}, {"benchmark", "score"}, {"benchmark", "validate-data"},
		{"results", "validate"}, {"results", "merge"}, {"results", "compare"}, {"results", "bundle"},
		{"metrics", "trec"},
	} {
		out, _, code := runCLI(t, append(cmd, "--help")...)
		if code != 0 || !exitCodesRE.MatchString(out) {
			t.Errorf("%v --help: exit %d, no exit codes:\n%s", cmd, code, out)
		}
	}
}

// TestUnknownCommandIsUsage: an unknown command exits 2, as an unknown
// sub-verb or flag does.
func TestUnknownCommandIsUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bencmark"}, `unknown command "bencmark" for "lasagna"; did you mean "benchmark"?`},
		{[]string{"benchmark", "scor"}, `unknown command "scor" for "lasagna benchmark"; did you mean "score"?`},
		{[]string{"--bad"}, "unknown flag: --bad"},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q (%s)", c.args, code, c.want, errOut)
		}
	}
	if out, _, code := runCLI(t); code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("no arguments: exit %d\n%s", code, out)
	}
}
