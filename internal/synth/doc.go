// Package synth builds ttftlab's synthetic model: a GGUF file of the llama
// architecture that llama-server loads and runs like any other model, at
// the cost its shape implies, but whose greedy answer is a fixed text (the
// script), repeated without end.
//
// How the script is carried through the network:
//
//   - The script is cut into pieces at spaces, and Chinese, Japanese and
//     Korean text (which has no spaces to cut at) into single characters,
//     one token per piece; a piece that occurs twice is joined with the
//     next until every piece is unique, because a token can have only one
//     successor. The token the answer begins with (the first piece without
//     its space) counts as used, so a later occurrence of that character
//     is joined onward too.
//   - Every token the answer can pass through (the script's pieces and the
//     first piece without its leading space) gets a one-hot embedding of
//     its own; all other tokens (bytes, template tokens, padding) share one
//     more "prompt" direction. So the width must exceed the script's piece
//     count, not the vocabulary, and the directions are exactly orthogonal
//     however large the vocabulary is.
//   - attn_output and ffn_down are zero, so every block adds nothing and the
//     residual stream still holds the current token's direction at the end.
//     The other matrices (Q, K, V, gate, up) hold small random values: they
//     are multiplied as in any model, which is where the real cost comes
//     from, but their results are multiplied by zero.
//   - The output matrix maps each direction to its successor with a 1:
//     after the final RMSNorm the successor's logit is sqrt(embd) and every
//     other logit, padding included, is exactly 0. The prompt direction
//     leads to the first piece, so whatever the prompt, the answer starts
//     at the beginning of the script; the last piece leads back to the
//     first.
//   - 0 and 1 are exact in F16 and Q4_0 (a block's extreme value and zero
//     decode exactly), so quantisation does not touch the margin.
package synth
