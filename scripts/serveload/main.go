// Command serveload measures the memory of `lasagna serve` under
// concurrent report requests (BENCHMARKS.md, "Dashboard: memory under
// concurrent report requests"):
//
//	go run ./scripts/serveload -lasagna ./lasagna -bundles DIR -file depth1000.json -n 100 -c 10
//
// It starts the given lasagna binary as `lasagna serve --addr 127.0.0.1:0
// --bundles DIR` (with a throwaway registry), times the first listing
// (GET /), then fires n requests of /bundles/FILE, c at a time, and prints
// the server's peak resident memory (VmHWM of /proc/PID/status, the
// process it started, by PID) after the listing and after the requests,
// its resident memory at the end, and the wall times. It then stops the
// server with SIGTERM (by PID) and waits for it. Linux only.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("lasagna", "lasagna", "the lasagna binary to serve with")
	bundles := flag.String("bundles", "", "the bundles folder to serve")
	file := flag.String("file", "", "the bundle (slash path in the folder) whose report is requested")
	n := flag.Int("n", 100, "report requests in all")
	c := flag.Int("c", 10, "report requests at a time")
	flag.Parse()
	if *bundles == "" || *file == "" || *n < 1 || *c < 1 {
		fmt.Fprintln(os.Stderr, "serveload: give -bundles DIR and -file NAME (and -n, -c at least 1)")
		os.Exit(2)
	}
	if err := run(*bin, *bundles, *file, *n, *c); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

func run(bin, bundles, file string, n, c int) error {
	tmp, err := os.MkdirTemp("", "serveload")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--bundles", bundles, "--registry", filepath.Join(tmp, "registry.db"))
	cmd.Env = append(os.Environ(), "LASAGNA_SERVE_TOKEN=")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM) // by PID
		cmd.Wait()
	}()
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		return fmt.Errorf("the server said nothing")
	}
	addr, ok := strings.CutPrefix(sc.Text(), "lasagna serve: http://")
	addr, _, _ = strings.Cut(addr, "/")
	if !ok {
		return fmt.Errorf("unexpected first line %q", sc.Text())
	}
	go io.Copy(io.Discard, out)
	base := "http://" + addr

	fmt.Printf("load average: %s", must(os.ReadFile("/proc/loadavg")))
	start := time.Now()
	size, err := get(base + "/")
	if err != nil {
		return err
	}
	fmt.Printf("first listing: %v (%d bytes); peak RSS so far %s\n", time.Since(start).Round(time.Millisecond), size, status(pid, "VmHWM"))

	start = time.Now()
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fails []string
		bytes int64
	)
	for range c {
		wg.Go(func() {
			for range jobs {
				n, err := get(base + "/bundles/" + file)
				mu.Lock()
				if err != nil {
					fails = append(fails, err.Error())
				}
				bytes += n
				mu.Unlock()
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	fmt.Printf("%d report requests, %d at a time: %v (%d failed, %.1f MB served)\n", n, c, time.Since(start).Round(time.Millisecond), len(fails), float64(bytes)/1e6)
	for i, f := range fails {
		if i == 3 {
			break
		}
		fmt.Println("  failure:", f)
	}
	fmt.Printf("server peak RSS (VmHWM): %s; RSS now (VmRSS): %s\n", status(pid, "VmHWM"), status(pid, "VmRSS"))
	fmt.Printf("load average: %s", must(os.ReadFile("/proc/loadavg")))
	return nil
}

// get fetches url and returns the body's length; a status other than 200
// is an error.
func get(url string) (int64, error) {
	res, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err == nil && res.StatusCode != 200 {
		err = fmt.Errorf("GET %s: %s", url, res.Status)
	}
	return n, err
}

// status returns the field of /proc/PID/status, in MiB.
func status(pid int, field string) string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return fmt.Sprintf("%d MiB", kb/1024)
		}
	}
	return "?"
}

func must(b []byte, err error) []byte {
	if err != nil {
		return []byte("?\n")
	}
	return b
}
