"""The compiled build: the engine and the service's per-call modules compiled with mypyc.

pyproject.toml has the project's metadata; this file only adds the extension modules.
``SAMBA_COMPILE`` chooses:

- ``auto`` (default): compile when mypyc and a C compiler work; otherwise say why and build
  the pure-Python distribution (it behaves the same, slower);
- ``1``: compile or fail;
- ``0``: do not compile.

The compiled modules do not sit beside their sources: ``samba_adjudicator.engine.game``
compiled lands in ``engine/_compiled/`` (wheel: ``samba_adjudicator/engine/_compiled/``),
which ``engine/build.py`` puts first on the package's ``__path__`` when the compiled build
is chosen (``SAMBA_BUILD``), so the Python source stays importable as the fallback and a
stale compiled module can be detected (``SOURCES.json``: the hash of every compiled source).

`make install` runs ``setup.py build_ext --inplace`` after the editable install; the wheel
(``pip wheel .``, the image's build stage) compiles the same way. docs/performance.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # dataclass_inits, beside this file, whoever runs it

from dataclass_inits import explicit_inits  # noqa: E402

#: Modules whose frozen dataclasses get their ``__init__`` written out in the staged copy
#: (dataclass_inits.py says why); the repository's copy keeps plain dataclasses.
WRITTEN_INITS = ("engine/model.py",)

#: Modules whose staged copy is the module the set-up generated beside the protobuf code
#: (proto/generate.sh): the snapshot's codec, written out of the field tables by
#: codegen/snapshot_code.py, which the Python source imports from there.
GENERATED_MODULES = {"service/codec/snapshot_code.py": "schema/v1/snapshot_code.py"}

# The compiled folders are listed once, in pyproject.toml ([tool.samba-adjudicator] compiled):
# every module in them but the package files and the build choice itself.
NOT_COMPILED = {"__init__.py", "build.py"}
GROUP = "samba_adjudicator.engine._compiled.hot"
STAMP = "SOURCES.json"


def compiled_folders() -> list[str]:
    """The repository folders whose modules are compiled (engine, service/codec, …)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["samba-adjudicator"]["compiled"]


def hot_sources() -> dict[str, Path]:
    """Module name -> source file of every compiled module."""
    sources = {}
    for folder in compiled_folders():
        package = "samba_adjudicator." + folder.replace("/", ".")
        for path in sorted((ROOT / folder).glob("*.py")):
            if path.name not in NOT_COMPILED:
                sources[f"{package}.{path.stem}"] = path
    return sources


def source_hashes(root: Path = ROOT) -> dict[str, str]:
    """The stamp engine/build.py compares: relative path -> sha256 of the source, as found
    under ``root`` (the staged copy: what was compiled, even when the tree changed since)."""
    return {
        str(path.relative_to(ROOT)): hashlib.sha256(
            (root / path.relative_to(ROOT)).read_bytes()
        ).hexdigest()
        for path in hot_sources().values()
    }


#: The hashes of the sources as staged for the compiler (``_staging_tree``)
STAGED: dict[str, str] = {}


def _staging_tree(build_dir: Path) -> list[str]:
    """The sources under their installed names (mypyc names modules after their paths)."""
    tree = build_dir / "src" / "samba_adjudicator"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(ROOT / "engine", tree / "engine", ignore=shutil.ignore_patterns("_compiled"))
    shutil.copytree(
        ROOT / "service", tree / "service", ignore=shutil.ignore_patterns("_compiled", "playground")
    )
    shutil.copytree(ROOT / "generated" / "samba", tree / "schema")
    STAGED.update(source_hashes(tree))
    for relative in WRITTEN_INITS:
        staged = tree / relative
        staged.write_text(explicit_inits(staged.read_text(), str(ROOT / relative)))
    for relative, made in GENERATED_MODULES.items():
        shutil.copyfile(tree / made, tree / relative)
    return [str(tree / path.relative_to(ROOT)) for path in hot_sources().values()]


