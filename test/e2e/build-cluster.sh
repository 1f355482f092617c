#!/usr/bin/env bash
# Builds the e2e harness (test/e2e/cluster: etcd + kube-apiserver, and kubectl as a second
# name of the same binary) once and caches it by the hash of its sources, so that reruns
# start in seconds. Prints the cache directory (holding `cluster`, `kubectl` and
# `build.json`) as the last line of stdout; progress goes to stderr: what is being
# downloaded and compiled, with the time since the start, at least every
# E2E_PROGRESS_SECONDS (default 20) while the first build runs.
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

# The key covers everything the binary depends on: sources, module set, the lines of this
# script between ">>> build" and "<<< build" (the flags; not the progress output) and the
# Go toolchain.
key="$( (cd "$src" && cat go.mod go.sum ./*.go; sed -n '/^# >>> build/,/^# <<< build/p' "$here/build-cluster.sh") | sha256sum | cut -c1-16)-$(go env GOVERSION)"
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

# >>> build
k8s="$(cd "$src" && go list -m -f '{{.Version}}' k8s.io/kubernetes)" # e.g. v1.36.3
major="${k8s#v}"; major="${major%%.*}"
minor="${k8s#v*.}"; minor="${minor%%.*}"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
go_build=(go build -p "${E2E_BUILD_PARALLEL:-2}" -trimpath -ldflags "$ldflags")
# <<< build

tmp="$(mktemp -d "$root/.build-XXXXXX")"
start=$(date +%s)
every="${E2E_PROGRESS_SECONDS:-20}"
elapsed() { local s=$(( $(date +%s) - start )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
progress() { echo "build-cluster: $* ($(elapsed))" >&2; }
# A line every minute whatever the tools print (linking the binary is a quiet minute).
( while sleep 60 </dev/null >/dev/null 2>&1; do progress "still building"; done ) &
heartbeat=$!
trap 'kill "$heartbeat" 2>/dev/null; rm -rf "$tmp"' EXIT

# Reads a tool's stderr: counts the lines matching $2 (keeping the last one), says so at
# most every $every seconds, drops the lines matching $3 (the tool's chatter) and passes
# every other line (errors) through.
count_lines() {
  local what=$1 unit=$2 quiet=$3 total=$4 n=0 latest="" last=0 line
  while IFS= read -r line; do
    if [[ $line =~ $unit ]]; then
      n=$((n + 1)); latest=${BASH_REMATCH[1]:-$line}
      if (( $(date +%s) - last >= every )); then
        progress "$what: $n${total:+ of $total}, latest $latest"; last=$(date +%s)
      fi
    elif [[ ! $line =~ $quiet ]]; then
      echo "$line" >&2
    fi
  done
  progress "$what: $n${total:+ of $total}, done"
}

progress "building kube-apiserver $k8s + etcd + kubectl into $out (first time only; about 7 minutes on 2 cores)"
zips=$(grep -cv '/go.mod ' "$src/go.sum" || true)
progress "downloading the modules go.sum lists ($zips; those already in the module cache are not fetched again)"
(cd "$src" && go mod download -x 2>&1 >/dev/null) |
  count_lines "modules downloaded" '^# get https?://[^/ ]+/(.+)/@v/([^ ]+)\.zip: 200' '^(# get |mkdir|unzip|rm |touch|cp )' ""
packages=$(cd "$src" && go list -deps . | wc -l)
progress "compiling $packages packages (those in Go's build cache are not compiled again) and linking"
(cd "$src" && nice -n 10 "${go_build[@]}" -v -o "$tmp/cluster" . 2>&1 >/dev/null) |
  count_lines "packages compiled" '^([A-Za-z0-9][A-Za-z0-9._~/-]*)$' '^$' "$packages"
[[ -x "$tmp/cluster" ]] || { progress "go build failed"; exit 1; }
seconds=$(( $(date +%s) - start ))
ln -s cluster "$tmp/kubectl"
printf '{"kubernetes":"%s","go":"%s","buildSeconds":%d,"binaryBytes":%d}\n' \
  "$k8s" "$(go env GOVERSION)" "$seconds" "$(stat -c %s "$tmp/cluster")" >"$tmp/build.json"
rm -rf "$out"
mv "$tmp" "$out"
kill "$heartbeat" 2>/dev/null || true
trap - EXIT
echo "build-cluster: built in ${seconds}s ($(du -h "$out/cluster" | cut -f1))" >&2
echo "$out"
