#!/usr/bin/env python3
"""The reference Python client: http.client, resp.readline() and
time.perf_counter(), the way a learner measures a stream.

  pyclient.py URL ARRIVALS_FILE
      Calibration mode (run by `ttftlab calibrate --client`): one request,
      then one line per content chunk in ARRIVALS_FILE: the chunk's index
      (from 1) and its perf_counter stamp in nanoseconds. On Linux
      perf_counter is CLOCK_MONOTONIC, the clock of the server's send
      stamps.

  pyclient.py --ttft URL BODY_JSON
      Sends BODY_JSON (a chat-completion request with "stream": true) and
      prints one JSON line: ttft_ms (first content chunk, from just before
      the request is sent), total_ms and the server's timings.

The stamp is taken right after readline() returns, before the line is
decoded, which is the best this style of client can do.
"""
import http.client
import json
import sys
import time
import urllib.parse

BODY = {
    "messages": [{"role": "user", "content": "Tell me a story."}],
    "stream": True,
    "max_tokens": 64,
    "temperature": 0,
    "seed": 7,
    "cache_prompt": False,
}


def open_stream(url, body):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=60)
    data = json.dumps(body).encode()
    conn.connect()  # t0 excludes the connect, as ttftlab's does
    t0 = time.perf_counter_ns()
    conn.request("POST", "/v1/chat/completions", body=data,
                 headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
    resp = conn.getresponse()
    if resp.status != 200:
        sys.exit(f"pyclient: {url}: HTTP {resp.status}: {resp.read(500)!r}")
    return conn, resp, t0


def chunks(resp):
    """Yields (stamp_ns, decoded chunk) per data event, stamping each line
    as readline returns it."""
    while True:
        line = resp.readline()
        t = time.perf_counter_ns()
        if not line:
            sys.exit("pyclient: the stream ended without data: [DONE]")
        if not line.startswith(b"data: "):
            continue
        payload = line[6:].strip()
        if payload == b"[DONE]":
            return
        yield t, json.loads(payload)


def content(chunk):
    choices = chunk.get("choices") or []
    if not choices:
        return None
    return (choices[0].get("delta") or {}).get("content")


def calibrate(url, out_path):
    info = time.get_clock_info("perf_counter")
    if "CLOCK_MONOTONIC" not in info.implementation:
        sys.exit(f"pyclient: perf_counter is {info.implementation}, not CLOCK_MONOTONIC; stamps would not compare")
    conn, resp, _ = open_stream(url, BODY)
    stamps = []
    for t, chunk in chunks(resp):
        if content(chunk):
            stamps.append(t)
    conn.close()
    with open(out_path, "w") as f:
        f.write("# pyclient arrivals: chunk index, perf_counter ns (CLOCK_MONOTONIC)\n")
        for i, t in enumerate(stamps, 1):
            f.write(f"{i}\t{t}\n")


def ttft(url, body):
    conn, resp, t0 = open_stream(url, body)
    first, last, timings = None, None, None
    for t, chunk in chunks(resp):
        last = t
        if first is None and content(chunk):
            first = t
        if chunk.get("timings"):
            timings = chunk["timings"]
    conn.close()
    ms = lambda t: None if t is None else (t - t0) / 1e6
    print(json.dumps({"ttft_ms": ms(first), "total_ms": ms(last), "timings": timings}))


def main(argv):
    if len(argv) == 3 and argv[0] == "--ttft":
        ttft(argv[1], json.loads(argv[2]))
    elif len(argv) == 2:
        calibrate(argv[0], argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
