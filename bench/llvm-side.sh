# Sourced by bench/compile.sh and bench/queries.sh: LLVM 14's side of a
# benchmark, built with the oracle's own harness (tests/oracle/).
#
#   llvm_side_inc DIR TD INCLUDE...   llvm-tblgen -gen-register-info into
#                                     DIR/RegisterInfo.inc, DIR/oracle_target.h
#   llvm_side_compile DIR             g++ -O2 -c target.cpp -> DIR/target.o
#   llvm_side_link DIR                + harness.cpp -> DIR/oracle
#
# Needs llvm-tblgen and llvm-config-14 (LLVM 14, with its headers and
# libLLVM-14) and g++.

oracle_src="$root/tests/oracle"

llvm_side_check() {
  tblgen=$(command -v llvm-tblgen-14 || command -v llvm-tblgen || true)
  if [ -z "$tblgen" ] || ! command -v llvm-config-14 >/dev/null || ! command -v g++ >/dev/null \
    || [ ! -f "$(llvm-config-14 --includedir)/llvm/CodeGen/TargetRegisterInfo.h" ]; then
    echo "$0: needs llvm-tblgen 14, llvm-config-14 with LLVM 14's headers, and g++" \
      "(apt-get install llvm-14 llvm-14-dev llvm-14-tools g++)" >&2
    exit 1
  fi
  # -I becomes -isystem: LLVM's headers stay quiet.
  read -r -a cxxflags <<<"$(llvm-config-14 --cxxflags | sed 's/-I/-isystem /g')"
  read -r -a ldflags <<<"$(llvm-config-14 --ldflags) -lLLVM-14 -Wl,-rpath,$(llvm-config-14 --libdir)"
}

llvm_side_inc() {
  local dir=$1 td=$2
  shift 2
  local args=()
  for i in "$@"; do args+=(-I "$i"); done
  mkdir -p "$dir"
  "$tblgen" -gen-register-info "${args[@]}" "$td" -o "$dir/RegisterInfo.inc"
  if grep -q 'AltOrderSelect(const MachineFunction &MF) {' "$dir/RegisterInfo.inc"; then
    echo "$0: $td has AltOrderSelect code; use the oracle test's build (tests/common/oracle.rs)" >&2
    exit 1
  fi
  local name modes
  name=$(sed -n 's/^ *explicit \([A-Za-z0-9_]*\)GenRegisterInfo(unsigned RA,.*/\1/p' "$dir/RegisterInfo.inc" | head -n 1)
  modes=$(sed -n 's/^  \/\/ Mode = [0-9]* (\(.*\))$/"\1"/p' "$dir/RegisterInfo.inc" | paste -sd, -)
  cat >"$dir/oracle_target.h" <<H
#define ORACLE_TARGET $name
#define ORACLE_TARGET_NAME "$name"
#define ORACLE_NUM_HW_MODES $(echo "$modes" | tr ',' '\n' | grep -c .)
#define ORACLE_HW_MODE_NAMES $modes
#define ORACLE_INC "RegisterInfo.inc"
H
}

llvm_side_compile() {
  local dir=$1
  g++ -c -O2 -Wno-narrowing "${cxxflags[@]}" -I "$dir" -I "$oracle_src" \
    "$oracle_src/target.cpp" -o "$dir/target.o"
}

llvm_side_link() {
  local dir=$1
  if [ ! -f "$dir/harness.o" ] || [ "$oracle_src/harness.cpp" -nt "$dir/harness.o" ]; then
    g++ -c -O2 "${cxxflags[@]}" -I "$oracle_src" "$oracle_src/harness.cpp" -o "$dir/harness.o"
  fi
  g++ "$dir/harness.o" "$dir/target.o" "${ldflags[@]}" -o "$dir/oracle"
}

# The LLVM 14 source corpus and its AMDGPU description.
amdgpu_paths() {
  src=${REGDESC_LLVM_SRC:-$root/target/llvm-14-src}
  amdgpu_td="$root/tests/fixtures/real_targets/AMDGPU-regs.td"
  amdgpu_includes=("$(llvm-config-14 --includedir)" "$src/llvm/lib/Target/AMDGPU")
  if [ ! -f "$src/llvm/lib/Target/AMDGPU/SIRegisterInfo.td" ]; then
    echo "$0: LLVM 14's AMDGPU sources are not in $src (set REGDESC_LLVM_SRC or run tests/corpus/prepare.sh)" >&2
    exit 1
  fi
}

# best_of N CMD...: runs CMD N times, prints the best wall time in seconds.
best_of() {
  local n=$1 best="" t start end i
  shift
  for ((i = 0; i < n; i++)); do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; exit 1; }
    end=$(date +%s%N)
    t=$((end - start))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  awk -v t="$best" 'BEGIN { printf "%.2f", t / 1e9 }'
}
