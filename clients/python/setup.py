"""The client's wheel: pyproject.toml has its metadata; this only generates the protobuf
modules into the build (schema_build.py) before the package is copied."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).resolve().parent))

from schema_build import TARGET, generate  # noqa: E402


class BuildWithSchema(build_py):
    def run(self) -> None:
        generate(TARGET)
        super().run()


setup(cmdclass={"build_py": BuildWithSchema})
