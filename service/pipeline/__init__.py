"""One call, whatever the transport: decoding, loading, the RPCs, the error boundary.

Compiled with mypyc when the compiled build is chosen (engine/build.py).
"""

from samba_adjudicator.engine import build as _build

__path__ = _build.search_path(__path__)
