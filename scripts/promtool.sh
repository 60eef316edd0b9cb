#!/usr/bin/env bash
# promtool, Prometheus' own checker, for test/metrics/naming.test.ts
# (`promtool check metrics` on a real job's /metrics).
#
#   scripts/promtool.sh     install if needed; prints the binary's path
#
# Built once from its Go module (Prometheus' release binaries are not used)
# and cached in ${WEIR_CACHE:-~/.cache/weir}/promtool/. Needs Go 1.25 or later.
# The first build takes several minutes; later runs only check the cache.
set -euo pipefail

VERSION="${WEIR_PROMTOOL_VERSION:-v0.316.0}"
CACHE_ROOT="${WEIR_CACHE:-${HOME:-/tmp}/.cache/weir}"
DIR="$CACHE_ROOT/promtool"

if [[ -x "$DIR/promtool" && "$(cat "$DIR/version" 2>/dev/null)" == "$VERSION" ]]; then
  echo "$DIR/promtool"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "scripts/promtool.sh: needs Go to build promtool ($VERSION)" >&2
  exit 1
fi
mkdir -p "$DIR"
echo "scripts/promtool.sh: building promtool $VERSION (once; cached in $DIR)" >&2
# One compiler at a time, at low priority: the build is long and the machine is
# shared. remove_all_sd leaves out the service discoveries (Kubernetes and the
# cloud SDKs), most of the build, which `promtool check metrics` does not use.
GOBIN="$DIR" GOMAXPROCS="${WEIR_PROMTOOL_PROCS:-1}" nice -n 10 \
  go install -tags remove_all_sd "github.com/prometheus/prometheus/cmd/promtool@$VERSION" >&2
echo "$VERSION" >"$DIR/version"
echo "$DIR/promtool"
