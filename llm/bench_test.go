package llm_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

// BenchmarkChatRoundTrip measures one uncached chat call (through openai-go)
// to the loopback fake server.
func BenchmarkChatRoundTrip(b *testing.B) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	c, err := llm.New(llm.Config{BaseURL: f.URL, Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	req := ask("what is the capital of France?")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Chat(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatCacheHit measures a chat call answered from the disk cache.
func BenchmarkChatCacheHit(b *testing.B) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	c, err := llm.New(llm.Config{BaseURL: f.URL, Model: "m", CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	req := ask("what is the capital of France?")
	if _, err := c.Chat(b.Context(), req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if resp, err := c.Chat(b.Context(), req); err != nil || !resp.Cached {
			b.Fatal(resp, err)
		}
	}
}

// BenchmarkThroughputAtLatency runs calls against a server with a fixed
// 50 ms latency under a concurrency cap C and reports calls/s against the
// ideal C / latency.
func BenchmarkThroughputAtLatency(b *testing.B) {
	const latency = 50 * time.Millisecond
	for _, conc := range []int{4, 16} {
		b.Run(fmt.Sprintf("C=%d", conc), func(b *testing.B) {
			f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{Latency: latency})
			defer f.Close()
			c, err := llm.New(llm.Config{BaseURL: f.URL, Model: "m", MaxConcurrency: conc})
			if err != nil {
				b.Fatal(err)
			}
			const calls = 160
			var elapsed time.Duration
			for b.Loop() {
				start := time.Now()
				var wg sync.WaitGroup
				for i := range calls {
					wg.Go(func() {
						if _, err := c.Chat(b.Context(), ask(fmt.Sprint(i))); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				elapsed += time.Since(start)
			}
			perSec := float64(calls*b.N) / elapsed.Seconds()
			b.ReportMetric(perSec, "calls/s")
			b.ReportMetric(perSec/(float64(conc)/latency.Seconds()), "of_ideal")
		})
	}
}
