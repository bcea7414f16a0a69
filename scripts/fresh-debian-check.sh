#!/usr/bin/env bash
# Fresh-machine check: README's two commands, verbatim, on a minimal Debian 12 (debootstrap --variant=minbase
# from the mirror apt uses here) in a chroot, on a clone of this repository's HEAD (committed work only).
# Catches what our machines happen to have and a new user's lacks (zlib1g-dev was one: issue 11).
#
# Usage (root): scripts/fresh-debian-check.sh
#   OSSA_FRESH_CACHE   where the debootstrapped system is kept as a tarball between runs (/var/cache/ossa-fresh;
#                      delete it to start from debootstrap again). A first run takes a few minutes more.
#   OSSA_BUILD_LOCK    a lock file: the chroot's package installs, build and tests run under flock (shared
#                      build machines).
#   OSSA_FRESH_KEEP=1  keep the chroot afterwards (its path is printed).
#   CCACHE_DIR         a compiler cache to share with the chroot's build (bind-mounted; .ci/run sets it).
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "fresh-debian-check: needs root (debootstrap, chroot)" >&2; exit 1; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${OSSA_FRESH_CACHE:-/var/cache/ossa-fresh}"
tarball="$cache/bookworm-minbase.tar.gz"
start=$SECONDS

# The Debian mirror apt uses on this machine (deb822 .sources or a one-line sources.list).
mirror="$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -E '/debian/?$' | head -1 || true)"
[ -n "$mirror" ] || mirror="$(grep -hsE '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -E '/debian/?$' | head -1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

command -v debootstrap >/dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}

root="$(mktemp -d /var/tmp/ossa-fresh.XXXXXX)"
cleanup() {
  for m in var/cache/ossa-ccache dev/pts dev sys proc; do mountpoint -q "$root/$m" && umount -l "$root/$m"; done
  if [ "${OSSA_FRESH_KEEP:-0}" = 1 ]; then echo "fresh-debian-check: chroot kept in $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT

if [ -f "$tarball" ]; then
  echo "fresh-debian-check: minimal Debian 12 from $tarball"
  tar -C "$root" -xzf "$tarball"
else
  echo "fresh-debian-check: debootstrap --variant=minbase bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || {
    tail -20 "$root.debootstrap.log"
    exit 1
  }
  rm -f "$root.debootstrap.log"
  mkdir -p "$cache"
  tar -C "$root" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
fi
echo "fresh-debian-check: system ready after $((SECONDS - start)) s"

cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
chroot_env=()
# This machine's own way out to the registries: where its egress re-signs TLS with a local CA (trusted here through
# NODE_EXTRA_CA_CERTS or /usr/local/share/ca-certificates), the chroot's node trusts that CA too, so npm reaches the
# npm registry as it does here. A user's machine needs none of this.
mkdir -p "$root/etc/ssl"
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$root/etc/ssl/host-extra-ca.pem"
elif compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cat /usr/local/share/ca-certificates/*.crt >"$root/etc/ssl/host-extra-ca.pem"
fi
[ -f "$root/etc/ssl/host-extra-ca.pem" ] && chroot_env+=(NODE_EXTRA_CA_CERTS=/etc/ssl/host-extra-ca.pem)
# The compiler cache ($CCACHE_DIR, as .ci/run sets it) is shared with the chroot: this check proves packages and
# commands, not compile outputs, so it need not compile everything again. Its clone is /root/ossa.
if [ -n "${CCACHE_DIR:-}" ] && [ -d "$CCACHE_DIR" ]; then
  mkdir -p "$root/var/cache/ossa-ccache"
  mount --bind "$CCACHE_DIR" "$root/var/cache/ossa-ccache"
  chroot_env+=(CCACHE_DIR=/var/cache/ossa-ccache CCACHE_BASEDIR=/root/ossa CCACHE_NOHASHDIR=true
              "CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}")
fi
git clone -q --no-hardlinks "$here" "$root/root/ossa"
git -C "$root/root/ossa" log --oneline -1

# README's two commands, verbatim: the lines of its first ```sh block.
mapfile -t commands < <(awk '/^```sh$/ {inside = 1; next} inside && /^```/ {exit} inside {print}' "$here/README.md")
[ "${#commands[@]}" = 2 ] || { echo "fresh-debian-check: expected README's two commands" >&2; exit 1; }
locked() { if [ -n "${OSSA_BUILD_LOCK:-}" ]; then flock "$OSSA_BUILD_LOCK" "$@"; else "$@"; fi; }
for command in "${commands[@]}"; do
  echo "fresh-debian-check: \$ $command"
  t=$SECONDS
  locked chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${chroot_env[@]}" \
    bash -c "cd /root/ossa && $command" >"$root/command.log" 2>&1 || {
    tail -40 "$root/command.log"
    echo "fresh-debian-check: FAILED on a fresh Debian 12: $command" >&2
    exit 1
  }
  tail -3 "$root/command.log"
  echo "fresh-debian-check: passed in $((SECONDS - t)) s"
done
echo "fresh-debian-check: README's commands pass on a fresh Debian 12 ($((SECONDS - start)) s in all)"
