"""service.pipeline.rpc: what the service knows of an RPC beyond its schema, one row each
(``RPCS``), read by everything that needs it (CONTRIBUTING.md, "An RPC")."""

from __future__ import annotations

import json
import re
from pathlib import Path

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.pipeline.api import METHODS, Adjudicator
from samba_adjudicator.service.pipeline.call import Call, received
from samba_adjudicator.service.pipeline.rpc import RPCS, Rpc
from samba_adjudicator.service.pipeline.runtime import Runtime
from samba_adjudicator.service.web.examples import TYPO_FIELD, route_examples

ROOT = Path(__file__).resolve().parents[3]
NAMES = [m.name for m in pb.SERVICE.methods]


def test_every_rpc_of_the_schema_has_its_row_and_its_handler_in_order():
    assert list(RPCS) == NAMES == list(METHODS)
    for name, (_, handler) in METHODS.items():  # the Adjudicator method of its snake_case name
        assert handler is getattr(Adjudicator, re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower())


def test_a_row_says_which_calls_are_heavy_and_the_call_is_weighed_by_it():
    heavy = {name for name, rpc in RPCS.items() if rpc.heavy}
    assert heavy == {"ReplayDeal", "ListLegalActions", "SuggestAction"}
    for name in NAMES:  # a cheap body: only the row makes it heavy
        assert received(name, b"{}", "rest", "r").heavy is (name in heavy)


def test_the_outcome_of_an_answer_is_its_rows():
    runtime = Runtime(None, Adjudicator(), count_calls=False)
    examples = route_examples(None)

    def outcome(name: str, body: dict) -> tuple[str, list[str]]:
        answer = runtime.answer(Call(name, json.dumps(body), json=True))
        return RPCS[name].outcome(answer.message)

    assert outcome("CheckMeld", examples["CheckMeld"]["request"]) == ("legal", [])
    bad = {**examples["CheckMeld"]["request"], "cards": ["7H", "8D"]}
    assert outcome("CheckMeld", bad)[0] == "illegal"
    assert outcome("ValidateAction", examples["ValidateAction"]["request"]) == ("legal", [])
    replay = examples["ReplayDeal"]["request"]
    assert outcome("ReplayDeal", replay) == ("legal", [])
    label, codes = outcome("ReplayDeal", {**replay, "actions": replay["actions"][1:]})
    assert label == "illegal" and codes  # a discard before drawing
    assert outcome("ScoreDeal", examples["ScoreDeal"]["request"]) == ("ok", [])


def test_the_examples_are_the_rows_filled_in_from_a_real_deal():
    examples = route_examples(None)
    assert list(examples) == NAMES
    assert examples["ListRulesets"]["request"] is None and examples["ListRulesets"]["error"] is None
    assert examples["GetRuleset"]["error"]["error"]["status"] == "NOT_FOUND"
    snapshot = examples["Deal"]["response"]["snapshot"]
    for name, rpc in RPCS.items():
        request = examples[name]["request"]
        assert "$" not in str(request), name
        if rpc.example is not None and "snapshot" in rpc.example and name != "SuggestAction":
            assert request["snapshot"] == snapshot, name
        if rpc.error is None and request is not None:  # the example with a misspelt field
            assert TYPO_FIELD in str(examples[name]["error"]), name
    assert "error" not in examples["SuggestAction"]["response"]
    assert Rpc().example == {"snapshot": "$snapshot"}  # an RPC without a row


def test_no_other_module_lists_the_rpcs():
    """An RPC's facts were spread over _HANDLERS, REMEMBERS, OFFLOAD, _outcome, the
    examples, the GET builders and the Python client's method lines; a module of the service
    or the client naming more than three RPCs is such a list again."""
    quoted = re.compile("|".join(rf'"{name}"' for name in NAMES))
    sources = [*ROOT.glob("service/**/*.py"), *ROOT.glob("clients/python/client/*.py")]
    lists = {
        str(p.relative_to(ROOT))
        for p in sources
        if "_compiled" not in p.parts and len(set(quoted.findall(p.read_text()))) > 3
    }
    assert lists == {"service/pipeline/rpc.py"}
