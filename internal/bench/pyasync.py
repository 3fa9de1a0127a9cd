#!/usr/bin/env python3
"""The peers' client design, for comparison with ttftlab's load engine:
one asyncio event loop, one coroutine per stream, readline(), a clock read
right after it (as vLLM's, AIPerf's and guidellm's clients read streams,
here without aiohttp: pyaiohttp.py is the same with it).

  pyasync.py URL STREAMS CHUNKS OUT_FILE

Opens STREAMS streams at once, reads each to its end, and writes to
OUT_FILE a first line "#phase cpu_s=... wall_s=..." (getrusage(RUSAGE_SELF)
user + system time and the wall time of the streaming phase: from just
before the first connection is opened to just after the last stream ended,
so the interpreter's start, its imports and the writing of this file are
not in it), then one line per content chunk: the chunk's text (its send time in
CLOCK_MONOTONIC ns, from loadbench's server) and its arrival,
time.monotonic_ns(), the same clock.
"""
import asyncio
import json
import resource
import sys
import time
import urllib.parse

BODY = json.dumps({"messages": [{"role": "user", "content": "x"}], "stream": True}).encode()


async def one(host, port, path, chunks, out):
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    writer.write(
        b"POST " + path.encode() + b" HTTP/1.1\r\nHost: " + host.encode() +
        b"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
        str(len(BODY)).encode() + b"\r\n\r\n" + BODY)
    await writer.drain()
    while True:  # headers
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
    while True:
        line = await reader.readline()
        at = time.monotonic_ns()
        if not line:
            break
        if not line.startswith(b"data: {"):
            continue
        delta = json.loads(line[6:])["choices"][0]["delta"]
        text = delta.get("content")
        if text:
            out.append(f"{text} {at}")
    writer.close()


async def main():
    url, streams, chunks, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    u = urllib.parse.urlsplit(url)
    out = []
    ru0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    await asyncio.gather(*(one(u.hostname, u.port, "/v1/chat/completions", chunks, out) for _ in range(streams)))
    ru1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    with open(path, "w") as f:
        f.write(f"#phase cpu_s={cpu:.6f} wall_s={t1 - t0:.6f}\n")
        f.write("\n".join(out))


asyncio.run(main())
