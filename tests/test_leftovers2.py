"""Leftovers of earlier audits: the env pools' seeds, the grid's neutral counts, varied
reference cases, and ``grounding._quoted_spans`` on many opening marks."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import warnings
from functools import partial

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401  (registers the envs)
from guigym import grounding
from guigym.vector import check_seeds

LOGIN = "GuiGym-Login-v0"


# --- 1. agents.env_pool: seeds checked as guigym.vector.check_seeds checks them ---------------------

class _Counting(gym.Wrapper):
    """Counts resets (shared across the pool's envs through a list)."""

    def __init__(self, env: gym.Env, log: list[int]) -> None:
        super().__init__(env)
        self.log = log

    def reset(self, **kw):  # type: ignore[override]
        self.log.append(kw.get("seed"))
        return self.env.reset(**kw)


def _counting_login(log: list[int]) -> gym.Env:
    return _Counting(gym.make(LOGIN), log)


BAD_SEEDS = [
    (True, TypeError),  # was taken for the seed 1
    (np.bool_(False), TypeError),
    (1.0, TypeError),  # was Gymnasium's error, after slot 0 had reset
    ("3", TypeError),
    (-1, ValueError),
    (np.int64(-2), ValueError),
]


@pytest.mark.parametrize("bad,err", BAD_SEEDS, ids=[repr(b) for b, _ in BAD_SEEDS])
def test_inline_pool_refuses_a_bad_seed_before_any_reset(bad, err) -> None:
    from agents.env_pool import InlineEnvPool

    log: list[int] = []
    pool = InlineEnvPool(partial(_counting_login, log), num_envs=2)
    try:
        with pytest.raises(err) as got:
            pool.reset([0, 1], [3, bad])
        with pytest.raises(err) as want:
            check_seeds([3, bad])
        assert str(got.value) == str(want.value)  # the vector envs' message, naming seed 1
        assert "seed 1 must be an int >= 0 or None" in str(got.value)
        assert log == []  # slot 0 was not reset either
        # the pool is still usable
        assert len(pool.reset([0, 1], [3, 4])) == 2 and log == [3, 4]
    finally:
        pool.close()


def test_pools_take_numpy_and_large_int_seeds_as_python_ints() -> None:
    from agents.env_pool import InlineEnvPool

    pool = InlineEnvPool(partial(gym.make, LOGIN), num_envs=3)
    try:
        a = pool.reset([0, 1, 2], [np.int64(3), np.uint64(2**64 - 1), 2**64])
        b = pool.reset([0, 1, 2], [3, 2**64 - 1, 2**64])
        assert [o["instruction"] for o, _ in a] == [o["instruction"] for o, _ in b]
        assert [i["state"] for _, i in a] == [i["state"] for _, i in b]
        assert len(pool.reset([0], [None])) == 1
    finally:
        pool.close()


def test_process_pool_refuses_a_bad_seed_and_stays_open() -> None:
    """A bad seed was sent to the worker, whose env raised: the whole pool closed (EnvPoolError)."""
    from agents.env_pool import ProcessEnvPool

    pool = ProcessEnvPool(partial(gym.make, LOGIN), num_envs=2, workers=1, timeout_s=60)
    try:
        with pytest.raises(ValueError, match="seed 0 must be an int >= 0"):
            pool.reset([0, 1], [-1, 4])
        with pytest.raises(TypeError, match="seed 1 must be an int >= 0"):
            pool.reset([0, 1], [3, 0.5])
        (o3, i3), (o4, _) = pool.reset([0, 1], [np.int64(3), 4])
        assert o3["instruction"] and o4["instruction"] and "state" in i3
    finally:
        pool.close()


def test_lockstep_episodes_with_numpy_seeds_match_int_seeds() -> None:
    """What train_small's evaluation passes (a list of ints) and np.arange's seeds give the same records."""
    from agents.env_pool import InlineEnvPool
    from agents.plan_act import PlanActAgent, run_episodes
    from agents.executors import ElementExecutor
    from agents.planners import OraclePlanner

    agent = PlanActAgent(OraclePlanner(horizon=4), ElementExecutor())
    pool = InlineEnvPool(partial(gym.make, LOGIN), num_envs=2)
    try:
        a = run_episodes(pool, agent, [5, 6, 7], limit=20)
        b = run_episodes(pool, agent, list(np.arange(5, 8)), limit=20)
    finally:
        pool.close()
    assert [(r.success, r.steps, [str(x) for x in r.actions]) for r in a] == \
           [(r.success, r.steps, [str(x) for x in r.actions]) for r in b]
    assert all(r.success for r in a)


# --- 2. agents.evaluate --variations grid: each variant's neutral count made once ---------------------

def test_grid_counts_each_variant_against_neutral_once(monkeypatch, capsys) -> None:
    """The per-variant note and the spread's list of variants that are the neutral instance on
    every seed come from one count per variant (it was made again for every later variant and
    once more for the spread); the two still agree."""
    import agents.evaluate as ev
    from guigym.variation import grid

    calls: list[str] = []
    count = ev._neutral_count

    def counting(family, var, k, neutral):
        calls.append(", ".join(f"{a}={var[a]}" for a in ev._changed_axes(var)) or "neutral")
        return count(family, var, k, neutral)

    monkeypatch.setattr(ev, "_neutral_count", counting)
    with warnings.catch_warnings():  # gym.make's, on the axes Login does not show
        warnings.simplefilter("ignore")
        assert ev.main(["--env", LOGIN, "--level", "easy", "--planner", "oracle", "--episodes", "2",
                        "--variations", "grid", "--no-progress"]) == 0
    out = capsys.readouterr().out
    variants = grid("train")
    assert calls == [name for name, _ in variants]  # once each, in the grid's order
    every = [line.split("]")[1].split()[0] for line in out.splitlines()
             if line.startswith(LOGIN) and " success " in line and "the neutral instance on every seed" in line]
    spread = re.search(r"(\d+) variants the neutral instance on every seed \(([^)]*)\)", out)
    assert spread is not None and every, out
    assert spread.group(2).split(", ") == every and int(spread.group(1)) == len(every)


# --- 3. guigym.testing: gym.make options through all_reference_cases and cases_fixture -------------

def test_all_reference_cases_pass_make_kwargs_and_default_is_unchanged() -> None:
    from guigym.testing import all_reference_cases, reference_cases

    plain = all_reference_cases([LOGIN], seeds=range(2), detours=(0, 1))
    assert plain == list(reference_cases(LOGIN, seeds=range(2))) + list(
        reference_cases(LOGIN, seeds=range(2), detours=1, include_reset=False))
    var = {"instruction_style": "formal"}
    varied = all_reference_cases([LOGIN], seeds=range(2), detours=(0, 1), variation=var, split="test")
    assert [c.id for c in varied] == [c.id for c in plain]
    # the varied cases are varied: every instruction differs from the plain one of the same seed
    assert all(v.instruction != p.instruction for v, p in zip(varied, plain))
    assert all(v.state["scenario"]["variation"]["instruction_style"] == "formal" for v in varied)
    assert all("variation" not in p.state["scenario"] or p.state["scenario"]["variation"] != v.state["scenario"]["variation"]
               for v, p in zip(varied, plain))
    # as reference_cases makes them with the same options
    assert varied[:2] == list(reference_cases(LOGIN, seeds=range(2), variation=var, split="test"))
    with pytest.raises(ValueError, match="not a 'train' value"):  # the options do reach gym.make
        all_reference_cases([LOGIN], seeds=[0], variation=var)


def test_cases_fixture_passes_make_kwargs(tmp_path) -> None:
    (tmp_path / "test_varied.py").write_text(
        "from guigym.testing import cases_fixture\n"
        "cases = cases_fixture(['GuiGym-Login-v0'], seeds=range(2), variation={'instruction_style': 'formal'}, split='test')\n"
        "plain = cases_fixture(['GuiGym-Login-v0'], seeds=range(2))\n"
        "def test_varied(cases, plain):\n"
        "    assert len(cases) == len(plain) == 2\n"
        "    assert all(c.state['scenario']['variation']['instruction_style'] == 'formal' for c in cases)\n"
        "    assert all(c.instruction != p.instruction for c, p in zip(cases, plain))\n"
    )
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_varied.py")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "1 passed" in out.stdout, out.stdout + out.stderr


# --- 4. grounding._quoted_spans: no Python work per opening mark that cannot start a quote ----------

def _reference(text: str) -> list[tuple[int, int, str]]:
    """What ``quoted`` promises: ``_QUOTED.finditer``'s parts (quadratic on unclosed marks: small texts only)."""
    return [(m.start(), m.end(), next(g for g in m.groups() if g is not None)) for m in grounding._QUOTED.finditer(text)]


TRICKY = [
    ("Click the 'Don't allow' button, then 'OK'", ["Don't allow", "OK"]),
    ("it's 'x'", ["x"]),
    ("Gib „alice“ in das Feld 'Name' ein", ["alice", "Name"]),
    ("“a” „b“ \"c\" 'd' ‘e’ „f”", ["a", "b", "c", "d", "e", "f"]),
    ("‘" * 50, []),
    ("’" + "‘" * 50, []),  # the closing mark before every opening one
    ("‘" * 5 + "’", ["‘‘‘‘"]),
    ("‘a’b’", ["a’b"]),  # a ’ between letters is inside the part
    ("'a'b'", ["a'b"]),
    ("‘x ‘y’ z", ["x ‘y"]),
    ("x’y ‘q", []),
    ("'a' ‘" * 3, ["a", "a", "a"]),
    ("‘" * 20 + "’" + "‘" * 20, ["‘" * 19]),
    ("„" * 10 + "”" + "„" * 10 + "“", ["„" * 9, "„" * 9]),
    ("\"" + "‘" * 30 + "\"", ["‘" * 30]),
    ("'a’ " * 4 + "‘", ["a’ ", "a’ "]),  # each ' after a space closes the part the one before opened
    ("x'y 'z", []),
    ("", []),
]


@pytest.mark.parametrize("text,want", TRICKY, ids=range(len(TRICKY)))
def test_quoted_on_tricky_texts(text, want) -> None:
    assert grounding.quoted(text) == want
    assert grounding._quoted_spans(text) == _reference(text)


def test_quoted_spans_equal_the_reference_on_a_seeded_fuzz() -> None:
    rng = random.Random(20261207)
    alphabet = ["'", '"', "‘", "’", "“", "”", "„", "a", "b", "é", "1", "_", " ", " ", "\n", "-"]
    for _ in range(3000):
        weights = [rng.random() for _ in alphabet]
        text = "".join(rng.choices(alphabet, weights=weights, k=rng.choice([0, 1, 2, 3, 5, 8, 13, 30, 80])))
        assert grounding._quoted_spans(text) == _reference(text), text


def _python_lines(text: str) -> tuple[int, list[tuple[int, int, str]]]:
    """The lines of ``guigym/grounding.py`` run by ``_quoted_spans(text)``, and its result: a
    count of its Python work (the regex engine's, linear, not counted), free of timing."""
    grounding._quoted_spans(text)  # untraced first: _opener's cache misses (run only by the first test to need a set) are not counted
    n = 0
    here = grounding.__file__

    def trace(frame, event, arg):
        nonlocal n
        if frame.f_code.co_filename != here:
            return None
        if event == "line":
            n += 1
        return trace

    old = sys.gettrace()
    sys.settrace(trace)
    try:
        out = grounding._quoted_spans(text)
    finally:
        sys.settrace(old)
    return n, out


@pytest.mark.parametrize("make", [
    lambda n: "‘" * n,  # bench_adversarial's "unclosed quotes in an instruction": ~2.5 ms at 8k, a loop turn per mark
    lambda n: "“" * n,
    lambda n: "„" * n,
    lambda n: "\"" + "‘" * n,
    lambda n: "’" + "‘" * n,
    lambda n: "‘" * n + "’" + "‘" * n,
    lambda n: "' " + "“" * n,
    lambda n: "x'" * n,  # no opening mark at all (fast before too)
], ids=["lsquo", "ldquo", "bdquo", "dquote+lsquo", "closed-first", "one-closer", "apostrophe+ldquo", "x-apostrophes"])
def test_quoted_spans_python_work_does_not_grow_with_unmatched_marks(make) -> None:
    small, out_small = _python_lines(make(200))
    big, out_big = _python_lines(make(4000))
    assert len(out_small) == len(out_big) <= 1
    assert big == small <= 60, (small, big)


def test_quoted_spans_python_work_is_linear_in_the_parts_found() -> None:
    for text in (" 'a'" * 2000, "‘a’ ‘" * 1000 + "“b” “", " '" * 2000 + "‘" * 2000):
        lines, out = _python_lines(text)
        assert len(out) >= 1000
        assert lines <= 13 * (len(out) + 6), (lines, len(out))  # ~10-12 lines a part (12,084 for the second text)
