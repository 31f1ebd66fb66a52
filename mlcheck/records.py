"""``dataclass``, as the standard library's but cheaper to define: ``from mlcheck.records import
dataclass, field`` in place of ``from dataclasses import dataclass, field``.

The standard decorator writes the source of ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``
and, when frozen, ``__setattr__`` and ``__delattr__``, and compiles each: 0.5-0.9 ms a class,
about 35 ms of the 60 ms that importing mlcheck took (its 70 classes). Here the standard
decorator does the bookkeeping alone (``init=False, repr=False, eq=False``: the fields, their
defaults, ``__match_args__``, the slots), so ``dataclasses.fields``, ``replace``, ``asdict`` and
``is_dataclass`` work as before, and the methods are added to the class:

- ``__init__`` is the standard one (the same source), compiled when the class makes its first
  instance: a class that a command never instantiates never pays for it;
- ``__repr__``, ``__eq__``, ``__hash__``, the frozen ``__setattr__`` and ``__delattr__`` and the
  slots' pickling are functions of the field names, made without compiling anything. They give
  what the standard ones give: equality and hash compare the tuple of the fields (``compare``,
  ``hash``, ``repr`` of :func:`field` honoured), a frozen instance raises
  ``dataclasses.FrozenInstanceError``, a method the class defines itself is kept.

Only ``frozen`` and ``slots`` are accepted (what mlcheck uses); a class that inherits fields from
another dataclass is left to the standard decorator for its frozen checks. ``tests/
test_records.py`` compares every class of mlcheck with the standard decorator's.
"""

from __future__ import annotations

import builtins
import dataclasses
import reprlib
from dataclasses import MISSING, FrozenInstanceError, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable

__all__ = ["compile_pending", "dataclass", "field"]



class _Factory:
    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()  # the default of an argument whose field has a default_factory (as the standard one)
_PENDING: list[tuple[type, bool, Callable[..., None]]] = []  # the classes whose __init__ is compiled at their first instance


if TYPE_CHECKING:  # to the type checker it is the standard decorator, whose classes it gives
    from dataclasses import dataclass
else:
    def dataclass(cls=None, /, *, frozen=False, slots=False):
        """The standard ``@dataclass`` / ``@dataclass(frozen=..., slots=...)``, cheaper to define."""
        def wrap(cls):
            return _process(cls, frozen, slots)
        return wrap if cls is None else wrap(cls)


def _process(cls: type[Any], frozen: bool, slots: bool) -> type[Any]:
    own = set(cls.__dict__)  # the methods the class defines itself are kept
    documented = bool(cls.__doc__)
    if not documented:  # (else the standard decorator asks inspect for a signature: up to 2 ms)
        cls.__doc__ = cls.__name__
    inherits = any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:])
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=frozen and inherits,
                                slots=slots)
    params = cls.__dataclass_params__
    params.init = params.repr = params.eq = True
    params.frozen = frozen
    fields = dataclasses.fields(cls)
    _check_init_order(cls, fields)
    if not documented:
        cls.__doc__ = _signature_doc(cls, fields)
    if "__init__" not in own:
        cls.__init__ = _lazy_init(cls, frozen)
    if "__repr__" not in own:
        cls.__repr__ = _repr([f.name for f in fields if f.repr])  # type: ignore[assignment]
    if "__eq__" not in own:
        cls.__eq__ = _eq(_key([f.name for f in fields if f.compare]))  # type: ignore[assignment]
    # The standard rule: frozen and compared fields give a hash of them, unfrozen no hash, and a
    # __hash__ the class defines stays (one Python set to None beside its own __eq__ does not).
    explicit_hash = "__hash__" in own and not (cls.__dict__.get("__hash__") is None and "__eq__" in own)
    if not explicit_hash:
        hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
        cls.__hash__ = _hash(_key(hashed)) if frozen else None  # type: ignore[assignment]
    if frozen and not inherits:
        names = frozenset(f.name for f in fields)
        for name, method in _frozen(cls, names):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
            setattr(cls, name, method)
        if slots and "__getstate__" not in own:
            cls.__getstate__, cls.__setstate__ = _slot_state([f.name for f in fields])
    return cls


def _key(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these fields of an object, always a tuple (as the standard methods compare)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _eq(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))
    return __hash__


