//go:build parquet

package hf_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
)

// msShaped returns n MS-MARCO-shaped rows: a short query, one answer and
// ten passages of ~150 bytes (one selected), one in ten shared with the
// previous row, as in MS MARCO, where passages repeat across queries.
func msShaped(n int) []msRow {
	rows := make([]msRow, n)
	for i := range rows {
		sel := make([]int32, 10)
		sel[i%10] = 1
		texts := make([]string, 10)
		for j := range texts {
			k := i*10 + j
			if j == 0 && i > 0 {
				k = (i-1)*10 + 9 // shared with the previous row
			}
			texts[j] = fmt.Sprintf("Passage %d: compound %d boils at about %d kelvin under standard pressure, as measured in the laboratory of site %d over the years.", k, k%997, 300+k%200, k%13)
		}
		rows[i] = msRow{Query: fmt.Sprintf("what is the boiling point of compound %d in kelvin", i), QueryID: int32(i), QueryType: "NUMERIC",
			Answers: sp(fmt.Sprintf("about %d kelvin", 300+i%200)), Passages: passages(sel, texts...)}
	}
	return rows
}

func benchFixture(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	writeParquet(b, filepath.Join(dir, "v1.1", "validation-00000-of-00001.parquet"), msShaped(n), 10000)
	return dir
}

// BenchmarkConvertMSMARCO measures the streamed conversion alone (parquet
// row groups → JSONL + corpus.jsonl): peak-heap-MiB stays flat in the row
// count apart from the 16-byte dedup key per distinct passage.
func BenchmarkConvertMSMARCO(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		dir := benchFixture(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var peak float64
			for b.Loop() {
				runtime.GC()
				stop := cputime.PeakHeap()
				if _, err := hf.Convert(bg(), hf.Options{Dataset: hf.MSMARCO, Dir: dir, Config: "v1.1"}, b.TempDir()); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, stop())
			}
			b.ReportMetric(peak, "peak-heap-MiB")
			b.ReportMetric(float64(n), "entries/op")
		})
	}
}

// BenchmarkImportMSMARCO measures import-hf end to end into a SQLite
// registry: conversion, then registry.Import (validation with the datasets
// loaders, storage of the files and of one row per entry, one transaction).
func BenchmarkImportMSMARCO(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		dir := benchFixture(b, n)
		b.Run(fmt.Sprintf("sqlite/%d", n), func(b *testing.B) {
			var peak float64
			for b.Loop() {
				r, err := registry.Open(bg(), filepath.Join(b.TempDir(), "r.db"))
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				stop := cputime.PeakHeap()
				if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Dir: dir, Config: "v1.1"}); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, stop())
				r.Close()
			}
			b.ReportMetric(peak, "peak-heap-MiB")
			b.ReportMetric(float64(n), "entries/op")
		})
	}
}
