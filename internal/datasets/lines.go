package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"iter"

	"github.com/lasagna-go/lasagna"
)

// hashedFile is an open dataset file whose bytes are hashed as they are read.
type hashedFile struct {
	f fs.File
	h hash.Hash
	r *textGuard // f teed into h, checked as text
}

func openHashed(fsys fs.FS, path string) (*hashedFile, error) {
	f, err := Open(fsys, path)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	return &hashedFile{f: f, h: h, r: newTextGuard(io.TeeReader(f, h))}, nil
}

// finish reads what is left (so the digest covers the whole file), closes
// the file and returns the hex digest.
func (hf *hashedFile) finish() (string, error) {
	_, err := io.Copy(io.Discard, hf.r)
	if cerr := hf.f.Close(); err == nil {
		err = cerr
	}
	return hex.EncodeToString(hf.h.Sum(nil)), err
}

// readHashed opens path in fsys, parses it with parse (problems go to a
// collector) and returns the result with the hex sha256 of the whole file.
// Problems come back as Problems, before any read error from finishing the
// file.
func readHashed[T any](fsys fs.FS, path string, parse func(r io.Reader, path string, c *collector) T) (T, string, error) {
	var zero T
	hf, err := openHashed(fsys, path)
	if err != nil {
		return zero, "", err
	}
	var c collector
	v := parse(hf.r, path, &c)
	digest, ferr := hf.finish()
	if err := c.err(); err != nil {
		return zero, "", err
	}
	if ferr != nil {
		return zero, "", fmt.Errorf("read %s: %w", path, ferr)
	}
	return v, digest, nil
}

// nonBlankLines yields the lines of r that are not blank, with their
// positions in file. When the loop ends early nothing more is read; when the
// input ends on a read error, that error is a problem in c.
func nonBlankLines(r io.Reader, file string, c *collector) iter.Seq2[lasagna.Pos, []byte] {
	return func(yield func(lasagna.Pos, []byte) bool) {
		lr := newLineReader(r)
		for {
			line, ok := lr.Next()
			if !ok {
				break
			}
			if blank(line) {
				continue
			}
			if !yield(lasagna.Pos{File: file, Line: lr.line}, line) {
				return
			}
		}
		if err := lr.Err(); err != nil {
			var te *textError
			if errors.As(err, &te) {
				c.addProblem(te.problem(file))
				return
			}
			c.add(lasagna.Pos{File: file, Line: lr.line + 1}, "", "read error: %v", err)
		}
	}
}

// uniqueLines parses each non-blank line of r with parse, which reports its
// problems to c and whether the record is good, and keeps the good records
// whose id (given by id) was not used before. A repeated id is a problem on
// field "id": dupFormat gets the id and the line that first used it. It
// returns nil when c fills up.
func uniqueLines[T any](r io.Reader, path string, c *collector, parse func(l *jlex, line []byte, pos lasagna.Pos, c *collector) (T, bool), id func(T) string, dupFormat string) []T {
	l := &jlex{}
	var out []T
	seen := make(map[string]int) // id → line
	for pos, line := range nonBlankLines(r, path, c) {
		v, ok := parse(l, line, pos, c)
		if c.full {
			return nil
		}
		if !ok {
			continue
		}
		if first, dup := seen[id(v)]; dup {
			if !c.add(pos, "id", dupFormat, id(v), first) {
				return nil
			}
			continue
		}
		seen[id(v)] = pos.Line
		out = append(out, v)
	}
	return out
}

// lineReader reads lines of any length. The slice Next returns is valid
// until the next call; it holds the line without its "\n" or "\r\n" (and
// without a leading UTF-8 byte order mark on line 1).
type lineReader struct {
	r    *bufio.Reader
	buf  []byte // for lines longer than the bufio buffer
	line int
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next line and true, or nil and false at the end of the
// input or on a read error (see Err).
func (lr *lineReader) Next() ([]byte, bool) {
	if lr.err != nil {
		return nil, false
	}
	s, err := lr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.buf = append(lr.buf[:0], s...)
		for err == bufio.ErrBufferFull {
			s, err = lr.r.ReadSlice('\n')
			lr.buf = append(lr.buf, s...)
		}
		s = lr.buf
	}
	if err != nil {
		if err != io.EOF {
			lr.err = err
			return nil, false
		}
		lr.err = io.EOF
		if len(s) == 0 {
			return nil, false
		}
	}
	lr.line++
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if n := len(s); n > 0 && s[n-1] == '\r' {
		s = s[:n-1]
	}
	if lr.line == 1 {
		s = bytes.TrimPrefix(s, []byte("\xef\xbb\xbf"))
	}
	return s, true
}

// Err returns the read error that ended Next, if it was not io.EOF.
func (lr *lineReader) Err() error {
	if lr.err == io.EOF {
		return nil
	}
	return lr.err
}

// blank reports whether line holds only spaces and tabs.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
