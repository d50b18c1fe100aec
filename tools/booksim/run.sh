#!/usr/bin/env bash
# Cross-check of arcsim against BookSim2 (see README.md next to this script): builds BookSim2
# from a git snapshot with its own Makefile, runs the same fat trees in both at zero load
# (offered 0.01) and at offered load 1.0, and prints both simulators' zero-load latency and
# accepted throughput with their difference. Rows marked "check" must agree within 5%
# (the script exits with status 1 otherwise); rows marked "info" show known differences.
#
#   tools/booksim/run.sh [BOOKSIM_GIT_DIR]
#
# BOOKSIM_GIT_DIR: a bare git directory or clone of https://github.com/booksim/booksim2
# (default: $BOOKSIM_GIT or /work/.mirror/booksim+booksim2/repo). Needs g++, make, flex,
# bison (Debian: apt-get install -y g++ make flex bison), python3 and cargo. Work files go
# to $WORK (default: target/booksim-crosscheck). Not part of CI or the test suite.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
git_dir=${1:-${BOOKSIM_GIT:-/work/.mirror/booksim+booksim2/repo}}
work=${WORK:-$root/target/booksim-crosscheck}
cfg=$here/fattree_k4n3.cfg
toml=$here/fattree_k4n3.toml
mkdir -p "$work"

for tool in g++ make flex bison python3 cargo; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (Debian: apt-get install -y g++ make flex bison python3)" >&2; exit 2; }
done

# BookSim2, built with its own Makefile from the snapshot's HEAD.
booksim=$work/booksim2/src/booksim
if [ ! -x "$booksim" ]; then
    [ -d "$git_dir" ] || { echo "run.sh: no BookSim2 git directory at $git_dir (give its path as the first argument)" >&2; exit 2; }
    rm -rf "$work/booksim2"; mkdir -p "$work/booksim2"
    git --git-dir="$git_dir" archive HEAD | tar -x -C "$work/booksim2"
    echo "building BookSim2 $(git --git-dir="$git_dir" rev-parse HEAD) in $work/booksim2/src" >&2
    make -C "$work/booksim2/src" >"$work/booksim-build.log" 2>&1 \
        || { echo "run.sh: BookSim2's make failed, see $work/booksim-build.log" >&2; exit 2; }
fi

# arcsim, release build.
(cd "$root" && cargo build --release -q -p arcsim-cli)
arcsim=$root/target/release/arcsim

# bs ARGS...: BookSim's packet latency, hops (routers crossed) and accepted flit rate.
bs() {
    local log=$work/booksim.log
    # BookSim2 exits with status 255 when the simulation succeeded (main.cpp returns -1 for
    # true), so its status says nothing: the averages must be in its output.
    "$booksim" "$cfg" "$@" >"$log" 2>&1 || true
    awk '/^Packet latency average/ {lat=$5} /^Hops average/ {hops=$4}
         /^Accepted flit rate average =/ {acc=$6}
         END {if (lat == "" || hops == "" || acc == "") exit 1; printf "%s %s %s\n", lat, hops, acc}' "$log" \
        || { echo "run.sh: booksim $* printed no averages, see $log" >&2; exit 2; }
}
# ar SETTINGS...: arcsim's mean latency, routers crossed (hops + 1) and accepted load.
ar() {
    local args=() s
    for s in "$@"; do args+=(--set "$s"); done
    "$arcsim" run "$toml" "${args[@]}" --out "$work/arcsim" >"$work/arcsim.log" 2>&1 \
        || { echo "run.sh: arcsim $* failed, see $work/arcsim.log" >&2; exit 2; }
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["latency"]["mean"], d["hops"]["mean"] + 1, d["accepted_load"])' "$work/arcsim/result.json"
}

failed=0
printf '%-44s %-22s %10s %10s %8s  %s\n' case metric booksim arcsim diff kind
row() { # case metric booksim arcsim kind
    local diff
    diff=$(awk -v b="$3" -v a="$4" 'BEGIN {printf "%+.1f%%", 100 * (a - b) / b}')
    local ok=$(awk -v b="$3" -v a="$4" 'BEGIN {d = (a - b) / b; print (d < 0 ? -d : d) <= 0.05 ? "ok" : "over"}')
    printf '%-44s %-22s %10.4g %10.4g %8s  %s\n' "$1" "$2" "$3" "$4" "$diff" "$5$([ "$5" = check ] && echo " ($ok)")"
    if [ "$5" = check ] && [ "$ok" = over ]; then failed=1; fi
}
# compare NAME KIND "BOOKSIM ARGS" "ARCSIM SETTINGS"
compare() {
    local name=$1 kind=$2
    read -r -a bargs <<<"$3"; read -r -a aargs <<<"$4"
    read -r bl bh _ < <(bs "${bargs[@]}" injection_rate=0.01 sim_type=latency)
    read -r al ah _ < <(ar "${aargs[@]}" traffic.load=0.01)
    # A failed run (its message already printed) leaves its values empty.
    [ -n "${bl:-}" ] && [ -n "${al:-}" ] || exit 2
    row "$name" "zero-load latency" "$bl" "$al" "$kind"
    row "$name" "routers crossed" "$bh" "$ah" info
    read -r _ _ bt < <(bs "${bargs[@]}" injection_rate=1.0 sim_type=throughput)
    read -r _ _ at < <(ar "${aargs[@]}" traffic.load=1.0)
    [ -n "${bt:-}" ] && [ -n "${at:-}" ] || exit 2
    row "$name" "accepted at load 1.0" "$bt" "$at" "$kind"
}

compare "4-ary 3-tree, nca vs round-robin" check "" 'routing.selection="round-robin"'
compare "4-ary 2-tree, nca vs round-robin" check "n=2" 'topology.tree.n=2 routing.selection="round-robin"'
compare "one 8-port switch (8-ary 1-tree)" check "k=8 n=1" "topology.tree.k=8 topology.tree.n=1"
compare "one 4-port switch (4-ary 1-tree)" info "n=1" "topology.tree.n=1"
compare "4-ary 3-tree, nca vs d-mod-k" info "" 'routing.selection="d-mod-k"'
compare "4-ary 3-tree, nca vs random per pair" info "" 'routing.selection="random"'
compare "4-ary 3-tree, 4-flit packets" info "packet_size=4" 'routing.selection="round-robin" router.packet_length=4'

exit $failed
