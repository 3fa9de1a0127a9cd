#!/usr/bin/env bash
# Installs llama.cpp's llama-server from Debian's unstable suite into a private
# prefix, without touching the system's apt state, and prints the path of a
# wrapper that runs it.
#
# Why this way: Debian 12 has no llama.cpp package, and sid's build needs a
# newer C library than Debian 12's. So we download sid's packages with a
# private apt configuration, unpack them (dpkg -x) into a prefix, and run the
# binary through that prefix's own dynamic loader.
#
# A llama-server on PATH or named by LLAMA_SERVER wins: then nothing is
# installed and that path is printed.
#
# Usage: scripts/install-llama-server.sh [--force]
#   TTFTLAB_LLAMA_PREFIX  where to install (default: $XDG_CACHE_HOME/ttftlab/llama
#                         or ~/.cache/ttftlab/llama)
set -euo pipefail
# shellcheck source=private-apt.sh
. "$(dirname "$0")/private-apt.sh"
install_begin llama-server LLAMA_SERVER TTFTLAB_LLAMA_PREFIX llama "$@"
keep_installed --version

private_apt sid amd64
unpack_debs "$tmp_prefix" llama.cpp-tools libllama0 libggml0 libc6 libstdc++6 libgcc-s1 libgomp1 libssl3t64 libzstd1

lib=$tmp_prefix/usr/lib/x86_64-linux-gnu
[ -x "$tmp_prefix/usr/bin/llama-server" ] || die "llama-server not found in the unpacked llama.cpp-tools package"
[ -e "$lib/ld-linux-x86-64.so.2" ] || die "dynamic loader not found in the unpacked libc6 package"

backends=$lib/ggml/backends0
if grep -qw avx2 /proc/cpuinfo && [ -e "$backends/libggml-cpu-haswell.so" ]; then
  backend=libggml-cpu-haswell.so
else
  backend=libggml-cpu-x64.so
fi
[ -e "$backends/$backend" ] || die "CPU backend $backends/$backend not found"

# The wrapper locates its prefix at run time, so the folder can be moved.
cat >"$tmp_prefix/bin/llama-server" <<WRAP
#!/bin/sh
# Runs Debian sid's llama-server through its own loader and libraries.
here=\$(CDPATH= cd -- "\$(dirname -- "\$0")/.." && pwd)
lib=\$here/usr/lib/x86_64-linux-gnu
export GGML_BACKEND_PATH="\${GGML_BACKEND_PATH:-\$lib/ggml/backends0/$backend}"
exec "\$lib/ld-linux-x86-64.so.2" --library-path "\$lib:\$lib/llama" "\$here/usr/bin/llama-server" "\$@"
WRAP
chmod +x "$tmp_prefix/bin/llama-server"

check_runs version.log --version
install_end "$(grep -m1 -i version "$work/version.log" || true)"
