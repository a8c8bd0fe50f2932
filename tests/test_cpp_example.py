"""The C++ example (examples/cpp, docs/clients.md): `make cpp-example` generates its code from
proto/ and builds it with Debian's g++, protoc, grpc_cpp_plugin and libgrpc++, twice (as it
is, and with every source compiled under -DOPTIONAL= as <windows.h> defines it); both
programs then play a signed 4-seat deal against a real server on 127.0.0.1, and their
report is checked line by line."""

from __future__ import annotations

import base64
import re
import subprocess
from pathlib import Path

import pytest
from service_fixtures import ServerProcess

from samba_adjudicator.client.deal_check import deal_commitment

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "cpp"
SEED = "cpp-test-seed-5b1e"

pytestmark = pytest.mark.servers


def _make(*args: str) -> str:
    # the first build compiles the generated gRPC code (minutes on a busy 2-core machine);
    # later ones find it in .tools/cpp/ and do nothing
    done = subprocess.run(
        ["make", "--no-print-directory", "-s", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def build() -> Path:
    _make("cpp-example")
    out = _make("-C", "examples/cpp", f"BUILD={ROOT}/.tools/cpp", "print-out").strip()
    return Path(out)


@pytest.fixture(scope="module")
def signed_server():
    key = base64.b64encode(b"c" * 32).decode()
    s = ServerProcess(env={"SAMBA_SNAPSHOT_KEYS": f"k1:{key}"})
    yield s
    s.close()


def _lines(program: Path, target: str) -> dict[str, str]:
    vectors = str(ROOT / "tests" / "deal_vectors.json")
    done = subprocess.run(
        [str(program), target, SEED, vectors], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    assert done.stdout.splitlines()[-1] == "all ok", done.stdout
    return lines


@pytest.mark.parametrize("program", ["play_table", "play_table_optional"])
def test_the_example_plays_a_signed_deal_and_checks_it(build, signed_server, program):
    lines = _lines(build / program, signed_server.grpc_target)
    assert lines["vectors"].startswith("ok "), lines
    # the port of the check answers tests/deal_vectors.json's requests as the service did
    answered = re.fullmatch(
        r"ok (\d+) requests answered as the service did, (\d+) refusals not checked",
        lines["deal vectors"],
    )
    assert answered and int(answered.group(1)) >= 6, lines
    # the rich error: status, ErrorInfo, BadRequest, the trailers; in the language asked for
    assert lines["rich error"] == (
        "ok INVALID_ARGUMENT reason=INVALID_REQUEST domain=samba.v1 requestId=cpp-bad-meld "
        "cards[1]=UNKNOWN_CARD_CODE trailer x-request-id=cpp-bad-meld content-language=es"
    ), lines
    assert lines["deal"] == f"ok players 4 commitment {deal_commitment(SEED)}", lines
    assert lines["forgery"].startswith("ok PERMISSION_DENIED reason=SNAPSHOT_SIGNATURE_INVALID")
    played = re.fullmatch(
        r"ok moves (\d+) apply_calls (\d+) computer_moves (\d+) list_calls (\d+) "
        r"result (WENT_OUT|STOCK_EXHAUSTED) totals -?\d+ -?\d+",
        lines["play"],
    )
    assert played, lines
    moves, apply_calls, computer_moves, list_calls = map(int, played.groups()[:4])
    # one ApplyAction per move; the three computer seats move in that same call
    assert apply_calls == moves and moves > 20
    assert 0 < computer_moves < moves and list_calls <= moves // 10
    assert lines["views"] == f"ok checked {moves}", lines
    assert lines["verify local"] == (
        "ok first snapshot, seat 0's final view; forged dealt: deal.seats[1].dealt=NOT_THE_SHUFFLE"
    ), lines
    assert lines["verify server"] == "ok verified true; another seed: COMMITMENT_MISMATCH", lines


def test_the_generated_headers_alone_break_under_the_macro(build, tmp_path):
    """Why samba_v1.h exists: with OPTIONAL defined as <windows.h> defines it, a generated
    header included directly does not compile (google/api/field_behavior.pb.h's enum), and
    through samba_v1.h it does."""
    flags = subprocess.run(
        ["pkg-config", "--cflags", "grpc++", "protobuf"], capture_output=True, text=True
    ).stdout.split()

    def compiles(include: str) -> subprocess.CompletedProcess:
        source = tmp_path / "windows_like.cc"
        source.write_text(f'#define OPTIONAL\n#include "{include}"\nint main() {{ return 0; }}\n')
        command = ["g++", "-std=c++17", "-fsyntax-only", *flags, f"-I{build / 'gen'}"]
        return subprocess.run(
            [*command, f"-I{EXAMPLE}", str(source)], capture_output=True, text=True, timeout=600
        )

    direct = compiles("samba/v1/adjudicator.pb.h")
    assert direct.returncode != 0 and "field_behavior.pb.h" in direct.stderr, direct.stderr
    wrapped = compiles("samba_v1.h")
    assert wrapped.returncode == 0, wrapped.stderr
