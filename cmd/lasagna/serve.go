package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strings"

	"github.com/lasagna-go/lasagna/internal/dashboard"
	pgdsn "github.com/lasagna-go/lasagna/internal/dsn"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/redact"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/llm"
	"github.com/lasagna-go/lasagna/results/schema"
	"github.com/spf13/cobra"
)

// newServeCmd is `lasagna serve [--addr 127.0.0.1:8080] [--bundles DIR]
// [--registry DSN] [--sweeps DIR]`.
func newServeCmd(stdout, stderr io.Writer) *cobra.Command {
	addr, bundles, dsn, sweeps := "127.0.0.1:8080", "lasagna-out", "", ""
	maxUpload := int64(dashboard.DefaultMaxUpload)
	publicRead := false
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--bundles DIR]",
		Short: "Serve the dashboard: the bundles of a folder, their reports, comparisons",
		Long:  serveLong,
		Args:  noArgsUsage,
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			token := os.Getenv(dashboard.TokenEnv)
			if err := dashboard.CheckAddr(addr, token); err != nil {
				return usageError("serve: %v", err)
			}
			if dsn == "" {
				var err error
				if dsn, err = registry.DefaultDSN(); err != nil {
					return usageError("serve: %v", err)
				}
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(serveMemoryLimit))
			}
			reg, err := registry.Open(ctx, dsn)
			if err != nil {
				return usageError("serve: registry: %v (give --registry or %s: a SQLite file path or a postgres:// URL)", err, registry.EnvVar)
			}
			defer reg.Close()
			if maxUpload < 1 {
				return usageError("serve: --max-upload %d: give the largest bundle to accept, in bytes (at least 1)", maxUpload)
			}
			if publicRead && token == "" {
				return usageError("serve: --public-read opens the reads of submitted results to anyone while the writes need %s; set it (without a token, a loopback server needs none for anything)", dashboard.TokenEnv)
			}
			o := serveOptions(bundles, token, sweeps, reg)
			o.MaxUpload = maxUpload
			o.PublicRead = publicRead
			srv, err := dashboard.New(o)
			if err != nil {
				return usageError("serve: %v", err)
			}
			// Cancels the evaluations still running, after the requests.
			defer srv.Close()
			// The server's log (http.Server's errors) carries no secret.
			return serveOn(ctx, stdout, serveLogRedactor(token, dsn).Writer(stderr), srv, addr, bundles, token)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", addr, "listen on `HOST:PORT` (not loopback: needs LASAGNA_SERVE_TOKEN)")
	cmd.Flags().StringVar(&bundles, "bundles", bundles, "serve the results bundles (*.json) under `DIR`")
	cmd.Flags().StringVar(&dsn, "registry", "", "the benchmark registry: a SQLite file path or a postgres:// URL (`DSN`; default $LASAGNA_REGISTRY, else registry.db in the user data folder)")
	cmd.Flags().StringVar(&sweeps, "sweeps", "", "offer the sweep files (*.yaml) under `DIR` for evaluations")
	cmd.Flags().BoolVar(&publicRead, "public-read", false, "read-only without the token: the leaderboards, submitted bundles' reports and comparisons, GET /api/leaderboards and /api/bundles (every write, the folder's bundles and the registry's pages still need LASAGNA_SERVE_TOKEN)")
	cmd.Flags().Int64Var(&maxUpload, "max-upload", maxUpload, "accept submitted bundles (POST /api/bundles) of at most `BYTES`")
	return cmd
}

