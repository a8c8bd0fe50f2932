"""The service's answers in the players' languages (docs/i18n.md).

The engine speaks English: violation templates (engine.violations.CODES), problem templates
(engine.messages.problem) and error templates (service.base.errors.api_error) keep their
parameters. This package says them in another language at the edge, by gettext catalogs
compiled by Babel from ``locale-data/<lang>/LC_MESSAGES/messages.po``:

- ``negotiation``: the language a request asks for (``Accept-Language``, gRPC
  ``accept-language`` metadata, the CLI's ``--lang``);
- ``catalogs``: the compiled catalogs, and a template said in a language;
- ``localize``: an answer or an error with every human text in that language;
- ``texts``: texts with no field of their own (event types, score terms) for the playground.

Codes, rule anchors, field paths, details and every other machine field are never translated.
"""
