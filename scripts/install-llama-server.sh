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

force=0
[ "${1:-}" = "--force" ] && force=1

log() { printf 'install-llama-server: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ $force = 0 ]; then
  if [ -n "${LLAMA_SERVER:-}" ]; then
    [ -x "$LLAMA_SERVER" ] || die "LLAMA_SERVER=$LLAMA_SERVER is not an executable file"
    echo "$LLAMA_SERVER"; exit 0
  fi
  if p=$(command -v llama-server 2>/dev/null); then echo "$p"; exit 0; fi
fi

cache=${XDG_CACHE_HOME:-$HOME/.cache}
prefix=${TTFTLAB_LLAMA_PREFIX:-$cache/ttftlab/llama}
wrapper=$prefix/bin/llama-server

if [ $force = 0 ] && [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
  echo "$wrapper"; exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: this script needs a Debian-based system"
command -v dpkg >/dev/null || die "dpkg not found"

sources=/etc/apt/sources.list.d/debian.sources
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=""
if [ -f "$sources" ]; then
  # The first URIs line that is not the security archive.
  mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$sources")
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror=$(awk '/^deb / && $0 !~ /security/ {for (i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || die "could not read a Debian mirror from $sources or /etc/apt/sources.list"
[ -f "$keyring" ] || die "Debian archive keyring $keyring is missing (apt-get install debian-archive-keyring)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
apt_dir=$work/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc/preferences.d" "$apt_dir/debs"
cat >"$apt_dir/etc/sources.list" <<SRC
deb [signed-by=$keyring] $mirror sid main
SRC
: >"$apt_dir/status"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::Etc::Preferences=/dev/null"
  -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status"
  -o "Dir::Cache=$apt_dir/cache"
  -o "APT::Architecture=amd64"
  -o "Debug::NoLocking=1"
)

log "reading the sid package lists (private apt configuration)"
apt-get "${apt_opts[@]}" -q update >"$work/update.log" 2>&1 || { cat "$work/update.log" >&2; die "apt-get update of the sid lists failed"; }

pkgs=(llama.cpp-tools libllama0 libggml0 libc6 libstdc++6 libgcc-s1 libgomp1 libssl3t64 libzstd1)
log "downloading ${pkgs[*]}"
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}") >"$work/download.log" 2>&1 || { cat "$work/download.log" >&2; die "apt-get download failed"; }

tmp_prefix=$prefix.new.$$
rm -rf "$tmp_prefix"
mkdir -p "$tmp_prefix"
for deb in "$apt_dir"/debs/*.deb; do
  dpkg -x "$deb" "$tmp_prefix"
done

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

mkdir -p "$tmp_prefix/bin"
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

"$tmp_prefix/bin/llama-server" --version >"$work/version.log" 2>&1 || { cat "$work/version.log" >&2; die "the installed llama-server does not run"; }

rm -rf "$prefix"
mkdir -p "$(dirname "$prefix")"
mv "$tmp_prefix" "$prefix"
log "installed: $(grep -m1 -i version "$work/version.log" || true)"
echo "$wrapper"
