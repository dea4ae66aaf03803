package weaviate

// Names the external tests use.
var ClassName = className
