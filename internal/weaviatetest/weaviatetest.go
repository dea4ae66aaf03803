// Package weaviatetest starts a throwaway Weaviate server for tests: the
// weaviate-server binary built from the Go module proxy (Version), with its
// data in a temporary folder, inside a private network namespace that has
// only loopback.
//
// Why a namespace: weaviate-server binds its gRPC (50051) and cluster
// (7946, 7947, 8300, 8301) ports on every interface whatever its --host
// says, and a test must not open ports to the network. So the server runs
// in a network namespace of its own: a goroutine locks its OS thread,
// unshares the thread's network namespace (this needs root, or
// CAP_SYS_ADMIN), brings that namespace's loopback up and starts the
// server from that thread, so the server is born inside. The client side
// stays an ordinary in-process client: the harness listens on the host's
// 127.0.0.1 on a free port and forwards each connection to the server's
// REST port through a socket the namespace thread creates (a socket
// belongs to the namespace of the thread that made it). Server.URL is that
// forwarding address. Nothing listens anywhere but on loopback.
//
// Where the binary is not found, or no namespace can be made, Start skips
// the test with the command that fixes it, unless the environment sets
// LASAGNA_REQUIRE_BACKENDS=1 (CI does), where it fails instead.
//
// It takes a small interface instead of testing.TB so that it links no
// testing package of its own.
package weaviatetest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lasagna-go/lasagna/internal/servertest"
)

// Version is the Weaviate server version the tests run.
const Version = "v1.35.2"

// InstallCommand builds the server where Binary finds it.
const InstallCommand = "make weaviate-server (GOBIN=<user cache>/lasagna/weaviate-" + Version +
	" go install github.com/weaviate/weaviate/cmd/weaviate-server@" + Version +
	"; about 7 minutes cold on 2 cores), or set LASAGNA_WEAVIATE_SERVER to a weaviate-server binary"

// restPort is the server's REST port inside its namespace.
const restPort = 8080

// TB is the part of testing.TB Start uses.
type TB = servertest.CleanupTB

// BinDir is the folder make weaviate-server installs into:
// <user cache dir>/lasagna/weaviate-<Version>.
func BinDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "lasagna", "weaviate-"+Version)
}

// Binary returns the weaviate-server to run: $LASAGNA_WEAVIATE_SERVER,
// else BinDir()/weaviate-server, else weaviate-server on PATH; "" when
// none exists.
func Binary() string {
	if p := os.Getenv("LASAGNA_WEAVIATE_SERVER"); p != "" {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		return ""
	}
	if d := BinDir(); d != "" {
		p := filepath.Join(d, "weaviate-server")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("weaviate-server"); err == nil {
		return p
	}
	return ""
}

// Server is a running weaviate-server.
type Server struct {
	// URL is the REST address to give the client, http://127.0.0.1:port.
	URL string
	// PID is the server's process id.
	PID int

	dir  string
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	ns   *netns
	fwd  *forwarder
	once sync.Once
}

// Start starts a server of the test's own and stops it (SIGTERM to its
// PID) when the test ends. It skips tb (or fails it, under
// LASAGNA_REQUIRE_BACKENDS=1) where the binary is missing or no private
// network namespace can be made.
func Start(tb TB) *Server {
	tb.Helper()
	servertest.Heavy(tb, "a Weaviate server")
	s, skip, err := start()
	if s != nil {
		tb.Cleanup(s.Stop)
	}
	settle(tb, skip, err)
	return s
}

// settle skips or fails tb where start gave a skip or an error.
func settle(tb TB, skip string, err error) {
	tb.Helper()
	switch {
	case skip != "":
		servertest.SkipOrFail(tb, skip)
	case err != nil:
		tb.Fatalf("start weaviate-server: %v", err)
	}
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedSkip string
	sharedErr  error
)

// Shared returns one server for the whole test binary, started on first
// use; the package's TestMain calls StopShared after m.Run.
func Shared(tb TB) *Server {
	tb.Helper()
	servertest.Heavy(tb, "a Weaviate server")
	sharedOnce.Do(func() { shared, sharedSkip, sharedErr = start() })
	settle(tb, sharedSkip, sharedErr)
	return shared
}

// StopShared stops the server Shared started, if any.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

func start() (*Server, string, error) {
	bin := Binary()
	if bin == "" {
		return nil, "no weaviate-server binary (LASAGNA_WEAVIATE_SERVER, " + filepath.Join(BinDir(), "weaviate-server") + ", PATH); build it with " + InstallCommand, nil
	}
	ns, err := newNetns()
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return nil, "making a private network namespace for weaviate-server is not permitted (" + err.Error() + "); run the backend tests as root (CAP_SYS_ADMIN): the server binds its gRPC and cluster ports on every interface, so the tests never run it in the host's network", nil
		}
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "lasagna-weaviate-")
	if err != nil {
		ns.close()
		return nil, "", err
	}
	s := &Server{dir: dir, log: filepath.Join(dir, "server.log"), ns: ns, done: make(chan struct{})}
	if err := s.launch(bin); err != nil {
		s.Stop()
		return nil, "", err
	}
	return s, "", nil
}

