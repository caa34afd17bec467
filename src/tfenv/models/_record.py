"""A drop-in ``dataclass`` for records that costs less to define, and less to import.

``dataclasses.dataclass`` compiles ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``
and, for frozen classes, ``__setattr__`` and ``__delattr__`` from source for every class,
gives a class without a docstring one made with ``inspect.signature``, and importing
``dataclasses`` imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``): with the
knowledge base's and the models' records that was a third of a warm ``tfenv resolve``
(the records themselves come from the pickled cache). This decorator records the fields
itself and gives the class shared, generic methods, built once here; ``dataclasses`` is
imported only when something asks a record for its dataclass view (``dataclasses.fields``,
``replace``, ``asdict``, ``is_dataclass`` read ``__dataclass_fields__``, which is made then,
by ``dataclasses`` itself, from the fields recorded here). The behaviour is the dataclass
one: keyword or positional arguments, defaults and default factories, ``__post_init__``,
``init=False`` fields, equality and hash over the compared fields, frozen instances
(``dataclasses.FrozenInstanceError``); but a class without a docstring keeps none.

Modules use its ``dataclass``, ``field`` and ``replace`` under the standard names, and the
real ones for the type checker::

    if TYPE_CHECKING:
        from dataclasses import dataclass, field, replace
    else:
        from tfenv.models._record import dataclass, field, replace

Every record on the path of ``tfenv resolve`` (models, kb, rules, routes) is defined with
it; ``tests/test_record.py`` checks that the two behave alike, that none of those modules
uses the standard one and that a warm resolve does not import ``dataclasses``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, ClassVar, Optional, TypeVar

__all__ = ["MISSING", "Field", "dataclass", "field", "fields", "replace"]


class _Missing:
    """No default (``dataclasses.MISSING`` for the fields recorded here)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
T = TypeVar("T")
_NO_METADATA: Any = MappingProxyType({})


class Field:
    """One field of a record, with the attributes ``dataclasses.Field`` has."""

    __slots__ = (
        "compare",
        "default",
        "default_factory",
        "hash",
        "init",
        "metadata",
        "name",
        "repr",
        "type",
    )

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        init: bool = True,
        repr: bool = True,
        hash: Optional[bool] = None,
        compare: bool = True,
        metadata: Any = None,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name: str = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = _NO_METADATA if not metadata else MappingProxyType(dict(metadata))

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r})"

    @classmethod
    def of(cls, std: Any) -> Field:
        """A ``dataclasses.Field`` (of a standard dataclass, or in a class body) as one."""
        import dataclasses

        def own(value: Any) -> Any:
            return MISSING if value is dataclasses.MISSING else value

        made = cls(
            own(std.default), own(std.default_factory), std.init, std.repr, std.hash,
            std.compare, std.metadata,
        )  # fmt: skip
        made.name, made.type = std.name, std.type
        return made


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: Optional[bool] = None,
    compare: bool = True,
    metadata: Any = None,
) -> Any:
    """``dataclasses.field`` for the records here."""
    return Field(default, default_factory, init, repr, hash, compare, metadata)


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    """The fields of a record, or of a standard dataclass, in order (all kinds of them:
    ``init=False`` ones too)."""
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    found: Optional[tuple[Field, ...]] = cls.__dict__.get("__record_fields__")
    if found is not None:
        return found
    import dataclasses

    return tuple(Field.of(f) for f in dataclasses.fields(cls))


