"""Registers every environment from one table on ``import guigym``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gymnasium as gym

if TYPE_CHECKING:
    from guigym.apps.family import Family


@dataclass(frozen=True)
class EnvEntry:
    id: str
    family: str
    max_episode_steps: int
    summary: str


#: The registry: one row per environment id (levels are the ``level`` kwarg).
ENVS: tuple[EnvEntry, ...] = (
    EnvEntry("GuiGym-Login-v0", "Login", 40, "sign in: fields, remember-me, verification code, lock-out"),
    EnvEntry("GuiGym-Settings-v0", "Settings", 60, "toggles and choices on nested screens and long lists (Scroll, Back)"),
    EnvEntry("GuiGym-Launcher-v0", "Launcher", 60, "a phone home screen; tasks across Notes, Clock, Contacts (OpenApp, Back)"),
    EnvEntry("GuiGym-Contacts-v0", "Contacts", 60, "an address book: questions (Answer), edits, favourites, deletes (dialog)"),
    EnvEntry("GuiGym-Messages-v0", "Messages", 60, "text conversations: send, reply, resend, delete (dialog), questions (Answer)"),
    EnvEntry("GuiGym-Files-v0", "Files", 100, "a file manager: folders, create, rename, move, delete (dialog), multi-select"),
    EnvEntry("GuiGym-Calendar-v0", "Calendar", 100, "a calendar: add events (relative dates, pickers), move, delete (dialog), questions"),
    EnvEntry("GuiGym-Mail-v0", "Mail", 80, "e-mail: compose, reply, forward, search, archive, delete (dialog), select mode, questions"),
    EnvEntry("GuiGym-Phone-v0", "Phone", 100, "a home screen: Notes, Contacts, Clock, Messages; edit, delete, add alarms, send, questions"),
    EnvEntry("GuiGym-Shop-v0", "Shop", 100, "a shop: search, filters, options, cart (steppers, remove dialog), checkout, questions"),
    EnvEntry("GuiGym-CrossApp-v0", "CrossApp", 120, "a fact read in one app (Messages, Mail, Shop, Contacts) used in others"),
)


def family_of(entry: EnvEntry) -> Family:
    """The family ``entry`` names; a name that is not in ``guigym.apps.FAMILIES`` is an error
    (a typo must fail loudly, not register nothing and shrink the test matrix)."""
    from guigym.apps import FAMILIES

    if entry.family not in FAMILIES:
        raise ValueError(f"env {entry.id!r} names unknown family {entry.family!r}; known families: {sorted(FAMILIES)}")
    return FAMILIES[entry.family]


def mend_passive_checker() -> bool:
    """Let a refused first ``reset()`` under ``gym.make``'s passive checker be followed by steps.

    Gymnasium's ``PassiveEnvChecker`` (the versions that compare reset's data with the first
    step's, 1.4) marks its first reset checked before calling it; when that reset raises (guigym
    refuses an unknown ``reset(options=...)`` key or level, as documented) it never keeps reset's
    data, and the first step after the next, good, reset died in the checker with ``TypeError:
    cannot unpack non-iterable NoneType object``. Mended: a first reset that raises leaves the
    checker as it was, so the next reset is the checked first one. Changes nothing else, in no
    other Gymnasium version (returns whether it mended; once per process).
    """
    from gymnasium.wrappers.common import PassiveEnvChecker

    reset = PassiveEnvChecker.reset
    if getattr(reset, "_guigym_mended", False) or "_previous_data" not in PassiveEnvChecker.step.__code__.co_names:
        return False

    def checked_reset(self: Any, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        first = self.checked_reset is False
        try:
            return reset(self, seed=seed, options=options)
        except BaseException:
            if first:
                self.checked_reset = False
            raise

    checked_reset.__doc__, checked_reset.__wrapped__ = reset.__doc__, reset  # type: ignore[attr-defined]
    checked_reset._guigym_mended = True  # type: ignore[attr-defined]
    PassiveEnvChecker.reset = checked_reset  # type: ignore[method-assign]
    return True


def register_envs(entries: Iterable[EnvEntry] = ENVS) -> None:
    """Register ``entries`` with Gymnasium (ids already registered are left alone). Every
    entry is checked before any is registered, so a bad table registers nothing. Also
    :func:`mend_passive_checker`."""
    mend_passive_checker()
    entries = tuple(entries)
    for e in entries:
        family_of(e)
    for e in entries:
        if e.id not in gym.registry:
            gym.register(id=e.id, entry_point="guigym.env:GuiEnv", vector_entry_point="guigym.vector:make_vector",
                         kwargs={"family": e.family}, max_episode_steps=e.max_episode_steps)


def id_of_family(family: str) -> str:
    """The id whose envs are ``family``'s (what :func:`guigym.vector.make_vector` is given).

    >>> id_of_family("Settings")
    'GuiGym-Settings-v0'
    """
    for e in ENVS:
        if e.family == family:
            return e.id
    raise ValueError(f"no guigym id for family {family!r}; ids: {[e.id for e in ENVS]}")


def family_mismatch(spec: Any) -> str | None:
    """Why ``spec`` (the ``EnvSpec`` ``gym.make`` gives an env it made) is a mistake: a guigym id made
    with another family's ``family=`` (``gym.make("GuiGym-Login-v0", family="Mail")`` made Mail envs
    that said they were Login's). ``None``: nothing wrong.

    >>> from gymnasium.envs.registration import EnvSpec
    >>> family_mismatch(EnvSpec("GuiGym-Login-v0", kwargs={"family": "Login"})) is None
    True
    >>> family_mismatch(EnvSpec("GuiGym-Login-v0", kwargs={"family": "Mail"}))
    "GuiGym-Login-v0 is the Login family's id: family='Mail' cannot change it; make GuiGym-Mail-v0"
    """
    if spec is None:
        return None
    family = (spec.kwargs or {}).get("family")
    entry = next((e for e in ENVS if e.id == spec.id), None)
    if entry is None or family is None or family == entry.family:  # not a guigym id, or its own family
        return None
    other = next((e.id for e in ENVS if e.family == family), None)
    return (f"{spec.id} is the {entry.family} family's id: family={family!r} cannot change it; "
            + (f"make {other}" if other else f"known families: {sorted(e.family for e in ENVS)}"))


class CheckedSpec:
    """The ``spec`` attribute of guigym's envs and vector envs: what ``gym.make`` / ``make_vec`` set
    on them after building them, refused (the env closed, a ``ValueError``) when
    :func:`family_mismatch` finds another family's ``family=`` under a guigym id."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return None if obj is None else obj.__dict__.get("_spec")

    def __set__(self, obj: Any, spec: Any) -> None:
        problem = family_mismatch(spec)
        if problem:
            obj.close()
            raise ValueError(problem)
        obj.__dict__["_spec"] = spec


