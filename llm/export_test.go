package llm

// Names the external tests use.
var DefaultMaxRetries = defaultMaxRetries
var OpenCache = openCache
var CacheKey = cacheKey
var RedactKeys = redactKeys
var Redacted = redacted
