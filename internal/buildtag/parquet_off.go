//go:build !parquet

package buildtag

// Parquet says this build has the parquet build tag.
const Parquet = false
