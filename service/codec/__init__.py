"""Encodings: the required-field walk, proto3 JSON, protobuf <-> engine values.

Compiled with mypyc when the compiled build is chosen (engine/build.py).
"""

from samba_adjudicator.engine import build as _build

__path__ = _build.search_path(__path__)
