#!/usr/bin/env bash
# Generate the Python protobuf and gRPC modules of proto/samba/v1 into generated/samba/v1,
# installed as the package samba_adjudicator.schema.v1 (pyproject.toml maps it). Used by
# `make proto` and the Dockerfile's build stage, so both produce the same modules.
# Generated code is never committed nor edited by hand.
#   usage: proto/generate.sh PYTHON   (a Python with grpcio-tools)
set -euo pipefail
PY=${1:-python3}
cd "$(dirname "$0")/.."
# The googleapis files the schema imports (google/api/*) are vendored in proto/google/, beside
# the error details every error carries (google/rpc/*), so proto/ alone is every include a
# client in any language needs (docs/clients.md); at run time the Python modules of
# google.api and google.rpc come from googleapis-common-protos.
rm -rf generated
mkdir -p generated
"$PY" -m grpc_tools.protoc -Iproto \
  --python_out=generated --grpc_python_out=generated --pyi_out=generated \
  --include_source_info --include_imports \
  --descriptor_set_out=generated/samba/v1/descriptors.binpb proto/samba/v1/*.proto
# descriptors.binpb keeps the .proto comments (source info): the OpenAPI document takes its
# descriptions from them (service/web/proto_docs.py).
# protoc writes absolute imports (`from samba.v1 import x_pb2`); the modules live under a
# unique import name instead, so sibling imports become relative.
sed -i -E 's/^from samba\.v1 import /from . import /' generated/samba/v1/*.py generated/samba/v1/*.pyi
touch generated/samba/__init__.py generated/samba/v1/__init__.py
# The snapshot's codec, every message's required walk and enum check, written out of the
# field tables (codegen/snapshot_code.py) beside the protobuf modules it reads: imported as
# samba_adjudicator.schema.v1.snapshot_code, and compiled in service/codec's build.
SAMBA_BUILD=pure "$PY" -m codegen.snapshot_code generated/samba/v1/snapshot_code.py
