#!/bin/sh
# Installs zot from a release: `curl -fsSL <url>/install.sh | sh`.
#
# Detects the OS (uname -s: Linux, Darwin), architecture (uname -m: x86_64 /
# amd64 -> x64, aarch64 / arm64 -> arm64) and, on Linux, the libc (musl
# when `ldd --version` says so, or it names no libc and /lib/ld-musl-* exists), downloads
# zot-<os>-<arch>[-musl] and SHA256SUMS from the release directory with
# curl or wget, checks the file's sha256 (sha256sum or shasum -a 256)
# against SHA256SUMS, checks that it runs (`--version`), and only then
# moves it into place as $ZOT_INSTALL_DIR/zot (a temp file in the same
# directory, chmod 755, mv: atomic). On any failure it exits 1 and
# installs nothing. Plain POSIX sh (dash, busybox ash); all of it runs from
# main() at the end, so a truncated download of the script runs nothing.
#
# Environment:
#   ZOT_RELEASE_URL  release directory (default: the latest GitHub release;
#                    the same constant as src/upgrade/release-url.ts)
#   ZOT_VERSION      a version (e.g. 0.2.0) instead of the latest; ignored
#                    when ZOT_RELEASE_URL is set
#   ZOT_INSTALL_DIR  where to install (default: $HOME/.local/bin)
set -u

DEFAULT_RELEASE_URL="https://github.com/zot-agent/zot/releases/latest/download"
VERSIONED_RELEASE_URL_PREFIX="https://github.com/zot-agent/zot/releases/download/"

tmp_binary=""
tmp_sums=""

say() {
  printf '%s\n' "install.sh: $*" >&2
}

fail() {
  say "$*"
  exit 1
}

cleanup() {
  [ -n "$tmp_binary" ] && rm -f "$tmp_binary"
  [ -n "$tmp_sums" ] && rm -f "$tmp_sums"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

detect_os() {
  case "$(uname -s)" in
    Linux) echo linux ;;
    Darwin) echo darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      fail "on Windows download zot-windows-x64.exe from the release page instead (see docs/windows.md)" ;;
    *) fail "unsupported OS: $(uname -s) (releases exist for Linux, macOS and Windows)" ;;
  esac
}

detect_arch() {
  case "$(uname -m)" in
    x86_64 | amd64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) fail "unsupported architecture: $(uname -m) (releases exist for x86_64 and arm64)" ;;
  esac
}

# musl when ldd says so; glibc when ldd names glibc (even with the musl
# package installed); otherwise musl when its loader exists.
is_musl() {
  if command -v ldd >/dev/null 2>&1; then
    case "$(ldd --version 2>&1)" in
      *musl*) return 0 ;;
      *GLIBC* | *"GNU libc"* | *"GNU C Library"*) return 1 ;;
    esac
  fi
  for loader in /lib/ld-musl-*; do
    [ -e "$loader" ] && return 0
  done
  return 1
}

# download URL FILE
download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$1" || fail "could not download $1 (curl exit $?: not found, no network or a server error)"
  elif command -v wget >/dev/null 2>&1; then
    # GNU wget gets a read timeout; busybox wget (no --version) does not:
    # its -T crashes some builds (busybox 1.35 on Debian).
    if wget --version >/dev/null 2>&1; then
      wget -q -T 60 -O "$2" "$1" || fail "could not download $1 (wget exit $?: not found, no network or a server error)"
    else
      wget -q -O "$2" "$1" || fail "could not download $1 (wget exit $?: not found, no network or a server error)"
    fi
  else
    fail "neither curl nor wget is installed: install one of them and run install.sh again"
  fi
}

# sha256_of FILE -> the hex digest
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    digest=$(sha256sum "$1") || fail "sha256sum failed on $1"
  elif command -v shasum >/dev/null 2>&1; then
    digest=$(shasum -a 256 "$1") || fail "shasum failed on $1"
  else
    fail "neither sha256sum nor shasum is installed: cannot verify the download"
  fi
  set -- $digest
  echo "$1"
}

# expected_sha256 SUMS NAME -> the digest SUMS lists for NAME
expected_sha256() {
  while read -r sum name; do
    name=${name#\*}
    if [ "$name" = "$2" ]; then
      echo "$sum"
      return 0
    fi
  done <"$1"
  return 1
}

# Everything runs from here, after the whole script was read: a download
# of it cut short (curl … | sh) is a syntax error, never half a run.
main() {
  os=$(detect_os) || exit 1
  arch=$(detect_arch) || exit 1
  suffix=""
  if [ "$os" = linux ] && is_musl; then
    [ "$arch" = x64 ] || fail "no musl build exists for $arch (only linux-x64-musl)"
    suffix="-musl"
  fi
  file="zot-$os-$arch$suffix"

  if [ -n "${ZOT_RELEASE_URL:-}" ]; then
    base=${ZOT_RELEASE_URL%/}
  elif [ -n "${ZOT_VERSION:-}" ]; then
    base="$VERSIONED_RELEASE_URL_PREFIX""v${ZOT_VERSION#v}"
  else
    base=$DEFAULT_RELEASE_URL
  fi

  [ -n "${HOME:-}" ] || [ -n "${ZOT_INSTALL_DIR:-}" ] || fail "HOME is not set: set ZOT_INSTALL_DIR"
  install_dir=${ZOT_INSTALL_DIR:-$HOME/.local/bin}
  install_dir=${install_dir%/}
  [ -n "$install_dir" ] || install_dir=/
  mkdir -p "$install_dir" || fail "cannot create $install_dir: choose another ZOT_INSTALL_DIR or fix its permissions"
  [ -w "$install_dir" ] || fail "cannot write to $install_dir: choose another ZOT_INSTALL_DIR or fix its permissions"

  tmp_binary="$install_dir/.zot.install.$$"
  tmp_sums="$install_dir/.zot.SHA256SUMS.$$"
  say "downloading $base/$file"
  download "$base/SHA256SUMS" "$tmp_sums"
  download "$base/$file" "$tmp_binary"

  expected=$(expected_sha256 "$tmp_sums" "$file") || fail "$base/SHA256SUMS does not list $file: nothing installed"
  actual=$(sha256_of "$tmp_binary") || exit 1
  if [ "$expected" != "$actual" ]; then
    fail "checksum mismatch for $file: SHA256SUMS says $expected, the download is $actual; nothing installed"
  fi

  chmod 755 "$tmp_binary" || fail "cannot chmod $tmp_binary"
  # </dev/null: under `curl … | sh` stdin is the pipe the script came from.
  version=$("$tmp_binary" --version 2>&1 </dev/null) || fail "the downloaded $file does not run on this machine ($version); nothing installed"
  mv -f "$tmp_binary" "$install_dir/zot" || fail "cannot move the new zot into $install_dir"
  tmp_binary=""
  say "installed $version to $install_dir/zot"

  case ":${PATH:-}:" in
    *":$install_dir:"*) ;;
    *)
      say "$install_dir is not on your PATH; add it with:"
      printf '\n    export PATH="%s:$PATH"\n\n' "$install_dir" >&2
      say "(put that line in ~/.profile, ~/.bashrc or ~/.zshrc to keep it)"
      ;;
  esac
}

main "$@"
