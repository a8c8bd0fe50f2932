"""The Helm chart run by a real container runtime: `podman kube play` (part of `make
image-test`, on the image it has just built).

The chart is rendered with the Helm `make deploy-tools` installs, with its secure defaults
(the generated keys Secret, signing on, the NetworkPolicy) and only what a laptop needs
changed: the local image (``pullPolicy: Never``), the container ports published on
127.0.0.1 at ports chosen free now, a short drain. podman plays the Deployment; the keys
Secret becomes a podman secret of the same name, which is how podman resolves a
``secretKeyRef`` (it reads the Kubernetes Secret stored in it). The ConfigMap is played
beside the Deployment, whose ``envFrom`` takes the server's settings from it. The objects
podman has no use for (Service, HPA, PDB, ServiceAccount, NetworkPolicy) are left out. Then:

- the pod runs as UID 10001 with a read-only root filesystem, its environment holding the
  ConfigMap's settings (the short drain set here among them) and the Secret's keys;
- every probe the Deployment declares answers as the kubelet requires (gRPC health
  SERVING for the service it names, or HTTP 200 on its path);
- a REST call and a gRPC call answer, the snapshot signed with the Secret's key;
- the ``helm test`` hook pod's command (templates/tests/: /readyz, a Deal and a
  ValidateAction) passes, run in the played pod with ``podman exec``: kube play has no hooks
  and no Service DNS, so its ``SAMBA_URL`` is the pod's own HTTP port on 127.0.0.1;
- ``podman kube down`` stops it: the server logs its drain and a clean stop, exit 0.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import httpx
import yaml

ROOT = Path(__file__).resolve().parent.parent
HELM = ROOT / ".tools" / "bin" / "helm"
CHART = ROOT / "helm" / "samba-adjudicator"
PLAYED_KINDS = ("ConfigMap", "Deployment")


def _sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed ({done.returncode}):\n{done.stderr}")
    return done


def render(image: str) -> list[dict]:
    repository, tag = image.rsplit(":", 1)
    overrides = {
        "image.repository": repository,
        "image.tag": tag,
        "image.pullPolicy": "Never",
        "server.shutdownGraceSeconds": "2",
        "lifecycle.preStopSleepSeconds": "0",
        "terminationGracePeriodSeconds": "10",
    }
    args = [
        a
        for k, v in overrides.items()
        for a in ("--set-string" if k == "image.tag" else "--set", f"{k}={v}")
    ]
    out = _sh([str(HELM), "template", "samba", str(CHART), "--namespace", "default", *args])
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def _probe_passes(probe: dict, published: dict[int, int]) -> bool:
    """One probe as the kubelet runs it, through the port published on 127.0.0.1."""
    try:
        if "grpc" in probe:
            from grpc_health.v1 import health_pb2, health_pb2_grpc

            port = published[probe["grpc"]["port"]]
            with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                answer = health_pb2_grpc.HealthStub(ch).Check(
                    health_pb2.HealthCheckRequest(service=probe["grpc"].get("service", "")),
                    timeout=probe.get("timeoutSeconds", 1),
                )
            return answer.status == health_pb2.HealthCheckResponse.SERVING
        get = probe["httpGet"]
        port = published[get["port"]]
        r = httpx.get(
            f"http://127.0.0.1:{port}{get['path']}", timeout=probe.get("timeoutSeconds", 1)
        )
        return 200 <= r.status_code < 400
    except (grpc.RpcError, httpx.HTTPError):
        return False


def _named_ports(container: dict, probe: dict) -> dict:
    """An httpGet probe's named port ("http") as its number."""
    get = probe.get("httpGet")
    if get and isinstance(get["port"], str):
        numbers = {p["name"]: p["containerPort"] for p in container["ports"]}
        probe = {**probe, "httpGet": {**get, "port": numbers[get["port"]]}}
    return probe


def _wait(what: str, predicate, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"kube play: {what} not in {timeout:g} s")
        time.sleep(0.5)


