"""The client's wheel: pyproject.toml has its metadata; this generates the protobuf modules
into the build (schema_build.py) before the package is copied, and gives the release the
repository's VERSION says (README.md#releases): setuptools reads no file outside the project
folder, so the version is read here, once, at build time."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from schema_build import TARGET, generate  # noqa: E402

#: The release (README.md#releases); the wheel is built in the repository, as the protobuf
#: modules it generates come from ../../proto.
VERSION = (HERE.parent.parent / "VERSION").read_text().strip()


class BuildWithSchema(build_py):
    def run(self) -> None:
        generate(TARGET)
        super().run()


setup(version=VERSION, cmdclass={"build_py": BuildWithSchema})