func (s *Server) launch(bin string) error {
	logf, err := os.Create(s.log)
	if err != nil {
		return err
	}
	defer logf.Close()
	data := filepath.Join(s.dir, "data")
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", fmt.Sprint(restPort), "--scheme", "http")
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.dir,
		"TMPDIR=" + s.dir,
		"GO_PROFILING_DISABLE=true",
		"DISABLE_TELEMETRY=true",
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"PERSISTENCE_DATA_PATH=" + data,
		"DEFAULT_VECTORIZER_MODULE=none",
		"CLUSTER_HOSTNAME=node1",
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"QUERY_DEFAULTS_LIMIT=25",
		"LOG_LEVEL=warning",
		// BM25 by the classic WAND, not BlockMax WAND (the 1.35 default):
		// seen here, BlockMax returned a wrong top k at small limits (a
		// 300-passage corpus, limit 5: 4 of the 5 differ from the first 5
		// of limit 300, the best match missing); the classic one agrees
		// with itself at every limit.
		"USE_INVERTED_SEARCHABLE=false",
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := s.ns.run(cmd.Start); err != nil {
		return fmt.Errorf("run %s: %v", bin, err)
	}
	s.cmd, s.PID = cmd, cmd.Process.Pid
	go func() { _ = cmd.Wait(); close(s.done) }()
	fwd, err := newForwarder(s.ns, fmt.Sprintf("127.0.0.1:%d", restPort))
	if err != nil {
		return err
	}
	s.fwd = fwd
	s.URL = "http://" + fwd.addr()
	return s.waitReady(2 * time.Minute)
}

// waitReady polls /v1/.well-known/ready until it answers 200.
func (s *Server) waitReady(limit time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("weaviate-server exited before it was ready (%v); its log ends:\n%s", s.cmd.ProcessState, s.logTail())
		default:
		}
		resp, err := client.Get(s.URL + "/v1/.well-known/ready")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("weaviate-server (PID %d) not ready after %v; its log ends:\n%s", s.PID, limit, s.logTail())
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.log)
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}

// CPU returns the CPU time (user + system) the server process has used so
// far, from /proc/<PID>/stat; 0 where that cannot be read.
func (s *Server) CPU() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.PID))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	// utime and stime are fields 14 and 15 of the line (11 and 12 here),
	// in clock ticks of 1/100 s (USER_HZ on Linux).
	var ticks int64
	for _, x := range f[11:13] {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// Stop stops the server (SIGTERM to its PID, SIGKILL after 30 s), the
// forwarder and the namespace, and removes the data folder.
func (s *Server) Stop() {
	s.once.Do(func() {
		if s.cmd != nil && s.cmd.Process != nil {
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.done
			}
		}
		if s.fwd != nil {
			s.fwd.close()
		}
		if s.ns != nil {
			s.ns.close()
		}
		if s.dir != "" {
			_ = os.RemoveAll(s.dir)
		}
	})
}

// netns is a goroutine locked to an OS thread that lives in a new network
// namespace; run executes functions on that thread. The thread is never
// unlocked, so when the goroutine ends the runtime ends the thread with it
// (or, if it is the process's main thread, parks it for good) instead of
// reusing it outside the namespace. Threads the runtime starts while it is
// locked come from its template thread, in the host's namespace.
type netns struct {
	calls chan func()
	stop  sync.Once
}

func newNetns() (*netns, error) {
	ns := &netns{calls: make(chan func())}
	ready := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ready <- fmt.Errorf("unshare the network namespace: %w", err)
			return
		}
		if err := loopbackUp(); err != nil {
			ready <- fmt.Errorf("bring up loopback in the new network namespace: %w", err)
			return
		}
		ready <- nil
		for f := range ns.calls {
			f()
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return ns, nil
}

// loopbackUp sets the IFF_UP flag of lo in the calling thread's namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// run calls f on the namespace's thread.
func (ns *netns) run(f func() error) error {
	errc := make(chan error, 1)
	ns.calls <- func() { errc <- f() }
	return <-errc
}

func (ns *netns) dial(addr string) (net.Conn, error) {
	var c net.Conn
	err := ns.run(func() error {
		var err error
		c, err = net.DialTimeout("tcp", addr, 5*time.Second)
		return err
	})
	return c, err
}

func (ns *netns) close() { ns.stop.Do(func() { close(ns.calls) }) }

// forwarder accepts connections on the host's loopback and pipes each to
// target inside the namespace.
type forwarder struct {
	ln     net.Listener
	ns     *netns
	target string
	mu     sync.Mutex
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

func newForwarder(ns *netns, target string) (*forwarder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &forwarder{ln: ln, ns: ns, target: target, conns: map[net.Conn]bool{}}
	f.wg.Add(1)
	go f.serve()
	return f, nil
}

func (f *forwarder) addr() string { return f.ln.Addr().String() }

func (f *forwarder) track(c net.Conn, on bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conns == nil {
		return false
	}
	if on {
		f.conns[c] = true
	} else {
		delete(f.conns, c)
	}
	return true
}

func (f *forwarder) serve() {
	defer f.wg.Done()
	for {
		in, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer in.Close()
			out, err := f.ns.dial(f.target)
			if err != nil {
				return
			}
			defer out.Close()
			if !f.track(in, true) || !f.track(out, true) {
				return
			}
			defer f.track(in, false)
			defer f.track(out, false)
			done := make(chan struct{}, 2)
			pipe := func(dst, src net.Conn) {
				_, _ = io.Copy(dst, src)
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				done <- struct{}{}
			}
			go pipe(out, in)
			go pipe(in, out)
			<-done
			<-done
		}()
	}
}

func (f *forwarder) close() {
	_ = f.ln.Close()
	f.mu.Lock()
	for c := range f.conns {
		_ = c.Close()
	}
	f.conns = nil
	f.mu.Unlock()
	f.wg.Wait()
}
