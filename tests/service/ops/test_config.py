"""Each setting is written once, as its field of ``Settings`` (service/ops/config.py): its
flag and environment twin read it, its range refuses what is outside, and the docs' table
is made from it (``make docs``)."""

from __future__ import annotations

import pytest
from settings_table import DOC, written

from samba_adjudicator.service.ops import config


def test_the_docs_table_is_made_from_the_settings():
    text = DOC.read_text(encoding="utf-8")
    assert written(text) == text, "run `make docs`: docs/service.md's settings table is stale"


def _other(name: str, spec: dict) -> tuple[str, object]:
    """A valid value unlike the default, as text and as read."""
    default = config.Settings.model_fields[name].default
    if "enum" in spec:
        return spec["enum"][-1], spec["enum"][-1]
    if name == "cors_origins":
        return "https://game.example", ("https://game.example",)
    if name == "otlp_endpoint":
        return "http://collector:4318", "http://collector:4318/v1/traces"
    if isinstance(default, bool):
        return "1", True
    if isinstance(default, int | float):
        value = type(default)(spec.get("maximum", 7))
        return str(value), value
    return "other.example", "other.example"


@pytest.mark.parametrize("name", list(config.schema()))
def test_every_setting_is_read_from_its_twin_and_its_flag(name):
    spec = config.schema()[name]
    text, value = _other(name, spec)
    assert getattr(config.load([], {}), name) == config.Settings.model_fields[name].default
    assert getattr(config.load([], {config.env_of(name): text}), name) == value
    if spec.get("flag", True):
        assert getattr(config.load([config.flag_of(name), text], {}), name) == value


@pytest.mark.parametrize("name", [n for n, s in config.schema().items() if "minimum" in s])
def test_every_range_refuses_what_is_outside_it(name):
    spec = config.schema()[name]
    default = config.Settings.model_fields[name].default
    for outside in (spec["minimum"] - 1, spec["maximum"] + 1):
        text = str(type(default)(outside))
        with pytest.raises(config.ConfigError, match=config.env_of(name)):
            config.load([], {config.env_of(name): text})