def compiled_extensions() -> list:
    """The mypyc extension modules, renamed into the packages' ``_compiled`` folders."""
    from mypyc.build import mypycify

    build_dir = ROOT / "build" / "hot_paths"
    files = _staging_tree(build_dir)
    print(
        f"samba-adjudicator: compiling {len(files)} modules of {', '.join(compiled_folders())}"
        " with mypyc (a few minutes on 2 cores; SAMBA_COMPILE=0 skips it, and the Python"
        " source runs)",
        file=sys.stderr,
        flush=True,
    )
    os.environ["MYPYPATH"] = str(build_dir / "src")
    options = [
        "--explicit-package-bases",
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--cache-dir",
        str(build_dir / "mypy_cache"),
    ]
    # One C file per module (multi_file) rather than one 34 MB file: the C compiler spends a
    # third less CPU on small files, and BuildHotPaths compiles them on every core; the code is
    # the same (bench/instructions.py: every call within 0.1 %).
    extensions = mypycify(
        options + files,
        group_name=GROUP,
        opt_level="3",
        multi_file=True,
        target_dir=str(build_dir / "c"),
    )
    # The group's header sits in its package's folder; the modules' C files include it by name.
    group_dir = build_dir / "c" / Path(*GROUP.split(".")[:-1])
    for ext in extensions:
        ext.include_dirs.append(str(group_dir))
        package, _, module = ext.name.rpartition(".")
        if not package.endswith("._compiled"):
            ext.name = f"{package}._compiled.{module}"
    return extensions


class BuildHotPaths(build_ext):
    """build_ext that writes the stamp beside the compiled modules, compiles an extension's C
    files in parallel (``--parallel N``), and whose ``auto`` mode falls back to the
    pure-Python build when compiling fails."""

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        jobs = int(self.parallel or 1)
        if jobs > 1 and len(ext.sources) > 1:
            self.compiler.compile = _parallel_compile(self.compiler, jobs)  # type: ignore[method-assign]
        super().build_extension(ext)

    def run(self) -> None:
        for folder in compiled_folders():
            self._target(folder).mkdir(parents=True, exist_ok=True)
        if self.extensions:
            print(
                f"samba-adjudicator: compiling the C of {len(self.extensions)} extension(s)"
                " (the longest step)",
                file=sys.stderr,
                flush=True,
            )
        try:
            super().run()
        except Exception as exc:  # a missing compiler surfaces as several error types
            if os.environ.get("SAMBA_COMPILE", "auto") != "auto":
                raise
            print(
                f"samba-adjudicator: not compiled ({exc}); the Python source runs", file=sys.stderr
            )
            return
        # The stamp also marks the step as done for the Makefile; {} says nothing was compiled
        # (SAMBA_COMPILE=0), so engine/build.py never takes the sources for a compiled build.
        compiled = dict(STAGED) if self.extensions else {}
        (self._target("engine") / STAMP).write_text(json.dumps(compiled, indent=1) + "\n")

    def _target(self, folder: str) -> Path:
        """The folder of a package's compiled modules: in the tree, or in the build."""
        if self.inplace:
            return ROOT / folder / "_compiled"
        return Path(self.build_lib) / "samba_adjudicator" / folder / "_compiled"


def _parallel_compile(compiler, jobs: int):  # type: ignore[no-untyped-def]
    """``compiler.compile`` with its C files compiled ``jobs`` at a time: distutils compiles an
    extension's sources one after another, and the shared library of the compiled modules is
    one extension of some eighty files."""
    from concurrent.futures import ThreadPoolExecutor

    def compile_all(
        sources,
        output_dir=None,
        macros=None,
        include_dirs=None,
        debug=0,  # type: ignore[no-untyped-def]
        extra_preargs=None,
        extra_postargs=None,
        depends=None,
    ):
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs
        )
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj: str) -> None:
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(one, [obj for obj in objects if obj in build]))
        return objects

    return compile_all


def extensions_or_none() -> list:
    mode = os.environ.get("SAMBA_COMPILE", "auto")
    if mode == "0":
        return []
    try:
        return compiled_extensions()
    except Exception as exc:
        if mode != "auto":
            raise
        print(f"samba-adjudicator: not compiled ({exc}); the Python source runs", file=sys.stderr)
        return []


LOCALE = ROOT / "service" / "i18n" / "locale-data"


def compile_catalogs() -> None:
    """Each language's gettext catalog compiled by Babel, .po -> .mo beside it (docs/i18n.md):
    the .mo files are package data, never committed."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(LOCALE.glob("*/LC_MESSAGES/messages.po")):
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parent.parent.name)
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)


class BuildWithCatalogs(build_py):
    """The packages, with the compiled catalogs among their data."""

    def run(self) -> None:
        compile_catalogs()
        super().run()


setup(
    ext_modules=extensions_or_none(),
    cmdclass={"build_ext": BuildHotPaths, "build_py": BuildWithCatalogs},
)
