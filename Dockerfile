# syntax=docker/dockerfile:1
# Node.js 24 LTS in both stages (docs/adr/0013-image-and-node-versions.md). Both base images are pinned by digest
# (a tag moves; a digest names one image, and only in the repository it is given for, so a wrong one fails the pull
# rather than pulling something else). How to check and refresh them: docs/install.md, "The base images".
# --build-arg BUILD_IMAGE=... / RUNTIME_IMAGE=... override them; `npm run image` (scripts/image.mjs) builds this file
# with podman, on bases it assembles from Debian packages and the npm registry's Node.js when these cannot be pulled.
ARG BUILD_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a

# The runtime base as it is, read by the build stage for the bill of materials: its Debian packages
# (/var/lib/dpkg/status.d/, one file per package, as distroless keeps them) and its Node.js version. It has no
# shell, so the RUN is in exec form; /tmp is the only place its non-root user may write.
FROM ${RUNTIME_IMAGE} AS runtime-base
RUN ["/nodejs/bin/node", "-e", "require('node:fs').writeFileSync('/tmp/node-version', process.version)"]

# Build: compile TypeScript with dev dependencies, then bundle the CLI and every dependency it loads into
# dist/bundle/ (scripts/bundle.mjs), then write the bill of materials (scripts/sbom.mjs).
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle.mjs scripts/sbom.mjs ./scripts/
# The commit `duckbill version` reports: the context has no .git, so pass it
# (docker build --build-arg DUCKBILL_COMMIT=$(git rev-parse --short HEAD) .); "unknown" without.
ARG DUCKBILL_COMMIT=unknown
RUN npm run build
COPY --from=runtime-base /var/lib/dpkg/status.d ./runtime-base/status.d
COPY --from=runtime-base /tmp/node-version ./runtime-base/
# The SBOM's creation time: the commit's (scripts/image.mjs passes `git log -1 --format=%ct`), so that two builds of
# one commit write the same file.
ARG SOURCE_DATE_EPOCH=0
RUN node scripts/sbom.mjs --base runtime-base --out dist/sbom.spdx.json

# Runtime: distroless Node.js, no shell, non-root (uid 65532), and only what runs: package.json (ESM and the
# version), the launcher, the bundle's JavaScript and the licences of what it bundles, and the bill of materials.
# No node_modules (the bundle holds every dependency), no tsc output, no source maps. test/dist/image.test.ts builds
# this tree as these COPY lines do and runs it; test/image/ runs the built image.
FROM ${RUNTIME_IMAGE}
WORKDIR /app
COPY package.json ./
COPY bin/duckbill ./bin/
COPY --from=build /src/dist/bundle/*.js /src/dist/bundle/*.txt ./dist/bundle/
COPY --from=build /src/dist/sbom.spdx.json ./
# OCI annotations (https://github.com/opencontainers/image-spec/blob/main/annotations.md); scripts/image.mjs passes
# all four, `created` being the commit's time (SOURCE_DATE_EPOCH), not the build's.
ARG DUCKBILL_COMMIT=unknown
ARG DUCKBILL_VERSION=unknown
ARG IMAGE_CREATED=1970-01-01T00:00:00Z
# The repository the image is built from: package.json's "repository" or the checkout's remote (scripts/image.mjs).
ARG IMAGE_SOURCE=unknown
LABEL org.opencontainers.image.title="duckbill" \
      org.opencontainers.image.description="A drop-in replacement for the Knative Serving admission webhook" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${IMAGE_SOURCE}" \
      org.opencontainers.image.revision="${DUCKBILL_COMMIT}" \
      org.opencontainers.image.version="${DUCKBILL_VERSION}" \
      org.opencontainers.image.created="${IMAGE_CREATED}"
USER 65532:65532
EXPOSE 8443 9090
# A 4 MB semi-space keeps V8's young generation small. On this image's Node 24, held at saturation: ≈ 146–161 MB
# instead of ≈ 250 MB (new space 8 MB instead of 128 MB; `node bench/memory.mjs --node <Node 24>`, 2026-11-26); on
# Node 20 94–97 MB instead of ≈ 118 MB at 500–2,000 req/s, with no throughput change beyond the noise
# (bench/README.md).
ENTRYPOINT ["/nodejs/bin/node", "--max-semi-space-size=4", "--max-old-space-size=384", "--no-maglev", "bin/duckbill"]
CMD ["serve"]
