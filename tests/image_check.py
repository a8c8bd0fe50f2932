"""`make image-test`: build the Dockerfile with podman, serve it read-only as non-root, call
both transports and /metrics, stop it.

No registry is reachable from here, so the build is offline through the Dockerfile's two
build args (an online build leaves both at their defaults):

- ``PYTHON_IMAGE``: a local base image of the same Python as the default
  ``python:3.11-slim-bookworm``: Debian bookworm (whose python3 is 3.11) made with
  ``mmdebstrap``, with a virtualenv at /opt/python first on PATH, so that ``python`` and
  ``pip`` are what they are in the official image. Made once, then reused
  (``localhost/samba-python:3.11-bookworm``);
- ``WHEELHOUSE``: ``.wheelhouse/`` in the build context, filled by ``pip download`` on this
  machine (PyPI through the ordinary client), which the builder stage reads instead of an
  index.

podman runs with ``--runtime runc``; rlimits are set below the host's (runc cannot set
them equal to the hard limits in this sandbox). Needs root; installs podman, runc and
mmdebstrap with apt-get when missing. Then the Helm chart runs on that image under
``podman kube play`` (tests/kube_play_check.py; Helm from ``make deploy-tools``).

The image is given the release of VERSION (its ``VERSION`` build arg), and says it: the OCI
version label and ``samba_build_info``'s ``version`` are checked. ``--dist DIR`` (`make
dist-image`) builds the same image tagged ``samba-adjudicator:<release>``, checks its label
and saves it to ``DIR/samba-adjudicator-<release>.oci.tar``, without serving it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

BASE = "localhost/samba-python:3.11-bookworm"
#: The builder stage's base: the same Python with gcc and its headers (the compiled build).
BUILDER_BASE = "localhost/samba-python-build:3.11-bookworm"
IMAGE = "localhost/samba-adjudicator:image-test"
#: The release (README.md#releases): every artefact's version.
RELEASE = (ROOT / "VERSION").read_text().strip()
LABEL = "org.opencontainers.image.version"
WHEELHOUSE = ".wheelhouse"
#: What the builder stage installs with pip: the build tools (requirements-build.txt, the
#: list `make runtime` installs into .tools/build); the wheelhouse adds every runtime
#: dependency (pyproject.toml).
BUILD_REQUIREMENTS = [
    line.strip()
    for line in (ROOT / "requirements-build.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]
PODMAN = ["podman", "--runtime", "runc"]
LIMITS = ["--ulimit", "nofile=16384:16384", "--ulimit", "nproc=4096:4096"]


def sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


def ensure_tools() -> None:
    missing = [t for t in ("podman", "runc", "mmdebstrap") if shutil.which(t) is None]
    if not missing:
        return
    if os.geteuid() != 0:
        sys.exit(f"image-test needs {', '.join(missing)} (apt-get install as root)")
    sh(
        ["apt-get", "install", "-y", "-q", "podman", "runc", "mmdebstrap"],
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )


def ensure_base(name: str, extra_packages: str = "") -> None:
    """A Debian bookworm base image ``name``; ``extra_packages``: more apt packages."""
    if subprocess.run(PODMAN + ["image", "exists", name]).returncode == 0:
        return
    with tempfile.TemporaryDirectory(prefix="samba-base-") as tmp:
        tar = os.path.join(tmp, "rootfs.tar")
        sh(
            [
                "mmdebstrap",
                "--variant=minbase",
                "--include=python3,python3-venv,python3-pip,passwd,ca-certificates"
                + extra_packages,
                '--customize-hook=chroot "$1" python3 -m venv /opt/python',
                '--customize-hook=chroot "$1" sh -c \'rm -rf /var/lib/apt/lists/* '
                "/var/cache/apt/*'",
                "bookworm",
                tar,
            ]
        )
        sh(
            PODMAN
            + [
                "import",
                "--change",
                "ENV PATH=/opt/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                "/usr/bin:/sbin:/bin",
                "--change",
                'CMD ["python"]',
                tar,
                name,
            ]
        )


def runtime_requirements() -> list[str]:
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["dependencies"]


def ensure_wheelhouse() -> None:
    folder = ROOT / WHEELHOUSE
    folder.mkdir(exist_ok=True)
    sh(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--only-binary=:all:",
            "-d",
            str(folder),
            *BUILD_REQUIREMENTS,
            *runtime_requirements(),
        ]
    )


def build(tag: str = IMAGE) -> None:
    sh(
        PODMAN
        + [
            "build",
            *LIMITS,
            "--build-arg",
            f"VERSION={RELEASE}",
            "--build-arg",
            f"PYTHON_IMAGE={BASE}",
            "--build-arg",
            f"BUILDER_IMAGE={BUILDER_BASE}",
            "--build-arg",
            f"WHEELHOUSE={WHEELHOUSE}",
            "-t",
            tag,
            str(ROOT),
        ]
    )
    label = subprocess.run(
        PODMAN + ["image", "inspect", tag, "--format", f'{{{{ index .Labels "{LABEL}" }}}}'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert label == RELEASE, f"{LABEL} is {label!r}, the release {RELEASE!r}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_and_call() -> None:
    grpc_port, http_port, admin_port = free_port(), free_port(), free_port()
    name = f"samba-image-test-{os.getpid()}"
    sh(
        PODMAN
        + [
            "run",
            "-d",
            "--name",
            name,
            "--read-only",
            *LIMITS,
            "--network",
            "host",
            "-e",
            "SAMBA_HOST=127.0.0.1",
            "-e",
            f"SAMBA_GRPC_PORT={grpc_port}",
            "-e",
            f"SAMBA_HTTP_PORT={http_port}",
            "-e",
            f"SAMBA_ADMIN_PORT={admin_port}",
            "-e",
            "SAMBA_SHUTDOWN_GRACE_SECONDS=2",
            IMAGE,
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{http_port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the container did not become ready:\n" + logs(name))
            time.sleep(0.5)
        rulesets = httpx.get(base + "/v1/rulesets", timeout=10)
        assert rulesets.status_code == 200, rulesets.text
        profiles = [r["profile"] for r in rulesets.json()["rulesets"]]
        from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
        from samba_adjudicator.service.base import pb

        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as ch:
            dealt = adjudicator_pb2_grpc.AdjudicatorStub(ch).Deal(
                pb.DealRequest(players=4, seed="image-test"), timeout=10
            )
        assert len(dealt.snapshot.seats) == 4
        metrics = httpx.get(base + "/metrics", timeout=10).text
        assert 'samba_requests_total{method="Deal",' in metrics, metrics[:2000]
        # the image runs the compiled build, and its Python source is there as the fallback
        build_info = [m for m in metrics.splitlines() if m.startswith("samba_build_info{")]
        assert 'build="compiled"' in build_info[0], build_info
        assert f'version="{RELEASE}"' in build_info[0], build_info
        assert '"build": "compiled"' in logs(name), logs(name)
        fallback = podman_exec(
            name,
            [
                "env",
                "SAMBA_BUILD=pure",
                "python",
                "-c",
                "from samba_adjudicator.engine import build, game; "
                "print(build.CURRENT.name, game.__file__)",
            ],
        ).stdout
        assert fallback.startswith("pure ") and fallback.strip().endswith("game.py"), fallback
        user = podman_exec(name, ["id", "-u"]).stdout.strip()
        assert user == "10001", user
        writable = podman_exec(
            name, ["sh", "-c", "touch /app/x 2>/dev/null && echo yes"], check=False
        ).stdout.strip()
        assert writable != "yes", "the root filesystem is writable"
        sh(PODMAN + ["stop", "-t", "15", name], stdout=subprocess.DEVNULL)
        status = subprocess.run(
            PODMAN + ["inspect", name, "--format", "{{.State.ExitCode}}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert status == "0", status + "\n" + logs(name)
        print(
            json.dumps(
                {
                    "image": IMAGE,
                    "profiles": len(profiles),
                    "user": user,
                    "build": "compiled",
                    "readOnly": True,
                    "exitCode": int(status),
                }
            )
        )
    finally:
        subprocess.run(PODMAN + ["rm", "-f", name], capture_output=True)


def podman_exec(name: str, cmd: list[str], check: bool = True):
    return subprocess.run(
        PODMAN + ["exec", name, *cmd], capture_output=True, text=True, check=check
    )


def logs(name: str) -> str:
    return subprocess.run(PODMAN + ["logs", name], capture_output=True, text=True).stdout


def dist(folder: Path) -> None:
    """The release's image, tagged with it and saved as an OCI archive in ``folder``."""
    tag = f"localhost/samba-adjudicator:{RELEASE}"
    build(tag)
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / f"samba-adjudicator-{RELEASE}.oci.tar"
    archive.unlink(missing_ok=True)
    sh(PODMAN + ["save", "--format", "oci-archive", "-o", str(archive), tag])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, help="build the release's image into this folder")
    args = parser.parse_args()
    ensure_tools()
    ensure_base(BASE)
    ensure_base(BUILDER_BASE, ",gcc,libc6-dev,python3-dev")
    ensure_wheelhouse()
    if args.dist:
        dist(args.dist)
        return 0
    try:
        build()
        serve_and_call()
        # the chart on the same image, under podman kube play (tests/kube_play_check.py)
        import kube_play_check

        print(json.dumps(kube_play_check.run(IMAGE, PODMAN, free_port)))
    finally:  # the base image stays for the next run; the built image and its layers go
        subprocess.run(PODMAN + ["rmi", "-f", IMAGE], capture_output=True)
        subprocess.run(PODMAN + ["image", "prune", "-f"], capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
