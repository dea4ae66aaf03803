package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The wire format of the two OpenAI-compatible calls the package makes,
// POST /chat/completions and POST /embeddings, as OpenAI's API reference
// defines them and as vLLM, Ollama, LiteLLM, Azure and Anthropic's
// compatible endpoint accept them. TestWireMatchesOpenAIGo checks every
// request body against the one OpenAI's own Go SDK sends for the same call,
// and every decoded answer against the SDK's decoding of the same bytes.
//
// It is written here rather than taken from the SDK because the SDK is
// generated code for the whole API: it alone cost about 158 of the 272
// CPU-seconds a first build of the lasagna command took on empty caches
// (BENCHMARKS.md, "Cold build of the default lasagna"), for two requests.

// endpoint is one API root ("…/v1", no trailing slash) with its key.
type endpoint struct {
	base string
	key  string
	hc   *http.Client
}

// wireMessage is one chat message as sent.
type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type string `json:"type"`
}

// chatParams is the body of POST /chat/completions.
type chatParams struct {
	Messages            []wireMessage   `json:"messages"`
	Model               string          `json:"model"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitzero"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
}

// chatResult is the part of a chat completion the package reads.
type chatResult struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			// Content is nil when absent or null (a refusal or a
			// tool call), "" when the model answered nothing.
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage Usage `json:"usage"`
}

// embedParams is the body of POST /embeddings.
type embedParams struct {
	Input          []string `json:"input"`
	Model          string   `json:"model"`
	EncodingFormat string   `json:"encoding_format"`
}

// embedResult is an embeddings response.
type embedResult struct {
	Data []struct {
		Embedding []float64 `json:"embedding"`
		Index     int64     `json:"index"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int64 `json:"prompt_tokens"`
		TotalTokens  int64 `json:"total_tokens"`
	} `json:"usage"`
}

// apiError is an HTTP error status with what its body said: OpenAI's
// {"error": {"message", "type", "param", "code"}}, Anthropic's
// {"type": "error", "error": {"type", "message"}}, a server's
// {"error": "text"} or {"message": "text"}, or plain text.
type apiError struct {
	Status  int
	Message string
	Param   string
}

func (e *apiError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// Bounds on what a server's answer may make the client read: an error body
// is only shown (truncated), an answer is decoded as it streams. A batch of
// 2,048 embeddings of 3,072 dimensions is about 130 MB of JSON.
const (
	maxErrorBody  = 64 << 10
	maxAnswerBody = 1 << 30
)

// post sends body as JSON to ep.base+path and decodes a 2xx answer into
// out. It stores the HTTP response (its body closed) in *httpResp as soon as
// there is one, so retries can read its status and Retry-After headers. An
// error status is an *apiError; an answer that is not the JSON expected is
// a malformedError; a transport failure or timeout is returned as it is.
func (ep endpoint) post(ctx context.Context, path string, body, out any, httpResp **http.Response) error {
	buf, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.base+path, bytes.NewReader(buf))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "lasagna")
	if ep.key != "" {
		req.Header.Set("Authorization", "Bearer "+ep.key)
	}
	resp, err := ep.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	*httpResp = resp
	if resp.StatusCode >= 300 {
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && len(raw) == 0 && (ctx.Err() != nil || isNetTimeout(err)) {
			return err
		}
		return &apiError{Status: resp.StatusCode, Message: errorMessage(raw), Param: errorParam(raw)}
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBody))
	if err := dec.Decode(out); err != nil {
		if ctx.Err() != nil || isNetTimeout(err) {
			return err
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ):
			return errMalformed(fmt.Sprintf("the answer is not the JSON expected: field %q is a JSON %s", typ.Field, typ.Value))
		case errors.As(err, &syn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return errMalformed("the answer is not complete JSON: " + err.Error())
		}
		return errMalformed("the answer could not be read: " + err.Error())
	}
	return nil
}

// wireError is the error object of the usual error bodies.
type wireError struct {
	Message string `json:"message"`
	Param   string `json:"param"`
}

// errorMessage is the message of an error body, or its text when it is not
// one of the JSON forms apiError names.
func errorMessage(raw []byte) string {
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		var e wireError
		var s string
		switch {
		case json.Unmarshal(obj.Error, &e) == nil && e.Message != "":
			return e.Message
		case json.Unmarshal(obj.Error, &s) == nil && s != "":
			return s
		case obj.Message != "":
			return obj.Message
		}
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(raw), "\uFFFD"))
}

// errorParam is the "param" of an OpenAI error body, "" when none.
func errorParam(raw []byte) string {
	var obj struct {
		Error struct {
			Param *string `json:"param"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &obj) != nil || obj.Error.Param == nil {
		return ""
	}
	return *obj.Error.Param
}
