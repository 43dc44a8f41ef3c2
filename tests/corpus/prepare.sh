#!/usr/bin/env bash
# Builds the LLVM 14 corpus the differential tests read: LLVM's real target
# descriptions (llvm/lib/Target/**/*.td) and its TableGen tests
# (llvm/test/TableGen), taken from Debian's `llvm-toolchain-14` source package.
#
#   bash tests/corpus/prepare.sh          # into $REGDESC_LLVM_SRC, default target/llvm-14-src
#
# Idempotent: does nothing when the corpus is already there. Needs apt with
# `deb-src` lines (added for the machine's own Debian sources when missing,
# which needs root) and network access to the Debian mirror.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dest=${REGDESC_LLVM_SRC:-$PWD/target/llvm-14-src}
if [ -f "$dest/.complete" ]; then
  echo "LLVM 14 corpus: $dest (already prepared)"
  exit 0
fi
mkdir -p "$dest"
dl="$dest/.download"
mkdir -p "$dl"
tarball=$(ls "$dl"/llvm-toolchain-14_*.orig.tar.xz 2>/dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
  if ! apt-get source --print-uris llvm-toolchain-14 >/dev/null 2>&1; then
    # No deb-src entries: add them for the machine's own Debian sources.
    shopt -s nullglob
    for f in /etc/apt/sources.list.d/*.sources; do
      case $f in *-src.sources) continue ;; esac
      grep -q '^Types:.*deb-src' "$f" && continue
      sed 's/^Types: deb$/Types: deb-src/' "$f" >"${f%.sources}-src.sources"
    done
    if [ -f /etc/apt/sources.list ]; then
      grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
        >/etc/apt/sources.list.d/regdesc-deb-src.list || true
    fi
    apt-get update -qq
  fi
  (cd "$dl" && apt-get source --download-only llvm-toolchain-14)
  tarball=$(ls "$dl"/llvm-toolchain-14_*.orig.tar.xz | head -n 1)
fi
echo "extracting $(basename "$tarball") into $dest"
tar -xJf "$tarball" -C "$dest" --strip-components=1 --wildcards \
  '*/llvm/lib/Target/*.td' '*/llvm/test/TableGen/*'
test -f "$dest/llvm/lib/Target/AMDGPU/SIRegisterInfo.td"
touch "$dest/.complete"
echo "LLVM 14 corpus: $dest ($(find "$dest/llvm" -name '*.td' | wc -l) .td files)"
