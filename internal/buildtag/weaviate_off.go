//go:build !weaviate

package buildtag

// Weaviate says this build has the weaviate build tag.
const Weaviate = false
