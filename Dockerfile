# syntax=docker/dockerfile:1
# Node.js 24 LTS in both stages (docs/adr/0013-image-and-node-versions.md). Both base images are pinned by digest
# (a tag moves; a digest names one image, and only in the repository it is given for, so a wrong one fails the pull
# rather than pulling something else).
# TODO(verify digests): the development machine reaches no container registry, so these were not resolved there:
# they are the digests that several public projects pin for these tags. Before a release, check and refresh both with
#   docker buildx imagetools inspect node:24-bookworm-slim
#   docker buildx imagetools inspect gcr.io/distroless/nodejs24-debian12:nonroot
# and keep the two on the same Node.js major. --build-arg BUILD_IMAGE=... / RUNTIME_IMAGE=... override them.
ARG BUILD_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a

# Build: compile TypeScript with dev dependencies, then bundle the CLI and every dependency it loads into
# dist/bundle/ (scripts/bundle.mjs).
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle.mjs ./scripts/
# The commit `duckbill version` reports: the context has no .git, so pass it
# (docker build --build-arg DUCKBILL_COMMIT=$(git rev-parse --short HEAD) .); "unknown" without.
ARG DUCKBILL_COMMIT=unknown
RUN npm run build

# Runtime: distroless Node.js, no shell, non-root (uid 65532), and only what runs: package.json (ESM and the
# version), the launcher, the bundle's JavaScript and the licences of what it bundles. No node_modules (the bundle
# holds every dependency), no tsc output, no source maps. test/dist/image.test.ts builds this tree as these COPY
# lines do and runs it.
FROM ${RUNTIME_IMAGE}
WORKDIR /app
COPY package.json ./
COPY bin/duckbill ./bin/
COPY --from=build /src/dist/bundle/*.js /src/dist/bundle/*.txt ./dist/bundle/
USER 65532:65532
EXPOSE 8443 9090
# A 4 MB semi-space keeps V8's young generation small. On this image's Node 24, held at saturation: ≈ 146–161 MB
# instead of ≈ 250 MB (new space 8 MB instead of 128 MB; `node bench/memory.mjs --node <Node 24>`, 2026-11-26); on
# Node 20 94–97 MB instead of ≈ 118 MB at 500–2,000 req/s, with no throughput change beyond the noise
# (bench/README.md).
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=4", "bin/duckbill"]
CMD ["serve"]
