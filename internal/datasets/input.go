package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/lasagna-go/lasagna"
)

// Size caps on input. They are generous for real data; a file or line
// beyond them is refused with an error naming the cap, never read without
// limit.
const (
	// MaxLineBytes is the longest line a line-oriented file (JSONL, CSV
	// record, BEIR, predictions) may have: 64 MiB. A longer line is an
	// error naming file:line; split the text (a long document can be
	// several passages).
	MaxLineBytes = 64 << 20
	// MaxFileBytes is the largest file read: 64 GiB. Files are streamed
	// where the format allows (JSONL, CSV, BEIR, predictions); TREC qrels,
	// TREC runs and sweep files are read whole.
	MaxFileBytes = 64 << 30
)

// ErrNotRegular is wrapped by the error for a path that names a named pipe
// (FIFO), a device, a socket or anything else that is not a regular file
// (or a folder where a folder is expected). Such paths are refused before
// anything is read from them, so that a FIFO cannot block and a device such
// as /dev/zero cannot fill memory.
var ErrNotRegular = errors.New("not a regular file")

// ErrSymlinkLoop is wrapped by the error for a path whose symbolic links
// lead back to themselves.
var ErrSymlinkLoop = errors.New("symlink loop")

// OSFS is the operating system's file system as a command line sees it: a
// name is a path in slash form, relative to the working directory or
// absolute, and may climb with "..". Unlike os.DirFS it accepts absolute
// paths, so a sweep file may name /data/faq.jsonl or ../data/faq.jsonl,
// and error positions keep the path the user wrote.
//
// Open refuses at once anything but a regular file or a folder (a FIFO is
// opened without blocking, then refused), so reading through OSFS cannot
// hang on a named pipe even when the path is replaced between a check and
// the open.
type OSFS struct{}

// Open opens a regular file or a folder; see OSFS.
func (OSFS) Open(name string) (fs.File, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	// Stat first, so that a device is never opened; open without blocking,
	// so that a FIFO swapped in since is not waited on; check again.
	st, err := os.Stat(filepath.FromSlash(name))
	if err != nil {
		return nil, describeErr(err)
	}
	if err := checkKind(name, st, true); err != nil {
		return nil, err
	}
	return openChecked(name)
}

// openChecked opens name without waiting on a FIFO and refuses it unless
// it is a regular file or a folder.
func openChecked(name string) (fs.File, error) {
	f, err := os.OpenFile(filepath.FromSlash(name), os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, describeErr(err)
	}
	st, err := f.Stat()
	if err == nil {
		err = checkKind(name, st, true)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Stat returns the file information of name, following symbolic links.
func (OSFS) Stat(name string) (fs.FileInfo, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	st, err := os.Stat(filepath.FromSlash(name))
	return st, describeErr(err)
}

// ReadDir reads the folder name.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	es, err := os.ReadDir(filepath.FromSlash(name))
	return es, describeErr(err)
}

// Stat returns the file information of name in fsys when name is a regular
// file or a folder. Anything else (a FIFO, a device, a socket) is an error
// wrapping ErrNotRegular, a symbolic link loop one wrapping ErrSymlinkLoop,
// and a path fsys cannot hold (absolute, or climbing with "..", in an
// os.DirFS or embed.FS) an error saying so.
func Stat(fsys fs.FS, name string) (fs.FileInfo, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, describePathErr(fsys, name, err)
	}
	if err := checkKind(name, st, true); err != nil {
		return nil, err
	}
	return st, nil
}

