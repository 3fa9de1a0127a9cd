// Package gguf writes GGUF version 3 files, the model format llama.cpp
// loads: a header, typed metadata key/value pairs, tensor descriptions, then
// the tensor data, each tensor aligned. It only writes; ttftlab never needs
// to read a model.
//
// Tensors are produced row by row (a row is the innermost dimension), so a
// file of hundreds of megabytes streams to disk without being held in
// memory. Rows are given as float32 and encoded as F32, F16 or Q4_0.
package gguf
