package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/lasagna-go/lasagna/internal/dashboard"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/redact"
	"github.com/spf13/cobra"
)

// submitTimeout bounds one submission (upload, check, answer).
const submitTimeout = 5 * time.Minute

// maxAnswer bounds the answer read for one bundle (512 MiB).
const maxAnswer = 512 << 20

// submitterEnv names the variable giving results submit's --submitter
// (for CI).
const submitterEnv = "LASAGNA_SUBMITTER"

// Retries of a submission the server answers 503 (its storage
// unavailable): submitAttempts in all, waiting submitBackoff, then twice
// as long each time, or the server's Retry-After (at most
// maxRetryAfter). Variables for the tests.
var (
	submitAttempts = 5
	submitBackoff  = time.Second
	maxRetryAfter  = 30 * time.Second
)

// newResultsSubmitCmd is `lasagna results submit BUNDLE… --to URL`.
func newResultsSubmitCmd(stdout, stderr io.Writer) *cobra.Command {
	var to, submitter string
	cmd := &cobra.Command{
		Use:   "submit BUNDLE... --to URL",
		Short: "Submit results bundles to a lasagna serve hub (POST /api/bundles)",
		Long: `submit sends each bundle to the lasagna serve at --to (POST URL/api/bundles),
with the token of LASAGNA_SERVE_TOKEN as "Authorization: Bearer …" (the
token is never printed: every run of 8 or more of its characters in what
the server answers, an echoed Authorization header say, is printed as
[REDACTED]). The server checks each bundle as lasagna results
validate --strict --data registry:NAME@HASH does, against its registry's
revision of the benchmark the bundle ran on (one it does not hold refuses
the bundle), and stores it by run_id. A pooled_gold or synthetic benchmark
that the bundle lists in integrity.warnings is a label, not a refusal.

The hub reads a bundle's corpus provenance, synthetic label and sample
from its registry's data: a bundle that says otherwise, or holds part of
its sample (a shard, a go test -run selection), is refused.

--submitter NAME (else LASAGNA_SUBMITTER) names who submits: the hub
records it and shows it on the leaderboards (without it, the bundle's own
submitter, if it names one). It is not part of the bundle or its run_id.

For each bundle it prints one line: accepted (with the report's URL),
duplicate (that run_id is stored already, with the same bytes) or refused,
followed by every finding as "CODE at where: detail (fix: ...)". A server
whose storage is unavailable answers 503: the bundle is sent again, at
most 4 more times, after 1, 2, 4 and 8 seconds (or the server's
Retry-After, up to 30), each retry said on stderr.

Exit status: 0 every bundle accepted or a duplicate; 1 a bundle refused or
unreadable, still unavailable (503) after the retries, the server
unreachable, the token refused (401) or a bundle over the server's upload
limit (413); 2 usage error: no --to, a URL that is not http(s),
LASAGNA_SERVE_TOKEN unset.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("results submit: give one or more bundle files (lasagna results submit BUNDLE... --to URL)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if !c.Flags().Changed("submitter") {
				submitter = os.Getenv(submitterEnv)
			}
			return resultsSubmit(c.Context(), stdout, stderr, args, to, os.Getenv(dashboard.TokenEnv), submitter)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the lasagna serve to submit to: its base `URL` (http(s)://host:port)")
	cmd.Flags().StringVar(&submitter, "submitter", "", "who submits: the `NAME` the hub records and shows (default $"+submitterEnv+"; else the bundle's own submitter)")
	return cmd
}

// submitReply is the JSON answer of POST /api/bundles (the fields submit
// reads).
type submitReply struct {
	Status      string `json:"status"`
	RunID       string `json:"run_id"`
	Report      string `json:"report"`
	Benchmark   string `json:"benchmark"`
	ContentHash string `json:"content_hash"`
	Error       string `json:"error"`
	Findings    []struct {
		Code, Level, Where, Detail, Fix string
	} `json:"findings"`
}

// redacted returns a with every text the server wrote redacted by red.
func (a submitReply) redacted(red *redact.Redactor) submitReply {
	for _, s := range []*string{&a.Status, &a.RunID, &a.Report, &a.Benchmark, &a.ContentHash, &a.Error} {
		*s = red.String(*s)
	}
	a.Findings = slices.Clone(a.Findings)
	for i := range a.Findings {
		f := &a.Findings[i]
		for _, s := range []*string{&f.Code, &f.Level, &f.Where, &f.Detail, &f.Fix} {
			*s = red.String(*s)
		}
	}
	return a
}

// resultsSubmit posts each bundle at paths to the lasagna serve at to
// with token, prints what the server did with it and a count; a refused
// bundle makes it exit 1 after the others are sent.
func resultsSubmit(ctx context.Context, w, errw io.Writer, paths []string, to, token, submitter string) error {
	base, err := submitBase(to, token)
	if err != nil {
		return err
	}
	if strings.TrimSpace(submitter) != submitter || len(submitter) > 200 || strings.ContainsFunc(submitter, unicode.IsControl) {
		return usageError("results submit: --submitter %q: give a plain name of at most 200 characters, without control characters or surrounding spaces", submitter)
	}
	if base.Scheme == "http" && !loopbackURL(base) {
		fmt.Fprintf(errw, "lasagna results submit: warning: %s is plain http: the token crosses the network unencrypted; put a TLS proxy in front of lasagna serve and use https://\n", base.Redacted())
	}
	eu := base.JoinPath("api", "bundles")
	if submitter != "" {
		eu.RawQuery = url.Values{"submitter": {submitter}}.Encode()
	}
	endpoint := eu.String()
	// The server's text is printed; a server (or a proxy before it) that
	// quotes the Authorization header must not print the token.
	red := redact.New(token)
	client := &http.Client{
		Timeout: submitTimeout,
		// A redirect would send the bundle (and, to the same host, the
		// token) somewhere --to did not name.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var accepted, duplicates, refused, unavailable int
	for _, p := range paths {
		raw, err := datasets.ReadFile(cliPath(p))
		if err != nil {
			fmt.Fprintf(w, "%s: not submitted: %v\n", p, err)
			refused++
			continue
		}
		ans, status, err := postRetrying(ctx, errw, client, endpoint, base, token, red, p, raw)
		if err != nil {
			return err
		}
		switch ans.Status {
		case "accepted", "duplicate":
			what := "accepted"
			if ans.Status == "duplicate" {
				what, duplicates = "duplicate (already stored, the same bytes)", duplicates+1
			} else {
				accepted++
			}
			fmt.Fprintf(w, "%s: %s: run_id %s on %s@%s; report %s\n", p, what, ans.RunID, ans.Benchmark, ans.ContentHash, base.JoinPath(ans.Report).Redacted())
		case "unavailable":
			unavailable++
			fmt.Fprintf(w, "%s: not submitted: %s\n", p, ans.Error)
		default:
			refused++
			printRefusal(w, p, ans, status)
		}
	}
	fmt.Fprintf(w, "submitted %d to %s: %d accepted, %d duplicate, %d refused", len(paths), base.Redacted(), accepted, duplicates, refused)
	if unavailable > 0 {
		fmt.Fprintf(w, ", %d not submitted (server unavailable)", unavailable)
	}
	fmt.Fprintln(w)
	if refused+unavailable > 0 {
		return problems(nil)
	}
	return nil
}

// postRetrying posts the bundle raw (read from p) and sends it again on a
// 503 (storage unavailable) up to submitAttempts times in all, after the
// server's Retry-After or a doubling backoff, saying so on errw; a last
// 503 becomes an answer that the bundle was not judged.
func postRetrying(ctx context.Context, errw io.Writer, client *http.Client, endpoint string, base *url.URL, token string, red *redact.Redactor, p string, raw []byte) (submitReply, int, error) {
	var (
		ans    submitReply
		status int
		wait   time.Duration
		err    error
	)
	for attempt := 1; ; attempt++ {
		ans, status, wait, err = postBundle(ctx, client, endpoint, base, token, red, raw)
		if err != nil {
			return ans, status, err
		}
		if status != http.StatusServiceUnavailable || attempt == submitAttempts {
			break
		}
		if wait <= 0 {
			wait = submitBackoff << (attempt - 1)
		}
		fmt.Fprintf(errw, "lasagna results submit: %s: the server is unavailable (503: %s); sending it again in %v (attempt %d of %d)\n", p, ans.Error, wait, attempt+1, submitAttempts)
		select {
		case <-ctx.Done():
			return ans, status, problems(fmt.Errorf("results submit: %s: %w", p, ctx.Err()))
		case <-time.After(wait):
		}
	}
	if status == http.StatusServiceUnavailable {
		ans.Error = fmt.Sprintf("the server is still unavailable (503) after %d attempts, so the bundle was not judged; submit it again later: %s", submitAttempts, ans.Error)
		ans.Findings = nil
	}
	return ans, status, nil
}

// submitBase checks --to and the token (usage errors) and returns the
// server's base URL.
func submitBase(to, token string) (*url.URL, error) {
	if to == "" {
		return nil, usageError("results submit: give --to URL, the lasagna serve to submit to (for example --to https://hub.example.org)")
	}
	base, err := url.Parse(strings.TrimRight(to, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, usageError("results submit: --to %q is not an http:// or https:// URL of a lasagna serve", to)
	}
	if base.User != nil {
		return nil, usageError("results submit: --to must not hold a user or password; the token comes from %s", dashboard.TokenEnv)
	}
	if token == "" {
		return nil, usageError("results submit: %s is not set: set it to the token the lasagna serve at %s runs with (in CI, from a secret)", dashboard.TokenEnv, base.Redacted())
	}
	return base, nil
}

// postBundle posts one bundle's bytes to endpoint and returns the
// server's answer and HTTP status. An error (the server cannot be reached,
// refuses the token or the submission, or is not a lasagna serve) stops
// the submission: it is returned ready for exitCode. Everything of the
// answer that is printed is redacted with red (the token).
//
// For a 503 it returns, as wait, the server's Retry-After (0 without one,
// at most maxRetryAfter).
func postBundle(ctx context.Context, client *http.Client, endpoint string, base *url.URL, token string, red *redact.Redactor, raw []byte) (submitReply, int, time.Duration, error) {
	ans, status, res, err := postRaw(ctx, client, endpoint, base, token, red, raw)
	var wait time.Duration
	if res != nil && status == http.StatusServiceUnavailable {
		if n, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && n > 0 {
			wait = min(time.Duration(n)*time.Second, maxRetryAfter)
		}
	}
	return ans, status, wait, err
}

func postRaw(ctx context.Context, client *http.Client, endpoint string, base *url.URL, token string, red *redact.Redactor, raw []byte) (submitReply, int, *http.Response, error) {
	var ans submitReply
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(raw))
	if err != nil {
		return ans, 0, nil, problems(fmt.Errorf("results submit: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return ans, 0, nil, problems(fmt.Errorf("results submit: %s: the server cannot be reached: %v (is lasagna serve running there?)", endpoint, red.Error(err)))
	}
	// Every finding of a refused bundle: large for a large forgery.
	body, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	res.Body.Close()
	if err != nil {
		return ans, 0, nil, problems(fmt.Errorf("results submit: %s: reading the answer: %w", endpoint, red.Error(err)))
	}
	jsonErr := json.Unmarshal(body, &ans)
	ans = ans.redacted(red)
	switch {
	case res.StatusCode == http.StatusServiceUnavailable:
		// Worth another try, whoever answered (the hub, or a proxy in
		// front of it).
		if jsonErr != nil || ans.Error == "" {
			ans = submitReply{Error: red.String(res.Status)}
		}
		ans.Status = "unavailable"
		return ans, res.StatusCode, res, nil
	case res.StatusCode == http.StatusUnauthorized:
		return ans, 0, nil, problems(fmt.Errorf("results submit: %s refused the token (401): %s is not the token that lasagna serve runs with", base.Redacted(), dashboard.TokenEnv))
	case res.StatusCode == http.StatusForbidden && jsonErr == nil:
		return ans, 0, nil, problems(fmt.Errorf("results submit: %s refused the submission (403): %s", base.Redacted(), ans.Error))
	case jsonErr != nil:
		return ans, 0, nil, problems(fmt.Errorf("results submit: %s answered %s, not a lasagna serve's JSON (is --to the base URL of a lasagna serve of this version?)", endpoint, red.String(res.Status)))
	}
	return ans, res.StatusCode, res, nil
}

// printRefusal prints why the server refused the bundle at p, with every
// finding.
func printRefusal(w io.Writer, p string, ans submitReply, status int) {
	msg := ans.Error
	if status == http.StatusRequestEntityTooLarge {
		msg = "too large (413): " + msg
	}
	fmt.Fprintf(w, "%s: refused: %s\n", p, msg)
	for _, f := range ans.Findings {
		line := "  " + f.Code
		if f.Where != "" {
			line += " at " + f.Where
		}
		line += ": " + f.Detail
		if f.Fix != "" && !strings.Contains(f.Detail, "(fix: ") {
			line += " (fix: " + f.Fix + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// loopbackURL reports whether u's host is localhost or a loopback address.
func loopbackURL(u *url.URL) bool {
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
