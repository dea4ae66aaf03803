// Package pgtest starts a throwaway PostgreSQL cluster for tests: Debian's
// postgresql package (initdb and pg_ctl under /usr/lib/postgresql/*/bin)
// on a unix socket in a temporary folder, run as the postgres user when
// the tests run as root. One cluster serves a whole test binary: Database
// starts it on first use and makes a new database per call; Stop (from
// TestMain) stops the server by its PID and removes the folder. Where no
// server binary exists, Database skips the test with a message saying
// what to install.
//
// It takes a small interface instead of testing.TB so that it links no
// testing package of its own.
package pgtest

import (
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
	"time"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/servertest"
)

// TB is the part of testing.TB Database uses.
type TB = servertest.TB

// CleanupTB is a TB with Cleanup, for New.
type CleanupTB = servertest.CleanupTB

// Cluster is a running throwaway cluster of one's own (see New).
type Cluster struct{ c *cluster }

// New starts a cluster of the test's own and stops it (by PID) when the
// test ends; it skips tb where no server binary exists. Use it where the
// package has no TestMain to call Stop from.
func New(tb CleanupTB) *Cluster {
	tb.Helper()
	servertest.Heavy(tb, "a PostgreSQL server")
	servertest.NeedTag(tb, "postgres", buildtag.Postgres)
	c := &cluster{}
	c.once.Do(c.start)
	tb.Cleanup(c.stop)
	if c.skip != "" {
		servertest.SkipOrFail(tb, c.skip)
		return nil
	}
	if c.err != nil {
		tb.Fatalf("start PostgreSQL: %v", c.err)
		return nil
	}
	return &Cluster{c: c}
}

// Database returns the postgres:// URL of a new, empty database of the
// cluster.
func (cl *Cluster) Database(tb TB) string { return cl.c.database(tb) }

type cluster struct {
	once    sync.Once
	dir     string
	bin     string
	pid     int
	skip    string
	err     error
	counter atomic.Int64
}

var shared cluster

// BinDir returns the newest /usr/lib/postgresql/<version>/bin holding
// initdb and pg_ctl, or "".
func BinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		_, e1 := os.Stat(filepath.Join(d, "initdb"))
		_, e2 := os.Stat(filepath.Join(d, "pg_ctl"))
		if e1 == nil && e2 == nil {
			return d
		}
	}
	return ""
}

func (c *cluster) start() {
	c.bin = BinDir()
	if c.bin == "" {
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
			c.err = fmt.Errorf("the server refuses to run as root, and there is no postgres user to run it: %v", err)
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
		cmd := exec.Command(filepath.Join(c.bin, name), args...)
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
		"-o", "-c listen_addresses='' -k "+dir+" -c fsync=off -c max_connections=60", "start"); err != nil {
		c.err = err
		return
	}
	if pidFile, err := os.ReadFile(filepath.Join(data, "postmaster.pid")); err == nil {
		c.pid, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(pidFile), "\n", 2)[0]))
	}
}

// URL returns the postgres:// URL of database db of the shared cluster.
func (c *cluster) url(db string) string {
	return "postgres://postgres@/" + db + "?host=" + url.QueryEscape(c.dir) + "&sslmode=disable"
}

// Database returns the postgres:// URL of a new, empty database in the
// shared cluster, starting it on first use; it skips tb where no server
// binary exists.
func Database(tb TB) string {
	tb.Helper()
	servertest.Heavy(tb, "a PostgreSQL server")
	servertest.NeedTag(tb, "postgres", buildtag.Postgres)
	shared.once.Do(shared.start)
	return shared.database(tb)
}

func (c *cluster) database(tb TB) string {
	tb.Helper()
	if c.skip != "" {
		servertest.SkipOrFail(tb, c.skip)
		return ""
	}
	if c.err != nil {
		tb.Fatalf("start PostgreSQL: %v", c.err)
		return ""
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.counter.Add(1))
	cmd := exec.Command(filepath.Join(c.bin, "createdb"), "-h", c.dir, "-U", "postgres", name)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("createdb: %v\n%s", err, out)
		return ""
	}
	return c.url(name)
}

// Stop stops the shared cluster's server by its PID (SIGQUIT, the
// immediate shutdown) and removes its folder. Call it from TestMain after
// m.Run.
func Stop() { shared.stop() }

func (c *cluster) stop() {
	if c.dir == "" {
		return
	}
	if c.pid > 0 {
		if p, err := os.FindProcess(c.pid); err == nil {
			p.Signal(syscall.SIGQUIT)
			for i := 0; i < 200 && p.Signal(syscall.Signal(0)) == nil; i++ {
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	os.RemoveAll(c.dir)
}

// Stop stops the cluster's server now (as when it goes down under a
// client): the tests of what a client does without its database.
func (cl *Cluster) Stop() { cl.c.stop() }
