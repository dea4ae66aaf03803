package weaviatetest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

type fakeTB struct {
	skipped, fatal string
	cleanups       []func()
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skip(args ...any)               { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }
func (f *fakeTB) Logf(string, ...any)            {}
func (f *fakeTB) Cleanup(fn func())              { f.cleanups = append(f.cleanups, fn) }

func TestMissingBinarySkipsOrFails(t *testing.T) {
	t.Setenv("LASAGNA_WEAVIATE_SERVER", filepath.Join(t.TempDir(), "no-such-server"))
	t.Setenv("LASAGNA_REQUIRE_BACKENDS", "")
	var tb fakeTB
	Start(&tb)
	if !strings.Contains(tb.skipped, "make weaviate-server") || !strings.Contains(tb.skipped, "go install github.com/weaviate/weaviate/cmd/weaviate-server@"+Version) || tb.fatal != "" {
		t.Fatalf("skip %q, fatal %q: want a skip saying how to build the server", tb.skipped, tb.fatal)
	}
	t.Setenv("LASAGNA_REQUIRE_BACKENDS", "1")
	tb = fakeTB{}
	Start(&tb)
	if !strings.Contains(tb.fatal, "LASAGNA_REQUIRE_BACKENDS=1 but no weaviate-server binary") {
		t.Fatalf("fatal %q: want a failure under LASAGNA_REQUIRE_BACKENDS=1", tb.fatal)
	}
}

// TestServerIsolated checks that the server runs in another network
// namespace than the test, answers through the forwarder on loopback, and
// is gone (with its data folder) after Stop.
func TestServerIsolated(t *testing.T) {
	s := Start(t)
	// This goroutine's thread, not /proc/self (the main thread), which
	// may be the one the namespace goroutine locked.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mine, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", s.PID))
	if err != nil {
		t.Fatal(err)
	}
	if mine == theirs {
		t.Fatalf("the server shares the test's network namespace %s", mine)
	}
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %s is not on loopback", s.URL)
	}
	resp, err := http.Get(s.URL + "/v1/meta")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("meta: %s", resp.Status)
	}
	if s.CPU() <= 0 {
		t.Fatalf("CPU() = %v for a started server", s.CPU())
	}
	s.Stop()
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Fatalf("data folder %s left behind: %v", s.dir, err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", s.PID)); !os.IsNotExist(err) {
		t.Fatalf("server PID %d still exists after Stop", s.PID)
	}
	c := &http.Client{Timeout: 2 * time.Second}
	if _, err := c.Get(s.URL + "/v1/meta"); err == nil {
		t.Fatalf("%s still answers after Stop", s.URL)
	}
}
