"""The client's own protobuf and gRPC modules, generated from proto/samba/v1 at build time
into ``samba_adjudicator.client._pb`` (never committed; ``make proto`` and the wheel build
both call ``generate``), with the client's typed method of every RPC (``rpc_methods.py``).

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

from google.api import annotations_pb2
from google.protobuf import descriptor_pb2

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
        # the RPCs with their comments and routes, for the methods (not packaged)
        "--include_imports",
        "--include_source_info",
        f"--descriptor_set_out={out / 'descriptors.binpb'}",
        *(str(p) for p in protos),
    ]
    subprocess.run(command, check=True)
    shutil.rmtree(target, ignore_errors=True)
    (out / "samba" / "v1").rename(target)
    methods = target / "rpc_methods.py"
    methods.write_text(methods_module((out / "descriptors.binpb").read_bytes()))
    shutil.rmtree(out)
    written = []
    for path in sorted(target.glob("*_pb2*.py*")):
        # sibling imports made relative: the modules live under the client's import name
        path.write_text(_ABSOLUTE.sub("from . import ", path.read_text()))
        written.append(path)
    (target / "__init__.py").write_text('"""Generated from proto/samba/v1: never edit."""\n')
    return [*written, methods]


# -- the client's methods: one per RPC, typed, blocking and asyncio (api.py) ----------------

_HEADER = '''"""The client's method of every RPC of ``samba.v1.Adjudicator``, typed: generated from
proto/samba/v1 by clients/python/schema_build.py when the client is built; never edit.
``Client`` takes its methods from ``BlockingMethods``, ``AsyncClient`` from ``AsyncMethods``
(api.py); each is the client's ``call`` of its RPC. A message is answered with a message, a
dict (the proto3 JSON mapping) or nothing with a dict."""

from __future__ import annotations

from typing import Any, overload

from . import {modules}

#: A request or an answer in the proto3 JSON mapping (REST's form).
Json = dict[str, Any]
'''
_CLASS = '''

class {name}:
    """One {kind} method per RPC."""

    #: the client's ``call`` (api.Core's, made {kind} by the client's shell)
    call: Any
'''
_OPTIONS = """*,
        timeout: float | None = None,
        request_id: str | None = None,
        locale: str | None = None,
        table: str | None = None,"""
_METHOD = '''
    @overload
    {a}def {snake}(
        self,
        request: {request},
        {options}
    ) -> {response}: ...
    @overload
    {a}def {snake}(
        self,
        request: Json | None = None,
        {options}
    ) -> Json: ...
    {a}def {snake}(
        self,
        request: Any = None,
        {options}
    ) -> Any:
        """{doc}"""
        return {w}self.call(
            "{name}", request, timeout=timeout, request_id=request_id, locale=locale, table=table
        )
'''


def snake(name: str) -> str:
    """``ValidateAction`` -> ``validate_action``: the client's name of an RPC."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _doc(text: str) -> str:
    """``text`` as the inside of a triple-quoted docstring."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def methods_module(descriptors: bytes) -> str:
    """rpc_methods.py for the service ``samba.v1.Adjudicator`` of a descriptor set (with
    source info): each method typed with its request and response messages, its docstring
    the RPC's comment in the .proto and its REST route."""
    files = descriptor_pb2.FileDescriptorSet.FromString(descriptors).file
    module_of = {
        f".{f.package}.{m.name}": Path(f.name).stem + "_pb2" for f in files for m in f.message_type
    }
    (proto,) = [f for f in files if f.name == "samba/v1/adjudicator.proto"]
    (service,) = [s for s in proto.service if s.name == "Adjudicator"]
    service_path = (6, list(proto.service).index(service), 2)  # FileDescriptorProto.service
    comments = {tuple(c.path): c.leading_comments for c in proto.source_code_info.location}

    def typed(name: str) -> str:  # ".samba.v1.DealRequest" -> "adjudicator_pb2.DealRequest"
        return f"{module_of[name]}.{name.rsplit('.', 1)[1]}"

    methods = {True: [], False: []}
    for i, m in enumerate(service.method):
        rule = m.options.Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        lines = comments.get((*service_path, i), "").splitlines()
        comment = " ".join(x.strip() for x in lines if not x.strip().startswith("buf:"))
        doc = (
            f"{comment}\n\n        ``{m.name}`` (REST ``{verb.upper()} {getattr(rule, verb)}``): "
            f"{m.input_type.rsplit('.', 1)[1]} -> {m.output_type.rsplit('.', 1)[1]}."
        )
        for asynchronous in methods:
            methods[asynchronous].append(
                _METHOD.format(
                    a="async " if asynchronous else "",
                    w="await " if asynchronous else "",
                    snake=snake(m.name),
                    name=m.name,
                    request=typed(m.input_type),
                    response=typed(m.output_type),
                    options=_OPTIONS,
                    doc=_doc(doc),
                )
            )
    used = sorted({module_of[t] for m in service.method for t in (m.input_type, m.output_type)})
    return "".join(
        [
            _HEADER.format(modules=", ".join(used)),
            _CLASS.format(name="BlockingMethods", kind="blocking"),
            *methods[False],
            _CLASS.format(name="AsyncMethods", kind="asyncio"),
            *methods[True],
        ]
    )


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET)
