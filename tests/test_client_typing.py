"""The Python client as a mypy user sees it (clients/python, shipped with ``py.typed``):
each RPC's method typed with its request and response messages on both clients, generated
from the schema when the client is built (clients/python/schema_build.py), and a misspelt
method or a request of the wrong RPC flagged. mypy runs on a scratch file, the client found
as an installed package is (``--follow-imports=silent``: its own modules are not reported)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from samba_adjudicator.client import AsyncClient, Client
from samba_adjudicator.client.rpcs import RPCS

ROOT = Path(__file__).resolve().parent.parent

SCRATCH = """
from samba_adjudicator.client import AsyncClient, Client
from samba_adjudicator.client._pb import adjudicator_pb2 as pb


async def play(client: Client, table: AsyncClient) -> None:
    reveal_type(client.validate_action(pb.ValidateActionRequest()))
    reveal_type(client.validate_action({"snapshot": {}}, timeout=2.0))
    reveal_type(client.get_ruleset(pb.GetRulesetRequest(profile="classic")))
    reveal_type(client.list_rulesets())
    reveal_type(await table.deal(pb.DealRequest(players=4)))
    pending = table.score_deal({}, request_id="r-1")
    reveal_type(pending)
    await pending
    client.validate_actoin({})
    client.deal(4)
"""
PB = "samba_adjudicator.client._pb"
JSON = "dict[str, Any]"  # mypy before 1.16 printed builtins.dict[builtins.str, Any]
EXPECTED = [
    f'7: note: Revealed type is "{PB}.adjudicator_pb2.ValidateActionResponse"',
    f'8: note: Revealed type is "{JSON}"',
    f'9: note: Revealed type is "{PB}.ruleset_pb2.Ruleset"',
    f'10: note: Revealed type is "{JSON}"',
    f'11: note: Revealed type is "{PB}.adjudicator_pb2.DealResponse"',
    f'13: note: Revealed type is "typing.Coroutine[Any, Any, {JSON}]"',
    '15: error: "Client" has no attribute "validate_actoin"',
    '16: error: No overload variant of "deal" of "BlockingMethods" matches argument type "int"',
]


def test_a_mypy_user_sees_each_rpcs_method_typed_and_a_misspelt_one_flagged(tmp_path):
    installed = tmp_path / "site" / "samba_adjudicator"
    installed.mkdir(parents=True)
    (installed / "client").symlink_to(ROOT / "clients" / "python" / "client")
    (tmp_path / "scratch.py").write_text(SCRATCH)
    (tmp_path / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file=mypy.ini",
            f"--cache-dir={tmp_path / 'cache'}",
            "--follow-imports=silent",
            "--hide-error-context",
            "--no-error-summary",
            "--show-absolute-path",
            "--no-pretty",
            "--hide-error-codes",
            "--disable-error-code=unused-coroutine",  # reveal_type(pending) uses it
            "scratch.py",
        ],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    scratch = f"{tmp_path / 'scratch.py'}:"
    said = [
        line.removeprefix(scratch).replace("builtins.", "") for line in done.stdout.splitlines()
    ]
    said = [line for line in said if re.match(r"\d+: (error|note: Revealed)", line)]
    assert said == EXPECTED, done.stdout + done.stderr


def test_every_rpc_of_the_schema_is_a_method_of_both_clients():
    for rpc in RPCS.values():
        for client in (Client, AsyncClient):
            assert f"``{rpc.name}`` (REST ``{rpc.verb} " in getattr(client, rpc.python_name).__doc__
