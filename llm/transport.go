package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// The two OpenAI-compatible calls the package makes, POST /chat/completions
// and POST /embeddings, go through OpenAI's Go SDK, openai-go: its
// ChatCompletionService.New and EmbeddingService.New build, send and decode
// them. The SDK is the transport only. Its own retries are off
// (option.WithMaxRetries(0), applied after every other option), so each SDK
// call is one HTTP attempt, and what happens between attempts stays this
// package's: the retry policy and backoff, Retry-After, the rate limiters
// and concurrency cap, the temperature rule, the cache, key redaction and
// usage accounting (Client.do). Errors are classified here from the HTTP
// status and headers of the attempt (the SDK's *openai.Error and the
// *http.Response it hands back), never from the SDK's error strings, and no
// SDK error value is kept in an *Error: it holds the request, whose
// Authorization header carries the key.
//
// The SDK is built without its environment defaults (openai.NewClient
// would read OPENAI_API_KEY and OPENAI_BASE_URL by itself): the package reads
// no environment variable (see ConfigFromEnv).

// endpoint is one API root with its key: an SDK service for each call, and
// the caller's extra SDK options, applied to every request after the
// client's own.
type endpoint struct {
	chats openai.ChatCompletionService
	embs  openai.EmbeddingService
	opts  []option.RequestOption
}

// newEndpoint returns the endpoint for the API root base ("…/v1", no
// trailing slash). The client's options form the services' inherited layer
// and user's are applied per request, so a user option overrides them as
// it would override openai.NewClient's (azure.WithAPIKey, say, replaces the
// bearer key).
func newEndpoint(base, key string, hc *http.Client, user []option.RequestOption) endpoint {
	own := []option.RequestOption{option.WithBaseURL(base + "/"), option.WithHTTPClient(hc)}
	if key != "" {
		own = append(own, option.WithAPIKey(key))
	}
	return endpoint{
		chats: openai.NewChatCompletionService(own...),
		embs:  openai.NewEmbeddingService(own...),
		opts:  user,
	}
}

// attemptOptions are the per-request options of one attempt: the user's,
// then the ones no user option may undo: one attempt (the retries are
// Client.do's) and the HTTP response handed back, for its status and
// Retry-After headers.
func (ep endpoint) attemptOptions(httpResp **http.Response) []option.RequestOption {
	opts := make([]option.RequestOption, 0, len(ep.opts)+2)
	opts = append(opts, ep.opts...)
	return append(opts, option.WithMaxRetries(0), option.WithResponseInto(httpResp))
}

// chatParams builds the SDK's request for one chat attempt, as OpenAI's
// documentation builds it: temperature only when sendTemp, the answer cap
// only when positive.
func chatParams(req ChatRequest, model string, maxTokens int, sendTemp bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		default: // "" and "user"; Chat refuses any other role
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	if sendTemp {
		p.Temperature = openai.Float(0)
	}
	if maxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(int64(maxTokens))
	}
	if req.JSON {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	return p
}

// chatAnswer is what one chat attempt returned.
type chatAnswer struct {
	content string
	model   string
	usage   Usage
}

// chat makes one chat attempt.
func (ep endpoint) chat(ctx context.Context, params openai.ChatCompletionNewParams, httpResp **http.Response) (chatAnswer, error) {
	out, err := ep.chats.New(ctx, params, ep.attemptOptions(httpResp)...)
	if err != nil {
		return chatAnswer{}, attemptError(err, *httpResp)
	}
	if out == nil || len(out.Choices) == 0 {
		return chatAnswer{}, errMalformed("the response has no choices")
	}
	msg := out.Choices[0].Message
	if raw := msg.JSON.Content.Raw(); !msg.JSON.Content.Valid() || !strings.HasPrefix(raw, `"`) {
		// Absent, null (a refusal or a tool call) or not a string (the
		// SDK would read 42 as "42").
		if msg.Refusal != "" {
			return chatAnswer{}, errMalformed("the model refused: " + truncate(msg.Refusal, 200))
		}
		return chatAnswer{}, errMalformed("the response's first choice has no content")
	}
	u := out.Usage
	return chatAnswer{content: msg.Content, model: out.Model, usage: Usage{u.PromptTokens, u.CompletionTokens, u.TotalTokens}}, nil
}

