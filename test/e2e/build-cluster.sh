#!/usr/bin/env bash
# Builds the e2e harness (test/e2e/cluster: etcd + kube-apiserver, and kubectl as a second
# name of the same binary) once and caches it by the hash of its sources, so that reruns
# start in seconds. Prints the cache directory (holding `cluster`, `kubectl` and
# `build.json`) as the last line of stdout; progress goes to stderr.
#
#   DUCKBILL_E2E_CACHE   cache root (default ${XDG_CACHE_HOME:-~/.cache}/duckbill-e2e)
#   E2E_BUILD_PARALLEL   go build -p (default 2; the machine is shared)
#
# Needs Go (go.mod says which) and the Go module proxy the first time; nothing else.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/cluster"
root="${DUCKBILL_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/duckbill-e2e}"

command -v go >/dev/null || { echo "build-cluster: go not found on PATH" >&2; exit 1; }

# The key covers everything the binary depends on: sources, module set, this script's
# flags and the Go toolchain.
key="$(cd "$src" && cat go.mod go.sum ./*.go "$here/build-cluster.sh" | sha256sum | cut -c1-16)-$(go env GOVERSION)"
out="$root/$key"
if [[ -x "$out/cluster" && -L "$out/kubectl" ]]; then
  echo "$out"
  exit 0
fi

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9 # a second build waits for the first and then reuses it
if [[ -x "$out/cluster" && -L "$out/kubectl" ]]; then
  echo "$out"
  exit 0
fi

k8s="$(cd "$src" && go list -m -f '{{.Version}}' k8s.io/kubernetes)" # e.g. v1.36.3
major="${k8s#v}"; major="${major%%.*}"
minor="${k8s#v*.}"; minor="${minor%%.*}"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

tmp="$(mktemp -d "$root/.build-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "build-cluster: building kube-apiserver $k8s + etcd + kubectl into $out (first time only; minutes)" >&2
start=$(date +%s)
(cd "$src" && nice -n 10 go build -p "${E2E_BUILD_PARALLEL:-2}" -trimpath -ldflags "$ldflags" -o "$tmp/cluster" .)
seconds=$(( $(date +%s) - start ))
ln -s cluster "$tmp/kubectl"
printf '{"kubernetes":"%s","go":"%s","buildSeconds":%d,"binaryBytes":%d}\n' \
  "$k8s" "$(go env GOVERSION)" "$seconds" "$(stat -c %s "$tmp/cluster")" >"$tmp/build.json"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "build-cluster: built in ${seconds}s ($(du -h "$out/cluster" | cut -f1))" >&2
echo "$out"
