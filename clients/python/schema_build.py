"""The client's own protobuf and gRPC modules, generated from proto/samba/v1 at build time
into ``samba_adjudicator.client._pb`` (never committed; ``make proto`` and the wheel build
both call ``generate``).

They are made exactly as the service's ``samba_adjudicator.schema.v1`` (proto/generate.sh:
the same protoc, include paths and options), so the two register byte-identical files in
protobuf's descriptor pool and share message classes when both are imported in one
process (the service's tests drive the client); tests/test_client_wheel.py checks it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTO_ROOT = HERE.parent.parent / "proto"
TARGET = HERE / "client" / "_pb"
_ABSOLUTE = re.compile(r"^from samba\.v1 import ", re.MULTILINE)


def generate(target: Path = TARGET) -> list[Path]:
    """Generate the modules into ``target`` (replaced); returns the files written."""
    protos = sorted((PROTO_ROOT / "samba" / "v1").glob("*.proto"))
    if not protos:
        raise SystemExit(f"no .proto files under {PROTO_ROOT}: build from the repository")
    out = target.parent / (target.name + ".tmp")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    command = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--pyi_out={out}",
        *(str(p) for p in protos),
    ]
    subprocess.run(command, check=True)
    shutil.rmtree(target, ignore_errors=True)
    (out / "samba" / "v1").rename(target)
    shutil.rmtree(out)
    written = []
    for path in sorted(target.glob("*.py*")):
        # sibling imports made relative: the modules live under the client's import name
        path.write_text(_ABSOLUTE.sub("from . import ", path.read_text()))
        written.append(path)
    (target / "__init__.py").write_text('"""Generated from proto/samba/v1: never edit."""\n')
    return written


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET)