// embedAnswer is what one embeddings attempt returned.
type embedAnswer struct {
	vectors [][]float32
	model   string
	usage   Usage
}

// embed makes one embeddings attempt for texts and checks the answer: one
// non-empty vector per text, each index once.
func (ep endpoint) embed(ctx context.Context, texts []string, model string, httpResp **http.Response) (embedAnswer, error) {
	out, err := ep.embs.New(ctx, openai.EmbeddingNewParams{
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		Model:          openai.EmbeddingModel(model),
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}, ep.attemptOptions(httpResp)...)
	if err != nil {
		return embedAnswer{}, attemptError(err, *httpResp)
	}
	if out == nil || len(out.Data) != len(texts) {
		n := 0
		if out != nil {
			n = len(out.Data)
		}
		return embedAnswer{}, errMalformed(fmt.Sprintf("%d embeddings for %d inputs", n, len(texts)))
	}
	vecs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) || vecs[d.Index] != nil {
			return embedAnswer{}, errMalformed(fmt.Sprintf("embedding index %d is out of range or repeated", d.Index))
		}
		if len(d.Embedding) == 0 {
			return embedAnswer{}, errMalformed(fmt.Sprintf("embedding %d is empty", d.Index))
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		vecs[d.Index] = v
	}
	return embedAnswer{vectors: vecs, model: out.Model, usage: Usage{out.Usage.PromptTokens, 0, out.Usage.TotalTokens}}, nil
}

// apiError is an HTTP error status with what its body said: OpenAI's
// {"error": {"message", "type", "param", "code"}} (the SDK's *openai.Error),
// Anthropic's {"type": "error", "error": {"type", "message"}}, a server's
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

// setupError is an SDK error raised before any request went out: an SDK
// option that cannot apply (a malformed base URL, azure.WithAPIKey without
// azure.WithEndpoint, …). Retrying cannot help.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// maxErrorBody bounds what of an error body is read; it is only shown,
// truncated.
const maxErrorBody = 64 << 10

// attemptError turns the SDK's error for one attempt into what classify
// reads: an *apiError for an HTTP error status (from the *openai.Error, or
// from the body when the SDK could not read it as OpenAI's error object), a
// malformedError for a 2xx answer the SDK could not decode, a setupError
// for a failure before any request, and a transport failure or timeout as
// it is.
func attemptError(err error, resp *http.Response) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || isNetTimeout(err) {
		return err
	}
	if resp == nil {
		var ue *url.Error
		var ne net.Error
		if errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		return &setupError{err}
	}
	if resp.StatusCode >= 300 {
		ae := &apiError{Status: resp.StatusCode}
		var oe *openai.Error
		if errors.As(err, &oe) {
			ae.Message, ae.Param = oe.Message, oe.Param
		}
		if ae.Message == "" || ae.Param == "" {
			// The SDK put the body it read back into the response.
			var raw []byte
			if resp.Body != nil {
				raw, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			}
			if ae.Message == "" {
				ae.Message = errorMessage(raw)
			}
			if ae.Param == "" {
				ae.Param = errorParam(raw)
			}
		}
		return ae
	}
	// A 2xx answer the SDK could not read: not JSON, cut short, or not
	// the content type it expects.
	return errMalformed("the answer is not the JSON expected: " + err.Error())
}

// errorMessage is the message of an error body, or its text when it is not
// one of the JSON forms apiError names.
func errorMessage(raw []byte) string {
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		var e struct {
			Message string `json:"message"`
		}
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