def replace(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace``: a copy of ``obj`` with ``changes`` (a record's
    ``__post_init__`` runs again)."""
    recorded: Optional[tuple[Field, ...]] = type(obj).__dict__.get("__record_fields__")
    if recorded is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in recorded:
        if not f.init:
            if f.name in changes:
                raise ValueError(
                    f"field {f.name} is declared with init=False, it cannot be specified with "
                    "replace()"
                )
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def dataclass(
    cls: Optional[type] = None, *, frozen: bool = False, eq: bool = True, repr: bool = True
) -> Any:
    """``dataclasses.dataclass`` with generic methods (``frozen``, ``eq``, ``repr`` as there)."""

    def wrap(cls: type) -> type:
        return _process(cls, frozen=frozen, eq=eq, with_repr=repr)

    return wrap if cls is None else wrap(cls)


def _process(cls: type, *, frozen: bool, eq: bool, with_repr: bool) -> type:
    own = dict(vars(cls))
    found = _fields_of(cls, own)
    type.__setattr__(cls, "__record_fields__", found)
    type.__setattr__(cls, "__dataclass_fields__", _DataclassView("__dataclass_fields__"))
    type.__setattr__(cls, "__dataclass_params__", _DataclassView("__dataclass_params__"))
    if "__match_args__" not in own:
        type.__setattr__(cls, "__match_args__", tuple(f.name for f in found if f.init))
    _set(cls, own, "__init__", _init(cls, found, own))
    if with_repr:
        _set(cls, own, "__repr__", _repr(tuple(f.name for f in found if f.repr)))
    if eq:
        _add_eq(cls, found, own, frozen)
    if frozen:
        _set(cls, own, "__setattr__", _frozen_setattr)
        _set(cls, own, "__delattr__", _frozen_delattr)
    return cls


def _fields_of(cls: type, own: dict[str, Any]) -> tuple[Field, ...]:
    """The base classes' fields, then the class's own (an overridden one keeps its place);
    a ``field()`` default in the class body becomes the plain default, as with dataclasses."""
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            found[f.name] = f
    for name, annotation in own.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        value = own.get(name, MISSING)
        std = type(value).__name__ == "Field" and type(value).__module__ == "dataclasses"
        if isinstance(value, Field):
            made = value
        elif std:  # dataclasses.field() in the body of a record
            made = Field.of(value)
        else:
            made = Field(default=value)
        if type(made.default) in (list, dict, set):
            raise ValueError(
                f"mutable default {type(made.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        made.name, made.type = name, annotation
        if made is value or std:  # the field() object leaves the class: its default stays
            if made.default is MISSING:
                type.__delattr__(cls, name)
            else:
                type.__setattr__(cls, name, made.default)
        found[name] = made
    return tuple(found.values())


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):  # from __future__ import annotations
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


class _DataclassView:
    """A record's ``__dataclass_fields__`` or ``__dataclass_params__``, made by
    ``dataclasses`` from the recorded fields the first time it is read (on a copy of the
    class, so that the record keeps its own methods)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type) -> Any:
        import dataclasses

        annotations: dict[str, Any] = {}
        body: dict[str, Any] = {
            "__annotations__": annotations,
            "__module__": owner.__module__,
            "__qualname__": owner.__qualname__,
            "__doc__": owner.__doc__ or owner.__qualname__,  # no inspect.signature
        }
        for f in fields(owner):
            annotations[f.name] = f.type
            kwargs: dict[str, Any] = {
                "init": f.init, "repr": f.repr, "hash": f.hash, "compare": f.compare,
                "metadata": dict(f.metadata),
            }  # fmt: skip
            if f.default is not MISSING:
                kwargs["default"] = f.default
            if f.default_factory is not MISSING:
                kwargs["default_factory"] = f.default_factory
            body[f.name] = dataclasses.field(**kwargs)
        made: Any = dataclasses.dataclass(
            type(owner.__name__, (), body), init=False, repr=False, eq=False
        )
        type.__setattr__(owner, "__dataclass_fields__", made.__dataclass_fields__)
        type.__setattr__(owner, "__dataclass_params__", made.__dataclass_params__)
        return owner.__dict__[self.name]


class _Args:
    """What an ``__init__`` needs to know about the fields it sets."""

    __slots__ = ("defaults", "factories", "known", "names", "qualname", "required")

    def __init__(self, cls: type, init: tuple[Field, ...]) -> None:
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


def _init(cls: type, fields: tuple[Field, ...], own: dict[str, Any]) -> Callable[..., None]:
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


def _add_eq(cls: type, fields: tuple[Field, ...], own: dict[str, Any], frozen: bool) -> None:
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
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")