// Open opens the regular file name in fsys for reading. It is the one way
// lasagna opens an input file (datasets, predictions, TREC files, sweep
// files): a folder, a FIFO, a device or a socket is refused before it is
// opened (see Stat), and the opened file is checked again, so a path
// swapped in between is refused too. Through OSFS a FIFO is never waited
// on; through another fs.FS whose Open blocks on a FIFO, only a FIFO
// created between the check and the open could block.
func Open(fsys fs.FS, name string) (fs.File, error) {
	if _, isOS := fsys.(OSFS); !isOS {
		st, err := Stat(fsys, name)
		if err != nil {
			return nil, err
		}
		if err := checkKind(name, st, false); err != nil {
			return nil, err
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, describePathErr(fsys, name, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := checkKind(name, st, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the whole regular file name in fsys (see Open); a file
// larger than MaxFileBytes is an error.
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := Open(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	if size > MaxFileBytes {
		return nil, tooLarge(name)
	}
	data := make([]byte, 0, size+1)
	r := io.LimitReader(f, MaxFileBytes+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
	}
	if int64(len(data)) > MaxFileBytes {
		return nil, tooLarge(name)
	}
	return data, nil
}

func tooLarge(name string) error {
	return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("larger than %s, the largest file lasagna reads; split the file", sizeName(MaxFileBytes))}
}

// sizeName formats a power-of-two size as "64 MiB" or "64 GiB".
func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkKind refuses st unless it is a regular file (or a folder, when
// dirOK). A folder where a file is expected is an error too.
func checkKind(name string, st fs.FileInfo, dirOK bool) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		if dirOK {
			return nil
		}
		return &fs.PathError{Op: "open", Path: name, Err: errors.New("is a folder, not a file; name a file in it")}
	}
	what := "a special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeIrregular != 0:
		what = "an irregular file"
	}
	return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("is %s, %w: lasagna reads data only from regular files (and folders); write the data to a file and name that", what, ErrNotRegular)}
}

// describeErr names a symbolic link loop as one.
func describeErr(err error) error {
	var pe *fs.PathError
	if err == nil || !errors.Is(err, syscall.ELOOP) || !errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: fmt.Errorf("%w: its symbolic links lead back to themselves and never reach a file; fix the links (ls -l shows where each points)", ErrSymlinkLoop)}
}

// describePathErr is describeErr, plus a plain message for a path that an
// fs.FS such as os.DirFS or embed.FS cannot hold.
func describePathErr(fsys fs.FS, name string, err error) error {
	if _, isOS := fsys.(OSFS); !isOS && errors.Is(err, fs.ErrInvalid) && !fs.ValidPath(name) {
		return &fs.PathError{Op: "open", Path: name, Err: errors.New("not a path inside the file system it is read from (an absolute path, or one climbing with \"..\", needs datasets.OSFS rather than os.DirFS or embed.FS)")}
	}
	return describeErr(err)
}

// textError is a problem the text guard found: a line longer than
// MaxLineBytes, bytes that are not UTF-8 or a NUL byte (Msg gives the
// 1-based byte column), or a file larger than MaxFileBytes (Line 0).
type textError struct {
	Line int
	Msg  string
}

func (e *textError) Error() string { return e.Msg }

// problem places e in file.
func (e *textError) problem(file string) Problem {
	return Problem{Pos: lasagna.Pos{File: file, Line: e.Line}, Msg: e.Error()}
}

// textGuard passes the bytes of a text file through while checking that
// they are UTF-8 without NUL bytes, that no line is longer than MaxLineBytes and that the
// file is no larger than MaxFileBytes. On a problem it delivers the bytes
// before the offending line (so that a parser sees whole lines only, as
// far as the line fits in one read) and then a *textError.
type textGuard struct {
	r     io.Reader
	caps  [2]int64 // line and file caps: MaxLineBytes, MaxFileBytes
	line  int      // 1-based line of the next byte
	col   int64    // bytes of that line already passed
	total int64
	buf   []byte
	carry []byte // an incomplete UTF-8 sequence at the end of the last read
	held  []byte // checked bytes not yet passed on
	err   error  // a *textError, or the read error that ended the input
}

func newTextGuard(r io.Reader) *textGuard {
	return &textGuard{r: r, line: 1, caps: [2]int64{MaxLineBytes, MaxFileBytes}}
}

// failed returns the guard's problem, if it found one.
func (g *textGuard) failed() *textError {
	te, _ := g.err.(*textError)
	return te
}

func (g *textGuard) Read(p []byte) (int, error) {
	for len(g.held) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.fill()
	}
	n := copy(p, g.held)
	g.held = g.held[n:]
	return n, nil
}

