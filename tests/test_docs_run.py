"""The README's and docs/guide.md's examples run against a real server, so a stale example
fails the build.

A fenced block preceded by the line ``<!-- doc-test -->`` is run; the others (``make``,
Kubernetes, pseudo-code, output) are not. The blocks of one file and one language run in
order and share their state, as a reader pasting them would: the ``sh`` blocks one working
directory (with the repository's ``examples/`` and ``.venv/``) and the shell variables set,
each block under ``bash -e -o pipefail``, every curl's HTTP status checked (200, or the
status a ``# 400`` comment on its line announces); the ``python`` blocks one namespace.
The blocks take the ports from the environment, as a reader's shell has them after
``make run`` (``${SAMBA_HTTP_PORT:-8080}``, ``os.environ.get("SAMBA_GRPC_PORT", "50051")``):
they run with ``SAMBA_HTTP_PORT`` and ``SAMBA_GRPC_PORT`` set to the test server's ports,
and none may name a port itself. The number of marked blocks per file and language is
pinned below, so a doc cannot silently drop one.
The ``ts`` blocks are compiled and run by the TypeScript client's test/docs.test.ts (one
module per file, in order), where the built client is at hand.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from service_fixtures import ROOT, server  # noqa: F401

pytestmark = pytest.mark.servers

MARKER = "<!-- doc-test -->"

#: (file, language) -> the number of marked blocks it must have.
EXPECTED = {
    ("README.md", "sh"): 3,
    ("README.md", "python"): 1,
    ("README.md", "ts"): 1,
    ("docs/guide.md", "sh"): 8,
    ("docs/guide.md", "python"): 10,
    ("docs/guide.md", "ts"): 8,
}


def marked_blocks(path: Path, language: str) -> list[str]:
    """The marked blocks of ``language`` in ``path``, in order."""
    pattern = re.escape(MARKER) + r"\n```" + language + r"\n(.*?)^```$"
    return re.findall(pattern, path.read_text(encoding="utf-8"), flags=re.M | re.S)


def server_env(server) -> dict[str, str]:  # noqa: F811
    """The environment the blocks run in: the test server's ports where ``make run``'s are."""
    return {
        **os.environ,
        "SAMBA_HTTP_PORT": str(server.http_port),
        "SAMBA_GRPC_PORT": str(server.grpc_port),
    }


#: Run by the TypeScript client's own docs test (clients/typescript/test/docs.test.ts).
TYPESCRIPT_RUN = {("clients/typescript/README.md", "ts")}


@pytest.mark.parametrize(("name", "language"), sorted(set(EXPECTED) | TYPESCRIPT_RUN))
def test_the_examples_take_the_ports_from_the_environment(name, language):
    for block in marked_blocks(ROOT / name, language):
        assert not re.search(r"localhost:\d", block), f"{name} {language}: a port in\n{block}"


def test_the_marker_counts_are_pinned():
    found = {
        (name, language): len(marked_blocks(ROOT / name, language)) for name, language in EXPECTED
    }
    assert found == EXPECTED
    for name in {name for name, _ in EXPECTED}:
        text = (ROOT / name).read_text(encoding="utf-8")
        # a marker always stands right before a block of a language this test runs
        assert text.count(MARKER) == sum(n for (f, _), n in EXPECTED.items() if f == name)


#: Every curl writes its HTTP status to stderr, one line per call.
CURL_STATUS = 'curl() { command curl -w "%{stderr}curl-status %{http_code}\\n" "$@"; }\n'


@pytest.mark.parametrize("name", ["README.md", "docs/guide.md"])
def test_the_shell_examples_run(server, tmp_path, name):  # noqa: F811
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    variables = ""  # a block's `B=…` lines hold for the blocks after it, as in one shell
    for i, block in enumerate(marked_blocks(ROOT / name, "sh")):
        script = CURL_STATUS + variables + block
        variables += "".join(re.findall(r"^[A-Z_]+=\S*\n", block, re.M))
        p = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={**server_env(server), "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"},
        )
        assert p.returncode == 0, f"{name} sh block {i}:\n{block}\n{p.stdout}\n{p.stderr}"
        statuses = re.findall(r"^curl-status (\d+)$", p.stderr, flags=re.M)
        announced = re.findall(r"# (\d{3})\b", block)
        wanted = sorted(["200"] * (len(statuses) - len(announced)) + announced)
        assert sorted(statuses) == wanted, f"{name} sh block {i}:\n{block}\n{p.stderr}"


@pytest.mark.parametrize("name", ["README.md", "docs/guide.md"])
def test_the_python_examples_run(server, tmp_path, name):  # noqa: F811
    # the game server's own functions, which the guide leaves to you
    prelude = "def tell_player(violations): pass\ndef send_to(seat, message): pass\n"
    program = prelude + "\n".join(marked_blocks(ROOT / name, "python"))
    p = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=server_env(server),
    )
    assert p.returncode == 0, f"{name}:\n{p.stdout}\n{p.stderr}"
