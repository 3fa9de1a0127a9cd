#!/bin/sh
# System calls per chunk of every loadbench client, counted by the
# kernel's tracepoints (perf stat, which does not slow the client as
# strace does): each client runs once, in a process of its own, against
# the same paced server, and its counts over the whole process (start-up
# included) are divided by the chunks it received.
#
#   internal/bench/syscalls.sh [STREAMS] [RATE] [CHUNKS]     (default 256 50 100)
#
# With BEFORE=PATH (a loadbench built before a change), that build's ttftlab
# client runs too, as ttftlab-before, right after the current one. CLIENTS
# (e.g. "ttftlab ttftlab-before") picks the clients to run.
#
# Needs perf (apt-get install -y linux-perf) and, for the aiohttp client,
# Debian's python3-aiohttp under /usr/bin/python3.
set -eu
cd "$(dirname "$0")/../.."
streams=${1:-256}
rate=${2:-50}
chunks=${3:-100}
out=$(mktemp -d)
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$out"' EXIT
go build -o "$out/loadbench" ./internal/bench/loadbench
ulimit -n 8192
"$out/loadbench" serve --rate "$rate" --chunks "$chunks" >"$out/url" &
server=$!
while [ ! -s "$out/url" ]; do sleep 0.1; done
url=$(cat "$out/url")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
events=raw_syscalls:sys_enter
for s in recvfrom recvmsg read write epoll_wait epoll_pwait futex mmap munmap mremap nanosleep; do
	events="$events,syscalls:sys_enter_$s"
done
echo "$streams streams x $chunks chunks at $rate/s; load $(cat /proc/loadavg)"
printf '%-14s %9s' client chunks
for e in all recvfrom recvmsg read write epoll_wait epoll_pwait futex mmap munmap mremap nanosleep; do printf ' %11s' "$e"; done
echo
clients="ttftlab least asyncio aiohttp"
[ -z "${BEFORE:-}" ] || clients="ttftlab ttftlab-before least asyncio aiohttp"
clients=${CLIENTS:-$clients}
for c in $clients; do
	case $c in
	ttftlab | least) cmd="$out/loadbench client $c" ;;
	ttftlab-before) cmd="$BEFORE client ttftlab" ;;
	asyncio) cmd="$py internal/bench/pyasync.py" ;;
	aiohttp) cmd="$py internal/bench/pyaiohttp.py" ;;
	esac
	perf stat -x, -o "$out/$c.perf" -e "$events" -- $cmd "$url" "$streams" "$chunks" "$out/$c.txt"
	got=$(($(wc -l <"$out/$c.txt")))  # the #phase line, then one line per chunk less the last newline
	printf '%-14s %9d' "$c" "$got"
	grep -v '^#' "$out/$c.perf" | grep -v '^$' | while IFS=, read -r n _ name _; do
		printf ' %11s' "$(awk -v n="$n" -v c="$got" 'BEGIN { printf "%.2f", n / c }')"
	done
	echo
done
echo "(per chunk; load after: $(cat /proc/loadavg))"