// fill reads the next chunk into held, or sets err.
func (g *textGuard) fill() {
	if g.buf == nil {
		g.buf = make([]byte, 64<<10)
	}
	k := copy(g.buf, g.carry)
	n, rerr := g.r.Read(g.buf[k:])
	b := g.buf[:k+n]
	g.carry = g.carry[:0]
	if rerr == nil {
		// Hold back an incomplete UTF-8 sequence at the end for the next
		// read; at the end of the input it is invalid.
		if i := incompleteTail(b); i < len(b) {
			g.carry = append(g.carry, b[i:]...)
			b = b[:i]
		}
	}
	good, terr := g.check(b)
	g.held = b[:good]
	switch {
	case terr != nil:
		g.err = terr
	case rerr != nil:
		g.err = rerr
	}
}

// check scans b (whole UTF-8 sequences) and returns how many of its bytes
// may be passed on and the problem found, if any.
func (g *textGuard) check(b []byte) (int, error) {
	g.total += int64(len(b))
	if g.total > g.caps[1] {
		return 0, &textError{Msg: fmt.Sprintf("the file is larger than %s, the largest file lasagna reads; split it", sizeName(g.caps[1]))}
	}
	// Fast path: valid UTF-8 without NUL, and no line can pass the cap
	// (lines wholly inside b are shorter than b).
	if int64(len(b)) <= g.caps[0] && utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		first := bytes.IndexByte(b, '\n')
		if first < 0 {
			if g.col+int64(len(b)) <= g.caps[0] {
				g.col += int64(len(b))
				return len(b), nil
			}
		} else if g.col+int64(first) <= g.caps[0] {
			g.line += bytes.Count(b, []byte{'\n'})
			g.col = int64(len(b) - bytes.LastIndexByte(b, '\n') - 1)
			return len(b), nil
		}
	}
	lineStart := 0 // offset in b of the current line's first byte
	for len(b[lineStart:]) > 0 {
		rest := b[lineStart:]
		nl := bytes.IndexByte(rest, '\n')
		seg := rest
		if nl >= 0 {
			seg = rest[:nl]
		}
		if g.col+int64(len(seg)) > g.caps[0] {
			return lineStart, &textError{Line: g.line, Msg: fmt.Sprintf("line longer than %s, the longest line lasagna reads; split the text (a long document can be several passages)", sizeName(g.caps[0]))}
		}
		if !utf8.Valid(seg) {
			off := invalidAt(seg)
			return lineStart, &textError{Line: g.line, Msg: fmt.Sprintf("invalid UTF-8 at column %d (byte 0x%02X); text must be UTF-8: convert the file (iconv -f WINDOWS-1252 -t UTF-8, say) or fix the bytes", int(g.col)+off+1, seg[off])}
		}
		if off := bytes.IndexByte(seg, 0); off >= 0 {
			return lineStart, &textError{Line: g.line, Msg: fmt.Sprintf("NUL byte at column %d; %s: remove it (tr -d '\\000' drops every NUL byte of a file)", int(g.col)+off+1, nulRule)}
		}
		if nl < 0 {
			g.col += int64(len(seg))
			break
		}
		g.line++
		g.col = 0
		lineStart += nl + 1
	}
	return len(b), nil
}

// nulRule says why text may not hold NUL (U+0000) (docs/data.md, "Text").
const nulRule = "text may not contain NUL (U+0000), which a PostgreSQL registry cannot store"

// incompleteTail returns the offset of an incomplete but possibly valid
// UTF-8 sequence that ends b, or len(b).
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		c := b[i]
		if c < 0x80 {
			return len(b)
		}
		if c >= 0xC0 {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

// invalidAt returns the offset of the first byte of b that is not part of
// a valid UTF-8 sequence.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// textFile is an input file read through a textGuard.
type textFile struct {
	*textGuard
	f fs.File
}

func (t *textFile) Close() error { return t.f.Close() }

// openText opens the regular file name in fsys (see Open) to be read as
// text: UTF-8, lines of at most MaxLineBytes.
func openText(fsys fs.FS, name string) (*textFile, error) {
	f, err := Open(fsys, name)
	if err != nil {
		return nil, err
	}
	return &textFile{textGuard: newTextGuard(f), f: f}, nil
}

// guardProblem returns the problem r's textGuard found, if r reads through
// one and it found one.
func guardProblem(r io.Reader) *textError {
	if g, ok := r.(interface{ failed() *textError }); ok {
		return g.failed()
	}
	return nil
}