def _calls(http_port: int, grpc_port: int) -> dict:
    from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
    from samba_adjudicator.service.base import pb

    base = f"http://127.0.0.1:{http_port}"
    rulesets = httpx.get(base + "/v1/rulesets", timeout=10)
    assert rulesets.status_code == 200, rulesets.text
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as ch:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
        dealt = stub.Deal(pb.DealRequest(players=4, seed="kube-play"), timeout=10).snapshot
        listed = stub.ListLegalActions(pb.ListLegalActionsRequest(snapshot=dealt), timeout=10)
    assert dealt.signature.startswith("v1.k1."), "the Secret's signing key is not in use"
    assert listed.actions, "a signed snapshot was not accepted back"
    # the same snapshot unsigned is refused: signing is on, not merely decorative
    unsigned = pb.Snapshot()
    unsigned.CopyFrom(dealt)
    unsigned.signature = ""
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as ch:
        try:
            adjudicator_pb2_grpc.AdjudicatorStub(ch).ListLegalActions(
                pb.ListLegalActionsRequest(snapshot=unsigned), timeout=10
            )
            raise AssertionError("an unsigned snapshot was accepted")
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.PERMISSION_DENIED, e
    return {"rulesets": len(rulesets.json()["rulesets"]), "signature": dealt.signature[:6]}


def _environment(podman: list[str], name: str) -> dict[str, str]:
    """The running container's environment (what the server process was started with)."""
    out = _sh(podman + ["exec", name, "sh", "-c", "tr '\\0' '\\n' < /proc/1/environ"]).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def helm_test(docs: list[dict], podman: list[str], name: str, http_port: int) -> dict:
    """The chart's `helm test` pod's command, run in the played pod (its own image)."""
    [hook] = [d for d in docs if d["kind"] == "Pod"]
    assert hook["metadata"]["annotations"]["helm.sh/hook"] == "test", hook["metadata"]
    [test] = hook["spec"]["containers"]
    url = f"http://127.0.0.1:{http_port}"
    out = _sh(podman + ["exec", "-e", f"SAMBA_URL={url}", name, *test["command"]]).stdout
    return json.loads(out.strip().splitlines()[-1])


def publish(container: dict, free_port) -> dict[int, int]:
    """Each container port published on 127.0.0.1 at a port free now (hostIP/hostPort, as
    a kind or kubeadm node would do for a NodePort): {container port: host port}."""
    published = {}
    for port in container["ports"]:
        port["hostIP"], port["hostPort"] = "127.0.0.1", free_port()
        published[port["containerPort"]] = port["hostPort"]
    return published


#: runc cannot set rlimits equal to the host's hard limits in this sandbox (image_check.py
#: passes --ulimit to `podman run`); kube play takes them from containers.conf.
CONTAINERS_CONF = """[containers]
default_ulimits = ["nofile=16384:16384", "nproc=4096:4096"]
"""