def _repr(names: list[str]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"
    return __repr__


def _frozen(cls: type[Any], names: frozenset[str]) -> list[tuple[str, Callable[..., None]]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return [("__setattr__", __setattr__), ("__delattr__", __delattr__)]


def _slot_state(names: list[str]) -> tuple[Callable[[Any], list[Any]], Callable[[Any, list[Any]], None]]:
    """Pickling of a frozen class with slots (its ``__setattr__`` refuses the default way)."""
    def __getstate__(self: Any) -> list[Any]:
        return [getattr(self, name) for name in names]

    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state):
            object.__setattr__(self, name, value)
    return __getstate__, __setstate__


def _init_order(fields: tuple[dataclasses.Field[Any], ...]) -> list[dataclasses.Field[Any]]:
    """The arguments of ``__init__``: the positional ones, then the keyword-only ones."""
    taken = [f for f in fields if f.init]
    return [f for f in taken if not f.kw_only] + [f for f in taken if f.kw_only]


def _check_init_order(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> None:
    # The standard decorator finds this when it writes __init__, at the definition: so here.
    seen_default = False
    for f in _init_order(fields):
        if f.kw_only:
            break
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _lazy_init(cls: type, frozen: bool) -> Callable[..., None]:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _compile_init(cls, frozen)
        cls.__init__ = init  # type: ignore[misc]
        init(self, *args, **kwargs)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    _PENDING.append((cls, frozen, __init__))
    return __init__


def compile_pending() -> None:
    """Compile now the ``__init__`` of every class defined so far that has made no instance yet
    (the parent of ``--jobs`` workers does, before it forks them: they inherit the code)."""
    while _PENDING:
        cls, frozen, stub = _PENDING.pop()
        if cls.__dict__.get("__init__") is stub:
            cls.__init__ = _compile_init(cls, frozen)  # type: ignore[misc]


def _compile_init(cls: type, frozen: bool) -> Callable[..., None]:
    """The standard ``__init__`` of the class: its arguments, defaults and factories, the fields
    set (through ``object.__setattr__`` when frozen), then ``__post_init__`` if it has one."""
    fields = dataclasses.fields(cls)
    me = "__dataclass_self__" if any(f.name == "self" for f in fields) else "self"
    scope: dict[str, Any] = {"__builtins__": builtins, "__factory": _FACTORY, "__setattr": object.__setattr__}
    arguments, body, star = [], [], False
    for f in _init_order(fields):
        if f.kw_only and not star:
            arguments.append("*")
            star = True
        if f.default_factory is not MISSING:
            arguments.append(f"{f.name}=__factory")
        elif f.default is not MISSING:
            scope[f"__default_{f.name}"] = f.default
            arguments.append(f"{f.name}=__default_{f.name}")
        else:
            arguments.append(f.name)
    for f in fields:
        if f.default_factory is not MISSING:
            scope[f"__factory_{f.name}"] = f.default_factory
            value = (f"__factory_{f.name}() if {f.name} is __factory else {f.name}" if f.init
                     else f"__factory_{f.name}()")
        elif f.init:
            value = f.name
        elif f.default is not MISSING:
            scope[f"__default_{f.name}"] = f.default
            value = f"__default_{f.name}"
        else:
            continue
        body.append(f"__setattr({me}, {f.name!r}, {value})" if frozen else f"{me}.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append(f"{me}.__post_init__()")
    # (the defaults are globals of the function, not a closure: a fifth less to compile)
    exec(f"def __init__({', '.join([me, *arguments])}):\n" + "".join(f" {line}\n" for line in body or ["pass"]),
         scope)
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _signature_doc(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> str:
    """What the standard decorator names a class without a docstring: ``Name(a: 'int', b: 'str' = '')``
    (the decorator above it got the signature of an ``__init__`` not yet there)."""
    shown, star = [], False
    for f in _init_order(fields):
        if f.kw_only and not star:
            shown.append("*")
            star = True
        kind = repr(f.type) if isinstance(f.type, str) else getattr(f.type, "__qualname__", repr(f.type))
        default = ("" if f.default is MISSING and f.default_factory is MISSING
                   else " = <factory>" if f.default is MISSING else f" = {f.default!r}")
        shown.append(f"{f.name}: {kind}{default}")
    return f"{cls.__name__}({', '.join(shown)})"
