"""A drop-in ``dataclass`` for records that costs less to define.

``dataclasses.dataclass`` compiles ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``
and, for frozen classes, ``__setattr__`` and ``__delattr__`` from source for every class:
with the knowledge base's and the models' records that is a good part of a warm
``tfenv resolve`` (the records themselves come from the pickled cache). This decorator
lets ``dataclasses`` record the fields (so ``dataclasses.fields``, ``replace``, ``asdict``
and the field metadata work as before) and gives the class shared, generic methods
instead, built once here. The behaviour is the dataclass one: keyword or positional
arguments, defaults and default factories, ``__post_init__``, ``init=False`` fields,
equality and hash over the compared fields, frozen instances; but a class without a
docstring keeps none (``dataclasses`` writes one from ``inspect.signature``, which costs
more than the rest of its work on the class).

Every record on the path of ``tfenv resolve`` (models, kb, rules, routes) is defined with
it; ``tests/test_imports.py`` checks that none of those modules uses the standard one.

Modules import it under the standard name, and the real one for the type checker::

    if TYPE_CHECKING:
        from dataclasses import dataclass
    else:
        from tfenv.models._record import dataclass
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, FrozenInstanceError
from typing import Any, Callable, Optional

__all__ = ["dataclass"]


def dataclass(
    cls: Optional[type] = None, *, frozen: bool = False, eq: bool = True, repr: bool = True
) -> Any:
    """``dataclasses.dataclass`` with generic methods (``frozen``, ``eq``, ``repr`` as there)."""

    def wrap(cls: type) -> type:
        return _process(cls, frozen=frozen, eq=eq, with_repr=repr)

    return wrap if cls is None else wrap(cls)


def _process(cls: type, *, frozen: bool, eq: bool, with_repr: bool) -> type:
    own = dict(vars(cls))
    # dataclasses gives a class without a docstring one made from inspect.signature: three
    # quarters of the time it takes over such a class; a record without one keeps none
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = cls.__qualname__
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    if undocumented:
        cls.__doc__ = None
    fields = dataclasses.fields(cls)
    _set(cls, own, "__init__", _init(cls, fields, own))
    if with_repr:
        _set(cls, own, "__repr__", _repr(tuple(f.name for f in fields if f.repr)))
    if eq:
        _add_eq(cls, fields, own, frozen)
    if frozen:
        _set(cls, own, "__setattr__", _frozen_setattr)
        _set(cls, own, "__delattr__", _frozen_delattr)
    return cls


class _Args:
    """What an ``__init__`` needs to know about the fields it sets."""

    __slots__ = ("defaults", "factories", "known", "names", "qualname", "required")

    def __init__(self, cls: type, init: tuple[dataclasses.Field[Any], ...]) -> None:
        self.qualname = cls.__qualname__
        self.names = tuple(f.name for f in init)
        self.known = frozenset(self.names)
        self.required = tuple(
            f.name for f in init if f.default is MISSING and f.default_factory is MISSING
        )
        self.defaults = {f.name: f.default for f in init if f.default is not MISSING}
        self.factories = {
            f.name: f.default_factory for f in init if f.default_factory is not MISSING
        }

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Positional arguments into ``kwargs`` (the type errors Python would raise)."""
        if len(args) > len(self.names):
            raise TypeError(f"{self.qualname}() takes at most {len(self.names)} arguments")
        for name, value in zip(self.names, args):
            if name in kwargs:
                raise TypeError(f"{self.qualname}() got multiple values for {name!r}")
            kwargs[name] = value

    def complete(self, kwargs: dict[str, Any]) -> None:
        """Defaults into ``kwargs``; an unknown or a missing argument is a TypeError."""
        unknown = [k for k in kwargs if k not in self.known]
        if unknown:
            raise TypeError(f"{self.qualname}() got an unexpected keyword argument {unknown[0]!r}")
        missing = [n for n in self.required if n not in kwargs]
        if missing:
            raise TypeError(f"{self.qualname}() is missing {', '.join(map(repr, missing))}")
        for name, value in self.defaults.items():
            kwargs.setdefault(name, value)
        for name, factory in self.factories.items():
            if name not in kwargs:
                kwargs[name] = factory()


def _init(
    cls: type, fields: tuple[dataclasses.Field[Any], ...], own: dict[str, Any]
) -> Callable[..., None]:
    spec = _Args(cls, tuple(f for f in fields if f.init))
    names, known, count = spec.names, spec.known, len(spec.names)
    later: tuple[tuple[str, Any, Any], ...] = tuple(  # init=False fields with a default
        (f.name, f.default, f.default_factory)
        for f in fields
        if not f.init and (f.default is not MISSING or f.default_factory is not MISSING)
    )
    post_init = own.get("__post_init__") or getattr(cls, "__post_init__", None)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            spec.bind(args, kwargs)
        if len(kwargs) != count or not known.issuperset(kwargs):
            spec.complete(kwargs)
        d = self.__dict__
        d.update({n: kwargs[n] for n in names})  # in field order, as dataclasses sets them
        for name, default, factory in later:
            d[name] = factory() if default is MISSING else default
        if post_init is not None:
            post_init(self)

    return __init__


def _repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        body = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        return f"{type(self).__qualname__}({body})"

    return __repr__


def _add_eq(
    cls: type, fields: tuple[dataclasses.Field[Any], ...], own: dict[str, Any], frozen: bool
) -> None:
    compared = tuple(f.name for f in fields if f.compare)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple([getattr(self, n) for n in compared]) == tuple(
            [getattr(other, n) for n in compared]
        )

    _set(cls, own, "__eq__", __eq__)
    # a __hash__ of None that Python added because the class defines __eq__ is not its own
    if "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own):
        return
    if not frozen:
        cls.__hash__ = None  # type: ignore[assignment]
        return
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))

    def __hash__(self: Any) -> int:
        return hash(tuple([getattr(self, n) for n in hashed]))

    cls.__hash__ = __hash__  # type: ignore[assignment]


def _set(cls: type, own: dict[str, Any], name: str, method: Callable[..., Any]) -> None:
    if name in own:  # the class's own method wins, as with dataclasses
        return
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, method)


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
