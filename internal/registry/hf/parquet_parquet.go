//go:build parquet

package hf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// readParquet calls fn with the values of the string columns cols (paths:
// a scalar column, a list, or a list inside a struct, found by its leading
// names) of each row of the parquet file name, in order, a row group at a
// time: vals[i] holds column i's strings (none for a null or empty value,
// one for a scalar). A column marked required that the file lacks is an
// error naming it; a null list element or a value that is not a string is
// an error naming the row and column. fn's error stops the read and is
// returned.
func readParquet(ctx context.Context, name, dataset string, cols [][]string, required []bool, fn func(row int, vals [][]string) error) error {
	return withParquet(name, func(pf *parquet.File) error { return readColumns(ctx, name, dataset, pf, cols, required, fn) })
}

// withParquet opens the parquet file name and calls fn with it; a file that
// is not parquet, or damaged so that the library panics while fn reads it,
// is an error naming the file.
func withParquet(name string, fn func(pf *parquet.File) error) (err error) {
	f, err := openRegular(name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	defer func() { // a damaged file must be an error, never a panic
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: not a readable parquet file: %v", name, p)
		}
	}()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: not a readable parquet file: %w", name, err)
	}
	return fn(pf)
}

// readColumns is readParquet on the opened file pf.
func readColumns(ctx context.Context, name, dataset string, pf *parquet.File, cols [][]string, required []bool, fn func(row int, vals [][]string) error) error {
	s := pf.Schema()
	leaves := make([]leaf, len(cols))
	byCol := make([]int, len(s.Columns()))
	for i := range byCol {
		byCol[i] = -1
	}
	var missing, names []string
	for i, want := range cols {
		l := leaf{name: strings.Join(want, "."), index: -1, nullElem: -1}
		names = append(names, l.name)
		for _, p := range s.Columns() {
			if len(p) < len(want) || !slices.Equal(p[:len(want)], want) {
				continue
			}
			lc, _ := s.Lookup(p...)
			l.index, l.maxDef = lc.ColumnIndex, lc.MaxDefinitionLevel
			if lc.MaxRepetitionLevel > 0 && lc.Node.Optional() {
				l.nullElem = l.maxDef - 1
			}
			byCol[lc.ColumnIndex] = i
			break
		}
		if l.index < 0 && required[i] {
			missing = append(missing, l.name)
		}
		leaves[i] = l
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: missing column(s) %s; a %s parquet file has %s", name, strings.Join(missing, ", "), dataset, strings.Join(names, ", "))
	}
	buf := make([]parquet.Row, 128)
	vals := make([][]string, len(cols))
	row := 0
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return err
			}
			n, rerr := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				row++
				for i := range vals {
					vals[i] = vals[i][:0]
				}
				for _, v := range r {
					ci := v.Column()
					if ci >= len(byCol) || byCol[ci] < 0 {
						continue
					}
					i := byCol[ci]
					l := &leaves[i]
					if v.DefinitionLevel() < l.maxDef {
						if v.DefinitionLevel() == l.nullElem {
							rows.Close()
							return rowError(name, row, l.name, "%s has a null element; every element needs a value", l.name)
						}
						continue // null, or an empty list
					}
					if v.Kind() != parquet.ByteArray {
						rows.Close()
						return rowError(name, row, l.name, "%s is %v, want a string", l.name, v.Kind())
					}
					vals[i] = append(vals[i], string(v.ByteArray()))
				}
				if err := fn(row, vals); err != nil {
					rows.Close()
					return err
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				rows.Close()
				return fmt.Errorf("%s: after row %d: %w", name, row, rerr)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}
