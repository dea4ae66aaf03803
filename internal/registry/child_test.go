package registry_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/registry"
)

// childEnv makes the test binary a child process of
// TestTwoProcessesLoseNothing: "DSN\tPREFIX\tCOUNT".
const childEnv = "LASAGNA_REGISTRY_TEST_CHILD"

// childRows is the JSONL a child imports as revision k of "shared" and as
// its own benchmark PREFIX-k: k+1 rows, unique to the child and k.
func childRows(prefix string, k int) []byte {
	var b strings.Builder
	for i := 0; i <= k; i++ {
		fmt.Fprintf(&b, "{\"id\":\"%s-%d-%d\",\"question\":\"question %d of %s?\",\"answer\":\"answer %d\"}\n", prefix, k, i, i, prefix, i)
	}
	return []byte(b.String())
}

func childMain() int {
	parts := strings.Split(os.Getenv(childEnv), "\t")
	if len(parts) != 3 {
		fmt.Fprintln(os.Stderr, "bad", childEnv)
		return 3
	}
	dsn, prefix := parts[0], parts[1]
	n, _ := strconv.Atoi(parts[2])
	ctx := context.Background()
	r, err := registry.Open(ctx, dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 1
	}
	defer r.Close()
	for k := 0; k < n; k++ {
		fsys := fstest.MapFS{"x.jsonl": {Data: childRows(prefix, k)}}
		own := fmt.Sprintf("%s-%d", prefix, k)
		steps := []func() error{
			func() error { _, err := r.Create(ctx, "shared", registry.Files{FS: fsys, Path: "x.jsonl"}); return err },
			func() error { _, err := r.Create(ctx, own, registry.Files{FS: fsys, Path: "x.jsonl"}); return err },
			func() error { _, err := r.Archive(ctx, own); return err },
			func() error { _, err := r.Activate(ctx, own); return err },
		}
		if k%2 == 1 {
			steps = append(steps, func() error { _, err := r.Archive(ctx, own); return err })
		}
		for i, step := range steps {
			if err := step(); err != nil {
				fmt.Fprintf(os.Stderr, "%s step %d: %v\n", own, i, err)
				return 1
			}
		}
	}
	return 0
}

func TestTwoProcessesLoseNothing(t *testing.T) {
	const n = 40
	eachBackend(t, func(t *testing.T, dsn string) {
		// Open once first, so both children see a migrated registry... and
		// once more inside each child, concurrently, which must also work.
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for _, prefix := range []string{"p", "q"} {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+dsn+"\t"+prefix+"\t"+strconv.Itoa(n))
			out := &strings.Builder{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("child %d: %v\n%s", i, err, outs[i])
			}
		}
		r := open(t, dsn)
		revs, err := r.Revisions(bg(), "shared")
		if err != nil || len(revs) != 2*n {
			t.Fatalf("shared has %d revisions (%v), want %d", len(revs), err, 2*n)
		}
		for _, rev := range revs {
			es, total, err := r.Entries(bg(), rev.Revision, 0, 0)
			if err != nil || total != len(es) || total < 1 {
				t.Errorf("%s: %d entries of %d, %v", rev.Revision, len(es), total, err)
			}
		}
		list, err := r.List(bg(), registry.ListOptions{})
		if err != nil || len(list) != 2*n+1 {
			t.Fatalf("List: %d benchmarks (%v), want %d", len(list), err, 2*n+1)
		}
		for _, inf := range list {
			if inf.Name == "shared" {
				continue
			}
			var k int
			var prefix string
			fmt.Sscanf(strings.Replace(inf.Name, "-", " ", 1), "%s %d", &prefix, &k)
			want := registry.StatusActive
			if k%2 == 1 {
				want = registry.StatusArchived
			}
			if inf.Status != want || inf.Questions != k+1 || inf.Revisions != 1 {
				t.Errorf("%s: %s with %d questions, %d revisions; want %s, %d, 1", inf.Name, inf.Status, inf.Questions, inf.Revisions, want, k+1)
			}
		}
	})
}
