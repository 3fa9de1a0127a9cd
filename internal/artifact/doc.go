// Package artifact holds one record type per artifact file ttftlab
// writes (the lab's step files, load.json, requests.jsonl, server.jsonl),
// shared by the writers and by every reader (check, rundir, report), so a
// field is named, typed and documented once.
//
// Numbers in these records are always finite: a figure that has no value
// (a percentile over zero samples) is null, never Inf or NaN, and every
// distribution says how many samples it is over.
package artifact
