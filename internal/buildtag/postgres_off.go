//go:build !postgres

package buildtag

// Postgres says this build has the postgres build tag.
const Postgres = false
