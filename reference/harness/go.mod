// The harness shared by every reference/knative-<release> module: fake Kubernetes, per-request configs, batch and
// server mode. It has no requirements of its own: each release module replaces it with this directory and supplies
// knative.dev/serving, knative.dev/pkg and client-go at that release's versions.
module duckbill.dev/reference/harness

go 1.23.0
