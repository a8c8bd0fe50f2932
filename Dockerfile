# syntax=docker/dockerfile:1
#
# samba-adjudicator container image.
#
#   docker build -t samba-adjudicator .
#   docker run --rm --read-only -p 50051:50051 -p 8080:8080 samba-adjudicator
#
# Two stages: the builder generates the protobuf modules (grpcio-tools is a build-time
# tool only), compiles the hot modules with mypyc (a C compiler and mypy are build-time
# tools only) and turns the project and all its dependencies into wheels; the runtime
# stage installs those wheels and nothing else, and runs as an unprivileged user.
#
# PYTHON_IMAGE (runtime) and BUILDER_IMAGE (the same Python with gcc and its headers):
# Python 3.11 on Debian bookworm, the Python that Debian bookworm's own python3 package is,
# so that `make image-test` can build the same image offline from bases it makes with
# mmdebstrap (docs/deployment.md). WHEELHOUSE: empty (online: PyPI); a folder of wheels
# inside the build context for an offline build.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG BUILDER_IMAGE=python:3.11-bookworm

# --------------------------------------------------------------------------- builder
FROM ${BUILDER_IMAGE} AS builder

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src

ARG WHEELHOUSE=""

# .dockerignore keeps caches, virtualenvs, tests, the chart and any locally generated
# generated/ package out of the build context.
COPY . .

# The build tools are requirements-build.txt, the list `make runtime` installs into
# .tools/build (the google/api/*.proto that proto/samba/v1 imports are vendored in
# proto/google/). Generate the protobuf modules exactly as `make proto` does, then build
# the wheels: the project's own wheel, compiled (SAMBA_COMPILE=1: the build fails rather
# than ship the slower pure-Python build; setup.py), plus a wheel for every runtime
# dependency (pyproject.toml's dependencies: the set `make run` installs into .venv). With
# WHEELHOUSE set, pip reads nothing but that folder.
RUN if [ -n "$WHEELHOUSE" ]; then export PIP_NO_INDEX=1 PIP_FIND_LINKS="/src/$WHEELHOUSE"; fi \
 && pip install --no-cache-dir -r requirements-build.txt \
 && bash proto/generate.sh python \
 && SAMBA_COMPILE=1 pip wheel --no-cache-dir --no-build-isolation --wheel-dir /wheels .

# --------------------------------------------------------------------------- runtime
FROM ${PYTHON_IMAGE} AS runtime

# The release (VERSION; `make dist` and `make image-test` pass it): the OCI version label.
ARG VERSION=0.0.0-dev
ARG SOURCE_URL=https://github.com/samba-adjudicator/samba-adjudicator
ARG LICENSES=NOASSERTION

LABEL org.opencontainers.image.title="samba-adjudicator" \
      org.opencontainers.image.description="Stateless rules adjudicator for Samba and the Canasta family: gRPC and REST." \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.licenses="${LICENSES}" \
      org.opencontainers.image.version="${VERSION}"

# SAMBA_HOST: listen on every interface inside the container (the CLI default is loopback).
# PROMETHEUS_MULTIPROC_DIR: the server creates it; it lives on the writable /tmp volume so
# the image works with a read-only root filesystem (HOME points there too).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SAMBA_HOST=0.0.0.0 \
    SAMBA_GRPC_PORT=50051 \
    SAMBA_HTTP_PORT=8080 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/metrics

RUN groupadd --system --gid 10001 samba \
 && useradd --system --uid 10001 --gid 10001 --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin samba

# Only wheels are installed: no compiler, no grpcio-tools, no pip cache in the image.
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links=/wheels /wheels/*.whl

WORKDIR /app
VOLUME ["/tmp"]
EXPOSE 50051 8080 8081

# Numeric user so Kubernetes can verify runAsNonRoot.
USER 10001:10001

HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('SAMBA_HTTP_PORT', '8080') + '/healthz', timeout=2)"]

ENTRYPOINT ["samba-adjudicator"]
CMD ["serve"]
