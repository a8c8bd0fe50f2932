"""ListLegalActions page tokens (AIP-158) that reveal nothing about the snapshot.

A token is ``base64url({"o": offset, "d": binding})`` where ``binding`` is an HMAC-SHA256
(128 bits) of the request without its page fields and of the served ruleset version. The
HMAC is keyed: a game server hands tokens to players, and an unkeyed hash of the whole
snapshot lets a player try every arrangement of the few cards still hidden late in a deal
until the hash matches (the hand of an opponent, the stock order).

The key, in order:

1. ``SAMBA_PAGE_TOKEN_KEY`` (base64, at least 16 bytes), the same on every replica;
2. else derived from the first ``SAMBA_SNAPSHOT_KEYS`` key (replicas share those already);
3. else, for ``serve``: random, made once per server process tree (``serve`` makes it before
   starting its workers, so every worker of one server accepts the others' tokens) and
   logged, as a warning when the server listens beyond loopback: replicas behind one load
   balancer need (1) or (2) for a token of one to work on another;
4. else, for the one-shot CLI: a local key kept in ``$XDG_STATE_HOME/samba-adjudicator/
   page-token-key`` (``~/.local/state/...`` by default), made on first use and readable by
   its owner only, so that a token printed by one invocation is accepted by the next.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from samba_adjudicator.engine.model import Problem

from ..base.errors import ApiError, invalid_argument
from ..codec.signing import Signer, decode_key

if TYPE_CHECKING:
    from .config import Settings

ENV = "SAMBA_PAGE_TOKEN_KEY"
_DERIVATION_LABEL = b"samba.v1 page tokens"
#: The fallback key of this process (3. above); ``serve`` passes its own to its workers.
PROCESS_KEY = os.urandom(32)


def is_per_process(spec: str, signer=None) -> bool:
    """True when neither a key setting nor a signing key gives a key that other processes
    share (``key_from`` then returns PROCESS_KEY)."""
    return not (spec and spec.strip()) and signer is None


def with_server_key(settings: Settings) -> tuple[Settings, bool]:
    """(``settings`` with the key ``serve`` hands its workers, whether that key is the
    server's own: ``warn_per_process``). ValueError for a malformed key setting."""
    signer = Signer.parse(settings.snapshot_keys)
    spec = settings.page_token_key
    key = base64.b64encode(key_from(spec, signer)).decode("ascii")
    return replace(settings, page_token_key=key), is_per_process(spec, signer)


def warn_per_process(host: str) -> None:
    """Said by ``serve``, once it is listening on ``host``, when its key is its own: a
    warning when other hosts can reach it (a replica behind a balancer then refuses the
    tokens of the others), at info when it listens on loopback alone (``make run``)."""
    level = logging.INFO if _loopback(host) else logging.WARNING
    logging.getLogger("samba.server").log(
        level,
        "page tokens use a key of this server alone: another replica refuses them "
        f"(PAGE_TOKEN_MISMATCH); give every replica the same {ENV}",
        extra={"fields": {"pageTokenKey": "per-process"}},
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # "" (every interface) or a host name
        return False


def local_key_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the CLI keeps its local key (4. of the module docstring)."""
    environ = os.environ if environ is None else environ
    state = environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local/state")
    return Path(state) / "samba-adjudicator" / "page-token-key"


def local_key(environ: Mapping[str, str] | None = None) -> bytes:
    """The CLI's local key, made on first use (mode 0600 in a 0700 folder). Two invocations
    racing to make it agree: the key is written aside and linked into place, and the one
    that loses reads the winner's."""
    path = local_key_path(environ)
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        aside = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(base64.b64encode(os.urandom(32)).decode("ascii") + "\n")
        try:
            os.link(aside, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(aside)
    raw = decode_key(path.read_text())
    if len(raw) < 16:
        raise ValueError(f"{path}: the key must be at least 16 bytes")
    return raw


def with_cli_key(settings: Settings, environ: Mapping[str, str]) -> Settings:
    """``settings`` with the key of a one-shot CLI call: 1., 2., else the local key (4.;
    ``environ`` says where it is kept)."""
    signer = Signer.parse(settings.snapshot_keys)
    spec = settings.page_token_key
    key = local_key(environ) if is_per_process(spec, signer) else key_from(spec, signer)
    return replace(settings, page_token_key=base64.b64encode(key).decode("ascii"))


def key_from(spec: str, signer=None) -> bytes:
    """The key of the module docstring from a ``SAMBA_PAGE_TOKEN_KEY`` value (may be empty)
    and the snapshot signer (may be None). ValueError for a malformed value."""
    if spec and spec.strip():
        raw = decode_key(spec)
        if len(raw) < 16:
            raise ValueError(f"{ENV} must be at least 16 bytes")
        return raw
    if signer is not None:
        return hmac.new(signer.keys[0][1], _DERIVATION_LABEL, hashlib.sha256).digest()
    return PROCESS_KEY


class PageTokens:
    """Issues and reads page tokens under one key."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def binding(self, request_bytes: bytes, ruleset_version: str) -> str:
        """The keyed digest a token carries: ``request_bytes`` is the deterministic encoding
        of the request with its page fields cleared and the snapshot as the service
        re-encodes it."""
        mac = hmac.new(self._key, ruleset_version.encode() + b"\0" + request_bytes, hashlib.sha256)
        return mac.hexdigest()[:32]

    @staticmethod
    def issue(offset: int, binding: str) -> str:
        raw = json.dumps({"o": offset, "d": binding}, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    @staticmethod
    def read(token: str, binding: str) -> int:
        """The offset of ``token``, or PAGE_TOKEN_MISMATCH when it was not issued for
        ``binding``."""
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            data = json.loads(raw)
            offset, bound = data["o"], data["d"]
        except (binascii.Error, ValueError, TypeError, KeyError):
            raise mismatch() from None
        if (
            not isinstance(bound, str)
            or not bound.isascii()
            or not hmac.compare_digest(bound, binding)
            or not isinstance(offset, int)
            or isinstance(offset, bool)
            or offset < 0
        ):
            raise mismatch()
        return offset


def mismatch() -> ApiError:
    return invalid_argument(
        [
            Problem(
                "pageToken",
                "OUT_OF_RANGE",
                "pageToken does not belong to this request (reuse it only with the same "
                "snapshot and seat)",
            )
        ],
        reason="PAGE_TOKEN_MISMATCH",
    )
