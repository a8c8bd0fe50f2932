"""What the chart gives an SRE (issue 38), checked with the real tools and a real server.

- the PrometheusRule's rules pass ``promtool check rules`` (Debian's prometheus package,
  `make promtool`), and a broken expression fails it (the control);
- every metric an alert, a dashboard panel or the documented prometheus-adapter rule names
  is in the ``/metrics`` of a real server that has answered calls;
- the Grafana dashboard (a ConfigMap for Grafana's sidecar) meets a minimal JSON schema of
  the dashboard model, and a dashboard without panels' targets does not (the control);
- the ``helm test`` hook pod's command passes against a real server and is what the pod
  runs; the NetworkPolicy admits the pod, the Service does not select it;
- the HPA's optional requests-per-second metric and the headless Service render as
  docs/deployment.md and docs/deployment.md say;
- the connection-age settings reach the server's environment.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import jsonschema
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families
from service_fixtures import server  # noqa: F401
from test_deploy import (  # noqa: F401
    ALL_FEATURES,
    CHART,
    FULLNAME,
    _template,
    by_kind,
    env_of,
    helm,
    helm_env,
    named,
    one,
    render,
)

from samba_adjudicator.service.ops import config

pytestmark = [pytest.mark.tools, pytest.mark.servers]

REPO = Path(__file__).resolve().parents[1]
PROMTOOL = Path("/usr/bin/promtool")
DEPLOYMENT_MD = REPO / "docs" / "deployment.md"
#: A metric selector (``name{``) or any samba metric named bare.
METRIC = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{|\b(samba_[a-z0-9_]+)\b")

# The dashboard model's fields Grafana needs to import it and draw every panel.
DASHBOARD_SCHEMA = {
    "type": "object",
    "required": ["uid", "title", "schemaVersion", "panels", "templating", "time"],
    "properties": {
        "uid": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,40}$"},
        "title": {"type": "string", "minLength": 1},
        "schemaVersion": {"type": "integer", "minimum": 30},
        "time": {"type": "object", "required": ["from", "to"]},
        "templating": {
            "type": "object",
            "required": ["list"],
            "properties": {
                "list": {
                    "type": "array",
                    "items": {"type": "object", "required": ["name", "type"]},
                }
            },
        },
        "panels": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["id", "type", "title", "gridPos", "datasource", "targets"],
                "properties": {
                    "id": {"type": "integer"},
                    "type": {"enum": ["timeseries", "stat", "gauge", "table", "heatmap"]},
                    "gridPos": {
                        "type": "object",
                        "required": ["h", "w", "x", "y"],
                        "properties": {
                            "w": {"type": "integer", "minimum": 1, "maximum": 24},
                            "x": {"type": "integer", "minimum": 0, "maximum": 23},
                        },
                    },
                    "targets": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["refId", "expr"],
                            "properties": {"expr": {"type": "string", "minLength": 1}},
                        },
                    },
                },
            },
        },
    },
}


def metric_names(expr: str) -> set[str]:
    names = {a or b for a, b in METRIC.findall(expr)}
    return names - {"by", "without", "on", "ignoring", "group_left", "group_right"}


@pytest.fixture(scope="module")
def exported(server):  # noqa: F811
    """Names of every sample a real server's /metrics holds after answering: a legal and
    an illegal action, an invalid request (so the error and violation series exist)."""
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        body = {"ruleset": {"profile": "classic"}, "players": 4, "dealer": 0, "seed": "ops"}
        snapshot = http.post("/v1/deals:deal", json=body).json()["snapshot"]
        seat = snapshot["turn"]["seat"]
        draw = {"snapshot": snapshot, "action": {"seat": seat, "drawStock": {}}}
        assert http.post("/v1/actions:validate", json=draw).json()["legal"] is True
        early = {"snapshot": snapshot, "action": {"seat": seat, "discard": {"card": "5C"}}}
        assert http.post("/v1/actions:validate", json=early).json()["legal"] is False
        assert http.post("/v1/actions:validate", json={}).status_code == 400
    text = httpx.get(server.admin_url + "/metrics", timeout=10).text
    return {s.name for f in text_string_to_metric_families(text) for s in f.samples}


def _rules(docs: list[dict]) -> list[dict]:
    rule = one(docs, "PrometheusRule")
    assert rule["apiVersion"] == "monitoring.coreos.com/v1"
    return [r for group in rule["spec"]["groups"] for r in group["rules"]]


def _promtool(tmp_path: Path, spec: dict) -> subprocess.CompletedProcess:
    assert PROMTOOL.is_file(), (
        f"{PROMTOOL} is missing: `make promtool` (apt-get install prometheus)"
    )
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(spec))
    return subprocess.run(
        [str(PROMTOOL), "check", "rules", str(path)], capture_output=True, text=True, timeout=60
    )


# ----------------------------------------------------------------------------- alerts


def test_the_prometheus_rule_passes_promtool(render, tmp_path):
    _, docs = render("all-features")
    spec = one(docs, "PrometheusRule")["spec"]
    res = _promtool(tmp_path, spec)
    assert res.returncode == 0, res.stdout + res.stderr
    alerts = {r["alert"] for r in _rules(docs)}
    assert alerts == {
        "SambaAdjudicatorErrorRatio",
        "SambaAdjudicatorLatencyP99",
        "SambaAdjudicatorMemoryBudgetRefusals",
        "SambaAdjudicatorOverloaded",
        "SambaAdjudicatorDrainRefusals",
    }
    assert f"SUCCESS: {len(alerts)} rules found" in res.stdout, res.stdout


def test_promtool_refuses_a_broken_rule(render, tmp_path):
    """Control: the check bites (an unbalanced parenthesis in one expression)."""
    _, docs = render("all-features")
    spec = one(docs, "PrometheusRule")["spec"]
    spec["groups"][0]["rules"][0]["expr"] += ")"
    assert _promtool(tmp_path, spec).returncode != 0


def test_rules_are_off_by_default_and_follow_their_values(render):
    _, docs = render("default")
    assert not by_kind(docs, "PrometheusRule")
    _, docs = render("all-features")
    values = yaml.safe_load(ALL_FEATURES.read_text())["metrics"]["prometheusRule"]
    rule = one(docs, "PrometheusRule")
    assert rule["metadata"]["labels"]["release"] == values["labels"]["release"]
    p99 = next(r for r in _rules(docs) if r["alert"] == "SambaAdjudicatorLatencyP99")
    assert f"> {values['p99Seconds']}" in p99["expr"]
    for r in _rules(docs):  # every series picked by the release's namespace and Service
        assert f'service="{FULLNAME}"' in r["expr"], r["expr"]


def test_every_alert_names_metrics_the_server_exports(render, exported):
    _, docs = render("all-features")
    for r in _rules(docs):
        names = metric_names(r["expr"])
        assert names, r
        assert names <= exported, (r["alert"], names - exported)


# ----------------------------------------------------------------------------- dashboard


def _dashboard(docs: list[dict]) -> dict:
    cm = named(docs, "ConfigMap", "-dashboard")
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    [text] = cm["data"].values()
    return json.loads(text)


def test_the_dashboard_meets_the_model_schema(render):
    _, docs = render("all-features")
    dashboard = _dashboard(docs)
    jsonschema.validate(dashboard, DASHBOARD_SCHEMA)
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    for p in dashboard["panels"]:
        assert p["gridPos"]["x"] + p["gridPos"]["w"] <= 24, p["title"]
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    for p in dashboard["panels"]:
        for t in p["targets"]:
            used = set(re.findall(r"\$(\w+)", t["expr"])) - {"__rate_interval"}
            assert used <= variables, (p["title"], used - variables)
    _, defaults = render("default")
    assert not [
        c for c in by_kind(defaults, "ConfigMap") if c["metadata"]["name"].endswith("-dashboard")
    ]


def test_the_schema_check_refuses_a_panel_without_targets(render):
    """Control: the schema is not vacuous."""
    _, docs = render("all-features")
    dashboard = _dashboard(docs)
    del dashboard["panels"][0]["targets"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(dashboard, DASHBOARD_SCHEMA)


def test_every_panel_names_metrics_the_server_exports(render, exported):
    _, docs = render("all-features")
    dashboard = _dashboard(docs)
    queries = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    queries += [
        v["query"]["query"] for v in dashboard["templating"]["list"] if v["type"] == "query"
    ]
    for expr in queries:
        names = metric_names(expr)
        assert names and names <= exported, (expr, names - exported)


# ----------------------------------------------------------------------------- helm test


def _hook(docs: list[dict]) -> dict:
    pod = one(docs, "Pod")
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    return pod


@pytest.mark.parametrize("config", ["default", "all-features"])
def test_the_helm_test_pod_calls_the_service_and_is_let_in(render, config):
    _, docs = render(config)
    pod = _hook(docs)
    [c] = pod["spec"]["containers"]
    assert (
        c["image"] == one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["image"]
    )
    assert c["command"][:2] == ["python", "-c"]
    script = (CHART / "files" / "helm-test.py").read_text()
    assert c["command"][2].strip() == script.strip()
    svc = named(docs, "Service")
    http_port = next(p["port"] for p in svc["spec"]["ports"] if p["name"] == "http")
    assert {e["name"]: e["value"] for e in c["env"]} == {
        "SAMBA_URL": f"http://{svc['metadata']['name']}:{http_port}"
    }
    labels = pod["metadata"]["labels"]
    assert not svc["spec"]["selector"].items() <= labels.items(), "the Service must not pick it"
    callers = one(docs, "NetworkPolicy")["spec"]["ingress"][0]["from"]
    assert any(
        "podSelector" in peer and peer["podSelector"]["matchLabels"].items() <= labels.items()
        for peer in callers
    ), "the NetworkPolicy must let the test pod call the API ports"
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["spec"]["restartPolicy"] == "Never"


def test_the_helm_test_command_passes_against_a_real_server(render, server):  # noqa: F811
    _, docs = render("default")
    [c] = _hook(docs)["spec"]["containers"]
    res = subprocess.run(
        [sys.executable, *c["command"][1:]],
        env={"SAMBA_URL": server.base_url, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert json.loads(res.stdout.splitlines()[-1])["validateAction"] == "legal"


def test_the_helm_test_command_fails_when_the_service_does_not_answer(render):
    """Control: a release that does not answer fails `helm test`."""
    _, docs = render("default")
    [c] = _hook(docs)["spec"]["containers"]
    res = subprocess.run(
        [sys.executable, *c["command"][1:]],
        env={"SAMBA_URL": "http://127.0.0.1:9"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode != 0


def test_helm_test_can_be_turned_off(helm):
    res = _template(helm, "--set", "helmTest.enabled=false")
    assert res.returncode == 0, res.stderr
    assert not by_kind([d for d in yaml.safe_load_all(res.stdout) if d], "Pod")


# ----------------------------------------------------------------------------- scaling


def _adapter_rule() -> dict:
    """The prometheus-adapter rule docs/deployment.md gives (its one ```yaml block there
    that starts with `rules:`)."""
    text = DEPLOYMENT_MD.read_text()
    blocks = re.findall(r"```yaml\n(rules:.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/deployment.md must give the adapter rule"
    [rule] = yaml.safe_load(blocks[0])["rules"]
    return rule


def test_the_hpa_can_scale_on_requests_per_second(render, exported):
    _, docs = render("default")
    [cpu] = one(docs, "HorizontalPodAutoscaler")["spec"]["metrics"]
    assert cpu["type"] == "Resource"
    _, docs = render("all-features")
    values = yaml.safe_load(ALL_FEATURES.read_text())["autoscaling"]["requestsPerSecond"]
    cpu, rps = one(docs, "HorizontalPodAutoscaler")["spec"]["metrics"]
    assert cpu["type"] == "Resource"
    assert rps == {
        "type": "Pods",
        "pods": {
            "metric": {"name": values["metricName"]},
            "target": {"type": "AverageValue", "averageValue": values["averageValue"]},
        },
    }
    # the documented adapter rule serves that metric, from a series the server exports
    rule = _adapter_rule()
    assert rule["name"]["as"] == values["metricName"]
    assert metric_names(rule["seriesQuery"]) <= exported
    assert set(rule["resources"]["overrides"]) == {"namespace", "pod"}


# ----------------------------------------------------------------------------- connections


def test_the_headless_service_is_an_option_for_round_robin(render, helm):
    _, docs = render("default")
    assert [s["metadata"]["name"] for s in by_kind(docs, "Service")] == [FULLNAME]
    _, docs = render("all-features")
    headless = named(docs, "Service", "-headless")
    main = named(docs, "Service")
    assert headless["spec"]["clusterIP"] == "None"
    assert headless["spec"]["selector"] == main["spec"]["selector"]
    [port] = headless["spec"]["ports"]
    container_port = next(
        p["containerPort"]
        for p in one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["ports"]
        if p["name"] == "grpc"
    )
    # a client dials the pods themselves: the port it resolves is the container's
    assert (port["name"], port["targetPort"], port["port"]) == ("grpc", "grpc", container_port)
    assert headless["spec"]["publishNotReadyAddresses"] is False


def test_the_connection_age_reaches_the_server(render):
    defaults = config.Settings()
    _, docs = render("default")
    env = env_of(docs)
    assert (
        env["SAMBA_MAX_CONNECTION_AGE_SECONDS"]["value"]
        == f"{defaults.max_connection_age_seconds:g}"
    )
    grace = env["SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS"]["value"]
    assert grace == f"{defaults.max_connection_age_grace_seconds:g}"
    _, docs = render("all-features")
    server_values = yaml.safe_load(ALL_FEATURES.read_text())["server"]
    env = env_of(docs)
    assert env["SAMBA_MAX_CONNECTION_AGE_SECONDS"]["value"] == str(
        server_values["maxConnectionAgeSeconds"]
    )


def test_connection_age_settings_have_a_flag_a_twin_and_a_range():
    assert config.load([], environ={}).max_connection_age_seconds == 300
    assert config.load([], environ={}).max_connection_age_grace_seconds == 30
    s = config.load(
        ["--max-connection-age-seconds", "60"],
        environ={
            "SAMBA_MAX_CONNECTION_AGE_SECONDS": "90",
            "SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS": "5",
        },
    )
    assert (s.max_connection_age_seconds, s.max_connection_age_grace_seconds) == (60, 5)
    with pytest.raises(config.ConfigError, match="SAMBA_MAX_CONNECTION_AGE_SECONDS"):
        config.load(["--max-connection-age-seconds", "0.5"], environ={})
    with pytest.raises(config.ConfigError, match="SAMBA_MAX_CONNECTION_AGE_GRACE_SECONDS"):
        config.load(["--max-connection-age-grace-seconds", "-1"], environ={})


def test_the_workers_own_ports_are_container_ports_the_policy_lets_in(helm):
    """server.workerGrpcPort / workerHttpPort: worker i's own port (the first + i) is a named
    container port, and the NetworkPolicy lets the callers reach it as it does the shared
    ones; unset (the default), there is none."""
    res = _template(
        helm,
        *("--set", "server.workers=2", "--set", "server.workerGrpcPort=50061"),
        *("--set", "server.workerHttpPort=8090", "--set", "networkPolicy.enabled=true"),
    )
    assert res.returncode == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    ports = {p["name"]: p["containerPort"] for p in container_ports(docs)}
    own = {"grpc-w0": 50061, "grpc-w1": 50062, "http-w0": 8090, "http-w1": 8091}
    assert {k: v for k, v in ports.items() if "-w" in k} == own
    env = env_of(docs)
    assert (env["SAMBA_WORKER_GRPC_PORT"]["value"], env["SAMBA_WORKER_HTTP_PORT"]["value"]) == (
        "50061",
        "8090",
    )
    callers = one(docs, "NetworkPolicy")["spec"]["ingress"][0]["ports"]
    assert {p["port"] for p in callers} == {"grpc", "http", *own}
    res = _template(helm, "--set", "networkPolicy.enabled=true")
    default = [d for d in yaml.safe_load_all(res.stdout) if d]
    names = [p["name"] for p in container_ports(default)]
    assert names == ["grpc", "http", "admin"]
    assert {p["port"] for p in one(default, "NetworkPolicy")["spec"]["ingress"][0]["ports"]} == {
        "grpc",
        "http",
    }


def container_ports(docs: list[dict]) -> list[dict]:
    return one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["ports"]
