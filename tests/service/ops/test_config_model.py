"""The settings are one pydantic-settings model (service/ops/config.py): every problem of a
start-up's settings is named at once, each with its flag and twin, and the model's JSON
Schema carries each setting's range and choices, from which the docs' table and the chart's
values.schema.json are made (``make docs``)."""

from __future__ import annotations

import json

import pytest
from settings_table import CHART_SCHEMA, chart_schema

from samba_adjudicator.service.ops import config


def test_every_setting_out_of_range_is_named_in_one_refusal():
    env = {"SAMBA_GRPC_PORT": "70000", "SAMBA_WORKERS": "0", "SAMBA_LOG_LEVEL": "loud"}
    with pytest.raises(config.ConfigError) as err:
        config.load(["--max-call-seconds", "0"], env)
    message = str(err.value)
    for named in ("SAMBA_GRPC_PORT", "SAMBA_WORKERS", "SAMBA_LOG_LEVEL", "--max-call-seconds"):
        assert named in message, message
    assert "\n" not in message  # serve prints it as one line


def test_a_value_that_is_no_number_is_named_with_its_twin():
    with pytest.raises(config.ConfigError, match="SAMBA_GRPC_PORT.*'fifty'"):
        config.load([], {"SAMBA_GRPC_PORT": "fifty"})


def test_the_model_s_json_schema_says_each_range_and_choice():
    schema = config.Settings.model_json_schema()["properties"]
    assert (schema["grpc_port"]["minimum"], schema["grpc_port"]["maximum"]) == (0, 65535)
    assert schema["log_level"]["enum"] == list(config.LOG_LEVELS)
    assert schema["cors_origins"]["items"]["pattern"]
    assert schema["snapshot_keys"]["flag"] is False


def test_settings_built_in_code_read_no_environment(monkeypatch):
    monkeypatch.setenv("SAMBA_GRPC_PORT", "7")
    assert config.Settings().grpc_port == 50051
    assert config.load([]).grpc_port == 7


def test_the_chart_s_schema_is_made_from_the_model():
    text = CHART_SCHEMA.read_text()
    assert chart_schema(text) == text, "run `make docs`: values.schema.json's settings are stale"


def test_the_chart_may_narrow_a_range_never_widen_it():
    schema = json.loads(CHART_SCHEMA.read_text())
    server = schema["properties"]["server"]["properties"]
    server["workers"]["maximum"] = 999  # wider than the model's 256
    del server["maxCallSeconds"]  # missing
    made = json.loads(chart_schema(json.dumps(schema)))["properties"]["server"]["properties"]
    assert made["workers"]["maximum"] == 256
    assert made["maxCallSeconds"] == {"type": "number", "minimum": 0.1, "maximum": 3600}
    assert made["grpcPort"]["minimum"] == 1  # the chart's narrower one kept
