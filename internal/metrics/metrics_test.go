package metrics

import "testing"

func TestReadPerKind(t *testing.T) {
	texts := map[string]string{
		"llama.cpp": "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 2\n# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total 40\n",
		"vllm":      "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 1\nvllm:num_requests_running{engine=\"1\",model_name=\"m\"} 1\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 0\n",
		"sglang":    "# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{model_name=\"m\"} 2\n",
	}
	for kind, text := range texts {
		n, ok := For(kind)
		if !ok {
			t.Fatalf("%s: no names", kind)
		}
		s, err := Read([]byte(text), n)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if s.Running == nil || *s.Running != 2 {
			t.Errorf("%s: running %v, want 2 (summed over series)", kind, s.Running)
		}
	}
	if _, ok := For("ollama"); ok {
		t.Error("ollama has no metrics, yet For found names")
	}
	if _, err := Read([]byte("not { prometheus"), Names{}); err == nil {
		t.Error("broken text read without an error")
	}
}
