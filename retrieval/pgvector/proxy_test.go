package pgvector_test

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna/retrieval/pgvector"
)

// cutProxy forwards loopback connections to a server and can cut every
// open connection at once, as a restarted server or a dropped network
// does.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	cuts  int
}

func newCutProxy(t *testing.T, upstream string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c, upstream)
		}
	}()
	return p
}

// serve forwards c to upstream. It answers a CancelRequest itself, by
// closing the connection as PostgreSQL does: pglite-socket ignores it and
// leaves the connection open, and pgx, which sends one when a
// connection breaks during a query, would wait 15 s for the close.
func (p *cutProxy) serve(c net.Conn, upstream string) {
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		c.Close()
		return
	}
	if binary.BigEndian.Uint32(head[:4]) == 16 && binary.BigEndian.Uint32(head[4:]) == 80877102 {
		c.Close()
		return
	}
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, u)
	p.mu.Unlock()
	go func() { _, _ = io.Copy(c, u); c.Close() }()
	if _, err := u.Write(head); err == nil {
		_, _ = io.Copy(u, c)
	}
	u.Close()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.cuts += len(p.conns) / 2
	p.conns = nil
}

// testConnectionLost cuts every connection between two Adds and during a
// search loop: the store reconnects and stores every row.
func testConnectionLost(t *testing.T, dsn, addr string) {
	ctx := ctxFor(t)
	p := newCutProxy(t, addr)
	s := open(t, strings.Replace(dsn, addr, p.ln.Addr().String(), 1), pgvector.Config{BatchSize: 3})
	c := coll("cut_t", 10)
	if _, err := s.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ctx, []string{"a", "b", "c", "d", "e"}, [][]float32{{1, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 1}}); err != nil {
		t.Fatal(err)
	}
	p.cut()
	if err := s.Add(ctx, []string{"f", "g", "h", "i", "j"}, [][]float32{{1, 3}, {3, 1}, {1, 4}, {4, 1}, {1, 5}}); err != nil {
		t.Fatalf("Add after the connections were cut: %v", err)
	}
	p.cut()
	if err := s.Seal(ctx, c, 10); err != nil {
		t.Fatalf("Seal after the connections were cut: %v", err)
	}
	for i := range 3 {
		p.cut()
		hits, err := s.Search(ctx, []float32{1, 0}, 10)
		if err != nil || len(hits) != 10 {
			t.Fatalf("Search %d after the connections were cut = %d hits, %v; want 10", i, len(hits), err)
		}
	}
	if p.cuts == 0 {
		t.Fatal("the proxy cut no connection; the test did not test reconnecting")
	}
	if n := rowCount(t, dsn, "cut_t"); n != 10 {
		t.Errorf("table holds %d rows, want 10", n)
	}
}
