package dsn

import (
	"strings"
	"testing"
)

// TestRedact feeds every DSN form with the secret s3cr3t and checks that
// no redacted text holds it.
func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		dsn, want string
		postgres  bool
	}{
		{"postgres://alice:s3cr3t@db:5432/x?sslmode=disable", "postgres://alice:xxxxx@db:5432/x?sslmode=disable", true},
		{"postgresql://alice@db/x?password=s3cr3t", "postgresql://alice@db/x?password=xxxxx", true},
		{"postgres://alice@db/x?sslmode=disable&password=s3cr3t", "postgres://alice@db/x?sslmode=disable&password=xxxxx", true},
		{"postgres://alice:s3@cr3t@db/x", "postgres://alice:xxxxx@db/x", true},
		{"postgres://alice:s3/cr3t@db/x", "postgres://alice:xxxxx@db/x", true},
		{"postgres://alice:s3%40cr3t@db/x", "postgres://alice:xxxxx@db/x", true},
		{"postgres://alice:s3cr3t@db/x?password=s3cr3t", "postgres://alice:xxxxx@db/x?password=xxxxx", true},
		{"host=db user=alice password=s3cr3t dbname=x", "host=db user=alice password=xxxxx dbname=x", true},
		{"host=db password='s3cr3t' user=alice", "host=db password=xxxxx user=alice", true},
		{"host=db password='s3 cr3t' user=alice", "host=db password=xxxxx user=alice", true},
		{"dbname=x password=s3cr3t", "dbname=x password=xxxxx", true},
		{"postgres://alice@db/x", "postgres://alice@db/x", true},
		{"host=db user=alice", "host=db user=alice", true},
		{"/var/lib/lasagna/registry.db", "/var/lib/lasagna/registry.db", false},
		{"registry.db", "registry.db", false},
		{"mysql://alice:s3cr3t@db/x", "mysql://alice:xxxxx@db/x", false},
	} {
		got := Redact(tc.dsn)
		if strings.Contains(got, "s3") || strings.Contains(got, "cr3t") {
			t.Errorf("Redact(%q) = %q: the secret shows", tc.dsn, got)
		}
		if got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.dsn, got, tc.want)
		}
		if p := IsPostgres(tc.dsn); p != tc.postgres {
			t.Errorf("IsPostgres(%q) = %v, want %v", tc.dsn, p, tc.postgres)
		}
		if h := HasPassword(tc.dsn); h != strings.Contains(tc.dsn, "cr3t") {
			t.Errorf("HasPassword(%q) = %v", tc.dsn, h)
		}
		msg := "failed to connect to `" + tc.dsn + "`: server said no"
		if got := RedactIn(msg, tc.dsn); strings.Contains(got, "cr3t") {
			t.Errorf("RedactIn(…, %q) = %q: the secret shows", tc.dsn, got)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := Check("postgres://u:s3@cr3t@db/x"); err != ErrUnescapedAt {
		t.Errorf("Check(unescaped @) = %v, want ErrUnescapedAt", err)
	}
	for _, ok := range []string{"postgres://u:s3%40cr3t@db/x", "postgres://u@db/x?password=a@b", "host=db password=a@b", "postgres://db/x"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q) = %v", ok, err)
		}
	}
}

// TestRedactInPartialEchoes: a driver or server quoting the first or last
// characters of a long password, or a middle run, plain or JSON-escaped,
// shows none of its 8-character runs; PGPASSWORD's value is masked too.
func TestRedactInPartialEchoes(t *testing.T) {
	const pw = "Long/Pass&word-0123456789"
	dsn := "postgres://alice:" + strings.NewReplacer("/", "%2F", "&", "%26").Replace(pw) + "@db/x"
	for _, text := range []string{
		"password " + pw[:20] + "... rejected",
		"rejected; ends in " + pw[len(pw)-10:],
		"saw " + pw[6:18],
		`{"error":"password ` + strings.NewReplacer("/", `\/`, "&", `\u0026`).Replace(pw[:16]) + `..."}`,
		"failed to connect to `" + dsn + "`",
	} {
		got := RedactIn(text, dsn)
		for i := 0; i+8 <= len(pw); i++ {
			if strings.Contains(got, pw[i:i+8]) || strings.Contains(got, strings.ReplaceAll(pw[i:i+8], "/", `\/`)) {
				t.Errorf("RedactIn(%q) = %q: shows %q", text, got, pw[i:i+8])
			}
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("RedactIn(%q) = %q: no mask", text, got)
		}
	}
	t.Setenv("PGPASSWORD", "env-secret-0123456789")
	if got := RedactIn("auth failed for env-secret-01…", "postgres://alice@db/x"); got != "auth failed for "+Mask+"…" {
		t.Errorf("PGPASSWORD: %q", got)
	}
}
