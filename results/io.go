package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lasagna-go/lasagna/internal/atomicfile"
)

// Write finalizes b (see Finalize) and writes it to w as indented JSON with
// a trailing newline. The output is deterministic: object members in struct
// order, map keys sorted, no HTML escaping. Each row's _retrieved_ids and
// _retrieved arrays are written on one line each; everything else is
// indented by two spaces, one member or element a line. The layout does not
// enter the run_id, which hashes the canonical form. Write always writes
// SchemaVersion, so a bundle read from a later 1.y version is written as 1.0
// without the fields this release does not know, under a new run_id.
//
// The bundle is encoded row by row and streamed: memory does not grow with
// the size of the text.
func Write(w io.Writer, b *Bundle) error {
	b.SchemaVersion = SchemaVersion
	if err := Finalize(b); err != nil {
		return err
	}
	if _, err := encodeBundle(b, w, nil); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

// Marshal returns the JSON text Write writes, without finalizing b.
func Marshal(b *Bundle) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := encodeBundle(b, &buf, nil); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteFile writes b to the named file (see Write) atomically: to a
// temporary file in the same folder, flushed to disk and renamed over name,
// so a reader, or a run killed mid-write, finds the previous file or the new
// one, never part of one. The folder must exist.
//
// It encodes the bundle once: the text is streamed to the file while its
// canonical form is hashed, and the run_id is then written in its place.
func WriteFile(name string, b *Bundle) error {
	b.SchemaVersion = SchemaVersion
	if err := prepare(b); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var id string
	err := atomicfile.Write(name, 0o644, func(w io.Writer) (err error) {
		id, err = writeHashed(w, b)
		return err
	})
	if err != nil {
		b.RunID = ""
		return fmt.Errorf("%s: %w", name, err)
	}
	b.RunID = id
	return nil
}

// WriteFileIn writes b as WriteFile does, into the folder dir, under the
// name the CLI gives a bundle by default: the first 12 characters of its
// run_id and .json. It returns the file's path. The run_id is computed as
// the file is written, so b need not be finalized first.
func WriteFileIn(dir string, b *Bundle) (string, error) {
	b.SchemaVersion = SchemaVersion
	if err := prepare(b); err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	var id string
	path, err := atomicfile.WriteNamed(dir, 0o644, func(w io.Writer) (_ string, err error) {
		if id, err = writeHashed(w, b); err != nil {
			return "", err
		}
		return id[:12] + ".json", nil
	})
	if err != nil {
		b.RunID = ""
		return "", err
	}
	b.RunID = id
	return path, nil
}

// writeHashed writes the prepared bundle b to w, a file, and returns its
// run_id: the text is streamed to w while its canonical form is hashed,
// with a placeholder of the run_id's length that is overwritten once the
// hash is known.
func writeHashed(w io.Writer, b *Bundle) (string, error) {
	b.RunID = strings.Repeat("0", sha256.Size*2)
	h := sha256.New()
	at, err := encodeBundle(b, w, h)
	if err != nil {
		return "", fmt.Errorf("bundle: %w (a metric or score is NaN or infinite; record the query as an error instead)", err)
	}
	id := hex.EncodeToString(h.Sum(nil))
	wa, ok := w.(io.WriterAt)
	if !ok {
		return "", errors.New("bundle: the temporary file cannot be written at an offset") // cannot happen: it is an *os.File
	}
	_, err = wa.WriteAt([]byte(id), at)
	return id, err
}

// Read parses a bundle. It checks only that the input is one JSON object
// whose fields have the types of schema 1.x; fields it does not know (from
// a later 1.y) are accepted and dropped. Use Validate to check a bundle.
// Errors give the line and column of the problem.
func Read(r io.Reader) (*Bundle, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return Unmarshal(data)
}

// Unmarshal parses a bundle from data (see Read).
func Unmarshal(data []byte) (*Bundle, error) {
	// json.Unmarshal reads the text in place (a Decoder copies it into its
	// buffer as it grows); it fails where the Decoder below fails, which
	// then gives the error its line and column.
	var b Bundle
	if err := json.Unmarshal(data, &b); err == nil {
		return &b, nil
	}
	b = Bundle{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&b); err != nil {
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		line, col := lineCol(data, off-1)
		return nil, fmt.Errorf("line %d, column %d: unexpected data after the bundle object (a bundle file holds one json object)", line, col)
	}
	return &b, nil
}

// ReadFile reads and parses the named bundle; errors name the file. Only a
// regular file is read: a FIFO or a device is refused before it is opened.
func ReadFile(name string) (*Bundle, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (it is a %s); give the path of a bundle file", name, kindOf(st.Mode()))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	b, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// kindOf names the kind of a file that is not regular.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&os.ModeNamedPipe != 0:
		return "FIFO"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// jsonError adds the line and column to a json decoding error.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset-1)
		return fmt.Errorf("line %d, column %d: invalid json: %v", line, col, se)
	case errors.As(err, &te):
		line, col := lineCol(data, te.Offset-1)
		field := te.Field
		if field == "" {
			field = "(the bundle)"
		}
		return fmt.Errorf("line %d, column %d: field %s: got a json %s, want %s", line, col, field, te.Value, jsonKind(te.Type.Kind().String()))
	case errors.Is(err, io.EOF):
		return errors.New("empty input: a bundle is one json object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("unexpected end of input: the bundle json is truncated")
	}
	return err
}

func jsonKind(k string) string {
	switch k {
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "float64", "float32":
		return "a number"
	case "int", "int64", "int32", "uint64":
		return "an integer"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "ptr":
		return "a value"
	}
	return k
}

// lineCol converts a byte offset into 1-based line and column numbers.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	prefix := data[:off]
	line = bytes.Count(prefix, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(prefix, '\n') + 1) + 1
	return line, col
}
