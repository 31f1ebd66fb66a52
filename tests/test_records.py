"""``mlcheck.records.dataclass`` gives the classes the standard decorator gives (it only costs
less to define): every dataclass of mlcheck, and classes with the features mlcheck does not use
yet, are compared with their twin made by ``dataclasses.dataclass``."""

from __future__ import annotations

import copyreg
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
import re
from typing import Any, Callable

import pytest

import mlcheck
from mlcheck import records


def _mlcheck_dataclasses() -> list[type]:
    for info in pkgutil.walk_packages(mlcheck.__path__, "mlcheck."):
        importlib.import_module(info.name)
    found = {id(value): value for module in list(importlib.sys.modules.values())
             if getattr(module, "__name__", "").startswith("mlcheck")
             for value in vars(module).values()
             if isinstance(value, type) and value.__module__ == module.__name__ and dataclasses.is_dataclass(value)}
    return sorted(found.values(), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


CLASSES = _mlcheck_dataclasses()


def _twin(cls: type) -> type:
    """The class the standard decorator makes of ``cls``'s fields, bases and ``__post_init__``."""
    specs = [(f.name, f.type, dataclasses.field(default=f.default, default_factory=f.default_factory,
                                                init=f.init, repr=f.repr, hash=f.hash, compare=f.compare,
                                                kw_only=f.kw_only))
             for f in dataclasses.fields(cls)]
    namespace = {"__post_init__": cls.__dict__["__post_init__"]} if "__post_init__" in cls.__dict__ else {}
    if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}("):
        namespace["__doc__"] = cls.__doc__
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    twin = dataclasses.make_dataclass(cls.__name__, specs, bases=cls.__bases__, namespace=namespace,
                                      frozen=params.frozen, slots="__slots__" in cls.__dict__)
    twin.__module__, twin.__qualname__ = cls.__module__, cls.__qualname__
    return twin


def _shown(obj: object) -> str:
    """The repr, its class named by ``__name__`` and no addresses (a default a factory made)."""
    shown = repr(obj).replace(f"{type(obj).__qualname__}(", f"{type(obj).__name__}(", 1)
    return re.sub(r" at 0x[0-9a-f]+", "", shown)


def _outcome(action: Callable[[], Any]) -> Any:
    try:
        return ("value", action())
    except Exception as error:  # noqa: BLE001 - the same exception is the same outcome
        return ("raises", type(error), str(error))


def _arguments(cls: type, salt: str) -> dict[str, Any]:
    """A value for each required argument (strings: every field takes them, and they pickle)."""
    return {f.name: f"{f.name}-{salt}" for f in dataclasses.fields(cls)
            if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}


def _parameters(cls: type) -> list[tuple[str, Any, str]]:
    """The arguments of ``__init__`` (annotations aside: the standard one carries the fields' types)."""
    return [(p.name, p.kind, repr(p.default)) for p in inspect.signature(cls.__init__).parameters.values()]


def _same_behaviour(ours: type, theirs: type) -> None:
    records.compile_pending()
    assert _parameters(ours) == _parameters(theirs)
    assert (ours.__init__.__module__, ours.__init__.__qualname__) == (ours.__module__, f"{ours.__qualname__}.__init__")
    for name in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(ours.__dataclass_params__, name) == getattr(theirs.__dataclass_params__, name), name  # type: ignore[attr-defined]
    assert ours.__match_args__ == theirs.__match_args__  # type: ignore[attr-defined]
    assert ours.__dict__.get("__slots__") == theirs.__dict__.get("__slots__")
    assert ours.__doc__ == theirs.__doc__
    assert (ours.__hash__ is None) == (theirs.__hash__ is None)
    one, same, other = (_arguments(ours, "a"), _arguments(ours, "a"), _arguments(ours, "b"))
    a, a2, b, t = ours(**one), ours(**same), ours(**other), theirs(**one)
    assert _shown(a) == _shown(t)
    assert (a == a2) == (t == theirs(**same)) and (a != b) == (t != theirs(**other))
    assert _outcome(lambda: hash(a)) == _outcome(lambda: hash(t))
    fields = [f.name for f in dataclasses.fields(ours)]
    assert [_shown(getattr(a, name)) for name in fields] == [_shown(getattr(t, name)) for name in fields]
    assert _shown(_outcome(lambda: dataclasses.asdict(a))) == _shown(_outcome(lambda: dataclasses.asdict(t)))
    assert dataclasses.replace(a) == a and _shown(dataclasses.replace(a, **other)) == _shown(b)
    for name in fields[:1]:
        assert _outcome(lambda: setattr(a, name, 1))[:2] == _outcome(lambda: setattr(t, name, 1))[:2]
        assert _outcome(lambda: delattr(b, name))[:2] == _outcome(lambda: delattr(theirs(**other), name))[:2]
    # (both refuse an attribute that is not a field of a frozen class; the standard one of a frozen
    # class with slots raises TypeError from its super() of the class before the slots)
    assert _outcome(lambda: setattr(a2, "not_a_field", 1))[0] == _outcome(lambda: setattr(t, "not_a_field", 1))[0]
    if ours not in copyreg.dispatch_table:  # (mlcheck.judge.jobs pickles some of them its own way)
        assert pickle.loads(pickle.dumps(a2)) == a2 or not a == a2


def test_every_dataclass_of_mlcheck_is_made_by_records() -> None:
    # (the standard decorator cost 0.5-0.9 ms a class at every start: tests/test_import_cost.py)
    assert len(CLASSES) > 60
    assert [cls for cls in CLASSES if cls.__eq__.__module__ != records.__name__] == []


@pytest.mark.parametrize("cls", CLASSES, ids=[f"{c.__module__}.{c.__qualname__}" for c in CLASSES])
def test_each_class_is_the_standard_one(cls: type) -> None:
    _same_behaviour(cls, _twin(cls))


def _both(make: Callable[[Callable[..., Any]], type]) -> tuple[type, type]:
    """The class ``make(decorator)`` defines, with records' decorator and with the standard one
    (each a global of this module, so that pickle finds it)."""
    made = []
    for tag, dataclass in (("ours", records.dataclass), ("standard", dataclasses.dataclass)):
        cls = make(dataclass)
        cls.__qualname__ = f"{cls.__name__}_{tag}"
        globals()[cls.__qualname__] = cls
        made.append(cls)
    return made[0], made[1]


def _options(dataclass: Callable[..., Any]) -> type:
    @dataclass(frozen=True)
    class Options:
        name: str
        hidden: str = dataclasses.field(default="h", repr=False, compare=False)
        counted: int = dataclasses.field(default=0, hash=False)
        made: list[int] = dataclasses.field(default_factory=list, compare=False, hash=False)
        later: str = dataclasses.field(default="l", init=False)
        built: dict[str, int] = dataclasses.field(default_factory=dict, init=False, compare=False)
        flag: bool = dataclasses.field(default=False, kw_only=True)
    return Options


def _plain(dataclass: Callable[..., Any]) -> type:
    @dataclass
    class Plain:
        a: int
        b: str = "x"

        def __post_init__(self) -> None:
            self.b = self.b.upper()
    return Plain


def _slotted(dataclass: Callable[..., Any]) -> type:
    @dataclass(frozen=True, slots=True)
    class Slotted:
        a: str
        b: tuple[int, ...] = ()
    return Slotted


def _own_methods(dataclass: Callable[..., Any]) -> type:
    @dataclass(frozen=True)
    class Own:
        a: str

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True
    return Own


@pytest.mark.parametrize("make", [_options, _plain, _slotted, _own_methods])
def test_features_mlcheck_does_not_use_yet(make: Callable[[Callable[..., Any]], type]) -> None:
    _same_behaviour(*_both(make))


def test_options_and_own_methods_are_honoured() -> None:
    ours, theirs = _both(_options)
    a, t = ours("n", "other", counted=5, flag=True), theirs("n", "other", counted=5, flag=True)
    assert _shown(a) == _shown(t) and a == ours("n", "third", counted=5, flag=True)
    assert hash(a) == hash(t) and (a.later, a.built, a.flag) == (t.later, t.built, t.flag)
    assert ours("n").made is not ours("n").made
    own, _ = _both(_own_methods)
    assert repr(own("a")) == "own" and own("a") == own("b") and hash(own("a")) is not None
    plain, _ = _both(_plain)
    assert plain(1).b == "X" and plain.__hash__ is None


def test_definition_errors_are_raised_at_the_definition() -> None:
    for dataclass in (records.dataclass, dataclasses.dataclass):
        with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
            @dataclass(frozen=True)
            class Order:
                a: int = 0
                b: int
        with pytest.raises(ValueError, match="mutable default"):
            @dataclass
            class Mutable:
                a: list[int] = []  # noqa: RUF012
        with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):
            @dataclass(frozen=True)
            class Setter:
                a: int

                def __setattr__(self, name: str, value: Any) -> None:
                    pass


def test_a_record_may_inherit_from_a_record() -> None:
    @records.dataclass(frozen=True)
    class Base:
        a: int

    @records.dataclass(frozen=True)
    class Derived(Base):
        b: str = "b"

    assert [f.name for f in dataclasses.fields(Derived)] == ["a", "b"]
    assert Derived(1) == Derived(1, "b") and repr(Derived(1)).endswith("Derived(a=1, b='b')")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Derived(1).a = 2  # type: ignore[misc]
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):
        @records.dataclass
        class Thawed(Base):
            c: int = 0


def test_compile_pending_compiles_every_init() -> None:
    @records.dataclass(frozen=True)
    class Fresh:
        a: int

    stub = Fresh.__dict__["__init__"].__code__  # (one code for every class not compiled yet)
    records.compile_pending()
    assert Fresh.__dict__["__init__"].__code__ is not stub and Fresh(1).a == 1
    assert [cls for cls in CLASSES if cls.__init__.__code__ is stub] == []
