# `helm test`: the release answers through its Service. Run by templates/tests/ with the
# service's own image (python -c), and by `make image-test` in the running pod.
import json
import os
import sys
import urllib.request

BASE = os.environ["SAMBA_URL"].rstrip("/")


def call(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"content-type": "application/json", "x-request-id": "helm-test"}
    req = urllib.request.Request(BASE + path, data=data, headers=headers)
    with urllib.request.urlopen(req, timeout=10) as answer:
        return answer.status, json.loads(answer.read() or b"{}")


status, _ = call("/readyz")
assert status == 200, f"/readyz answered {status}"
deal = {"ruleset": {"profile": "classic"}, "players": 4, "dealer": 0, "seed": "helm-test"}
status, dealt = call("/v1/deals:deal", deal)
snapshot = dealt["snapshot"]
action = {"seat": snapshot["turn"]["seat"], "drawStock": {}}
status, judged = call("/v1/actions:validate", {"snapshot": snapshot, "action": action})
assert judged.get("legal") is True, f"ValidateAction of the first draw: {judged}"
print(json.dumps({"readyz": 200, "validateAction": "legal", "url": BASE}))
sys.exit(0)
