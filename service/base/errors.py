"""Non-OK answers (docs/api.md#errors, AIP-193) and their bodies on every transport.

An ``ApiError`` carries a canonical gRPC code name, a stable ErrorInfo ``reason``, an
English message and, for invalid arguments, every field problem (``engine.model.Problem``:
the one shape of a field problem, from JSON parsing to the engine). An error is a value here,
on the ground floor: its bodies on the wire are ``service.codec.error_bodies``'s, its words
in another language ``service.i18n.localize``'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, MutableSequence
from dataclasses import dataclass, field

from google.rpc import code_pb2

from samba_adjudicator.engine.messages import english, flat
from samba_adjudicator.engine.problems import Problem

DOMAIN = "samba.v1"

#: Canonical code name -> HTTP status (docs/api.md#errors; FAILED_PRECONDITION is 400 there).
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ABORTED": 409,
    "ALREADY_EXISTS": 409,
    "RESOURCE_EXHAUSTED": 413,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INTERNAL": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}
#: Canonical code name -> numeric gRPC code (google.rpc.Code).
GRPC_CODE = {name: code_pb2.Code.Value(name) for name in HTTP_STATUS}


#: Problems one error lists; the rest are counted (``ErrorInfo.metadata.omittedProblems``).
#: A request can hold a hundred thousand bad card codes: listing them all made a 22 MB answer
#: and a quarter of a gigabyte of memory per call.
MAX_LISTED_PROBLEMS = 100
#: Bytes of listed problems (field, description, reason) in one error. A gRPC status travels
#: in trailers, and a client with default settings accepts 8 KiB of them (base64 adds a
#: third): more would turn INVALID_ARGUMENT into RESOURCE_EXHAUSTED for the caller.
MAX_LISTED_BYTES = 4096
#: Characters of one field path or description (they may quote the request).
MAX_TEXT = 200


#: Characters of one error message. A gRPC status message travels in a trailer beside the
#: details, within the 8 KiB a default client accepts: an echoed input (a profile name of
#: thousands of characters) must not turn the answer into RESOURCE_EXHAUSTED.
MAX_MESSAGE = 1024
#: Characters of one input value quoted in a message (a profile name, a meld id).
MAX_ECHO = 40


def clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def echo(value: str) -> str:
    """An input value as a message quotes it: ``repr`` of its first MAX_ECHO characters,
    with the length when it was cut (``'xxxx…' (5000 characters)``)."""
    if len(value) <= MAX_ECHO:
        return repr(value)
    return f"{value[:MAX_ECHO]!r}\u2026 ({len(value)} characters)"


#: A collector of problems: a plain list, or a ProblemList. Code that appends to one is
#: typed with this, not ``list[Problem]``: the compiled build appends to a ``list`` with
#: the C list primitive, which would bypass ProblemList's bound.
Problems = MutableSequence[Problem]


class ProblemList(list):
    """A list of problems that keeps the first MAX_LISTED_PROBLEMS and counts the rest, so
    that collecting them costs bounded memory. Copies keep the count."""

    def __init__(self, items: Iterable = ()) -> None:
        super().__init__()
        self.omitted = 0
        self.extend(items)

    def append(self, problem) -> None:
        if len(self) < MAX_LISTED_PROBLEMS:
            super().append(problem)
        else:
            self.omitted += 1

    def extend(self, items: Iterable) -> None:
        for problem in items:
            self.append(problem)
        self.omitted += getattr(items, "omitted", 0) if items is not self else 0


@dataclass
class ApiError(Exception):
    """A non-OK answer. ``code`` is a canonical gRPC code name (``INVALID_ARGUMENT``)."""

    code: str
    reason: str
    message: str
    #: every field problem of an invalid argument (path in JSON names, reason, description)
    field_violations: list[Problem] = field(default_factory=list)
    omitted: int = 0  # problems found but not listed (MAX_LISTED_PROBLEMS, MAX_LISTED_BYTES)
    #: the HTTP status when it is not the code's (431 HEADERS_TOO_LARGE, 429 MEMORY_BUDGET)
    http: int = 0
    #: the English template ``message`` was filled from, and its parameters (``api_error``):
    #: what lets the service say it in another language (service/i18n)
    template: str = ""
    params: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code not in GRPC_CODE:
            raise ValueError(f"unknown status code {self.code!r}")
        self.message = clip(self.message, MAX_MESSAGE)
        Exception.__init__(self, f"{self.code} {self.reason}: {self.message}")

    def __str__(self) -> str:  # dataclass would otherwise repr every field
        return f"{self.code} {self.reason}: {self.message}"

    @property
    def http_status(self) -> int:
        return self.http or HTTP_STATUS[self.code]

    @property
    def grpc_code(self) -> int:
        return GRPC_CODE[self.code]

    @property
    def is_invalid_argument(self) -> bool:
        return self.code == "INVALID_ARGUMENT"


def api_error(code: str, reason: str, template: str, /, **params: object) -> ApiError:
    """An ApiError whose message is the English ``template`` filled from ``params``."""
    kept = flat(params)
    return ApiError(
        code, reason, template.format_map(english(kept)), template=template, params=kept
    )


def invalid_argument(problems: Iterable[Problem], reason: str = "INVALID_REQUEST") -> ApiError:
    """An INVALID_ARGUMENT error listing ``problems``: at most MAX_LISTED_PROBLEMS of them in
    at most MAX_LISTED_BYTES, each text clipped to MAX_TEXT characters; the answer counts
    the others. Its message is their ``summary``: every INVALID_ARGUMENT is made here, so
    service/i18n says the message again from the problems."""
    found = ProblemList(problems)
    listed: list[Problem] = []
    size = 0
    for p in found:
        shown = Problem(clip(p.field), p.reason, clip(p.description), p.template, p.params)
        size += len(shown.field) + len(shown.description) + len(shown.reason)
        if listed and size > MAX_LISTED_BYTES:
            break
        listed.append(shown)
    omitted = found.omitted + len(found) - len(listed)
    message = clip(summary(listed, omitted), 2 * MAX_TEXT)
    return ApiError("INVALID_ARGUMENT", reason, message, listed, omitted)


#: Says a template filled from its parameters in a language, and the plural form a count
#: picks (``service.i18n.catalogs.say`` and ``say_plural``). The English ones below are the
#: templates themselves: the ground floor reads no catalog.
Say = Callable[[str, str, Mapping[str, str] | None], str]
SayPlural = Callable[[str, str, str, int, Mapping[str, str]], str]


def _english(lang: str, template: str, params: Mapping[str, str] | None = None) -> str:
    return template.format_map(params) if params is not None else template


def _english_plural(
    lang: str, singular: str, plural: str, n: int, params: Mapping[str, str]
) -> str:
    return (singular if n == 1 else plural).format_map(params)


def summary(
    problems: list[Problem],
    omitted: int = 0,
    lang: str = "",
    say: Say = _english,
    say_plural: SayPlural = _english_plural,
) -> str:
    """An invalid argument's message: the first problem, and how many more; in English, or
    in ``lang`` with ``service.i18n``'s ``say`` and ``say_plural``."""
    if not problems:
        return say(lang, "invalid request", None)
    first = problems[0]
    if first.field:
        params = {"field": first.field, "description": first.description}
        text = say(lang, "{field}: {description}", params)
    else:
        text = first.description
    more = len(problems) - 1 + omitted
    counts = {"count": str(more), "omitted": str(omitted)}
    if more and omitted:
        text += say_plural(
            lang,
            " (and {count} more problem; {omitted} not listed)",
            " (and {count} more problems; {omitted} not listed)",
            more,
            counts,
        )
    elif more:
        text += say_plural(
            lang, " (and {count} more problem)", " (and {count} more problems)", more, counts
        )
    return text


def too_many_items(method: str, field: str, limit: int, count: int) -> ApiError:
    return api_error(
        "RESOURCE_EXHAUSTED",
        "REQUEST_TOO_LARGE",
        "{method} takes at most {limit} {field}, not {count}",
        method=method,
        limit=limit,
        field=field,
        count=count,
    )


def internal_error() -> ApiError:
    return ApiError("INTERNAL", "INTERNAL", "internal error; the incident was logged")


def new_request_id() -> str:
    """128 random bits as 32 hex digits (the format of ``uuid4().hex``, at a third of the
    cost)."""
    return os.urandom(16).hex()
