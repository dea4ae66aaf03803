//go:build !race

package registry_test

const raceOn = false
