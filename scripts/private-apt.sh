# shellcheck shell=bash
# What the install scripts share, sourced by each first: their start (the
# --force flag, a program of the user's own or an installed copy that
# runs kept), their end (the new prefix put in place, its wrapper
# printed), and between them the Debian mirror read and packages
# downloaded and unpacked with a private apt configuration (its own lists,
# cache and status in a temporary folder), so the system's apt state is
# never touched.

# install_begin NAME VAR PREFIX_VAR DIR [--force]: the script installs
# NAME. log and die speak as "install-NAME: " (die's "error: " line is the
# reason ttftlab shows). Unless --force, a NAME named by $VAR or on PATH
# is printed and the script ends. Sets force, prefix ($PREFIX_VAR, else
# DIR under the user's cache folder's ttftlab), wrapper
# ($prefix/bin/NAME), tmp_prefix (where the new copy is made, removed at
# exit unless put in place) and work (a temporary folder removed at exit).
install_begin() {
  name=$1
  local var=$2 prefix_var=$3 dir=$4 own
  force=0
  [ "${5:-}" = "--force" ] && force=1
  if [ $force = 0 ]; then
    own=${!var:-}
    if [ -n "$own" ]; then
      [ -x "$own" ] || die "$var=$own is not an executable file"
      echo "$own"
      exit 0
    fi
    if own=$(command -v "$name" 2>/dev/null); then
      echo "$own"
      exit 0
    fi
  fi
  prefix=${!prefix_var:-${XDG_CACHE_HOME:-$HOME/.cache}/ttftlab/$dir}
  wrapper=$prefix/bin/$name
  tmp_prefix=$prefix.new.$$
  work=$(mktemp -d)
  trap 'rm -rf "$work" "$tmp_prefix"' EXIT
}

log() { printf 'install-%s: %s\n' "$name" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# keep_installed ARGS...: unless --force, an installed wrapper that runs
# with ARGS is printed and the script ends.
keep_installed() {
  if [ "$force" = 0 ] && [ -x "$wrapper" ] && "$wrapper" "$@" >/dev/null 2>&1; then
    echo "$wrapper"
    exit 0
  fi
}

# check_runs LOG ARGS...: the new wrapper runs with ARGS, its output in
# $work/LOG (shown when it fails).
check_runs() {
  local out=$work/$1
  shift
  "$tmp_prefix/bin/$name" "$@" >"$out" 2>&1 || {
    cat "$out" >&2
    die "the installed $name does not run"
  }
}

# install_end WHAT puts the new copy in place of the old, says what was
# installed and prints the wrapper's path.
install_end() {
  put_in_place "$tmp_prefix" "$prefix"
  log "installed: $1"
  echo "$wrapper"
}

# debian_mirror sets mirror (TTFTLAB_DEBIAN_MIRROR, else the first archive
# of the system's apt sources that is not the security one) and keyring.
debian_mirror() {
  command -v apt-get >/dev/null || die "apt-get not found: this script needs a Debian-based system"
  command -v dpkg >/dev/null || die "dpkg not found"
  local sources=/etc/apt/sources.list.d/debian.sources
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  mirror=${TTFTLAB_DEBIAN_MIRROR:-}
  if [ -z "$mirror" ] && [ -f "$sources" ]; then
    mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$sources")
  fi
  if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk '/^deb / && $0 !~ /security/ {for (i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list)
  fi
  [ -n "$mirror" ] || die "could not read a Debian mirror from $sources or /etc/apt/sources.list"
  [ -f "$keyring" ] || die "Debian archive keyring $keyring is missing (apt-get install debian-archive-keyring)"
}

# private_apt SUITE ARCH reads SUITE's package lists for ARCH into a
# private apt configuration under $work/apt (apt_dir, apt_opts).
private_apt() {
  local suite=$1 arch=$2
  debian_mirror
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
  log "reading the $suite package lists from $mirror (private apt configuration)"
  # apt-get update exits 0 when it could fetch nothing ("W: Failed to
  # fetch"), so the lists it wrote are what tells.
  if ! apt-get "${apt_opts[@]}" -q update >"$work/update.log" 2>&1 ||
    ! compgen -G "$apt_dir/lists/*_Packages*" >/dev/null; then
    die "the packages could not be downloaded: the $suite package lists from $mirror could not be read ($(apt_reason "$work/update.log"))"
  fi
}

# apt_reason LOG is the first cause apt gave in LOG, on one line, without
# apt's own prefixes.
apt_reason() {
  local reason
  reason=$(awk '
    /^(W: Failed to fetch|E: Failed to fetch)/ { sub(/^[WE]: Failed to fetch [^ ]+ +/, ""); print; exit }
    /^Err:/ { getline; sub(/^ +/, ""); print; exit }
    /^E: / { sub(/^E: /, ""); print; exit }' "$1")
  [ -n "$reason" ] || reason=$(grep -v '^ *$' "$1" | tail -n 1)
  printf '%s' "${reason:-apt-get gave no reason}"
}

# unpack_debs DIR PACKAGE... downloads the packages and unpacks them into
# DIR, emptied first.
unpack_debs() {
  local dir=$1 deb
  shift
  log "downloading $*"
  (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -q download "$@") >"$work/download.log" 2>&1 ||
    die "the packages could not be downloaded from $mirror ($(apt_reason "$work/download.log"))"
  rm -rf "$dir"
  mkdir -p "$dir/bin"
  for deb in "$apt_dir"/debs/*.deb; do
    dpkg -x "$deb" "$dir"
  done
}

# put_in_place NEW PREFIX replaces PREFIX by the folder NEW.
put_in_place() {
  rm -rf "$2"
  mkdir -p "$(dirname "$2")"
  mv "$1" "$2"
}
