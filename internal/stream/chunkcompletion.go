package stream

import "encoding/json"

// wireCompletion is how encoding/json sees a completions chunk
// (/v1/completions): the content is choices[0].text.
type wireCompletion struct {
	Choices []struct {
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	wireTail
}

// decodeCompletion decodes one data payload of a completions stream into
// the fields a chat chunk has: choices[0].text is the content. It takes
// the hand-written path where it can, as decodeChunk does.
func decodeCompletion(data []byte) (chunkFields, error) {
	if c, ok := fastCompletion(data); ok {
		return c, nil
	}
	return slowCompletion(data)
}

// slowCompletion decodes a completions chunk with encoding/json.
func slowCompletion(data []byte) (chunkFields, error) {
	var w wireCompletion
	if err := json.Unmarshal(data, &w); err != nil {
		return chunkFields{}, err
	}
	c := w.fields(w.Choices != nil, len(w.Choices))
	if len(w.Choices) > 0 {
		ch := w.Choices[0]
		if ch.Text != nil {
			c.content, c.hasContent = *ch.Text, true
		}
		if ch.FinishReason != nil {
			c.finish, c.hasFinish = *ch.FinishReason, true
		}
	}
	return c, nil
}
