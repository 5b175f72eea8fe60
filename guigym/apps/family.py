"""What an app family provides: scenario generation, the task's goals, success and failure.

A family is one module in ``guigym/apps/`` with a :class:`Family` subclass. ``generate``
takes the env's ``np_random`` (all randomness comes from it) and returns a JSON
:class:`~guigym.apps.schema.Scenario`; the other hooks read a
:class:`~guigym.apps.schema.DeviceState`. The oracle (``guigym.oracle``) turns goals into grounded
actions generically, so a family never writes per-backend code.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guigym.apps.draws import Draws
from guigym.apps.schema import DeviceState, Scenario, Task

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
#: How many scenarios :meth:`Family.instance` draws at most to find one of an allowed template.
MAX_TEMPLATE_TRIES = 500

#: Colour themes (RGB). Index chosen per scenario.
THEMES: tuple[dict[str, Any], ...] = (
    {"name": "blue", "primary": (25, 103, 210), "on_primary": (255, 255, 255), "bg": (255, 255, 255), "surface": (241, 243, 244),
        "text": (32, 33, 36), "muted": (95, 99, 104), "error": (197, 34, 31)},
    {"name": "green", "primary": (19, 115, 51), "on_primary": (255, 255, 255), "bg": (250, 250, 247), "surface": (232, 240, 233),
        "text": (28, 32, 30), "muted": (90, 100, 94), "error": (180, 30, 30)},
    {"name": "purple", "primary": (103, 58, 183), "on_primary": (255, 255, 255), "bg": (255, 255, 255), "surface": (237, 231, 246),
        "text": (33, 33, 33), "muted": (97, 97, 97), "error": (198, 40, 40)},
    {"name": "orange", "primary": (230, 81, 0), "on_primary": (255, 255, 255), "bg": (255, 253, 250), "surface": (255, 236, 220),
        "text": (38, 30, 25), "muted": (110, 96, 88), "error": (183, 28, 28)},
    {"name": "dark", "primary": (138, 180, 248), "on_primary": (32, 33, 36), "bg": (32, 33, 36), "surface": (48, 49, 52),
        "text": (232, 234, 237), "muted": (154, 160, 166), "error": (242, 139, 130)},
    {"name": "teal", "primary": (0, 121, 107), "on_primary": (255, 255, 255), "bg": (248, 252, 252), "surface": (224, 242, 241),
        "text": (30, 36, 36), "muted": (84, 104, 104), "error": (190, 30, 45)},
)


#: The colours a renderer falls back on for a theme key a scenario lacks (the first theme).
DEFAULT_THEME: dict[str, Any] = {k: v for k, v in THEMES[0].items() if k != "name"}


# ``Family.failed``'s reasons (the env's ``info["failure"]``) that several families give.
WRONG_ANSWER = "a wrong answer (or an answer where the task asks no question)"
#: A right answer given while the data is not yet the start plus exactly the instructed change:
#: a change the task asks for not made yet, or one it does not ask for not set back yet.
EARLY_ANSWER = ("a right answer given too soon (a change the task asks for was not made yet, "
                "or one it does not ask for was not set back yet)")
CALL_PLACED = "a call was placed (no task asks for one, and it cannot be undone)"
NEW_CONVERSATION = "a conversation the task does not ask for was started"
WRONG_MESSAGES = "a message the task does not ask for was sent (messages cannot be unsent)"
CONVERSATION_DELETED = "a conversation that should stay was deleted (it cannot be undone)"
MAIL_MOVED = "a mail was archived or deleted by mistake (nothing leaves the archive or the trash)"
MAIL_SENT = "a mail the task does not ask for was sent"
CART_ITEM_ADDED = "an item the task does not ask for is in the cart (a wrong product, colour or size)"
CART_ITEM_REMOVED = "an item that should stay was removed from the cart"


@dataclass(frozen=True)
class Goal:
    """The next thing the task needs: set ``widget`` (on ``screen`` of ``app``) to ``value``
    (``op="set"``), press it (``op="press"``), or answer ``value`` once ``widget``, the row
    that shows the fact, is on screen (``op="answer"``).

    ``otherwise``: the goal to follow instead wherever this one's way would find nothing or
    scroll more than once (e.g. a contact's row far below the fold or hidden by a stale query:
    search for them), so a reference clicks a row on screen, or one Scroll away, rather than
    searching for it.

    ``read_off`` (an ``answer`` with an ``otherwise``): the fact is read off ``widget`` (a list
    row) only where that row is on screen and shows it whole, not shortened to fit; any other
    step, a way to the row included, follows ``otherwise`` (e.g. open the item and read it there)."""

    app: str
    screen: str
    widget: str
    op: str = "set"
    value: Any = None
    otherwise: Goal | None = None
    read_off: bool = False


class Family:
    """Base class of an app family (Login, Settings, Launcher, ...).

    ``apps`` lists every app a scenario of the family can contain, in a fixed order: it is
    the ``app`` index of the env's action space, so it is part of the env id's contract
    (tests pin it) and a family's scenarios must stay within it. ``task_type`` is the
    ``TypedDict`` of the family's ``scenario["task"]``.
    """

    name: str = ""
    levels: tuple[str, ...] = LEVELS
    description: str = ""
    apps: tuple[str, ...] = ()
    task_type: type = Task
    #: Whether success compares only the instructed changes by default (Login, Settings,
    #: Launcher: a reset link sent or a stray switch is not a failure); then ``gym.make(...,
    #: strict=True)`` puts ``"strict": True`` in the task and the family compares the whole
    #: state. Other families are always strict.
    lenient: bool = False
    #: Whether some tasks ask a question: then ``Answer`` joins the env's action space (only
    #: such families have it, so the others' spaces stay as they were).
    asks_questions: bool = False
    #: The task templates of each level, by name: what :meth:`template` can return for a
    #: scenario of that level (``guigym.variation`` holds some out of the train split).
    templates: dict[str, tuple[str, ...]] = {}
    #: The apps ``guigym.variation``'s ``permission`` axis gates (their app kind's
    #: ``App.with_permission``; the family's ``next_goal`` answers the prompt and recovers from a
    #: denial); empty: the axis leaves the family's scenarios as they are.
    permission_apps: tuple[str, ...] = ()

    def __reduce_ex__(self, protocol: Any) -> Any:
        """A registered family pickles (and deep-copies) as its name: an env's copy uses the
        registry's own instance, as ``gym.make`` does, instead of a second one."""
        from guigym.apps import FAMILIES

        if FAMILIES.get(self.name) is self:
            return (_registered, (self.name,))
        return super().__reduce_ex__(protocol)

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        """A new scenario: ``task`` holds ``instruction`` plus the family's own fields;
        ``start`` holds the foreground app (``"fg"``) and optional pre-filled ``values``
        per app."""
        raise NotImplementedError

    def template(self, scenario: Scenario) -> str:
        """The name of the task template ``scenario`` is an instance of (one of
        ``templates[scenario["level"]]``), read from its task. Default, for a family that names
        no templates: ``"task"`` (one template per level, shared by both splits)."""
        return "task"

    def instance(self, rng: np.random.Generator, level: str, templates: Collection[str] | None = None) -> Scenario:
        """:meth:`generate`, restricted to the task templates named in ``templates`` (``None``:
        every template, and exactly ``generate(rng, level)``).

        The one hook through which a template is chosen under a restriction: scenarios are drawn
        from ``rng`` until one is of an allowed template, so an instance is one the family
        generates, conditioned on its template (the same seed gives the same instance), and the
        unrestricted draws stay exactly those of :meth:`generate`."""
        if templates is None:
            return self.generate(rng, level)
        allowed = set(templates)
        if not allowed & set(self.templates.get(level, ())):
            raise ValueError(f"{self.name} {level} has no template in {sorted(allowed)}; it has {self.templates.get(level)}")
        for _ in range(MAX_TEMPLATE_TRIES):
            scenario = self.generate(rng, level)
            if self.template(scenario) in allowed:
                return scenario
        raise RuntimeError(f"{self.name} {level}: no scenario of a template in {sorted(allowed)} in {MAX_TEMPLATE_TRIES} draws")

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        """The first unmet goal in the task's order (None when nothing is left)."""
        raise NotImplementedError

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        raise NotImplementedError

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        """Whether the task can no longer succeed (the episode ends): False while it can; else why
        not, in a few words (the env's ``info["failure"]``), or True (no reason given: the env then
        says "the task can no longer succeed"; tests/test_failure_reasons.py asks the registered
        families for a reason). Callers test its truth; :meth:`assess` reports it as ``True``."""
        return False

    @staticmethod
    def strict(scenario: Scenario) -> bool:
        """Whether ``scenario`` compares the whole state although its family is :attr:`lenient`
        (``gym.make(..., strict=True)`` put ``"strict": True`` in its task)."""
        return bool(scenario["task"].get("strict"))

    def assess(self, scenario: Scenario, state: DeviceState) -> tuple[Any, bool, Goal | None]:
        """``(success, failed, next_goal)`` of ``state``, each asked only while the ones before
        are false (success first). The oracle asks this of every state it plans through; a family
        whose three checks read the same digests of the state overrides it to read them once."""
        ok = self.success(scenario, state)
        if ok:
            return ok, False, None
        if self.failed(scenario, state):
            return ok, True, None
        return ok, False, self.next_goal(scenario, state)

    def question(self, scenario: Scenario) -> bool:
        """Whether this scenario's task asks a question (an ``Answer`` ends it); elsewhere an
        ``Answer`` is a no-op."""
        return False

    def task_problems(self, scenario: Scenario) -> list[str]:
        """What in ``scenario["task"]`` (already of :attr:`task_type`, the scenario already valid
        for its apps) names data the scenario lacks or a kind of task the family has none of: a
        record id, a person, a setting that is not there. ``set_state`` refuses such a snapshot
        (``guigym.apps.snapshot``): a delete of a missing record would load as already done.
        Each problem starts with its path from ``$.task``; ``[]`` by default."""
        return []


