#!/usr/bin/env bash
# Installs Debian's espeak-ng (the speech engine of `ttftlab tts serve`) into
# a private prefix, without touching the system's apt state, and prints the
# path of a wrapper that runs it.
#
# Why this way: ttftlab installs what it needs on first use, as a user, and
# must not change the system's packages. The packages come from the
# system's own Debian release, so they run on its C library; the wrapper
# points the binary at its private libraries and voice data.
#
# An espeak-ng on PATH or named by ESPEAK_NG wins: then nothing is installed
# and that path is printed.
#
# Usage: scripts/install-espeak-ng.sh [--force]
#   TTFTLAB_ESPEAK_PREFIX  where to install (default: $XDG_CACHE_HOME/ttftlab/espeak-ng
#                          or ~/.cache/ttftlab/espeak-ng)
set -euo pipefail

force=0
[ "${1:-}" = "--force" ] && force=1

log() { printf 'install-espeak-ng: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ $force = 0 ]; then
  if [ -n "${ESPEAK_NG:-}" ]; then
    [ -x "$ESPEAK_NG" ] || die "ESPEAK_NG=$ESPEAK_NG is not an executable file"
    echo "$ESPEAK_NG"; exit 0
  fi
  if p=$(command -v espeak-ng 2>/dev/null); then echo "$p"; exit 0; fi
fi

cache=${XDG_CACHE_HOME:-$HOME/.cache}
prefix=${TTFTLAB_ESPEAK_PREFIX:-$cache/ttftlab/espeak-ng}
wrapper=$prefix/bin/espeak-ng

if [ $force = 0 ] && [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
  echo "$wrapper"; exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: this script needs a Debian-based system"
command -v dpkg >/dev/null || die "dpkg not found"
. /etc/os-release 2>/dev/null || true
suite=${VERSION_CODENAME:-}
[ -n "$suite" ] || die "could not read the Debian release (VERSION_CODENAME) from /etc/os-release"
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")

sources=/etc/apt/sources.list.d/debian.sources
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=""
if [ -f "$sources" ]; then
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
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
echo "deb [signed-by=$keyring] $mirror $suite main" >"$apt_dir/sources.list"
: >"$apt_dir/status"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status"
  -o "Dir::Cache=$apt_dir/cache" -o "APT::Architecture=$arch" -o "Debug::NoLocking=1"
)

log "reading the $suite package lists (private apt configuration)"
apt-get "${apt_opts[@]}" -q update >"$work/update.log" 2>&1 || { cat "$work/update.log" >&2; die "apt-get update of the $suite lists failed"; }

pkgs=(espeak-ng libespeak-ng1 espeak-ng-data libpcaudio0 libsonic0)
log "downloading ${pkgs[*]}"
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}") >"$work/download.log" 2>&1 || { cat "$work/download.log" >&2; die "apt-get download failed"; }

tmp_prefix=$prefix.new.$$
rm -rf "$tmp_prefix"
mkdir -p "$tmp_prefix/bin"
for deb in "$apt_dir"/debs/*.deb; do
  dpkg -x "$deb" "$tmp_prefix"
done
lib=$tmp_prefix/usr/lib/$multiarch
[ -x "$tmp_prefix/usr/bin/espeak-ng" ] || die "espeak-ng not found in the unpacked espeak-ng package"
[ -d "$lib/espeak-ng-data" ] || die "voice data not found in the unpacked espeak-ng-data package"

# The wrapper locates its prefix at run time, so the folder can be moved.
cat >"$tmp_prefix/bin/espeak-ng" <<WRAP
#!/bin/sh
# Runs Debian's espeak-ng with its private libraries and voice data.
here=\$(CDPATH= cd -- "\$(dirname -- "\$0")/.." && pwd)
lib=\$here/usr/lib/$multiarch
export ESPEAK_DATA_PATH="\$lib"
LD_LIBRARY_PATH="\$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/usr/bin/espeak-ng" "\$@"
WRAP
chmod +x "$tmp_prefix/bin/espeak-ng"

"$tmp_prefix/bin/espeak-ng" --version >"$work/version.log" 2>&1 || { cat "$work/version.log" >&2; die "the installed espeak-ng does not run"; }

rm -rf "$prefix"
mkdir -p "$(dirname "$prefix")"
mv "$tmp_prefix" "$prefix"
log "installed: $(head -1 "$work/version.log")"
echo "$wrapper"
