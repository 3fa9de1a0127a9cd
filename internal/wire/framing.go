package wire

import (
	"errors"
	"io"
	"net/http"
)

// framing cuts the body out of the bytes that follow a response head:
// chunked transfer coding, a Content-Length, or everything up to the close.
// It never copies: the body comes back as slices of the reads, so every
// byte keeps the stamp of the read that brought it.
type Framing struct {
	mode  frameMode
	left  int64 // bytes left: of the body (frameLength) or of the chunk (frameChunked)
	state chunkState
	size  int64 // the chunk size being read
	line  int   // bytes of the framing line being read
	blank bool  // the trailer line being read is so far empty
	done  bool
}

type frameMode uint8

const (
	frameClose frameMode = iota
	frameLength
	frameChunked
)

type chunkState uint8

const (
	chunkSize    chunkState = iota // hex digits of a chunk size
	chunkExt                       // a chunk extension, up to LF
	chunkSizeLF                    // the LF after a size line's CR
	chunkData                      // chunk data
	chunkDataCR                    // the CR after chunk data
	chunkDataLF                    // the LF after chunk data
	chunkTrailer                   // trailer lines after the last chunk
)

// maxChunkLine bounds a chunk size line with its extensions, as net/http
// bounds it.
const maxChunkLine = 4096

// Errors of broken chunked framing, worded as net/http's.
var (
	errMalformedChunk = errors.New("malformed chunked encoding")
	errChunkLength    = errors.New("invalid byte in chunk length")
	errChunkTooLarge  = errors.New("http chunk length too large")
	errChunkLine      = errors.New("chunked encoding: line too long")
)

// newFraming reads the framing of a response's body as net/http does.
func NewFraming(resp *http.Response) *Framing {
	switch {
	case len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked":
		return &Framing{mode: frameChunked}
	case resp.ContentLength >= 0:
		return &Framing{mode: frameLength, left: resp.ContentLength, done: resp.ContentLength == 0}
	}
	return &Framing{mode: frameClose}
}

// body appends to out the body bytes of one read (slices of data) and
// returns io.EOF once the body is complete (bytes after it are ignored) or
// an error for broken framing.
func (f *Framing) Body(data []byte, out [][]byte) ([][]byte, error) {
	if f.done {
		return out, io.EOF
	}
	switch f.mode {
	case frameClose:
		if len(data) > 0 {
			out = append(out, data)
		}
		return out, nil
	case frameLength:
		n := int(min(int64(len(data)), f.left))
		if n > 0 {
			out = append(out, data[:n])
		}
		if f.left -= int64(n); f.left == 0 {
			f.done = true
			return out, io.EOF
		}
		return out, nil
	}
	return f.chunked(data, out)
}

// end is the body's outcome when the connection ends: io.EOF where the
// body may end, io.ErrUnexpectedEOF inside it (net/http's errors).
func (f *Framing) End() error {
	if f.done || f.mode == frameClose {
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

// chunked walks the chunked coding through data.
func (f *Framing) chunked(data []byte, out [][]byte) ([][]byte, error) {
	for i := 0; i < len(data); {
		if f.state == chunkData {
			n := int(min(int64(len(data)-i), f.left))
			out = append(out, data[i:i+n])
			i += n
			if f.left -= int64(n); f.left == 0 {
				f.state = chunkDataCR
			}
			continue
		}
		if err := f.framingByte(data[i]); err != nil {
			return out, err
		}
		i++
		if f.done {
			return out, io.EOF
		}
	}
	return out, nil
}

// framingByte takes one byte of a size line, a data terminator or a
// trailer.
func (f *Framing) framingByte(c byte) error {
	if f.state == chunkSize || f.state == chunkExt {
		if f.line++; f.line > maxChunkLine {
			return errChunkLine
		}
	}
	switch f.state {
	case chunkSize:
		return f.sizeByte(c)
	case chunkExt:
		if c == '\n' {
			return f.sizeDone()
		}
	case chunkSizeLF:
		if c != '\n' {
			return errMalformedChunk
		}
		return f.sizeDone()
	case chunkDataCR:
		if c != '\r' {
			return errMalformedChunk
		}
		f.state = chunkDataLF
	case chunkDataLF:
		if c != '\n' {
			return errMalformedChunk
		}
		f.state, f.size, f.line = chunkSize, 0, 0
	case chunkTrailer:
		switch {
		case c == '\n' && f.blank:
			f.done = true
		case c == '\n':
			f.blank = true
		case c != '\r':
			f.blank = false
		}
	}
	return nil
}

// sizeByte takes one byte of a chunk size.
func (f *Framing) sizeByte(c byte) error {
	var v byte
	switch {
	case '0' <= c && c <= '9':
		v = c - '0'
	case 'a' <= c && c <= 'f':
		v = c - 'a' + 10
	case 'A' <= c && c <= 'F':
		v = c - 'A' + 10
	case f.line > 1 && (c == ';' || c == ' ' || c == '\t'):
		f.state = chunkExt
		return nil
	case f.line > 1 && c == '\r':
		f.state = chunkSizeLF
		return nil
	case f.line > 1 && c == '\n':
		return f.sizeDone()
	default:
		return errChunkLength
	}
	if f.size >= 1<<40 {
		return errChunkTooLarge
	}
	f.size = f.size<<4 | int64(v)
	return nil
}

// sizeDone starts the chunk whose size line just ended; size 0 is the last
// chunk, followed by trailers and a blank line.
func (f *Framing) sizeDone() error {
	if f.size == 0 {
		f.state, f.blank = chunkTrailer, true
		return nil
	}
	f.state, f.left = chunkData, f.size
	return nil
}
