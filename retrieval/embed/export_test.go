package embed

// Names the external tests use.
var DefaultBatchSize = defaultBatchSize
