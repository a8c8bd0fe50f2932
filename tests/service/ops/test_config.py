"""Each setting is written once, as its field of ``Settings`` (service/ops/config.py): its
flag and environment twin read it, its range refuses what is outside, and the docs' table
is made from it (``make docs``)."""

from __future__ import annotations

import dataclasses

import pytest
from settings_table import DOC, written

from samba_adjudicator.service.ops import config


def test_the_docs_table_is_made_from_the_settings():
    text = DOC.read_text(encoding="utf-8")
    assert written(text) == text, "run `make docs`: docs/service.md's settings table is stale"


def _other(f: dataclasses.Field, spec: config.Spec) -> tuple[str, object]:
    """A valid value unlike the default, as text and as read."""
    if spec.choices:
        return spec.choices[-1], spec.choices[-1]
    if f.name == "cors_origins":
        return "https://game.example", ("https://game.example",)
    if f.name == "otlp_endpoint":
        return "http://collector:4318", "http://collector:4318/v1/traces"
    if isinstance(f.default, bool):
        return "1", True
    if isinstance(f.default, int | float):
        value = type(f.default)(spec.high if spec.high is not None else 7)
        return str(value), value
    return "other.example", "other.example"


@pytest.mark.parametrize("name", [f.name for f, _ in config.specs()])
def test_every_setting_is_read_from_its_twin_and_its_flag(name):
    f, spec = next((f, s) for f, s in config.specs() if f.name == name)
    text, value = _other(f, spec)
    assert getattr(config.load([], {}), name) == f.default
    assert getattr(config.load([], {config.env_of(f): text}), name) == value
    if spec.flag:
        assert getattr(config.load([config.flag_of(f), text], {}), name) == value


@pytest.mark.parametrize("name", [f.name for f, s in config.specs() if s.low is not None])
def test_every_range_refuses_what_is_outside_it(name):
    f, spec = next((f, s) for f, s in config.specs() if f.name == name)
    assert spec.high is not None
    for outside in (spec.low - 1, spec.high + 1):
        text = str(type(f.default)(outside))
        with pytest.raises(config.ConfigError, match=config.env_of(f)):
            config.load([], {config.env_of(f): text})
