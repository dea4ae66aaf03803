// Package pglitetest starts a throwaway PostgreSQL server with the pgvector
// extension for tests: PGlite (PostgreSQL compiled to WebAssembly) served
// over the wire protocol by pglite-socket, run with node on 127.0.0.1 on a
// port the system chooses. The npm packages are pinned in
// testdata/package-lock.json; install them with
//
//	npm ci --prefix internal/pglitetest/testdata
//
// (`make pglite`; .ci/run does it). Where node or the packages are missing,
// Start skips the test with that command, unless LASAGNA_REQUIRE_BACKENDS=1
// (CI sets it): then the test fails.
//
// Facts about this server that a client must respect: every connection
// shares one session, so connect with default_query_exec_mode=exec (the
// DSN that Start returns says so; prepared statement names would collide),
// and COPY wedges it, so ingest with INSERT.
//
// It takes a small interface instead of testing.TB so that it links no
// testing package of its own.
package pglitetest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lasagna-go/lasagna/internal/servertest"
)

// TB is the part of testing.TB Start uses.
type TB = servertest.CleanupTB

// InstallCommand is the command that installs the pinned npm packages,
// run from the module's root folder.
const InstallCommand = "npm ci --prefix internal/pglitetest/testdata"

// startTimeout bounds the wait for the server's "listening" line; PGlite
// takes about 10 s to start on a loaded 2-core machine.
const startTimeout = 90 * time.Second

// Server is a running PGlite server.
type Server struct {
	// DSN is the postgres:// URL of its database, with
	// default_query_exec_mode=exec and no password.
	DSN string
	// Addr is its host:port on loopback.
	Addr string
	// PID is the node process's id.
	PID int
}

// Dir returns the folder holding server.js and package-lock.json.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Missing returns why the server cannot start here (node not on PATH, the
// npm packages not installed), with the fix, or "" when it can.
func Missing() string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not on PATH; install Node.js 20 or later (Debian: apt-get install nodejs npm), then run `" + InstallCommand + "` in the module's root folder, to run the pgvector backend tests against PGlite"
	}
	for _, p := range []string{"@electric-sql/pglite", "@electric-sql/pglite-pgvector", "@electric-sql/pglite-socket"} {
		if _, err := os.Stat(filepath.Join(Dir(), "node_modules", p, "package.json")); err != nil {
			return "the npm package " + p + " is not installed; run `" + InstallCommand + "` in the module's root folder (`make pglite`) to run the pgvector backend tests against PGlite"
		}
	}
	return ""
}

// Start starts a server of the test's own and stops it by its PID when the
// test ends (tb.Cleanup). It skips tb where Missing reports a cause, or
// fails it when LASAGNA_REQUIRE_BACKENDS=1.
func Start(tb TB) *Server {
	tb.Helper()
	servertest.Heavy(tb, "PGlite (a node server)")
	if why := Missing(); why != "" {
		servertest.SkipOrFail(tb, why)
		return nil
	}
	s, stop, err := start(8)
	tb.Cleanup(stop)
	if err != nil {
		tb.Fatalf("start PGlite: %v", err)
		return nil
	}
	return s
}

// start runs node server.js and waits for its "listening" line. stop is
// never nil and stops the process by its PID (SIGTERM, then SIGKILL after
// 10 s).
func start(maxConnections int) (s *Server, stop func(), err error) {
	cmd := exec.Command("node", "server.js", fmt.Sprint(maxConnections))
	cmd.Dir = Dir()
	// Its own process group, so a ^C to the test does not reach it
	// before the cleanup does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The server exits when its standard input closes: when this
	// process is gone without running the cleanup.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, func() {}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, func() {}, err
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, func() {}, err
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	var once sync.Once
	stop = func() {
		once.Do(func() {
			select {
			case <-done: // exited already: its PID may belong to another process now
				stdin.Close()
				return
			default:
			}
			_ = syscall.Kill(pid, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(pid, syscall.SIGKILL)
				<-done
			}
			stdin.Close()
		})
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case line, ok := <-lines:
		addr, found := strings.CutPrefix(line, "listening ")
		if !ok || !found {
			stop()
			return nil, stop, fmt.Errorf("node %s exited before listening: %s", filepath.Join(Dir(), "server.js"), strings.TrimSpace(stderr.String()+"\n"+line))
		}
		return &Server{
			DSN:  "postgres://postgres@" + addr + "/postgres?sslmode=disable&default_query_exec_mode=exec",
			Addr: addr,
			PID:  pid,
		}, stop, nil
	case <-time.After(startTimeout):
		stop()
		return nil, stop, fmt.Errorf("node %s printed no listening line within %v: %s", filepath.Join(Dir(), "server.js"), startTimeout, strings.TrimSpace(stderr.String()))
	}
}

// syncBuffer collects a process's standard error.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 64<<10 {
		return len(p), nil
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
