package registry

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Status is a benchmark's place in its lifecycle.
type Status string

const (
	// StatusDraft is a benchmark created but not ready: it may have no
	// entries yet (synthesis is filling it). It does not evaluate.
	StatusDraft Status = "draft"
	// StatusActive is a benchmark ready for evaluation; its entries never
	// change (a change is a new revision).
	StatusActive Status = "active"
	// StatusArchived is a benchmark no longer in use. It does not
	// evaluate; Activate brings it back.
	StatusArchived Status = "archived"
)

// ParseStatus checks s is one of draft, active, archived.
func ParseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case StatusDraft, StatusActive, StatusArchived:
		return st, nil
	}
	return "", fmt.Errorf("unknown status %q; want draft, active or archived", s)
}

// Scheme prefixes a benchmark path that names a registered benchmark:
// registry:NAME (its current revision) or registry:NAME@hash.
const Scheme = "registry:"

// Errors a caller can test for with errors.Is.
var (
	ErrNotFound = errors.New("not in the registry")
	ErrExists   = errors.New("already in the registry")
	// ErrReadOnly is a change refused because the registry is open for
	// reading only (see Open).
	ErrReadOnly = errors.New("read-only")
	// ErrInvalid is a benchmark name or reference that is not well
	// formed (CheckName, ParseRef): the caller's input, not the
	// registry's state.
	ErrInvalid = errors.New("invalid")
)

// invalid wraps the error of a malformed name or reference so that it is
// ErrInvalid, with msg as its text.
type invalid struct{ msg string }

func (e invalid) Error() string        { return e.msg }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

func invalidf(format string, args ...any) error { return invalid{fmt.Sprintf(format, args...)} }

// StatusError refuses an operation a benchmark's status does not allow,
// such as evaluating a draft or an archived benchmark.
type StatusError struct {
	Name   string
	Status Status
	// Op is what was refused ("evaluate", "add a revision to", …).
	Op string
	// Empty is set for a draft that holds no entries yet.
	Empty bool
}

func (e *StatusError) Error() string {
	switch {
	case e.Empty:
		return fmt.Sprintf("benchmark %s is a draft with no entries, so it cannot %s; fill it with `lasagna benchmark create %s --from FILE`", e.Name, e.Op, e.Name)
	default:
		return fmt.Sprintf("benchmark %s is %s, so it cannot %s (only active benchmarks can); activate it with `lasagna benchmark activate %s`", e.Name, article(e.Status), e.Op, e.Name)
	}
}

func article(s Status) string {
	if s == StatusDraft {
		return "a draft"
	}
	return string(s)
}

// Source says where a revision came from.
type Source struct {
	// Kind is "file" (a JSONL, CSV or Vecta CSV file, or a BEIR folder)
	// or "huggingface" (a Hugging Face download on disk, converted by
	// package registry/hf).
	Kind string `json:"kind"`
	// Path is the file or folder as given at import time.
	Path string `json:"path,omitempty"`
	// Synthesis holds the parameters of a benchmark written by
	// `lasagna benchmark synthesize --into` (Kind "synthesis"; no Path).
	Synthesis *Synthesis `json:"synthesis,omitempty"`
	// SHA256 is the dataset revision: the sha256 of the file's bytes, or
	// for a BEIR folder or a file with a corpus the digest datasets
	// documents (it is the full form of the name's 12 hex).
	SHA256 string `json:"sha256,omitempty"`
	Format string `json:"format,omitempty"`
	Split  string `json:"split,omitempty"`
	Corpus string `json:"corpus,omitempty"`
	// Dataset (the Hub repository), Revision (the commit: downloaded, or
	// the snapshot's when the folder is a Hugging Face cache), Config,
	// Limit and Files (the dataset's files read, slash-separated paths in
	// the repository or folder) describe a "huggingface" source; Split is
	// the dataset's split. A download has no Path.
	Dataset  string   `json:"dataset,omitempty"`
	Revision string   `json:"revision,omitempty"`
	Config   string   `json:"config,omitempty"`
	Limit    int      `json:"limit,omitempty"`
	Files    []string `json:"files,omitempty"`
}

