"""The kinds of the stored numbers (mfattn.companion.stored_kinds) and the claims modules' guarded reads
(mfattn.companion.stored_views): a value of another kind than the store holds under its key is refused by key."""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil

import numpy as np
import pytest

import mfattn
from mfattn.companion import finite_reads, stored_kinds, stored_views, verdicts

KINDS = {"x": "number", "xs": ("list", "number"), "grid": ("list", ("list", "number")), "name": "text",
         "flag": "flag", "table": "mapping", "mixed": "any"}


@pytest.mark.parametrize("value, kind", [
    (0.5, "number"), (3, "number"), (np.float32(1.0), "number"), (True, "flag"), ("a", "text"), ({"a": 1}, "mapping"),
    ([1.0, 2], ("list", "number")), ([[1.0], [2.0, None]], ("list", ("list", "number"))), ([1.0, "a"], ("list", "any")),
    (None, None), ([], None), ([None, 1.0], ("list", "number")), (object(), "any")])
def test_the_kind_of_a_stored_value(value, kind):
    assert stored_kinds.kind_of(value) == kind


@pytest.mark.parametrize("key, value", [
    ("x", 0.5), ("x", 7), ("x", np.float16(2.0)), ("x", None), ("xs", [1.0, 2.0]), ("xs", (1, 2.5)), ("xs", []),
    ("xs", np.array([1.0, 2.0])), ("xs", [1.0, None]), ("grid", [[1.0], []]), ("grid", np.zeros((2, 3))),
    ("name", "tap"), ("flag", False), ("table", {"k": "anything"}), ("mixed", "anything"), ("unknown", [["a"]]),
    ("x", math.nan)])   # finiteness is FiniteNumbers' concern, not the kind's
def test_a_value_of_the_stored_kind_passes(key, value):
    assert stored_kinds.check_kind(key, value, KINDS) is value


@pytest.mark.parametrize("key, value, words", [
    ("x", [0.5], "a number"), ("x", "0.5", "a number"), ("x", True, "a number"), ("x", np.bool_(True), "a number"),
    ("xs", 0.5, "a list of numbers"), ("xs", [0.5, "x"], "a list of numbers"), ("xs", [[0.5]], "a list of numbers"),
    ("xs", np.array(["a"]), "a list of numbers"), ("xs", "ab", "a list of numbers"),
    ("grid", [1.0, 2.0], "a list of lists of numbers"), ("grid", np.zeros(3), "a list of lists of numbers"),
    ("name", 3, "a string"), ("flag", 1, "a flag"), ("table", [1], "a mapping")])
def test_a_value_of_another_kind_is_refused_by_key(key, value, words):
    with pytest.raises(TypeError, match=rf"^numbers\['{key}'\] must be {words}.*as the stored numbers hold it; got "):
        stored_kinds.check_kind(key, value, KINDS)


def test_the_kinds_are_read_from_every_chapters_store():
    kinds = stored_kinds.stored_kinds()
    root = mfattn.companion.store.project_root()
    for chapter in verdicts.CLAIM_MODULES:
        stored, _ = verdicts._module(chapter).stored_numbers(root, chapter)
        assert stored and set(stored) <= set(kinds), chapter
    assert kinds["seeds"] in ("number", ("list", "number"), "any")   # the one key two chapters share
    assert stored_kinds.describe(("list", ("list", "number"))) == "a list of lists of numbers"
    assert stored_kinds.describe("flag", plural=True) == "flags (true/false)"


def test_finite_numbers_checks_the_kind_and_every_read():
    numbers = finite_reads.FiniteNumbers({"enum_roundoff_max": [1e-13], "f4_betas": [1.0, math.nan]})
    with pytest.raises(TypeError, match=r"numbers\['enum_roundoff_max'\] must be a number"):
        numbers["enum_roundoff_max"]
    for read in (lambda: numbers["f4_betas"], lambda: numbers.get("f4_betas"), lambda: numbers.setdefault("f4_betas"),
                 lambda: numbers.pop("f4_betas")):
        with pytest.raises(verdicts.Undecidable, match="f4_betas is NaN at \\[1\\]"):
            read()
    assert numbers.setdefault("new", 2.0) == 2.0 and numbers.pop("new") == 2.0 and numbers.pop("gone", 1) == 1


def _toy_module():
    namespace = {"__name__": "toy_claims"}
    exec(inspect.cleandoc('''
        def note(s, key="x"):
            return f"{s[key]}"
        def below_at(limit):
            return lambda s: "holds" if s["x"] < limit else "fails"
        def every_at(factory):
            return lambda *a, **k: factory(*a, **k)
        def _private(s):
            return s["x"]
        '''), namespace)
    stored_views.guard_claims(namespace)
    return namespace


def test_guard_claims_checks_what_the_module_defines(monkeypatch):
    monkeypatch.setattr(stored_kinds, "_KINDS", KINDS)
    toy = _toy_module()
    assert toy["note"]({"x": 0.5}) == "0.5" and toy["note"].__claims_guarded__
    with pytest.raises(TypeError, match=r"numbers\['x'\] must be a number"):
        toy["note"]({"x": [0.5]})
    with pytest.raises(TypeError, match=r"numbers\['x'\] must be a number"):
        toy["note"](s={"x": "0.5"})
    with pytest.raises(TypeError, match="^s must be the stored numbers"):
        toy["note"]([("x", 0.5)])
    rule = toy["below_at"](1.0)
    assert rule({"x": 0.5}) == "holds" and rule.__finite_reads__
    with pytest.raises(verdicts.Undecidable, match="x is inf"):
        rule({"x": math.inf})
    assert not hasattr(toy["every_at"](toy["below_at"]), "__finite_reads__")   # a factory of factories is left alone
    assert toy["_private"]({"x": [1]}) == [1]   # private helpers are not wrapped
    stored_views.guard_claims(toy)   # idempotent
    assert toy["note"].__wrapped__.__name__ == "note"


def test_every_claims_module_guards_its_public_functions():
    modules = [m.name for m in pkgutil.walk_packages(mfattn.__path__, "mfattn.")
               if m.name.rsplit(".", 1)[-1].startswith("claims")]
    assert len(modules) >= 50
    for name in modules:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == name and not attr.startswith("_"):
                assert getattr(value, "__claims_guarded__", False), f"{name}.{attr} is not guarded"
