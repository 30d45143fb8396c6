#!/usr/bin/env bash
# make firmware-v1: the micro:bit v1 firmware with the game frozen into it, built from
# Debian's source package firmware-microbit-micropython (Debian or Ubuntu; nothing
# fetched from elsewhere, nothing built committed). Into .cache/firmware-v1/ (git ignores
# it): the unpacked source (src/, kept for quick rebuilds), firmware.hex and frozen.json,
# which `connectm hex` takes. Usage: tools/firmware_v1.sh PYTHON
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv/bin/python}
OUT=.cache/firmware-v1
PKG=firmware-microbit-micropython
# its Build-Depends, by name, less the packaging's and the documentation's
DEPS="cmake gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
  libssl-dev ninja-build python3-setuptools srecord yotta"
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
export DEBIAN_FRONTEND=noninteractive

missing=""
for p in $DEPS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
updated=0
if [ -n "$missing" ]; then
  $SUDO apt-get update -q && updated=1
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -q --no-install-recommends $missing
fi

if [ ! -d "$OUT/src" ]; then
  # apt-get source needs a deb-src line: the system's own archive's, added when none is
  if ! apt-get source --print-uris "$PKG" >/dev/null 2>&1; then
    own=""
    for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/ubuntu.sources; do
      [ -f "$f" ] && own="$f"
    done
    if [ -n "$own" ]; then
      sed 's/^Types: deb$/Types: deb-src/' "$own" |
        $SUDO tee /etc/apt/sources.list.d/connectm-deb-src.sources >/dev/null
    else
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
        $SUDO tee /etc/apt/sources.list.d/connectm-deb-src.list >/dev/null
    fi
    updated=0
  fi
  [ "$updated" = 1 ] || $SUDO apt-get update -q
  rm -rf "$OUT/unpack"
  mkdir -p "$OUT/unpack"
  (cd "$OUT/unpack" && apt-get source -q "$PKG")
  mv "$OUT"/unpack/"$PKG"-*/ "$OUT/src"
  rm -rf "$OUT/unpack"
fi
"$PY" -m connectm.firmware_v1 "$OUT/src"