// String words the source as `lasagna benchmark list` and the dashboard
// show it: "data/faq.jsonl (jsonl)", "microsoft/ms_marco v1.1
// validation@0123456789ab (huggingface parquet)", "synthesis (model …)";
// "-" for none.
func (s *Source) String() string {
	switch {
	case s == nil:
		return "-"
	case s.Synthesis != nil:
		y := s.Synthesis
		return fmt.Sprintf("synthesis (model %s, n %d, seed %d, mix %s, %d documents)", y.Model, y.N, y.Seed, y.Mix, len(y.Documents))
	case s.Kind == "huggingface":
		txt := s.Dataset
		if s.Config != "" {
			txt += " " + s.Config
		}
		txt += " " + s.Split
		if s.Revision != "" {
			txt += "@" + s.Revision[:min(12, len(s.Revision))]
		}
		if s.Limit > 0 {
			txt += fmt.Sprintf(", first %d rows", s.Limit)
		}
		return txt + " (huggingface " + s.Format + ")"
	}
	txt := s.Path + " (" + s.Format
	if s.Split != "" {
		txt += ", split " + s.Split
	}
	if s.Corpus != "" {
		txt += ", corpus " + s.Corpus
	}
	return txt + ")"
}

// Info describes a benchmark (at one revision). Its JSON form is what
// `lasagna benchmark list --json` prints.
type Info struct {
	Name      string    `json:"name"`
	Status    Status    `json:"status"`
	Questions int       `json:"questions"`
	Documents int       `json:"documents"`
	Source    *Source   `json:"source"`
	Created   time.Time `json:"created"`
	// Revision is name@<12 hex>, the benchmark identity bundles carry;
	// "" for a draft with no entries.
	Revision string `json:"revision"`
	// Digest is the full sha256 the revision abbreviates.
	Digest string `json:"digest,omitempty"`
	// RevisionCreated is when this revision was imported.
	RevisionCreated time.Time `json:"revision_created,omitzero"`
	// Current reports whether this is the revision registry:NAME names.
	Current bool `json:"current"`
	// Revisions is the number of revisions the benchmark has.
	Revisions int `json:"revisions"`
	// Error is why the draft's last fill failed (see FailDraft).
	Error string `json:"error,omitempty"`
	// Change is what the Create or Import that returned this Info did
	// ("" from any other call).
	Change Change `json:"-"`

	revID int64
}

// Change says what an import did. It is decided under the registry's
// write lock, so of two imports of one content running at once, one
// reports ChangeCreated and the other ChangeUnchanged.
type Change string

const (
	// ChangeCreated: the benchmark is new.
	ChangeCreated Change = "created"
	// ChangeAdded: a new revision of an existing benchmark (or a
	// draft's first entries), now the current one.
	ChangeAdded Change = "added"
	// ChangeRestored: the content of an existing revision that was not
	// current, or of a draft's current revision that becomes active;
	// nothing is added, and that revision is current (and active) again.
	ChangeRestored Change = "restored"
	// ChangeUnchanged: the content of the current revision, status
	// unchanged; nothing is added.
	ChangeUnchanged Change = "unchanged"
)

// Registry is an open registry. It is safe for concurrent use.
type Registry struct {
	db *sql.DB
	d  dialect
	// path is a SQLite registry's file ("" for PostgreSQL); where names
	// the registry in messages (the DSN, password hidden).
	path, where string
	// readOnly is why a SQLite registry is open for reading only (see
	// readOnlyReason); "" when it is writable.
	readOnly string
}

// Open opens (creating and migrating when needed) the registry at dsn: a
// SQLite file path, or a postgres:// URL. See DefaultDSN.
//
// A SQLite file this process may not write (no write permission on the
// file or its folder) is opened for reading only, creating nothing
// beside it: listing, showing, resolving and downloading work, and every
// change fails with an error wrapping ErrReadOnly that names the file and
// the fix. Such a file must already hold the newest schema.
func Open(ctx context.Context, dsn string) (*Registry, error) {
	// SQLite can answer "database is locked" at once, without waiting out
	// the busy timeout, while another process switches the file to WAL or
	// recovers its WAL index; such an open is tried again.
	for attempt := 1; ; attempt++ {
		r, err := open(ctx, dsn)
		if err == nil || attempt == openAttempts || !isSQLiteBusy(err) {
			return r, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
}

// openAttempts bounds the retries of Open on a busy SQLite file.
const openAttempts = 5

// isSQLiteBusy reports whether err is SQLite's SQLITE_BUSY.
func isSQLiteBusy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "database is locked") || strings.Contains(s, "SQLITE_BUSY")
}

func open(ctx context.Context, dsn string) (*Registry, error) {
	db, d, readOnly, err := openDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	r := &Registry{db: db, d: d, readOnly: readOnly, where: redact(dsn)}
	if d.name == sqliteDialect.name {
		r.path = dsn
	}
	if err := r.migrate(ctx); err != nil {
		db.Close()
		if errors.Is(err, ErrReadOnly) {
			return nil, err // it names the file
		}
		return nil, fmt.Errorf("registry %s: %w", redact(dsn), err)
	}
	return r, nil
}

