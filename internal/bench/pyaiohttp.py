#!/usr/bin/env python3
"""The peers' client as vLLM's `bench serve` reads a stream, for comparison
with ttftlab's load engine: one aiohttp.ClientSession shared by every
request, `async for line in response.content`, time.perf_counter() taken
before json.loads (Debian's python3-aiohttp: run it with /usr/bin/python3).

  pyaiohttp.py URL STREAMS CHUNKS OUT_FILE

Opens STREAMS streams at once, reads each to its end, and writes to
OUT_FILE a first line "#phase cpu_s=... wall_s=..." (getrusage(RUSAGE_SELF)
user + system time and the wall time of the streaming phase: from just
before the first request is started to just after the last stream ended,
so the interpreter's start, its imports and the writing of this file are
not in it), then one line per content chunk: the chunk's text (its send
time in CLOCK_MONOTONIC ns, from loadbench's server) and its arrival in ns,
time.perf_counter(), which is CLOCK_MONOTONIC on Linux.
"""
import asyncio
import json
import resource
import sys
import time

import aiohttp


async def one(session, url, chunks, out):
    payload = {"messages": [{"role": "user", "content": "x"}], "stream": True, "max_tokens": chunks}
    async with session.post(url=url, json=payload) as response:
        if response.status != 200:
            raise RuntimeError(f"status {response.status}")
        async for chunk_bytes in response.content:
            chunk_bytes = chunk_bytes.strip()
            if not chunk_bytes:
                continue
            chunk_bytes = chunk_bytes.decode("utf-8")
            if chunk_bytes.startswith(":"):
                continue
            chunk = chunk_bytes.removeprefix("data: ")
            if chunk == "[DONE]":
                continue
            timestamp = time.perf_counter()
            data = json.loads(chunk)
            if choices := data.get("choices"):
                content = choices[0]["delta"].get("content")
                if content:
                    out.append((content, timestamp))


async def main():
    url, streams, chunks, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    url = url.rstrip("/") + "/v1/chat/completions"
    out = []
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        ru0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        await asyncio.gather(*(one(session, url, chunks, out) for _ in range(streams)))
        ru1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    with open(path, "w") as f:
        f.write(f"#phase cpu_s={cpu:.6f} wall_s={t1 - t0:.6f}\n")
        f.write("\n".join(f"{text} {int(at * 1e9)}" for text, at in out))


asyncio.run(main())
