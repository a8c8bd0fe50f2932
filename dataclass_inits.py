"""The compiled build's explicit ``__init__``s, written from the dataclasses' own fields.

mypyc compiles a class's ``__init__`` only when the class writes one: the ``__init__`` that
``@dataclass`` generates is made at import, stays interpreted, and builds a value many
times slower in compiled code (docs/performance.md#the-compiled-build). So engine/model.py
keeps plain ``@dataclass(frozen=True)`` classes, and the build's staging step (setup.py)
compiles a copy of it in which ``explicit_inits`` has given each such class
``init=False`` and the ``__init__`` the dataclass would generate, written out:

- the fields in order, as positional-or-keyword parameters with the same defaults;
- a field with a ``default_factory`` takes ``None`` for "not given" (its type does not
  admit ``None``, so a type-checked caller never passes it) and gets the factory's value;
- every field set with ``object.__setattr__`` (the class is frozen).

A class that says ``replaced = _replaced`` (the model's ``dataclasses.replace`` as a method:
a copy that names only what changes) gets that method written out too: every field a
keyword-only parameter whose default, ``_KEEP``, keeps the field's value, and the
constructor called with the fields in order, so a copy costs what the constructor does.

A dataclass this cannot write exactly (a base class, an ``init=False`` or keyword-only
field, ``__post_init__``) stops the build instead of compiling something different.
"""

from __future__ import annotations

import ast

_UNSUPPORTED_DECORATOR_ARGS = {"init", "kw_only", "slots"}
_UNSUPPORTED_FIELD_ARGS = {"init", "kw_only"}


class UnsupportedDataclass(ValueError):
    """A dataclass whose generated ``__init__`` this module does not reproduce."""


REPLACED = "_replaced"
_KEEP = "import typing as _typing\n_KEEP: _typing.Final = object()\n"


def explicit_inits(source: str, filename: str = "<model>") -> str:
    """``source`` with every ``@dataclass(frozen=True)`` class given its ``__init__``, and its
    ``replaced`` written out where it takes ``_replaced``."""
    tree = ast.parse(source, filename)
    replacing = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            decorator = _frozen_dataclass_decorator(node)
            if decorator is not None:
                _check_supported(node, decorator)
                decorator.keywords.append(ast.keyword("init", ast.Constant(False)))
                node.body.insert(_after_fields(node), _init_for(node))
                if any(_takes_replaced(item) for item in node.body):
                    node.body = [
                        _replaced_for(node) if _takes_replaced(i) else i for i in node.body
                    ]
                    replacing.append(node)
    if any(isinstance(i, ast.Assign) and _takes_replaced(i) for i in ast.walk(tree)):
        raise UnsupportedDataclass("replaced = _replaced outside a frozen dataclass")
    if replacing:
        at = tree.body.index(replacing[0])
        tree.body[at:at] = ast.parse(_KEEP).body
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _takes_replaced(item: ast.stmt) -> bool:
    return (
        isinstance(item, ast.Assign)
        and [ast.unparse(t) for t in item.targets] == ["replaced"]
        and ast.unparse(item.value) == REPLACED
    )


def _replaced_for(node: ast.ClassDef) -> ast.FunctionDef:
    """``replaced(self, *, <field>=_KEEP, ...)``: the class built from ``self``'s fields,
    each one given replacing it."""
    names = [item.target.id for item in _fields(node)]  # type: ignore[union-attr]
    params = "".join(f", {name}: _typing.Any = _KEEP" for name in names)
    values = ", ".join(f"self.{name} if {name} is _KEEP else {name}" for name in names)
    text = f"def replaced(self, *{params}) -> {node.name}:\n    return {node.name}({values})\n"
    function = ast.parse(text).body[0]
    assert isinstance(function, ast.FunctionDef)
    return function


def _frozen_dataclass_decorator(node: ast.ClassDef) -> ast.Call | None:
    for decorator in node.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and _name(decorator.func) in ("dataclass", "dataclasses.dataclass")
            and any(
                k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in decorator.keywords
            )
        ):
            return decorator
    return None


def _check_supported(node: ast.ClassDef, decorator: ast.Call) -> None:
    where = f"class {node.name} (line {node.lineno})"
    if node.bases or node.keywords:
        raise UnsupportedDataclass(f"{where}: a dataclass with a base class")
    if any(k.arg in _UNSUPPORTED_DECORATOR_ARGS for k in decorator.keywords):
        raise UnsupportedDataclass(f"{where}: @dataclass(init=/kw_only=/slots=)")
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name in ("__init__", "__post_init__"):
            raise UnsupportedDataclass(f"{where}: writes {item.name} itself")
        call = _field_call(item)
        if call is not None and any(k.arg in _UNSUPPORTED_FIELD_ARGS for k in call.keywords):
            raise UnsupportedDataclass(f"{where}: field(init=/kw_only=)")


def _fields(node: ast.ClassDef) -> list[ast.AnnAssign]:
    """The class's fields: its annotated names, ClassVars excepted."""
    return [
        item
        for item in node.body
        if isinstance(item, ast.AnnAssign)
        and isinstance(item.target, ast.Name)
        and "ClassVar" not in ast.unparse(item.annotation)
    ]


def _after_fields(node: ast.ClassDef) -> int:
    fields = _fields(node)
    return node.body.index(fields[-1]) + 1 if fields else len(node.body)


def _init_for(node: ast.ClassDef) -> ast.FunctionDef:
    params: list[str] = []
    body: list[str] = []
    for item in _fields(node):
        name = item.target.id  # type: ignore[union-attr]  # _fields keeps ast.Name targets
        annotation = ast.unparse(item.annotation)
        default, factory = _default_of(item)
        if factory is not None:
            params.append(f"{name}: {annotation} | None = None")
            value = f"{factory}() if {name} is None else {name}"
        else:
            params.append(f"{name}: {annotation}" + ("" if default is None else f" = {default}"))
            value = name
        body.append(f"object.__setattr__(self, {name!r}, {value})")
    text = f"def __init__({', '.join(['self', *params])}) -> None:\n" + "".join(
        f"    {line}\n" for line in body or ["pass"]
    )
    function = ast.parse(text).body[0]
    assert isinstance(function, ast.FunctionDef)
    return function


def _default_of(item: ast.AnnAssign) -> tuple[str | None, str | None]:
    """(default source, default factory source) of a field; None where there is none."""
    if item.value is None:
        return None, None
    call = _field_call(item)
    if call is None:
        return ast.unparse(item.value), None
    given = {k.arg: ast.unparse(k.value) for k in call.keywords}
    return given.get("default"), given.get("default_factory")


def _field_call(item: ast.stmt) -> ast.Call | None:
    if (
        isinstance(item, ast.AnnAssign)
        and isinstance(item.value, ast.Call)
        and _name(item.value.func) in ("field", "dataclasses.field")
    ):
        return item.value
    return None


def _name(expr: ast.expr) -> str:
    return ast.unparse(expr)
