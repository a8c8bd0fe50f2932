"""The comments of the ``.proto`` files, by full name: the schema's own documentation.

proto/generate.sh keeps them in ``descriptors.binpb`` (``protoc --include_source_info``)
beside the generated modules; the OpenAPI document takes every description from here, so
the REST documentation says what the proto says and nothing is written twice.

Names: ``samba.v1.Snapshot`` (message), ``samba.v1.Snapshot.ply`` (field),
``samba.v1.Meld.Kind`` (enum), ``samba.v1.Meld.Kind.RUN`` (enum value),
``samba.v1.Adjudicator.Deal`` (RPC).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from google.protobuf import descriptor_pb2

DESCRIPTOR_SET = "descriptors.binpb"
PACKAGE_OF_DESCRIPTORS = "samba_adjudicator.schema.v1"

# Field numbers of the descriptor messages, as SourceCodeInfo paths use them.
_FILE_MESSAGE, _FILE_ENUM, _FILE_SERVICE = 4, 5, 6
_MESSAGE_FIELD, _MESSAGE_NESTED, _MESSAGE_ENUM = 2, 3, 4
_ENUM_VALUE = 2
_SERVICE_METHOD = 2


def _clean(comment: str) -> str:
    """Join a comment's lines into paragraphs; drop lint directives."""
    lines = [line.strip() for line in comment.strip("\n").splitlines()]
    lines = [line for line in lines if not line.startswith("buf:lint:")]
    paragraphs = re.split(r"\n\s*\n", "\n".join(lines))
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


class _FileComments:
    """The leading comments of one file's elements, by full name (SourceCodeInfo paths)."""

    def __init__(self, file: descriptor_pb2.FileDescriptorProto, out: dict[str, str]) -> None:
        self.leading = {
            tuple(loc.path): loc.leading_comments
            for loc in file.source_code_info.location
            if loc.leading_comments.strip()
        }
        self.out = out
        prefix = f"{file.package}." if file.package else ""
        for i, desc in enumerate(file.message_type):
            self.message(desc, (_FILE_MESSAGE, i), prefix)
        for i, desc in enumerate(file.enum_type):
            self.enum(desc, (_FILE_ENUM, i), prefix)
        for i, service in enumerate(file.service):
            self.service(service, (_FILE_SERVICE, i), prefix)

    def note(self, name: str, path: tuple) -> None:
        self.out[name] = self.leading.get(path, "")

    def enum(self, desc, path: tuple, scope: str) -> None:
        name = scope + desc.name
        self.note(name, path)
        for i, value in enumerate(desc.value):
            self.note(f"{name}.{value.name}", path + (_ENUM_VALUE, i))

    def message(self, desc, path: tuple, scope: str) -> None:
        name = scope + desc.name
        self.note(name, path)
        for i, field in enumerate(desc.field):
            self.note(f"{name}.{field.name}", path + (_MESSAGE_FIELD, i))
        for i, nested in enumerate(desc.nested_type):
            self.message(nested, path + (_MESSAGE_NESTED, i), name + ".")
        for i, nested in enumerate(desc.enum_type):
            self.enum(nested, path + (_MESSAGE_ENUM, i), name + ".")

    def service(self, desc, path: tuple, scope: str) -> None:
        name = scope + desc.name
        self.note(name, path)
        for i, method in enumerate(desc.method):
            self.note(f"{name}.{method.name}", path + (_SERVICE_METHOD, i))


def comments_of(fds: descriptor_pb2.FileDescriptorSet) -> dict[str, str]:
    out: dict[str, str] = {}
    for file in fds.file:
        _FileComments(file, out)
    return {name: _clean(text) for name, text in out.items()}


@functools.cache
def comments() -> dict[str, str]:
    """Every documented element of the served schema (and its imports) -> its comment."""
    data = resources.files(PACKAGE_OF_DESCRIPTORS).joinpath(DESCRIPTOR_SET).read_bytes()
    return comments_of(descriptor_pb2.FileDescriptorSet.FromString(data))


def comment(full_name: str) -> str:
    return comments().get(full_name, "")
