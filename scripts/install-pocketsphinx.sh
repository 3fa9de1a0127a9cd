#!/usr/bin/env bash
# Installs Debian's pocketsphinx 5 with its en-us model (the speech-to-text
# engine of `ttftlab stt serve`) into a private prefix, without touching the
# system's apt state, and prints the path of a wrapper that runs it.
#
# Why this way: Debian 12 has no pocketsphinx 5, and the newest release's
# build needs a newer C library than Debian 12's. So we download its
# packages with a private apt configuration, unpack them (dpkg -x) into a
# prefix, and run the binary through that prefix's own dynamic loader. The
# wrapper names the en-us model (-hmm, -lm, -dict) before the caller's
# arguments, which can name another.
#
# A pocketsphinx on PATH or named by TTFTLAB_POCKETSPHINX wins: then nothing
# is installed and that path is printed.
#
# Usage: scripts/install-pocketsphinx.sh [--force]
#   TTFTLAB_POCKETSPHINX_PREFIX  where to install (default:
#                                $XDG_CACHE_HOME/ttftlab/pocketsphinx or
#                                ~/.cache/ttftlab/pocketsphinx)
set -euo pipefail
# shellcheck source=private-apt.sh
. "$(dirname "$0")/private-apt.sh"
install_begin pocketsphinx TTFTLAB_POCKETSPHINX TTFTLAB_POCKETSPHINX_PREFIX pocketsphinx "$@"
# `config` runs the binary through its loader and prints the settings,
# without loading the model.
keep_installed config

private_apt sid amd64
unpack_debs "$tmp_prefix" pocketsphinx libpocketsphinx5 pocketsphinx-en-us libc6

lib=$tmp_prefix/usr/lib/x86_64-linux-gnu
model=$tmp_prefix/usr/share/pocketsphinx/model/en-us
[ -x "$tmp_prefix/usr/bin/pocketsphinx" ] || die "pocketsphinx not found in the unpacked pocketsphinx package"
[ -e "$lib/ld-linux-x86-64.so.2" ] || die "dynamic loader not found in the unpacked libc6 package"
[ -f "$model/en-us/mdef" ] && [ -f "$model/en-us.lm.bin" ] && [ -f "$model/cmudict-en-us.dict" ] ||
  die "the en-us model (en-us/, en-us.lm.bin, cmudict-en-us.dict) not found in the unpacked pocketsphinx-en-us package"
version=$(dpkg-deb -f "$apt_dir"/debs/pocketsphinx_*.deb Version)
version=${version%%-*}

# The wrapper locates its prefix at run time, so the folder can be moved.
# pocketsphinx itself prints no version, so the wrapper answers --version.
cat >"$tmp_prefix/bin/pocketsphinx" <<WRAP
#!/bin/sh
# Runs Debian's pocketsphinx $version through its own loader and libraries,
# with its en-us model unless the arguments name another.
if [ "\${1:-}" = "--version" ]; then echo "pocketsphinx $version"; exit 0; fi
here=\$(CDPATH= cd -- "\$(dirname -- "\$0")/.." && pwd)
lib=\$here/usr/lib/x86_64-linux-gnu
model=\$here/usr/share/pocketsphinx/model/en-us
exec "\$lib/ld-linux-x86-64.so.2" --library-path "\$lib" "\$here/usr/bin/pocketsphinx" \\
  -hmm "\$model/en-us" -lm "\$model/en-us.lm.bin" -dict "\$model/cmudict-en-us.dict" "\$@"
WRAP
chmod +x "$tmp_prefix/bin/pocketsphinx"

# A tenth of a second of silence, decoded: the loader, the libraries and
# the model all load.
head -c 3200 /dev/zero | "$tmp_prefix/bin/pocketsphinx" single - >"$work/check.log" 2>&1 ||
  { cat "$work/check.log" >&2; die "the installed pocketsphinx does not run"; }
grep -q '"t":' "$work/check.log" || { cat "$work/check.log" >&2; die "the installed pocketsphinx decoded nothing"; }

install_end "pocketsphinx $version with the en-us model"
