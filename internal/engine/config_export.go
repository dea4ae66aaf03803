package engine

import "github.com/lasagna-go/lasagna/results"

// CellConfig returns the bundle config Report.Bundle writes for cell c
// (name, benchmark, held_fixed, varied dimensions and levels) when varied
// holds the dimensions the arms on c's benchmark vary, without its
// comparability key (results.Finalize computes it). evaltest uses it to
// compare one cell with a baseline bundle without assembling a bundle.
func CellConfig(c *Cell, varied []string) results.Config { return cellConfig(c, varied) }
