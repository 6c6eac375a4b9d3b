"""auditor/lazyclass.py: `dataclass` whose generated methods compile on first call, and
behave exactly as the standard ones (the same class: fields, params, slots, pickling)."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import field
from typing import Any, ClassVar

import pytest

from auditor import lazyclass


def _classes(deco: Any) -> dict[str, Any]:
    @deco(frozen=True, slots=True)
    class Point:
        """A point."""

        x: int
        y: str = "y"
        tags: tuple[str, ...] = field(default_factory=tuple)
        unit: ClassVar[str] = "m"

    @deco(frozen=True, slots=True)
    class Labelled(Point):
        label: float = 1.0

    @deco
    class Counter:
        n: int
        seen: list[int] = field(default_factory=list)

        def __post_init__(self) -> None:
            self.n += 1

    @deco(frozen=True, slots=True, order=True)
    class Rank:
        n: int

    return {"Point": Point, "Labelled": Labelled, "Counter": Counter, "Rank": Rank}


def _behaviour(c: dict[str, Any]) -> list[object]:
    point, labelled, counter = c["Point"](1), c["Labelled"](2, "b", ("t",), 2.5), c["Counter"](1)
    out: list[object] = [repr(point), repr(labelled), repr(counter)]
    out += [point == c["Point"](1), point == c["Labelled"](1), hash(point) == hash(c["Point"](1))]
    out += [len({point, c["Point"](1), labelled}), counter.n, counter == c["Counter"](0)]
    for obj, name in ((point, "x"), (labelled, "label")):
        with pytest.raises(dataclasses.FrozenInstanceError) as assigned:
            setattr(obj, name, 5)
        with pytest.raises(dataclasses.FrozenInstanceError) as deleted:
            delattr(obj, name)
        out += [str(assigned.value), str(deleted.value)]
    out += [repr(dataclasses.replace(point, x=9)), dataclasses.asdict(labelled)]
    out += [[f.name for f in dataclasses.fields(labelled)], labelled.__match_args__]
    out += [sorted([c["Rank"](3), c["Rank"](1)]), c["Rank"](1) < c["Rank"](2)]
    out += [c["Point"].__slots__]
    out += [c["Point"].__doc__, c["Counter"].__doc__, c["Point"].__eq__.__qualname__]
    return [repr(o).replace(".<locals>", "") for o in out]


def test_the_classes_behave_as_the_standard_dataclasses_do() -> None:
    assert _behaviour(_classes(lazyclass.dataclass)) == _behaviour(_classes(dataclasses.dataclass))


def test_the_model_made_with_it_pickles_and_compares_as_before() -> None:
    """model.py's classes are made with it: a Finding crosses a process boundary (the
    ecosystem's workers) and back equal, hashable, frozen."""
    from auditor.model import Location

    where = Location("w/a.py", 3, 1, 3, 9)
    again = pickle.loads(pickle.dumps(where))
    assert again == where and hash(again) == hash(where) and again is not where
    assert repr(again) == "Location(path='w/a.py', line=3, column=1, end_line=3, end_column=9)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        again.line = 4  # type: ignore[misc]


def test_a_method_is_compiled_only_when_first_called(monkeypatch: pytest.MonkeyPatch) -> None:
    if lazyclass._STANDARD is None:
        pytest.skip("this Python's dataclasses compiles a class's methods in one go")
    made: list[str] = []
    standard = lazyclass._STANDARD

    def counting(name: str, *args: Any, **how: Any) -> Any:
        made.append(name)
        return standard(name, *args, **how)

    monkeypatch.setattr(lazyclass, "_STANDARD", counting)
    point = _classes(lazyclass.dataclass)["Point"]
    assert "__init__" in made and "__eq__" not in made and "__repr__" not in made
    assert point(1) == point(1) and made.count("__eq__") == 1
    assert point(2) != point(1) and made.count("__eq__") == 1  # once, then the real method
    assert point.__dict__["__eq__"].__code__.co_name == "__eq__"


def test_the_switch_gives_the_standard_decorator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(lazyclass.SWITCH, "1")
    point = _classes(lazyclass.dataclass)["Point"]
    assert point.__dict__["__eq__"].__code__.co_name == "__eq__"
    standard = getattr(dataclasses, "_create_fn", None)
    assert standard is lazyclass._STANDARD  # left as it was
