package pgvector

// Names the external tests use.
var DefaultEfConstruction = defaultEfConstruction
var DefaultM = defaultM
