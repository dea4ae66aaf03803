//go:build race

package registry_test

// raceOn: the race detector slows the SQLite driver (C translated to Go)
// about thirty times; the longest tests do less with it.
const raceOn = true
