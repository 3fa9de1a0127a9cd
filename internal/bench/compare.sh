#!/bin/sh
# Reproduces every figure in BENCHMARKS.md in one run: the calibration
# schedules with ttftlab (through Lua, and from Go without a callback), the
# Python reference client, the plain Go client and the blocking-read floor
# side by side, first on the machine as it is, then contended by one
# process spinning on the CPU; the 1,000,000-chunk memory runs; TTFT minus
# the server's prompt_ms against the real llama-server; many streams at
# once (loadbench, every client in a process of its own); the Go
# benchmarks.
#
#   internal/bench/compare.sh [OUT_DIR]        (default /tmp/ttftlab-bench)
#
# With TTFTLAB_BEFORE=/path/to/an/older/ttftlab it also runs the quiet
# calibration with that binary, so a change is compared in the same
# machine state.
#
# Run it on a quiet machine: the load average is printed before and after
# each part, and other work shifts every figure.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-/tmp/ttftlab-bench}
mkdir -p "$out"
model=${TTFTLAB_MODEL:-../shared/models/stories260K.gguf}

go build -o "$out/ttftlab" .
go build -o "$out/naiveclient" ./internal/bench/naiveclient
go build -o "$out/floorclient" ./internal/bench/floorclient
python="python=python3 internal/bench/pyclient.py"
naive="naive-go=$out/naiveclient"
floor="floor=$out/floorclient"

echo "== load before: $(cat /proc/loadavg)"
echo "== calibrate: every schedule, five clients, quiet"
"$out/ttftlab" calibrate --go-client --out "$out/calibrate.json" --stamps "$out/send-stamps.tsv" \
	--client "$python" --client "$naive" --client "$floor" | tee "$out/calibrate.txt"
echo "== load between: $(cat /proc/loadavg)"
echo "== calibrate: every schedule, five clients, contended by one spinning process"
"$out/ttftlab" calibrate --contend 1 --go-client --out "$out/calibrate-contended.json" --stamps "$out/send-stamps-contended.tsv" \
	--client "$python" --client "$naive" --client "$floor" | tee "$out/calibrate-contended.txt"
echo "== load after the calibration: $(cat /proc/loadavg)"

echo "== the ways of reading, contended by one spinning process, 20,000 chunks/s"
for opts in "--wire auto" "--wire auto --kernel-stamps=false" "--wire thread" "--wire thread --kernel-stamps=false" "--wire go-netpoll"; do
	name=$(echo "$opts" | tr -d ' -' | tr '=' '-')
	echo "-- $opts, load $(cat /proc/loadavg)"
	# shellcheck disable=SC2086
	"$out/ttftlab" calibrate --contend 1 --go-client $opts --rate 20000 --chunks 40000 \
		--out "$out/wire-$name.json" --client "$floor" | tee "$out/wire-$name.txt"
done

if [ -n "${TTFTLAB_BEFORE:-}" ]; then
	echo "== before: $TTFTLAB_BEFORE, every schedule, quiet, load $(cat /proc/loadavg)"
	"$TTFTLAB_BEFORE" calibrate --out "$out/before.json" --client "$floor" | tee "$out/before.txt"
fi

echo "== memory: 1,000,000 chunks, keep_chunks=false, then true"
"$out/ttftlab" calibrate --rate 0 --chunks 1000000 --keep-chunks=false --out "$out/memory-nokeep.json" | tee "$out/memory-nokeep.txt"
"$out/ttftlab" calibrate --rate 0 --chunks 1000000 --out "$out/memory-keep.json" | tee "$out/memory-keep.txt"

echo "== TTFT - prompt_ms against llama-server ($model)"
go run ./internal/bench/overhead --model "$model" --runs 40 --client "$python" --client "$naive" \
	--out "$out/overhead.json" | tee "$out/overhead.txt"

echo "== many streams at once: stream_many against the least a Go client can do, Python asyncio and aiohttp (vLLM's bench design), alternating"
go build -o "$out/loadbench" ./internal/bench/loadbench
ulimit -n 8192
for spin in 0 1; do
	"$out/loadbench" run --contend $spin --rounds 3 --streams 256 --rate 50 --chunks 100 | tee -a "$out/load-256-contend$spin.txt"
	"$out/loadbench" run --contend $spin --rounds 3 --streams 2000 --rate 50 --chunks 100 | tee -a "$out/load-2000-contend$spin.txt"
done
if command -v perf >/dev/null; then
	echo "== system calls per chunk of every many-stream client"
	internal/bench/syscalls.sh 256 50 100 | tee "$out/syscalls-256.txt"
	internal/bench/syscalls.sh 2000 50 100 | tee "$out/syscalls-2000.txt"
fi

echo "== Go benchmarks"
go test -run '^$' -bench . -benchmem ./internal/sse ./internal/stream ./runtime ./internal/monoclock | tee "$out/bench.txt"
echo "== load after: $(cat /proc/loadavg)"