// serveLong is `serve --help`'s text.
const serveLong = `serve runs the dashboard, a web server over a folder of results bundles:
the list of bundles (run id, benchmarks, arms, queries, integrity counts),
each bundle's report (the page lasagna results report writes) and a page
comparing a bundle with a baseline bundle; and over the benchmark registry
(--registry, else LASAGNA_REGISTRY, else registry.db in the user data
folder): the benchmarks (status, questions, linked source, created,
revision), each one's entries (paged, searchable), CSV export, activate and
archive, and "create evaluation": a built-in profile, or a sweep file of
--sweeps DIR whose arms run on the benchmark, run in the background as
lasagna benchmark run registry:NAME runs it; the bundle lands in
DIR/evaluations/ of --bundles and links to its report. Evaluations are kept
in memory: a restart forgets them (their bundles stay). Pages are rendered
on the server; they load nothing from any other host.

It listens on loopback (127.0.0.1:8080) by default. Any other address needs
LASAGNA_SERVE_TOKEN, a secret of at least 16 characters: every request then
authenticates with the header "Authorization: Bearer TOKEN" or with the
cookie that opening /login?token=TOKEN sets. Changes (POST only) carry a
CSRF token. Put a TLS proxy in front of a server reachable from the network.

The list reads each bundle's header only (no row is decoded) and checks
each bundle once, as lasagna results validate does: up to 1 MB before it
answers, larger ones in the background, one at a time. Checks and reports
run at most two at a time (one alone when its bundles exceed 16 MB), and
drawn reports are kept, within 64 MB, until their bundle changes. The Go
runtime gets a soft memory limit of 768 MiB unless GOMEMLIMIT is set. See
docs/reports.md, "The dashboard's bounds".

Submissions: POST /api/bundles takes one results bundle (at most
--max-upload bytes, default 32 MiB; larger is 413) and always needs
LASAGNA_SERVE_TOKEN as "Authorization: Bearer TOKEN", also on loopback (a
server without a token accepts none). It is checked as lasagna results
validate --strict --data registry:NAME@HASH checks it, against the
registry's revision of its benchmark: refused, 422 with every finding and
nothing stored; accepted, stored in the registry by run_id (201; 200 for
the same bundle again). The corpus provenance, the synthetic label and
the sample are read from the registry's data: a bundle that says
otherwise, or holds part of its sample (a shard, a go test -run
selection), is refused (422). Storage that cannot serve (PostgreSQL down)
is 503 with Retry-After; a malformed request is 400. GET /api/bundles
lists the stored bundles, /api/bundles/RUN_ID is one's JSON and
/bundles/RUN_ID its report; /leaderboards ranks them, 100 entries a page
per group. lasagna results submit is the client.

--public-read (with LASAGNA_SERVE_TOKEN) lets anyone read the submitted
results without the token: /leaderboards, the stored bundles' reports and
comparisons, GET /api/leaderboards, /api/bundles and /api/bundles/RUN_ID.
The folder's bundles, the registry's pages and every write still need it.

SIGINT or SIGTERM first cancels the evaluations still running (they write
no bundle: none is written after the signal), then stops the server after
the requests in flight finish.

Exit status: 0 stopped by SIGINT or SIGTERM; 1 the server failed (the
address is in use); 2 usage error: a bad flag, a non-loopback --addr without
LASAGNA_SERVE_TOKEN, a token too short, no bundles folder, no sweeps folder,
a registry that cannot be opened.`

// serveOn serves srv on addr until ctx is done (SIGINT or SIGTERM), saying
// where it listens and, on the signal, that it shuts down and how many
// running evaluations it canceled.
func serveOn(ctx context.Context, stdout, stderr io.Writer, srv *dashboard.Server, addr, bundles, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return problems(fmt.Errorf("serve: %w", err))
	}
	// The address as given, with the port chosen (for :0).
	where := ln.Addr().String()
	if host, _, _ := net.SplitHostPort(addr); host != "" {
		_, port, _ := net.SplitHostPort(where)
		where = net.JoinHostPort(host, port)
	}
	fmt.Fprintf(stdout, "lasagna serve: http://%s/ (bundles: %s)\n", where, bundles)
	if token != "" {
		fmt.Fprintf(stdout, "sign in: open http://%s/login?token=… with the value of %s\n", where, dashboard.TokenEnv)
	}
	err = dashboard.Serve(ctx, ln, srv, dashboard.DefaultTimeouts, stderr, func() {
		fmt.Fprintf(stdout, "lasagna serve: %s: shutting down (finishing the requests in flight)\n", interruption(ctx))
		// Before the requests finish: no evaluation writes after the signal.
		if n := srv.CancelEvaluations(); n > 0 {
			fmt.Fprintf(stdout, "lasagna serve: canceled %d running evaluation(s); they write no bundle\n", n)
		}
	})
	if err != nil {
		return problems(fmt.Errorf("serve: %w", err))
	}
	fmt.Fprintln(stdout, "lasagna serve: stopped")
	return nil
}

// serveLogRedactor masks in serve's log every run of 8 or more characters
// of the secrets the server holds: the token, the registry's password (and
// PGPASSWORD), and the keys its evaluations use (of at least 8 characters:
// a shorter one is a local server's placeholder, such as "none").
func serveLogRedactor(token, dsn string) *redact.Redactor {
	secrets := append([]string{token}, pgdsn.Passwords(dsn)...)
	for _, env := range []string{llm.EnvAPIKey, llm.EnvAnthropicAPIKey, "HF_TOKEN", engine.EnvWeaviateAPIKey} {
		if v := strings.TrimSpace(os.Getenv(env)); len(v) >= redact.MinRun {
			secrets = append(secrets, v)
		}
	}
	return redact.New(secrets...)
}

// serveMemoryLimit is the soft memory limit serve gives the Go runtime
// unless GOMEMLIMIT is set (docs/reports.md, "The dashboard's bounds"): the
// collector works harder as the heap nears it, rather than letting a
// bundle's check double the heap it needs.
const serveMemoryLimit = 768 << 20

// serveOptions are the dashboard's options: model-calling arms get the
// clients benchmark run configures from the environment (llmDeps), and
// arms with a vector_backend the stores it opens (openVectorStore).
func serveOptions(bundles, token, sweeps string, reg *registry.Registry) dashboard.Options {
	return dashboard.Options{Bundles: bundles, Token: token, Version: version(), Registry: reg, Sweeps: sweeps,
		Deps:        func(s *engine.Sweep) (engine.Deps, error) { return sweepDeps(s, "") },
		SchemaCheck: schema.Check}
}
