// Package calibrate measures how close a streaming client's arrival stamps
// are to the wire. A loopback server sends llama-server-shaped chunks on a
// known schedule and stamps every write with CLOCK_MONOTONIC; clients
// stamp every chunk on the same clock; the difference (arrival minus
// send) is the client's stamp error. ttftlab itself is measured through
// the runtime's stream() binding with a Lua on_chunk callback, the code
// path every lab script uses, together with its CPU time, allocations and
// heap per chunk. Other clients are programs that write their own arrival
// stamps to a file.
package calibrate
