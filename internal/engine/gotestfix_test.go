package engine_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
)

// cliFlag matches a flag of the lasagna command ("--resume") or the name
// of one of its commands: things a go test user cannot type.
var cliFlag = regexp.MustCompile(`(^|[\s(])--[a-z]|\blasagna (benchmark|results|metrics|validate-data)\b`)

// TestGoTestFixesNameNoCLIFlag checks every code of the catalogue: its fix
// as said inside go test names no CLI flag. A new catalogue fix that names
// one fails here until it gets go test wording.
func TestGoTestFixesNameNoCLIFlag(t *testing.T) {
	for _, info := range lasagna.Catalogue() {
		fix := engine.GoTestFix(info.Code)
		if fix == "" {
			t.Errorf("%s: no fix", info.Code)
		}
		if cliFlag.MatchString(fix) {
			t.Errorf("%s: the go test fix names a CLI flag: %q", info.Code, fix)
		}
	}
	f := lasagna.Finding{Code: lasagna.PipelineErrors, Where: "local/tiny@abc/mine", Detail: "1 of 12 queries failed: q03"}
	got := engine.GoTestFinding(f)
	if cliFlag.MatchString(got) || !strings.HasPrefix(got, "PIPELINE_ERRORS at local/tiny@abc/mine: 1 of 12 queries failed: q03 (fix: fix the failing calls") {
		t.Errorf("GoTestFinding = %q", got)
	}
	other := lasagna.Finding{Code: lasagna.UnknownDocID, Where: "x", Detail: "d"}
	if engine.GoTestFinding(other) != other.String() {
		t.Errorf("GoTestFinding changed a fix without a CLI flag: %q", engine.GoTestFinding(other))
	}
}