def run(image: str, podman: list[str], free_port) -> dict:
    docs = render(image)
    secret = next(d for d in docs if d["kind"] == "Secret")
    played = [d for d in docs if d["kind"] in PLAYED_KINDS]
    [deployment] = [d for d in played if d["kind"] == "Deployment"]
    [settings] = [d for d in played if d["kind"] == "ConfigMap"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    published = publish(container, free_port)
    # podman 4.3's kube play refuses the image's WORKDIR (/app, present: `podman run` uses
    # it) with "workdir does not exist"; the server needs no working directory of its own
    container["workingDir"] = "/"
    numbers = {p["name"]: p["containerPort"] for p in container["ports"]}
    grpc_port, http_port = published[numbers["grpc"]], published[numbers["http"]]
    secret_name = secret["metadata"]["name"]
    with tempfile.TemporaryDirectory(prefix="samba-kube-") as tmp:
        conf = Path(tmp) / "containers.conf"
        conf.write_text(CONTAINERS_CONF)
        env = {**os.environ, "CONTAINERS_CONF": str(conf)}
        kube = Path(tmp) / "deployment.yaml"
        kube.write_text(yaml.safe_dump_all(played))
        # podman 4.3 resolves a secretKeyRef in a podman secret holding the Secret's data:
        # a JSON object of base64 values, keyed as in the Secret
        secret_file = Path(tmp) / "secret.json"
        secret_file.write_text(json.dumps(secret["data"]))
        subprocess.run(podman + ["secret", "rm", secret_name], capture_output=True)
        _sh(podman + ["secret", "create", secret_name, str(secret_file)])
        try:
            # the log file outlives the container, which `kube down` removes
            logs = Path(tmp) / "pod.log"
            play = ["kube", "play", "--log-driver", "k8s-file", "--log-opt", f"path={logs}"]
            played_out = _sh(podman + [*play, str(kube)], env=env).stdout
            name = played_out.split("Container:")[-1].split()[0]
            probes = {
                kind: _named_ports(container, container[kind])
                for kind in ("startupProbe", "livenessProbe", "readinessProbe")
                if kind in container
            }
            for kind, probe in probes.items():
                _wait(f"{kind} passing", lambda p=probe: _probe_passes(p, published))
            user = _sh(podman + ["exec", name, "id", "-u"]).stdout.strip()
            assert user == "10001", user
            touched = subprocess.run(
                podman + ["exec", name, "sh", "-c", "touch /app/x 2>/dev/null && echo yes"],
                capture_output=True,
                text=True,
            ).stdout.strip()
            assert touched != "yes", "the root filesystem is writable"
            environment = _environment(podman, name)
            for key, value in settings["data"].items():
                assert environment.get(key) == value, (key, value, environment.get(key))
            assert environment.get("SAMBA_SHUTDOWN_GRACE_SECONDS") == "2", environment
            for key in ("SAMBA_SNAPSHOT_KEYS", "SAMBA_PAGE_TOKEN_KEY"):
                assert environment.get(key), f"{key} from the Secret is not set"
            called = _calls(http_port, grpc_port)
            called["helmTest"] = helm_test(docs, podman, name, numbers["http"])
            # podman 4.3's `kube down` removes the pod at once, without the SIGTERM and grace
            # a kubelet gives (the server logged no signal): stop the pod the kubelet's way
            # first (SIGTERM, the pod's termination grace), then take it down
            pod = deployment["metadata"]["name"] + "-pod-0"
            grace = str(deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"])
            _sh(podman + ["pod", "stop", "-t", grace, pod])
            status = _sh(podman + ["inspect", name, "--format", "{{.State.ExitCode}}"]).stdout
            assert status.strip() == "0", status
            _sh(podman + ["kube", "down", str(kube)])
            text = logs.read_text()
            # k8s-file lines: "<time> stderr F <the server's JSON line>"
            stops = [
                json.loads(line[line.index("{") :])
                for line in text.splitlines()
                if '"message": "stopped"' in line
            ]
            assert '"draining"' in text and stops and stops[-1]["clean"] is True, text[-3000:]
        finally:
            subprocess.run(podman + ["kube", "down", str(kube)], capture_output=True)
            subprocess.run(podman + ["secret", "rm", secret_name], capture_output=True)
    keys = {k: len(base64.b64decode(v)) for k, v in secret["data"].items()}
    return {
        "kubePlay": deployment["metadata"]["name"],
        "probes": sorted(probes),
        "user": user,
        "readOnly": True,
        "secretKeys": keys,
        "configMapSettings": len(settings["data"]),
        **called,
        "drained": "clean",
    }


if __name__ == "__main__":  # against an image built already: python tests/kube_play_check.py IMAGE
    sys.path.insert(0, str(ROOT / "tests"))
    import image_check

    print(json.dumps(run(sys.argv[1], image_check.PODMAN, image_check.free_port)))
