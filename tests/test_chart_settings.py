"""The chart's server settings held to the Settings table (service.ops.config): every listed
setting is a value of values.yaml's ``server`` under its camelCase name, with the setting's
default; values.schema.json gives it the setting's type, range and choices; the ConfigMap
(templates/_helpers.tpl) passes it as the setting's own SAMBA_* variable; the keys come
from a Secret under theirs (templates/deployment.yaml). Where the chart differs on purpose
it is said once, here, with the reason (docs/deployment.md). Offline: no helm needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from samba_adjudicator.engine import build
from samba_adjudicator.service.ops import config

CHART = Path(__file__).resolve().parent.parent / "helm" / "samba-adjudicator"
VALUES = yaml.safe_load((CHART / "values.yaml").read_text())["server"]
SCHEMA = json.loads((CHART / "values.schema.json").read_text())["properties"]["server"]
SETTINGS_MAP = (CHART / "templates" / "_helpers.tpl").read_text()
DEPLOYMENT = (CHART / "templates" / "deployment.yaml").read_text()

#: Settings whose chart default differs from the server's, and why.
CHART_DEFAULTS = {"host": "0.0.0.0"}  # the pod's servers listen on its every interface
#: Settings the chart's schema narrows, and to what: a container port is 1..65535 (the
#: server's 0, "any free port", cannot be named in the pod spec); the drain is added in
#: whole seconds to the preStop sleep (templates/_helpers.tpl), so it is an integer.
CHART_NARROWS = {
    "grpc_port": {"minimum": 1},
    "http_port": {"minimum": 1},
    "admin_port": {"minimum": 1},
    "shutdown_grace_seconds": {"type": "integer"},
}
_TYPES = {int: "integer", float: "number", str: "string", tuple: "array"}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def chart_settings() -> list[tuple[str, dict]]:
    """The settings a ConfigMap carries, each (name, its JSON Schema): listed, given by a
    flag (the keys are secrets)."""
    return [
        (name, s)
        for name, s in config.schema().items()
        if s.get("listed", True) and s.get("flag", True)
    ]


def _default(name: str):
    return config.Settings.model_fields[name].default


def _expected_schema(name: str, spec: dict) -> dict:
    out: dict = {"type": _TYPES[type(_default(name))]}
    if "minimum" in spec:
        out["minimum"], out["maximum"] = spec["minimum"], spec["maximum"]
    if "enum" in spec:
        out["enum"] = sorted(spec["enum"])
    return out | CHART_NARROWS.get(name, {})


def test_every_setting_is_a_chart_value_with_its_default():
    drifted = []
    for name, _ in chart_settings():
        default = CHART_DEFAULTS.get(name, _default(name))
        given = VALUES.get(camel(name), "missing")
        if given != (list(default) if isinstance(default, tuple) else default):
            drifted.append(f"{name}: values.yaml server.{camel(name)} is {given!r}")
    assert not drifted, drifted


def test_every_setting_s_schema_is_its_range():
    drifted = []
    for name, spec in chart_settings():
        schema = dict(SCHEMA["properties"].get(camel(name), {}))
        if "enum" in schema:
            schema["enum"] = sorted(schema["enum"])
        said = {k: schema.get(k) for k in ("type", "minimum", "maximum", "enum") if k in schema}
        if said != _expected_schema(name, spec):
            drifted.append(
                f"{name}: {said} in values.schema.json, not {_expected_schema(name, spec)}"
            )
    assert not drifted, drifted


def _passed(name: str) -> bool:
    """The ConfigMap's line ``SAMBA_X: {{ .Values.server.x ... }}``, or the same line inside
    ``{{- with .Values.server.x }}`` (set only when given)."""
    value, env = rf"\.Values\.server\.{camel(name)}\b", config.env_of(name)
    direct = rf"^{env}: .*{value}"
    within = rf"^{{{{- with {value} }}}}\n{env}: "
    return any(re.search(p, SETTINGS_MAP, re.M) for p in (direct, within))


def test_every_setting_reaches_the_server_under_its_variable():
    """The ConfigMap names each value's own variable, and no variable the server does not
    read (the build choice is the engine's: engine/build.py)."""
    drifted = [name for name, _ in chart_settings() if not _passed(name)]
    assert not drifted, drifted
    known = {config.env_of(name) for name in config.schema()} | {build.ENV}
    assert set(re.findall(r"^(SAMBA_\w+):", SETTINGS_MAP, re.M)) <= known
    assert VALUES["build"] in build.CHOICES
    assert sorted(SCHEMA["properties"]["build"]["enum"]) == sorted(build.CHOICES)


def test_the_keys_come_from_a_secret_under_their_variables():
    for name, spec in config.schema().items():
        if spec.get("listed", True) and not spec.get("flag", True):
            assert re.search(
                rf"- name: {config.env_of(name)}\n\s+valueFrom:\n\s+secretKeyRef:", DEPLOYMENT
            ), name