// ReadOnly reports whether the registry is open for reading only (see
// Open).
func (r *Registry) ReadOnly() bool { return r.readOnly != "" }

// readOnlyError refuses a change to a read-only registry.
func (r *Registry) readOnlyError() error {
	dir := filepath.Dir(r.path)
	return fmt.Errorf("registry %s is %w (%s), so nothing in it can change: give this user write permission on %s and its folder %s (SQLite writes %s-wal and %s-shm beside it), or set %s to a registry you can write",
		r.path, ErrReadOnly, r.readOnly, r.path, dir, filepath.Base(r.path), filepath.Base(r.path), EnvVar)
}

// Backend returns "sqlite" or "postgres".
func (r *Registry) Backend() string { return r.d.name }

// Close closes the registry.
func (r *Registry) Close() error { return r.db.Close() }

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`) })

// CheckName reports whether name can name a registered benchmark: letters,
// digits, '.', '_', '-' and '/', starting with a letter or digit, at most
// 200 bytes, and not starting with local/ (the prefix of unregistered
// files).
func CheckName(name string) error {
	switch {
	case name == "":
		return invalidf("empty benchmark name")
	case len(name) > 200:
		return invalidf("benchmark name %.20q… is longer than 200 bytes", name)
	case !nameRE().MatchString(name):
		return invalidf("benchmark name %q: use letters, digits, '.', '_', '-' and '/', starting with a letter or digit (no '@', ':' or spaces)", name)
	case strings.HasPrefix(name, "local/"):
		return invalidf("benchmark name %q: local/ is the prefix of unregistered files; choose another name", name)
	}
	return nil
}

// ParseRef splits NAME or NAME@hash (an optional registry: prefix is
// dropped). hash is a prefix of a revision's sha256 (at least 4 hex).
func ParseRef(ref string) (name, hash string, err error) {
	ref = strings.TrimPrefix(ref, Scheme)
	name, hash, found := strings.Cut(ref, "@")
	if err := CheckName(name); err != nil {
		return "", "", err
	}
	if found {
		if len(hash) < 4 || len(hash) > 64 || strings.Trim(strings.ToLower(hash), "0123456789abcdef") != "" {
			return "", "", invalidf("benchmark %q: %q after @ is not a revision hash (4 to 64 hex digits, as in %s@ea3e86b12545)", ref, hash, name)
		}
		hash = strings.ToLower(hash)
	}
	return name, hash, nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

type benchRow struct {
	id      int64
	name    string
	status  Status
	created string
	current sql.NullInt64
	// draftSource and draftError: see StartDraft and FailDraft.
	draftSource, draftError string
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (r *Registry) benchByName(ctx context.Context, q querier, name string) (benchRow, error) {
	var b benchRow
	err := q.QueryRowContext(ctx, r.d.q(`SELECT `+benchCols+` FROM benchmarks WHERE name = ?`), name).
		Scan(&b.id, &b.name, &b.status, &b.created, &b.current, &b.draftSource, &b.draftError)
	if isNoRows(err) {
		return b, fmt.Errorf("benchmark %s: %w (see `lasagna benchmark list`)", name, ErrNotFound)
	}
	return b, err
}

const benchCols = `id, name, status, created, current_revision, draft_source, draft_error`

const revCols = `r.id, r.digest, r.format, r.split, r.source, r.questions, r.documents, r.created`

func (r *Registry) scanInfo(b benchRow, scan func(...any) error) (Info, error) {
	var (
		inf     Info
		source  string
		created string
	)
	if err := scan(&inf.revID, &inf.Digest, new(string), new(string), &source, &inf.Questions, &inf.Documents, &created); err != nil {
		return inf, err
	}
	inf.Name, inf.Status, inf.Created = b.name, b.status, parseTime(b.created)
	inf.RevisionCreated = parseTime(created)
	inf.Revision = b.name + "@" + short(inf.Digest)
	inf.Current = b.current.Valid && b.current.Int64 == inf.revID
	var src Source
	if err := json.Unmarshal([]byte(source), &src); err == nil {
		inf.Source = &src
	}
	return inf, nil
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

// info returns the Info of benchmark b at the revision hash ("" = the
// current one).
func (r *Registry) info(ctx context.Context, q querier, b benchRow, hash string) (Info, error) {
	var n int
	if err := q.QueryRowContext(ctx, r.d.q(`SELECT COUNT(*) FROM revisions WHERE benchmark_id = ?`), b.id).Scan(&n); err != nil {
		return Info{}, err
	}
	if hash == "" {
		if !b.current.Valid {
			return Info{Name: b.name, Status: b.status, Created: parseTime(b.created), Revisions: n, Source: draftSource(b), Error: b.draftError}, nil
		}
		row := q.QueryRowContext(ctx, r.d.q(`SELECT `+revCols+` FROM revisions r WHERE r.id = ?`), b.current.Int64)
		inf, err := r.scanInfo(b, row.Scan)
		inf.Revisions, inf.Error = n, b.draftError
		return inf, err
	}
	rows, err := q.QueryContext(ctx, r.d.q(`SELECT `+revCols+` FROM revisions r WHERE r.benchmark_id = ? AND r.digest LIKE ? ORDER BY r.id`), b.id, hash+"%")
	if err != nil {
		return Info{}, err
	}
	defer rows.Close()
	var found []Info
	for rows.Next() {
		inf, err := r.scanInfo(b, rows.Scan)
		if err != nil {
			return Info{}, err
		}
		inf.Revisions = n
		found = append(found, inf)
	}
	if err := rows.Err(); err != nil {
		return Info{}, err
	}
	switch len(found) {
	case 0:
		return Info{}, fmt.Errorf("benchmark %s has no revision %s@%s: %w (see `lasagna benchmark show %s`)", b.name, b.name, hash, ErrNotFound, b.name)
	case 1:
		return found[0], nil
	}
	return Info{}, fmt.Errorf("benchmark %s@%s is ambiguous: %d revisions start with %s; give more hex digits", b.name, hash, len(found), hash)
}

// Get returns the benchmark ref names: NAME (its current revision) or
// NAME@hash (that revision), whatever its status.
func (r *Registry) Get(ctx context.Context, ref string) (Info, error) {
	name, hash, err := ParseRef(ref)
	if err != nil {
		return Info{}, err
	}
	b, err := r.benchByName(ctx, r.db, name)
	if err != nil {
		return Info{}, err
	}
	return r.info(ctx, r.db, b, hash)
}

// ListOptions filter List.
type ListOptions struct {
	// Status, when set, keeps the benchmarks with this status.
	Status Status
}

// List returns every benchmark at its current revision, by name.
func (r *Registry) List(ctx context.Context, opts ListOptions) ([]Info, error) {
	query := `SELECT ` + benchCols + ` FROM benchmarks`
	var args []any
	if opts.Status != "" {
		query += ` WHERE status = ?`
		args = append(args, string(opts.Status))
	}
	rows, err := r.db.QueryContext(ctx, r.d.q(query+` ORDER BY name`), args...)
	if err != nil {
		return nil, err
	}
	var bs []benchRow
	for rows.Next() {
		var b benchRow
		if err := rows.Scan(&b.id, &b.name, &b.status, &b.created, &b.current, &b.draftSource, &b.draftError); err != nil {
			rows.Close()
			return nil, err
		}
		bs = append(bs, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(bs))
	for _, b := range bs {
		inf, err := r.info(ctx, r.db, b, "")
		if err != nil {
			return nil, err
		}
		out = append(out, inf)
	}
	return out, nil
}

// Revisions returns every revision of the benchmark name, oldest first.
func (r *Registry) Revisions(ctx context.Context, name string) ([]Info, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	b, err := r.benchByName(ctx, r.db, name)
	if err != nil {
		return nil, err
	}
	rows, err := r.db.QueryContext(ctx, r.d.q(`SELECT `+revCols+` FROM revisions r WHERE r.benchmark_id = ? ORDER BY r.id`), b.id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Info
	for rows.Next() {
		inf, err := r.scanInfo(b, rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, inf)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Revisions = len(out)
	}
	return out, nil
}

// CreateDraft registers name as an empty draft (for example while
// synthesis fills it). A name already registered is ErrExists.
func (r *Registry) CreateDraft(ctx context.Context, name string) (Info, error) {
	if err := CheckName(name); err != nil {
		return Info{}, err
	}
	var inf Info
	err := r.write(ctx, func(tx *sql.Tx) error {
		if _, err := r.benchByName(ctx, tx, name); err == nil {
			return fmt.Errorf("benchmark %s: %w", name, ErrExists)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		t := now()
		if _, err := tx.ExecContext(ctx, r.d.q(`INSERT INTO benchmarks (name, status, created, updated) VALUES (?, ?, ?, ?)`), name, string(StatusDraft), t, t); err != nil {
			return err
		}
		inf = Info{Name: name, Status: StatusDraft, Created: parseTime(t)}
		return nil
	})
	return inf, err
}

// Activate makes the benchmark ref names active (a draft needs entries).
// With NAME@hash it also makes that revision the current one, so
// registry:NAME names it again.
func (r *Registry) Activate(ctx context.Context, ref string) (Info, error) {
	name, hash, err := ParseRef(ref)
	if err != nil {
		return Info{}, err
	}
	var inf Info
	err = r.write(ctx, func(tx *sql.Tx) error {
		b, err := r.benchByName(ctx, tx, name)
		if err != nil {
			return err
		}
		cur := b.current
		if hash != "" {
			ri, err := r.info(ctx, tx, b, hash)
			if err != nil {
				return err
			}
			cur = sql.NullInt64{Int64: ri.revID, Valid: true}
		}
		if !cur.Valid {
			return &StatusError{Name: name, Status: b.status, Op: "be activated", Empty: true}
		}
		if _, err := tx.ExecContext(ctx, r.d.q(`UPDATE benchmarks SET status = ?, current_revision = ?, updated = ? WHERE id = ?`), string(StatusActive), cur.Int64, now(), b.id); err != nil {
			return err
		}
		b.status, b.current = StatusActive, cur
		inf, err = r.info(ctx, tx, b, "")
		return err
	})
	return inf, err
}

// Archive retires an active benchmark: it stays listed and addressable
// but no longer evaluates until activated again. A draft cannot be
// archived (delete it instead).
func (r *Registry) Archive(ctx context.Context, name string) (Info, error) {
	if err := CheckName(name); err != nil {
		return Info{}, err
	}
	var inf Info
	err := r.write(ctx, func(tx *sql.Tx) error {
		b, err := r.benchByName(ctx, tx, name)
		if err != nil {
			return err
		}
		if b.status == StatusDraft {
			return fmt.Errorf("benchmark %s is a draft; only an active benchmark is archived (activate it, or delete the draft with `lasagna benchmark delete %s`)", name, name)
		}
		if _, err := tx.ExecContext(ctx, r.d.q(`UPDATE benchmarks SET status = ?, updated = ? WHERE id = ?`), string(StatusArchived), now(), b.id); err != nil {
			return err
		}
		b.status = StatusArchived
		inf, err = r.info(ctx, tx, b, "")
		return err
	})
	return inf, err
}

// Delete removes a benchmark with all its revisions and entries. An
// active benchmark is removed only with force.
func (r *Registry) Delete(ctx context.Context, name string, force bool) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return r.write(ctx, func(tx *sql.Tx) error {
		b, err := r.benchByName(ctx, tx, name)
		if err != nil {
			return err
		}
		if b.status == StatusActive && !force {
			return fmt.Errorf("benchmark %s is active; delete it with --force (or archive it: `lasagna benchmark archive %s`)", name, name)
		}
		if r.searchIndexed() {
			// entry_fts rows go by rowid range, a revision at a time.
			var revs []int64
			rows, err := tx.QueryContext(ctx, `SELECT id FROM revisions WHERE benchmark_id = ?`, b.id)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				revs = append(revs, id)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, id := range revs {
				if _, err := tx.ExecContext(ctx, `DELETE FROM entry_fts WHERE rowid BETWEEN ? AND ?`, ftsRowID(id, 0), ftsRowID(id, maxOrdinal)); err != nil {
					return err
				}
			}
		}
		for _, stmt := range []string{
			`DELETE FROM entries WHERE revision_id IN (SELECT id FROM revisions WHERE benchmark_id = ?)`,
			`DELETE FROM entry_text WHERE revision_id IN (SELECT id FROM revisions WHERE benchmark_id = ?)`,
			`DELETE FROM revision_files WHERE revision_id IN (SELECT id FROM revisions WHERE benchmark_id = ?)`,
			`DELETE FROM revision_chunks WHERE revision_id IN (SELECT id FROM revisions WHERE benchmark_id = ?)`,
			`DELETE FROM revisions WHERE benchmark_id = ?`,
			`DELETE FROM benchmarks WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, r.d.q(stmt), b.id); err != nil {
				return err
			}
		}
		return nil
	})
}

// Unavailable reports whether err says the registry's storage cannot be
// reached or cannot serve now (a PostgreSQL server down, restarting or
// refusing connections; a connection cut; SQLite busy past its timeout):
// a failure that trying again later may not meet, unlike a missing
// benchmark or a malformed reference.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF), isSQLiteBusy(err), pgUnavailable(err):
		return true
	}
	return false
}
