//go:build llm

package main

// The LLM client every lasagna binary links (openai-go and its packages).
import _ "github.com/lasagna-go/lasagna/llm"
