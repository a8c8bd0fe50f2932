"""The service's answers in the players' languages (docs/i18n.md).

The engine speaks English, and every value that carries a message keeps its template and
parameters (violations, the bots' reasons, problems, errors). The service words each text
once, in the caller's language, where it makes the answer, by gettext catalogs compiled by
Babel from ``locale-data/<lang>/LC_MESSAGES/messages.po``:

- ``negotiation``: the language a request asks for (``Accept-Language``, gRPC
  ``accept-language`` metadata, the CLI's ``--lang``);
- ``catalogs``: the compiled catalogs, a template said in a language, ``word``: an engine
  text in the caller's language;
- ``localize``: an error with every human text in that language;
- ``texts``: texts with no field of their own (event types, score terms) for the playground.

Codes, rule anchors, field paths, details and every other machine field are never translated.
"""
