"""``dataclass``, as the standard library's but cheaper to define: ``from mlcheck.records import
dataclass, field`` in place of ``from dataclasses import dataclass, field``.

The standard decorator writes the source of ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``
and, when frozen, ``__setattr__`` and ``__delattr__``, and compiles each: 0.5-0.9 ms a class, 40 of
the 100 ms that importing mlcheck took for its ~70 classes. Here the standard decorator does the
bookkeeping alone (``init=False, repr=False, eq=False``: the fields, their defaults,
``__match_args__``, the slots), so ``dataclasses.fields``, ``replace``, ``asdict`` and
``is_dataclass`` work as before, and the methods are added to the class:

- ``__init__`` is the standard one, compiled when the class makes its first instance (a class a
  command never instantiates never pays for it; :func:`compile_pending` compiles the others), and
  compiled once for all the classes of the same shape (:func:`_compile_init`);
- ``__repr__``, ``__eq__``, ``__hash__``, the frozen ``__setattr__`` and ``__delattr__`` and the
  slots' pickling are functions of the field names, made without compiling anything. They give
  what the standard ones give: equality and hash compare the tuple of the fields (``compare``,
  ``hash``, ``repr`` of :func:`field` honoured), a frozen instance raises
  ``dataclasses.FrozenInstanceError``, a method the class defines itself is kept.

Only ``frozen`` and ``slots`` are accepted (what mlcheck uses); the frozen checks of a class that
inherits fields from another dataclass are the standard decorator's. ``tests/test_records.py``
compares every class of mlcheck with the one the standard decorator makes.
"""

from __future__ import annotations

import builtins
import dataclasses
import reprlib
import types
from dataclasses import MISSING, FrozenInstanceError, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable

__all__ = ["compile_pending", "dataclass", "field"]


class _Factory:
    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()  # the default of an argument whose field has a default_factory (as the standard one)
_PENDING: list[tuple[type, bool, Callable[..., None]]] = []  # the classes whose __init__ is not compiled yet
_SHAPES: dict[tuple[Any, ...], types.CodeType] = {}  # the code of __init__ of each shape of class


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
    _check_init_order(fields)
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


def _check_init_order(fields: tuple[dataclasses.Field[Any], ...]) -> None:
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
    while True:
        try:  # (one pop: two threads checking at once take each class once, list.pop being atomic)
            cls, frozen, stub = _PENDING.pop()
        except IndexError:
            return
        if cls.__dict__.get("__init__") is stub:
            cls.__init__ = _compile_init(cls, frozen)  # type: ignore[misc]


def _compile_init(cls: type, frozen: bool) -> Callable[..., None]:
    """The standard ``__init__`` of the class: its arguments, defaults and factories, the fields
    set (through ``object.__setattr__`` when frozen), then ``__post_init__`` if it has one.

    The code is that of every class of the same shape (frozen or not; which fields take an
    argument, a factory or a default; which arguments are keyword-only) with the names of the
    fields put in: compiling one costs 0.1-0.2 ms, and mlcheck's 74 classes have 26 shapes."""
    fields = dataclasses.fields(cls)
    arguments = _init_order(fields)
    kinds = tuple(("argument" if f.init else "") + ("+factory" if f.default_factory is not MISSING else
                   "+default" if not f.init and f.default is not MISSING else "") for f in fields)
    shape = (frozen, kinds, tuple(fields.index(f) for f in arguments), sum(f.kw_only is True for f in arguments),
             hasattr(cls, "__post_init__"))
    code = _SHAPES.get(shape)
    if code is None:
        code = _SHAPES[shape] = _shape_code(*shape)
    names = [f.name for f in fields]
    named = {f"_{i}": name for i, name in enumerate(names)} | {f"_a{i}": name for i, name in enumerate(names)}
    me = "__dataclass_self__" if "self" in names else "self"
    code = code.replace(co_varnames=(me, *(named[name] for name in code.co_varnames[1:])),
                        co_names=tuple(named.get(name, name) for name in code.co_names),
                        co_consts=tuple(named.get(c, c) if type(c) is str else c for c in code.co_consts))
    scope: dict[str, Any] = {"__builtins__": builtins, "__factory": _FACTORY, "__setattr": object.__setattr__}
    scope.update({f"__factory_{i}": f.default_factory for i, f in enumerate(fields) if f.default_factory is not MISSING})
    scope.update({f"__default_{i}": f.default for i, f in enumerate(fields) if not f.init and f.default is not MISSING})
    defaults = {f.name: _FACTORY if f.default_factory is not MISSING else f.default for f in arguments
                if f.default is not MISSING or f.default_factory is not MISSING}
    init = types.FunctionType(code, scope, "__init__",
                              tuple(defaults[f.name] for f in arguments if f.name in defaults and not f.kw_only) or None)
    init.__kwdefaults__ = {f.name: defaults[f.name] for f in arguments if f.name in defaults and f.kw_only} or None
    init.__qualname__, init.__module__ = f"{cls.__qualname__}.__init__", cls.__module__
    return init


def _shape_code(frozen: bool, kinds: tuple[str, ...], order: tuple[int, ...], keyword_only: int,
                post_init: bool) -> types.CodeType:
    """The code of ``__init__`` for one shape: field ``i`` is the attribute ``_a<i>`` and the
    argument ``_<i>`` (the text compiled holds no name of the class, only these)."""
    arguments = [f"_{i}=None" for i in order]  # (the defaults are the function's, not the code's)
    if keyword_only:
        arguments.insert(len(order) - keyword_only, "*")
    body = []
    for i, kind in enumerate(kinds):
        value = {"argument": f"_{i}", "argument+factory": f"__factory_{i}() if _{i} is __factory else _{i}",
                 "+factory": f"__factory_{i}()", "+default": f"__default_{i}", "": ""}[kind]
        if value:
            body.append(f"__setattr(self, '_a{i}', {value})" if frozen else f"self._a{i} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    source = f"def __init__({', '.join(['self', *arguments])}):\n" + "".join(f" {line}\n" for line in body or ["pass"])
    module = compile(source, "<mlcheck.records>", "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


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