def answer_failure(state: DeviceState, fact: Any) -> str | bool:
    """``failed``'s reason for a state that is no success, where the task asks a question: False
    while nothing is answered; else :data:`EARLY_ANSWER` where the answer states ``fact`` (the
    episode fails for the rest of the state: a change made or not made), :data:`WRONG_ANSWER`
    where it does not (or ``fact`` is None: the task asks nothing)."""
    if "answer" not in state:
        return False
    from guigym.answers import answers_match

    return EARLY_ANSWER if fact is not None and answers_match(state["answer"], fact) else WRONG_ANSWER


def missing(where: str, value: Any, have: Collection[Any], what: str) -> list[str]:
    """``[]`` if ``value`` is in ``have``, else the problem ``"<where>: <value> is no <what>"``
    (for :meth:`Family.task_problems`)."""
    try:
        ok = value in have
    except TypeError:  # a value of a type that cannot be hashed: a list where an id belongs
        ok = False
    return [] if ok else [f"{where}: {value!r:.40} is no {what}"]


def pick(rng: np.random.Generator, seq: Sequence[Any]) -> Any:
    """One element of ``seq``, drawn with ``rng``."""
    return seq[int(rng.integers(len(seq)))]


def sample(rng: np.random.Generator, seq: Sequence[Any], k: int) -> list[Any]:
    """``k`` distinct elements of ``seq`` in random order."""
    if isinstance(rng, Draws) and 0 <= k <= len(seq) <= 10000:  # the same indices, without the array
        return [seq[i] for i in rng.sample_indices(len(seq), k)]
    idx = rng.choice(len(seq), size=k, replace=False)
    return [seq[int(i)] for i in idx]


def theme(rng: np.random.Generator) -> dict[str, Any]:
    """A colour theme, as JSON (colours as lists, so a scenario survives a JSON round trip)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in pick(rng, THEMES).items()}


def _registered(name: str) -> Family:
    """The registered family called ``name`` (what a pickled one becomes again)."""
    from guigym.apps import FAMILIES

    return FAMILIES[name]
