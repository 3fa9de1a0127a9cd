package stream

import (
	"encoding/json"
)

// chunkFields is the part of a chat.completion.chunk the measurements need.
type chunkFields struct {
	// hasChoices is false when "choices" is missing or null; nChoices
	// counts its items.
	hasChoices bool
	nChoices   int
	// content is choices[0].delta.content; hasContent is false when it is
	// missing or null.
	content    string
	hasContent bool
	// finish is choices[0].finish_reason; hasFinish is false when it is
	// missing or null.
	finish    string
	hasFinish bool
	timings   map[string]any
	usage     map[string]any
	errRaw    json.RawMessage
	// reasoning is choices[0].delta's reasoning_content (llama-server) or
	// else reasoning (vLLM, Ollama); toolCalls is true when its tool_calls
	// is a non-empty array; progress when the chunk is a prompt_progress
	// one.
	reasoning string
	toolCalls bool
	progress  bool
}

// wireChunk is how encoding/json sees a chunk.
type wireChunk struct {
	// Choices is nil when the member is missing or null, empty for [].
	Choices []struct {
		Delta struct {
			Content          *string           `json:"content"`
			ReasoningContent *string           `json:"reasoning_content"`
			Reasoning        *string           `json:"reasoning"`
			ToolCalls        []json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	wireTail
}

// wireTail is what a chat chunk and a completions chunk have alike
// beside their choices.
type wireTail struct {
	Timings        map[string]any  `json:"timings"`
	Usage          map[string]any  `json:"usage"`
	Error          json.RawMessage `json:"error"`
	PromptProgress json.RawMessage `json:"prompt_progress"`
}

// fields are the chunk's fields of the tail, with how many choices it had
// (nil: the member was missing or null).
func (w wireTail) fields(hasChoices bool, n int) chunkFields {
	return chunkFields{
		hasChoices: hasChoices,
		nChoices:   n,
		timings:    w.Timings,
		usage:      w.Usage,
		errRaw:     w.Error,
		progress:   len(w.PromptProgress) > 0 && string(w.PromptProgress) != "null",
	}
}

// decodeChunk decodes one data payload. Content chunks in llama-server's
// shape take a hand-written path that allocates only the content string
// (encoding/json costs about a dozen allocations and reflection per chunk,
// at tens of thousands of chunks per second); everything else, including
// every malformed payload, goes through encoding/json, so results and
// errors are exactly encoding/json's.
func decodeChunk(data []byte) (chunkFields, error) {
	if c, ok := fastChunk(data); ok {
		return c, nil
	}
	return slowChunk(data)
}

// slowChunk decodes with encoding/json.
func slowChunk(data []byte) (chunkFields, error) {
	var w wireChunk
	if err := json.Unmarshal(data, &w); err != nil {
		return chunkFields{}, err
	}
	c := w.fields(w.Choices != nil, len(w.Choices))
	if len(w.Choices) > 0 {
		ch := w.Choices[0]
		if ch.Delta.Content != nil {
			c.content, c.hasContent = *ch.Delta.Content, true
		}
		for _, r := range []*string{ch.Delta.ReasoningContent, ch.Delta.Reasoning} {
			if r != nil && *r != "" && c.reasoning == "" {
				c.reasoning = *r
			}
		}
		c.toolCalls = len(ch.Delta.ToolCalls) > 0
		if ch.FinishReason != nil {
			c.finish, c.hasFinish = *ch.FinishReason, true
		}
	}
	return c, nil
}
