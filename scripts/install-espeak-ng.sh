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
# shellcheck source=private-apt.sh
. "$(dirname "$0")/private-apt.sh"
install_begin espeak-ng ESPEAK_NG TTFTLAB_ESPEAK_PREFIX espeak-ng "$@"
keep_installed --version

command -v dpkg >/dev/null || die "dpkg not found"
. /etc/os-release 2>/dev/null || true
suite=${VERSION_CODENAME:-}
[ -n "$suite" ] || die "could not read the Debian release (VERSION_CODENAME) from /etc/os-release"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")

private_apt "$suite" "$(dpkg --print-architecture)"
unpack_debs "$tmp_prefix" espeak-ng libespeak-ng1 espeak-ng-data libpcaudio0 libsonic0
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

check_runs version.log --version
install_end "$(head -1 "$work/version.log")"
