package registry_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// The suite runs every test against both backends: a SQLite file in a
// temporary folder, and a database in a throwaway PostgreSQL cluster
// (Debian's postgresql package: initdb and pg_ctl on a unix socket in a
// temporary folder, run as the postgres user when the tests run as root).
// The cluster is started once per test binary and stopped by PID in
// TestMain; where no server binary exists the PostgreSQL half skips.

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	code := m.Run()
	pg.stop()
	os.Exit(code)
}

type backend struct {
	name string
	dsn  func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "registry.db") }},
	{"postgres", func(t *testing.T) string { return pg.newDatabase(t) }},
}

// eachBackend runs fn as a subtest per backend.
func eachBackend(t *testing.T, fn func(t *testing.T, dsn string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.dsn(t)) })
	}
}

// cluster is the throwaway PostgreSQL server.
type cluster struct {
	once    sync.Once
	dir     string
	pid     int
	skip    string
	err     error
	admin   string
	counter atomic.Int64
}

var pg cluster

func pgBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
				return d
			}
		}
	}
	return ""
}

func (c *cluster) start() {
	bin := pgBinDir()
	if bin == "" {
		c.skip = "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin; install Debian's postgresql package (.ci/run does) to run the PostgreSQL backend tests"
		return
	}
	dir, err := os.MkdirTemp("", "lasagna-pg-")
	if err != nil {
		c.err = err
		return
	}
	c.dir = dir
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			c.err = fmt.Errorf("running as root needs the postgres user to run the server: %v", err)
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			c.err = err
			return
		}
	}
	run := func(name string, args ...string) error {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", name, err, out)
		}
		return nil
	}
	data := filepath.Join(dir, "data")
	if err := run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		c.err = err
		return
	}
	if err := run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60",
		"-o", "-c listen_addresses='' -k "+dir+" -c fsync=off -c max_connections=50", "start"); err != nil {
		c.err = err
		return
	}
	pidFile, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err == nil {
		c.pid, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(pidFile), "\n", 2)[0]))
	}
	c.admin = c.url("postgres")
}

func (c *cluster) url(db string) string {
	return "postgres://postgres@/" + db + "?host=" + url.QueryEscape(c.dir) + "&sslmode=disable"
}

// newDatabase returns the URL of a new, empty database of the cluster.
func (c *cluster) newDatabase(t *testing.T) string {
	t.Helper()
	c.once.Do(c.start)
	if c.skip != "" {
		t.Skip(c.skip)
	}
	if c.err != nil {
		t.Fatalf("start PostgreSQL: %v", c.err)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.counter.Add(1))
	db, err := sql.Open("pgx", c.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return c.url(name)
}

// stop stops the server by its PID (SIGQUIT: immediate shutdown) and
// removes its folder.
func (c *cluster) stop() {
	if c.dir == "" {
		return
	}
	if c.pid > 0 {
		if p, err := os.FindProcess(c.pid); err == nil {
			p.Signal(syscall.SIGQUIT)
			for i := 0; i < 200; i++ {
				if p.Signal(syscall.Signal(0)) != nil {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	os.RemoveAll(c.dir)
}

func bg() context.Context { return context.Background() }
