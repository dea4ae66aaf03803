package main

import (
	"os"
	"strings"
	"testing"
)

// TestRegistryPasswordNeverPrinted: whatever form the registry DSN takes
// (a URL with the password in its user info or its query, an unescaped @,
// the key/value form), benchmark list and serve fail without printing the
// password, and no file named after the DSN appears.
func TestRegistryPasswordNeverPrinted(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, dsn := range []string{
		"postgres://u:s3cr3t@127.0.0.1:1/db?connect_timeout=1",
		"postgres://u@127.0.0.1:1/db?password=s3cr3t&connect_timeout=1",
		"postgres://u:s3@cr3t@127.0.0.1:1/db?connect_timeout=1",
		"host=127.0.0.1 port=1 user=u password=s3cr3t dbname=db connect_timeout=1",
	} {
		t.Setenv("LASAGNA_REGISTRY", dsn)
		for _, args := range [][]string{{"benchmark", "list"}, {"serve", "--addr", "127.0.0.1:0"}} {
			out, errOut, code := runCLI(t, args...)
			if code == 0 {
				t.Errorf("%v with %q: exit 0", args, dsn)
			}
			if strings.Contains(out+errOut, "cr3t") {
				t.Errorf("%v with %q printed the password:\n%s%s", args, dsn, out, errOut)
			}
		}
		if ents, _ := os.ReadDir("."); len(ents) != 0 {
			t.Errorf("%q left %v in the working folder", dsn, ents)
		}
	}
}
