package synth

import (
	"regexp"
	"strings"
)

// chatTemplate is ChatML. Its first line is a comment naming the model:
// llama-server shows the template in /props, which is how a lab run tells
// that it measured a synthetic model (see NameFromTemplate). The prompt
// ends with "assistant" and a newline; the newline is a byte token, which
// leads to the first piece of the script.
func chatTemplate(name string) string {
	return strings.Join([]string{
		"{#- " + markerPrefix + name + ": every answer is a scripted text, whatever the prompt -#}",
		"{%- for message in messages -%}",
		"  {{- '" + imStart + "' + message.role + '\\n' + message.content + '" + imEnd + "\\n' -}}",
		"{%- endfor -%}",
		"{%- if add_generation_prompt -%}",
		"  {{- '" + imStart + "assistant\\n' -}}",
		"{%- endif -%}",
	}, "\n")
}

const markerPrefix = "ttftlab synthetic model "

var markerRE = regexp.MustCompile(regexp.QuoteMeta(markerPrefix) + `([^\s:]+):`)

// NameFromTemplate returns the synthetic model's name from a chat template
// (as /props reports it), or "" when the template is not one of ours.
func NameFromTemplate(tmpl string) string {
	m := markerRE.FindStringSubmatch(tmpl)
	if m == nil {
		return ""
	}
	return m[1]
}