def env_ids() -> list[str]:
    """Every guigym id, in table order (an entry naming an unknown family raises)."""
    for e in ENVS:
        family_of(e)
    return [e.id for e in ENVS]


def id_levels() -> list[tuple[str, str]]:
    """``(env id, level)`` for every id and every level of its family (the test matrix).

    >>> id_levels()[:2]
    [('GuiGym-Login-v0', 'easy'), ('GuiGym-Login-v0', 'medium')]
    """
    return [(e.id, level) for e in ENVS for level in family_of(e).levels]


def _not_a_gui_env(spec: gym.envs.registration.EnvSpec) -> bool:
    """Whether ``spec`` surely makes something other than a :class:`guigym.env.GuiEnv` (an entry
    point that is a class, not GuiEnv's); a factory function is given the benefit of the doubt."""
    from guigym.env import GuiEnv

    entry_point: object = spec.entry_point
    if isinstance(entry_point, str):
        try:  # imports the entry point's module, as gym.make would
            entry_point = gym.envs.registration.load_env_creator(entry_point)
        except (ImportError, AttributeError, ValueError):
            return False  # gym.make reports it
    return isinstance(entry_point, type) and not issubclass(entry_point, GuiEnv)


#: the module prefix ``gym.make`` accepts before an id (``"guigym:GuiGym-Login-v0"``)
MODULE_PREFIX = "guigym:"


def plain_id(env_id: str) -> str:
    """``env_id`` without a leading ``guigym:`` module prefix (``gym.make`` accepts both forms;
    the commands use the plain one in names and file paths).

    >>> plain_id("guigym:GuiGym-Login-v0"), plain_id("GuiGym-Login-v0")
    ('GuiGym-Login-v0', 'GuiGym-Login-v0')
    """
    return env_id.removeprefix(MODULE_PREFIX)


def id_level_problem(env_id: str, level: str | None = None) -> str | None:
    """Why ``env_id`` (with ``level``, unless None) is not something guigym can make, in one
    line for a command's usage error; None when it is, or when ``env_id`` is a user's own id of
    a GuiEnv (``gym.make`` judges its kwargs). An id of another package's env (``CartPole-v1``)
    is a problem: every command passes it guigym's kwargs (``backend``, ``level``). A leading
    ``guigym:`` module prefix, which ``gym.make`` accepts, is accepted (:func:`plain_id`).

    >>> id_level_problem("GuiGym-Login-v0", "hard") is None
    True
    >>> id_level_problem("GuiGym-Login-v0", "extreme")
    "--level extreme: GuiGym-Login-v0's levels are easy, medium, hard"
    >>> id_level_problem("GuiGym-Nope-v0")
    'unknown env id GuiGym-Nope-v0; guigym ids: GuiGym-Login-v0, ..., GuiGym-CrossApp-v0'
    >>> id_level_problem("CartPole-v1")
    'CartPole-v1 is not a guigym id (its env is not a GuiEnv); guigym ids: GuiGym-Login-v0, ..., GuiGym-CrossApp-v0'
    >>> id_level_problem("guigym:GuiGym-Login-v0", "hard") is None
    True
    """
    env_id = plain_id(env_id)
    entry = next((e for e in ENVS if e.id == env_id), None)
    if entry is None:
        ids = ", ".join(env_ids())
        if env_id not in gym.registry:
            return f"unknown env id {env_id}; guigym ids: {ids}"
        if _not_a_gui_env(gym.spec(env_id)):
            return f"{env_id} is not a guigym id (its env is not a GuiEnv); guigym ids: {ids}"
        return None
    levels = family_of(entry).levels
    if level is not None and level not in levels:
        return f"--level {level}: {env_id}'s levels are {', '.join(levels)}"
    return None
