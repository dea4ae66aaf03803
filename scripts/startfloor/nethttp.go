//go:build nethttp

package main

// The standard library's HTTP client and server, which every lasagna
// binary links (serve, the hub, the LLM client), without the LLM client.
import _ "net/http"
