"""Reference cases: small records of env states with their dense reference, to score against.

>>> case = next(reference_cases("GuiGym-Login-v0", seeds=[0]))
>>> case.screenshot_size, case.reference[0].instruction
((360, 640), "Click the 'Username' field")
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Literal, Optional, Sequence

from guigym.actions import Back, Click, RefStep, Scroll

__all__ = ["Case", "Reference", "reference_cases", "all_reference_cases", "cases_fixture", "case_params"]


@dataclass(frozen=True)
class Case:
    """One state of one env and everything a reward is scored against there.

    ``reference`` is ``info["reference"]`` (the dense reference from this state),
    ``elements`` is ``info["elements"]``, ``state`` is ``env.unwrapped.get_state()`` (JSON;
    ``set_state`` restores it), ``screenshot_size`` is ``(width, height)``.
    """

    env_id: str
    level: str
    seed: int
    detours: int
    instruction: str
    screenshot_size: tuple[int, int]
    reference: tuple[RefStep, ...]
    elements: tuple[dict, ...]
    state: dict = field(repr=False, compare=False)

    @property
    def id(self) -> str:
        """A short name for test ids: ``Login-easy-s0-d0``."""
        family = self.env_id.split("-")[1] if self.env_id.count("-") >= 2 else self.env_id
        return f"{family}-{self.level}-s{self.seed}-d{self.detours}"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """How Hypothesis (and IPython) print a case — in the notes of every check failure: its
        id and task. The dataclass printer wrote out the whole env state, several thousand
        characters of it under each failure message."""
        p.text(f"<Case {self.id}: {self.instruction!r}>")

    def reference_json(self) -> str:
        """The reference as a dataset column holds it (``RefStep.to_dict()`` JSON)."""
        return json.dumps([r.to_dict() for r in self.reference])

    def ref(self) -> "Reference":
        """The reference as a list that also carries this case (see :class:`Reference`)."""
        return Reference(self.reference, case=self)


class Reference(list):
    """A list of :class:`~guigym.actions.RefStep` — what every check passes a reward as its
    reference — with the :class:`Case` it came from as ``.case`` (``None`` when the list
    was rescaled or built by hand). Rewards that need more than the reference, e.g. one
    that executes on the env, read ``reference.case.state``."""

    def __init__(self, steps: Iterable[RefStep] = (), case: Optional[Case] = None) -> None:
        super().__init__(steps)
        self.case = case


def _random_action(rng: Any, elements: Sequence[dict], size: tuple[int, int]) -> Any:
    w, h = size
    r = rng.random()
    if r < 0.6 and elements:  # click somewhere inside a visible widget
        e = elements[int(rng.integers(len(elements)))]
        x0, y0, x1, y1 = e["box"]
        return Click(int(rng.integers(x0, x1 + 1)), int(rng.integers(y0, y1 + 1)))
    if r < 0.75:
        return Scroll(["up", "down", "left", "right"][int(rng.integers(4))])
    if r < 0.85:
        return Back()
    return Click(int(rng.integers(0, w)), int(rng.integers(0, h)))


def reference_cases(
    env_id: str,
    level: str = "easy",
    seeds: Iterable[int] = range(3),
    detours: int = 0,
    backend: str = "mock",
    include_reset: bool = True,
    **make_kwargs: Any,
) -> Iterator[Case]:
    """Cases of ``env_id`` at ``level``: for each seed, the state after ``reset(seed)``
    (unless ``include_reset=False``) and, with ``detours=k``, the state after ``k`` random
    actions (clicks inside visible widgets, scrolls, Back, stray clicks; seeded by the
    seed). A random action that would end the episode (success or failure) is undone and
    another is tried, so every case has a non-empty reference. Works for every registered
    id (:func:`guigym.registration.env_ids`); ``make_kwargs`` go to ``gym.make``."""
    import gymnasium as gym
    import numpy as np

    import guigym  # noqa: F401 - registers the ids
    from guigym.env import gui_env

    env = gym.make(env_id, level=level, backend=backend, disable_env_checker=True, **make_kwargs)
    try:
        u = gui_env(env, "reference_cases")  # get_state/set_state: a GuiEnv's
        for seed in seeds:
            obs, info = env.reset(seed=int(seed))
            h, w = obs["screenshot"].shape[:2]

            def case(k: int) -> Case:
                return Case(
                    env_id=env_id, level=level, seed=int(seed), detours=k, instruction=str(obs["instruction"]),
                    screenshot_size=(int(w), int(h)), reference=tuple(info["reference"]),
                    elements=tuple(dict(e) for e in info["elements"]), state=u.get_state(),
                )

            if include_reset and info["reference"]:
                yield case(0)
            if detours <= 0:
                continue
            rng = np.random.default_rng([int(seed), 7919])
            done = 0
            for _ in range(detours * 20):
                if done == detours:
                    break
                before = u.get_state()
                o, _r, term, _trunc, i = u.step(_random_action(rng, info["elements"], (w, h)))
                if term or not i["reference"]:
                    u.set_state(before)
                    continue
                obs, info, done = o, i, done + 1
            if done == detours:
                yield case(detours)
    finally:
        env.close()


def all_reference_cases(
    env_ids: Optional[Sequence[str]] = None,
    levels: Sequence[str] = ("easy",),
    seeds: Iterable[int] = range(3),
    detours: Sequence[int] = (0,),
    backend: str = "mock",
    **make_kwargs: Any,
) -> list[Case]:
    """:func:`reference_cases` for several ids (default: every registered one), levels and
    detour counts, as one list; ``make_kwargs`` go to ``gym.make`` as :func:`reference_cases`
    passes them: ``all_reference_cases(["GuiGym-Login-v0"], variation="all", split="test")``
    gives cases of varied instances (``variation``, ``split``, ``viewport``, ``strict`` ...; the
    language is a variation axis: ``variation={"language": "de"}, split="test"``)."""
    from guigym.registration import env_ids as registered

    seeds = list(seeds)
    out: list[Case] = []
    for env_id in env_ids if env_ids is not None else registered():
        for level in levels:
            for k in detours:
                out += reference_cases(env_id, level, seeds, detours=k, backend=backend, include_reset=(k == 0), **make_kwargs)
    return out


def case_params(cases: Iterable[Case]) -> list[Any]:
    """``pytest.param(case, id=case.id)`` for each case, for ``@pytest.mark.parametrize``."""
    import pytest

    return [pytest.param(c, id=c.id) for c in cases]


def cases_fixture(
    env_ids: Optional[Sequence[str]] = None,
    levels: Sequence[str] = ("easy",),
    seeds: Iterable[int] = range(3),
    detours: Sequence[int] = (0,),
    scope: Literal["session", "package", "module", "class", "function"] = "module",
    **make_kwargs: Any,
) -> Any:
    """A pytest fixture that gives the list of :func:`all_reference_cases` (built once per
    ``scope``). In a test module: ``cases = cases_fixture(["GuiGym-Login-v0"])``, then
    ``def test_x(cases): ...``; ``make_kwargs`` go to ``gym.make`` (``cases_fixture([...],
    variation="all", split="test")``: varied instances)."""
    import pytest

    seeds = list(seeds)
    make_kwargs = dict(make_kwargs)

    @pytest.fixture(scope=scope)
    def cases() -> list[Case]:
        return all_reference_cases(env_ids, levels, seeds, detours, **make_kwargs)

    return cases
