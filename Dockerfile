# The gpupool controller image.
#   build:   debian:12 with the Debian build packages of scripts/install-deps
#            (no test, benchmark or demo tools), target `gpupool` only;
#   runtime: debian:12-slim with only the shared libraries the binary links
#            (tests/install/dockerfile_test.cpp checks the list against the
#            built binary) and the CA certificates an https --gpu-metrics-url
#            is verified with, running as the unprivileged user 65532.
# docker build -t gpupool:0.1.0 .
# The base images are named by tag; docs/operations.md ("The image") says how
# to pin them by digest for a reproducible build (--build-arg BUILD_IMAGE=...,
# RUNTIME_IMAGE=..., each the tag followed by @sha256:<digest>).
ARG BUILD_IMAGE=debian:12
ARG RUNTIME_IMAGE=debian:12-slim

FROM ${BUILD_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config make \
      nlohmann-json3-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev \
      libspdlog-dev libfmt-dev libcpp-httplib-dev prometheus-cpp-dev libmimalloc-dev \
      libsimdjson-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
      -DGPUPOOL_BUILD_TESTS=OFF -DGPUPOOL_BUILD_BENCH=OFF \
 && cmake --build build --target gpupool -j "$(nproc)" \
 && strip build/gpupool

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libcurl4 libyaml-cpp0.7 libssl3 libspdlog1.10 libfmt9 libcpp-httplib0.11 \
      libprometheus-cpp-core1.0 libmimalloc2.0 libsimdjson14 \
      ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/gpupool /usr/local/bin/gpupool
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gpupool","controller"]
