"""CONTRIBUTING.md's "An RPC": the files a new RPC touches, held by making one. A scratch
``CountStock`` (a snapshot in, the stock's size out) is added to a copy of the repository,
in exactly the files CONTRIBUTING.md lists and nowhere else; the copy's schema and clients
are generated as the set-up generates them, and the RPC is then served whole: its row, its
handler, its REST route and OpenAPI examples, its CLI subcommand, an answer through the
servers' path, both Python clients' typed methods, and the docs checks of the real tests
pass on the copy's docs (the pinned list of tests/test_schema.py lacks it, as it should)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The scratch RPC: file -> (the text it goes after, the text added).
SCRATCH = {
    "proto/samba/v1/adjudicator.proto": [
        (
            '      post: "/v1/deals:verify"\n      body: "*"\n    };\n  }\n',
            "  // How many cards the stock holds (a scratch RPC).\n"
            "  rpc CountStock(CountStockRequest) returns (CountStockResponse) {\n"
            '    option (google.api.http) = {\n      post: "/v1/deals:count-stock"\n'
            '      body: "*"\n    };\n  }\n',
        ),
        (
            "  string description = 3;\n}\n",
            "\n// A position.\nmessage CountStockRequest {\n"
            "  // The position.\n"
            "  Snapshot snapshot = 1 [(google.api.field_behavior) = REQUIRED];\n}\n\n"
            "// The stock's size.\nmessage CountStockResponse {\n"
            "  // Cards in the stock.\n  int32 stock_size = 1;\n}\n",
        ),
    ],
    "service/pipeline/api.py": [
        (
            "    # -- RPCs ------------------------------------------------------------------"
            "------------\n",
            "    def count_stock(self, r: Request) -> pb.CountStockResponse:\n"
            "        snap, _ = self.snapshots.load(r)\n"
            "        return pb.CountStockResponse(stock_size=snap.stock_count)\n\n",
        )
    ],
    "docs/api.md": [
        (
            "| VerifyDeal | `POST /v1/deals:verify` |",
            "| CountStock | `POST /v1/deals:count-stock` | `{snapshot}` → `{stockSize}` |\n",
        )
    ],
    "docs/service.md": [
        (
            "| `POST /v1/deals:verify` | VerifyDeal |\n",
            "| `POST /v1/deals:count-stock` | CountStock |\n",
        )
    ],
}

CHECK = """
import asyncio, inspect, json, sys
sys.path.insert(0, sys.argv[2])  # the real tests: their docs checks, on the copy's docs
from pathlib import Path
from samba_adjudicator.client import AsyncClient, Client
from samba_adjudicator.service.pipeline.api import METHODS, Adjudicator
from samba_adjudicator.service.pipeline.call import Call
from samba_adjudicator.service.pipeline.rpc import RPCS, Rpc
from samba_adjudicator.service.pipeline.runtime import Runtime
from samba_adjudicator.service.transport import cli, rest
from samba_adjudicator.service.web.examples import route_examples
import test_docs, test_schema

out = {"row": RPCS["CountStock"] == Rpc(), "handler": METHODS["CountStock"][1].__name__}
out["route"] = [r[:3] for r in rest.ROUTES if r[0] == "CountStock"]
example = route_examples(None)["CountStock"]
error = example["error"]["error"]["status"]
out["example"] = [sorted(example["request"]), example["response"], error]
out["cli"] = cli._commands().get("count-stock")
runtime = Runtime(None, Adjudicator(), count_calls=False)
body = json.dumps(example["request"])
out["answer"] = runtime.answer(Call("CountStock", body, "rest", json=True)).message.stock_size
out["clients"] = [inspect.getdoc(c.count_stock).splitlines()[-1] for c in (Client, AsyncClient)]
test_docs.DOCS = test_schema.DOCS = Path(sys.argv[1])
test_docs.test_the_endpoint_table_names_every_route_of_the_schema()
test_schema.test_docs_name_every_field_by_its_json_name()
names = [m.name for m in test_schema.pb.SERVICE.methods]
out["pinned"] = [name for name in names if name not in test_schema.RPCS]
print(json.dumps(out))
"""


def _listed() -> set[str]:
    """The files CONTRIBUTING.md says a new RPC touches."""
    text = " ".join((ROOT / "CONTRIBUTING.md").read_text().split())
    found = re.search(r"A scratch RPC touches exactly (.*?)\(", text)
    assert found, "CONTRIBUTING.md no longer lists the files of a new RPC"
    return set(re.findall(r"`([\w./-]+)`", found.group(1)))


def _copy(tmp: Path) -> Path:
    """The repository's sources a new RPC can touch, copied, with the scratch RPC added."""
    repo = tmp / "repo"
    skip = shutil.ignore_patterns("_compiled", "__pycache__", "_pb", "build", "*.egg-info")
    for folder in ("proto", "codegen", "service", "docs", "clients/python"):
        shutil.copytree(ROOT / folder, repo / folder, ignore=skip)
    for path, edits in SCRATCH.items():
        text = (repo / path).read_text()
        for anchor, added in edits:
            assert text.count(anchor) == 1, (path, anchor)
            at = text.index(anchor) + len(anchor)
            if anchor.startswith("| VerifyDeal"):  # after the table row, not inside it
                at = text.index("\n", at) + 1
            text = text[:at] + added + text[at:]
        (repo / path).write_text(text)
    return repo


def _generate(repo: Path, tmp: Path) -> Path:
    """The copy's schema and clients generated as `make proto` does, and a package tree of
    it (the engine is the repository's, unchanged)."""
    python = sys.executable
    env = {**os.environ, "SAMBA_BUILD": "pure"}
    subprocess.run(["bash", "proto/generate.sh", python], cwd=repo, check=True, env=env)
    subprocess.run([python, "clients/python/schema_build.py"], cwd=repo, check=True)
    site = tmp / "site" / "samba_adjudicator"
    site.mkdir(parents=True)
    for name, source in {
        "engine": ROOT / "engine",
        "service": repo / "service",
        "schema": repo / "generated" / "samba",
        "client": repo / "clients" / "python" / "client",
    }.items():
        (site / name).symlink_to(source)
    return site.parent


def test_a_new_rpc_touches_the_files_contributing_lists_and_is_served_whole(tmp_path):
    assert _listed() == set(SCRATCH)
    repo = _copy(tmp_path)
    site = _generate(repo, tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(repo / "docs"), str(ROOT / "tests")],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site), "SAMBA_BUILD": "pure"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    stock = out["example"][1]["stockSize"]
    assert out == {
        "row": True,  # a plain RPC needs no row
        "handler": "count_stock",
        "route": [["CountStock", "post", "/v1/deals:count-stock"]],
        "example": [["snapshot"], {"stockSize": stock}, "INVALID_ARGUMENT"],
        "cli": "CountStock",
        "answer": stock,
        "clients": [
            "``CountStock`` (REST ``POST /v1/deals:count-stock``): "
            "CountStockRequest -> CountStockResponse."
        ]
        * 2,
        "pinned": ["CountStock"],  # tests/test_schema.py's list names it
    }
    assert stock > 0
