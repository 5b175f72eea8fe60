"""``GuiEnv``: one Gymnasium environment class for every app family and backend."""

from __future__ import annotations

import contextlib
import difflib
import inspect
import itertools
import warnings
import weakref
from collections import OrderedDict, deque
from collections.abc import Iterable
from typing import Any, Mapping, Sequence, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from guigym import allocator
from guigym.action_text import ActionParseError, _short, format_action, parse_action
from guigym.actions import ACTION_CLASSES, Action, Answer, Back, OpenApp, RefStep, Type, as_int, checked_action
from guigym.apps import FAMILIES
from guigym.apps.base import TEXT_KINDS, View, clean_text, copy_state, find_app, printable, role_id, start_state
from guigym.apps.draws import Draws
from guigym.apps.schema import AppState, DeviceState, Scenario
from guigym.apps.snapshot import snapshot_problems
from guigym.backends import BACKENDS, make_backend
from guigym.backends.base import Backend
from guigym.events import Event
from guigym.i18n.content import generating_in
from guigym.layout import VIEWPORTS, Layout, check_viewport
from guigym.oracle import Oracle, state_key
from guigym.registration import CheckedSpec
from guigym.spaces import ELEMENT_ID_CHARS, ELEMENT_LABEL_CHARS, UnicodeText, action_from_space, action_space, element_space
from guigym.variation import AXES, SPLITS, apply_variation, held_out_of, sample_variation, split_templates
from guigym.variation import resolve as resolve_variation
from guigym.variation import splits_alike

REWARD_MODES = ("sparse", "shaped")
EXTRA_OBS = ("elements", "history")
#: The keys ``reset(options=...)`` takes (``level``: this episode's level instead of the env's).
RESET_OPTIONS = frozenset({"level"})
HISTORY_LEN = 8
#: Longest history line; longer ones (a long OpenApp name) are cut, so ``obs["history"]``
#: (``HISTORY_LEN`` lines) always fits its space, ``UnicodeText(HISTORY_LEN * 200)``.
HISTORY_LINE = 199
#: Frames the env keeps for states shown again (least recently used dropped first).
FRAME_ENTRIES = 4
STATE_VERSION = 1


def _fit(text: str, limit: int, tail: bool = False) -> str:
    """``text`` within ``limit`` characters, for an observation that must lie in its space: a longer
    one loses its end (or, ``tail``, its start) to "…". Files' Move picker showed "…/" and a
    256-character folder name an agent had typed (258), or a whole path of them: an ``elements``
    observation outside ``observation_space``. ``info["elements"]`` keeps the whole text.

    >>> _fit("abcdef", 4), _fit("abcdef", 4, tail=True), _fit("abc", 4)
    ('abc…', '…def', 'abc')
    """
    if len(text) <= limit:
        return text
    return "…" + text[len(text) - limit + 1:] if tail else text[:limit - 1] + "…"


class GuiEnv(gym.Env):
    """A procedurally generated GUI app; the agent sees screenshots and acts with
    Click / Scroll / Back / OpenApp / Type (and Answer, in families whose tasks ask questions).

    Args:
        family: app family (``"Login"``, ``"Settings"``, ``"Launcher"``; see ``guigym.apps``).
        level: ``"easy"``, ``"medium"`` or ``"hard"`` (or per reset: ``options={"level": ...}``).
        backend: ``"mock"`` (pygame, default) or ``"browser"`` (headless Chromium).
        viewport: screen ``(width, height)`` in pixels, or a name of ``guigym.layout.VIEWPORTS``
            (``"portrait"`` 360x640, the default; ``"landscape"`` 640x360, ``"small"``, ``"tablet"``).
        render_mode: ``"rgb_array"`` or ``"human"`` (a pygame window).
        reward_mode: ``"sparse"`` (1 on success) or ``"shaped"`` (sparse plus potential-based
            shaping ``Φ(s') − Φ(s)``, ``Φ(s) = −remaining_reference_length(s) / initial_length``).
        extra_obs: extra observation keys: ``"elements"`` (visible interactive widgets) and
            ``"history"`` (the last actions, one per line, in the function text format).
        backend_kwargs: options for the backend, a dict of its keyword arguments (e.g. the
            browser's executable) or ``None``; anything else is a ``TypeError``, a name the
            backend does not take too, and a value it refuses (``launch_args="--mute-audio"``,
            ``timeout_s=0``) a ``ValueError``, all here, before anything starts.
        variation: ``None`` (the family's own instances), a preset name or a dict of axes (see below).
        split: ``"train"`` or ``"test"``: the values each varied axis is drawn from.
        strict: ``True``: success needs the final state to equal the start plus exactly the
            instructed change (OpenApps' rule: a side effect must be undone, or fails where it
            cannot be) also in Login, Settings and Launcher (the lenient families), whose
            default (``None``) compares only the session, or the instructed settings, switches
            and note (Login's strict rule fails a reset link sent). Every other family is always strict
            (``strict=False`` there is a ``ValueError``). A snapshot (``get_state``) keeps its rule.

    Observation: ``Dict(screenshot=uint8 (H, W, 3), instruction=str[, elements][, history])``.

    Action: a ``Dict`` sample of ``action_space``, an :class:`~guigym.actions.Action`, or a
    string in any supported text format. The space's ``app`` indexes :attr:`apps`, the
    family's apps, so it depends only on the env id. Invalid actions are no-ops that set
    ``info["action_error"]``; ``step()`` never raises on an action: numpy integers are read as
    ints, and unparsable text, a non-integer or huge coordinate, a non-str name or text, an
    index outside its ``Discrete`` are such no-ops. Typed text is stored as
    :func:`~guigym.apps.base.clean_text` makes it (NUL dropped, lone surrogates replaced, at most
    :data:`~guigym.apps.base.MAX_FIELD_LEN` characters).

    Termination: ``terminated`` when the task succeeds or can no longer succeed; ``truncated``
    comes from ``gym.make``'s ``TimeLimit``. The episode then is over: call ``reset()``. A
    ``step()`` after ``terminated`` does not raise: the app goes on from the final state, and
    the reward, ``terminated`` and ``info`` are those of the state it reaches (a success can be
    undone, a switch turned back), so such steps belong to no episode.

    Threads: envs of one process may be stepped from different threads (each its own env);
    one env used from two threads at once is not supported, as with any Gymnasium env.

    Info (every step): ``success``, ``reference`` (list of :class:`RefStep`, the dense
    reference from this state; empty when done or failed), ``elements``, ``action_error``,
    ``event`` (the semantic event the action produced, or None), ``level``, ``variation`` (the
    axes applied, or None), ``template`` (the name of the task template the scenario is an
    instance of, one of ``Family.templates[level]``), ``failure`` (None, or, when the task can
    no longer succeed, why in a few words: "a call was placed (no task asks for one, …)").

    Variation (``guigym.variation``): ``variation=None`` (default: the family's own instances),
    a preset of ``guigym.variation.PRESETS`` (``"none"``, ``"all"``, ``"appearance"``,
    ``"instructions"``, ``"interruptions"``, ``"adversarial"``, ``"language"``, ``"templates"``,
    ``"permissions"``, ``"labels"``, ``"descriptions"``) or a dict of axes; ``split="train" |
    "test"`` picks each sampled axis's values from disjoint sets, so the splits never share an
    instance; its ``templates`` axis draws the train split's task templates or the held-out test
    split's. ``{"language": "de"}`` (or the preset ``"language"``) with ``split="test"``: German
    screens, content and instructions (``guigym.i18n``; opt-in, not part of ``"all"``).
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 4}
    #: gym.make(id, family=...) would make another family's envs under id: refused when set
    spec = CheckedSpec()

    def __init__(
        self,
        family: str = "Login",
        level: str = "easy",
        backend: str = "mock",
        viewport: Sequence[int] | str = (360, 640),
        render_mode: str | None = None,
        reward_mode: str = "sparse",
        extra_obs: Sequence[str] = (),
        backend_kwargs: dict[str, Any] | None = None,
        variation: str | Mapping[str, Any] | None = None,
        split: str = "train",
        strict: bool | None = None,
    ) -> None:
        if family not in FAMILIES:
            raise ValueError(f"unknown family {family!r}; expected one of {sorted(FAMILIES)}")
        self.family = FAMILIES[family]
        if strict not in (None, True, False):
            raise TypeError(f"strict must be True, False or None, got {strict!r}")
        if strict is False and not self.family.lenient:
            lenient = sorted(name for name, fam in FAMILIES.items() if fam.lenient)
            raise ValueError(f"{family} always compares the whole state (the start plus exactly the instructed change); "
                             f"strict=False applies to {', '.join(lenient)} only")
        #: Whether success compares the whole state (see ``strict``; the family's own rule unless set).
        self.strict = bool(strict) or not self.family.lenient
        #: The apps an ``OpenApp`` of ``action_space`` can name (``action_space["app"]`` indexes it).
        self.apps: tuple[str, ...] = tuple(self.family.apps)
        if not self.apps:
            raise ValueError(f"family {family!r} declares no apps (Family.apps: every app its scenarios can contain)")
        self._check_level(level)
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; expected one of {self.metadata['render_modes']}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {reward_mode!r}; expected one of {REWARD_MODES}")
        if isinstance(extra_obs, str) or not isinstance(extra_obs, Iterable):  # a str was checked letter by letter
            raise ValueError(f"extra_obs must be a sequence of names from {EXTRA_OBS} (e.g. ('history',)), got {extra_obs!r}")
        extra_obs = tuple(extra_obs)  # once: a generator was used up by the check below, leaving no extra obs
        bad = [k for k in extra_obs if k not in EXTRA_OBS]
        if bad:
            raise ValueError(f"unknown extra_obs {bad}; expected a subset of {EXTRA_OBS}")
        if backend_kwargs is not None and (not isinstance(backend_kwargs, Mapping) or not all(isinstance(k, str) for k in backend_kwargs)):
            # dict([1]) was a bare TypeError; non-str keys failed only at the first reset, as the backend's **kwargs
            raise TypeError(f"backend_kwargs must be a dict of keyword arguments for the {backend} backend (str keys) "
                            f"or None, got {_short(backend_kwargs)}")
        self.level = level
        self.backend_name = backend
        self.width, self.height = check_viewport(viewport if isinstance(viewport, str) else _viewport_pair(viewport))
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.extra_obs = tuple(extra_obs)
        self._backend_kwargs = _checked_backend_kwargs(backend, dict(backend_kwargs or {}))
        #: ``guigym.variation``: the axes (None: off, the family's own instances) and the split.
        self.variation = resolve_variation(variation, split)
        if self.variation is not None and (inert := splits_alike(self.variation, self.family)):
            # a held-out split that is the training one would go unnoticed: say so, once per env
            warnings.warn(f"variation {variation!r} on {self.family.name}: {', '.join(inert)} leaves every {self.family.name} "
                          "instance as it is, so split='train' and split='test' give the same instances", stacklevel=2)
        self.split = split
        #: The language the family's content is generated in (guigym.i18n.content): the variation's,
        #: known before the draws (a split has one language), so the task is the English one's.
        self.content_language = _content_language(self.variation, split)
        if self.content_language != "en":  # guigym.i18n: fail at make
            from guigym.i18n import check_language

            check_language(self.content_language, self.family.name)

        obs: dict[str, spaces.Space[Any]] = {
            "screenshot": spaces.Box(0, 255, shape=(self.height, self.width, 3), dtype=np.uint8),
            "instruction": UnicodeText(1024),
        }
        if "elements" in self.extra_obs:
            obs["elements"] = element_space(self.width, self.height)
        if "history" in self.extra_obs:
            obs["history"] = UnicodeText(HISTORY_LEN * 200)
        self.observation_space = spaces.Dict(obs)
        self.action_space = action_space(self.width, self.height, self.apps, answer=self.family.asks_questions)

        allocator.tune()  # glibc: no heap shrink-and-regrow (page faults) for every frame; once per process
        self._backend: Backend | None = None  # started lazily (browsers start per worker)
        self.scenario: Scenario | None = None
        self._state: DeviceState | None = None
        self._oracle: Oracle | None = None
        self._view: View | None = None
        self._lay: Layout | None = None
        self._key = b""
        self._frame: np.ndarray | None = None
        #: The last frames shown, by (scenario epoch, state key) (never written into: the env
        #: hands out copies), so a state shown again (Back, a scroll undone) is not drawn again.
        #: One LRU for the env's life: frames leave one at a time, so the allocator reuses them.
        self._frames: OrderedDict[tuple[int, bytes], np.ndarray] = OrderedDict()
        #: Observations hold a read-only view of the kept frame instead of a copy: for a caller
        #: that copies the screenshot away at once and keeps nothing (guigym's vector workers
        #: copy it into shared memory), which saves one 675 KB copy a step.
        self.share_frames = False
        self._epochs = itertools.count()
        self._epoch = -1  # the current scenario's number (each Oracle, a new scenario, gets one)
        self._history: list[str | Action] = []  # lines, or actions not yet written as lines (see _lines)
        self._initial_len = 1
        self._window: Any = None
        #: States of the current scenario known to be valid (the env's own, handed out by
        #: get_state, or a snapshot's already checked), held as they are (states are never
        #: changed once made): set_state to an equal one skips the state checks, the common
        #: case of a stage-2 grounded reward, one set_state per candidate to the same state.
        self._valid_states: deque[DeviceState] = deque(maxlen=4)

    # --- Gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        if options is None:
            options = {}
        elif not isinstance(options, Mapping):  # a list of keys raised AttributeError, a str named its letters
            raise TypeError(f"reset options must be a dict (keys of {sorted(RESET_OPTIONS)}) or None, "
                            f"got {type(options).__name__}")
        unknown = sorted(map(str, set(options) - RESET_OPTIONS))
        if unknown:  # a misspelt key would reset at the default level without a word
            raise ValueError(f"unknown reset options {unknown}; expected keys of {sorted(RESET_OPTIONS)} "
                             "(the split and the variation are gym.make arguments)")
        level = options.get("level", self.level)
        self._check_level(level)  # before seeding: a refused reset leaves the RNG stream as it was
        if isinstance(seed, np.integer):  # a seed drawn with numpy (rng.integers) is the same int's
            seed = int(seed)  # episode; Gymnasium's seeding took only a Python int
        super().reset(seed=seed)
        templates = None  # the split's task templates (guigym.variation.TEST_TEMPLATES); None: all, as without variation
        if self.variation is not None:
            which = self.variation["templates"]
            templates = split_templates(self.family, level, AXES["templates"][self.split][0] if which == "sample" else which)
        with Draws(self.np_random) as rng:  # numpy's draws, exactly, without numpy's per-call cost
            with generating_in(self.content_language):  # the same draws from the language's tables
                scenario = self.family.instance(rng, level, templates)
        if self.variation is not None:  # drawn after the family's: the same task as without variation
            vrng = np.random.default_rng(int(self.np_random.integers(2**63)))
            scenario = apply_variation(scenario, sample_variation(self.variation, self.split, vrng), vrng)
        if self.strict and self.family.lenient:  # a copy: a family may hand out shared parts of its scenarios
            scenario = {**scenario, "task": {**scenario["task"], "strict": True}}
        extra = set(scenario["apps"]) - set(self.apps)
        if extra:  # OpenApp from action_space could not reach them: a family bug, not an agent's
            raise RuntimeError(f"{self.family.name} generated apps {sorted(extra)} missing from its Family.apps")
        old = self._episode()
        try:
            self._load(scenario, start_state(scenario), history=[])
        except BaseException:  # a renderer that failed: the env keeps the episode it had
            self._restore_episode(old)
            if self._state is not None:  # the episode goes on: its screen on the renderer again, if it can
                be, was = self.backend, self.backend.in_step
                be.in_step = True  # a dead renderer raises at once here, not relaunched a second time
                try:
                    with contextlib.suppress(Exception):  # (the reset's own error says what failed)
                        self._refresh()
                finally:
                    be.in_step = was
            raise
        ref = self._reference()
        self._initial_len = max(1, len(ref or ()))
        obs = self._obs()
        if self.render_mode == "human":  # the new episode's first screen, not the last one's end
            self.render()
        return obs, self._info(None, None)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        be = self.backend
        be.in_step = True  # a dead renderer must raise here, not restart (see Backend.in_step)
        try:
            return self._step(action)
        finally:
            # this renderer's flag: `self.backend` here made a new one (a new Chromium nobody
            # closes) when the env was closed meanwhile, e.g. from another thread
            be.in_step = False

    def _step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        act, err = self._coerce(action)  # validated before anything changes
        ev: Event | None = None
        if act is not None:
            self._history = (self._history + [act])[-HISTORY_LEN:]  # written as a line only when read
            ev, err = self._event(act)
        before = self._potential()
        nxt: DeviceState = cast(DeviceState, self._state)  # step() refused an env without one
        key: bytes | None = self._key
        if ev is not None:  # the oracle memoises transitions: following its plan re-applies nothing
            nxt, key = self._oracle.step(self._state, self._key, ev, self._view)  # type: ignore[union-attr, arg-type]
        if nxt.get("popup", -1) > 0:  # an interruption (guigym.variation) counts the steps until it shows
            nxt, key = {**nxt, "popup": nxt["popup"] - 1}, None
        if nxt is not self._state:
            self._refresh(nxt, key)
        ref = self._reference()  # first: planning a new state asks family.assess once, and memoises its success
        success = self._success()
        terminated = success or ref is None
        reward = 1.0 if success else 0.0
        if self.reward_mode == "shaped":
            reward += self._potential() - before
        obs = self._obs()
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), bool(terminated), False, self._info(ev, err)

    def render(self) -> np.ndarray | None:
        """The current screen: with ``render_mode="human"`` shown in a pygame window (returns
        None); otherwise (``"rgb_array"``, and also ``render_mode=None``, a guigym convenience)
        a copy of the screenshot, uint8 ``(H, W, 3)``. Before the first ``reset()`` there is no
        screen: ``gym.error.ResetNeeded``, as from ``step()`` (the ``OrderEnforcing`` of
        ``gym.make`` says the same)."""
        if self._frame is None:
            raise gym.error.ResetNeeded("call reset() before render(): there is no screen yet")
        if self.render_mode == "human":
            self._show_window(self._frame)
            return None
        return self._frame.copy()

    def close(self) -> None:
        """Give the renderer (and the window) back; calling it again, or before ``reset()``,
        does nothing. A closed env can still be used: its next call starts a new renderer."""
        if self._backend is not None:
            self._backend.close()
            self._backend = None
        self._frames.clear()  # a cache (a closed env someone still holds kept ~2.7 MB of frames)
        if self._window is not None:
            self._window = None
            _WINDOWS.discard(self)
            if not _WINDOWS:  # pygame has one window per process: only the last env showing it quits it
                import pygame

                pygame.display.quit()

    def _lines(self) -> list[str]:
        """The action history as lines (a copy): steps keep actions and formatting them waits
        for a reader (``get_state``, the ``history`` observation), since most steps have none."""
        h = self._history
        for i, item in enumerate(h):
            if not isinstance(item, str):
                h[i] = _history_line(item)  # in place: an action and its line mean the same wherever the list is shared
        return cast("list[str]", list(h))  # every item a line now

    # --- state and reference -----------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot (scenario, app state, action history)."""
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before get_state()")
        if not any(s is self._state for s in self._valid_states):
            self._valid_states.append(self._state)
        return {
            "version": STATE_VERSION, "scenario": copy_state(self.scenario), "state": copy_state(self._state),
            "history": self._lines(), "initial_len": self._initial_len,
        }

    def set_state(self, snapshot: dict[str, Any]) -> None:
        """Restore a :meth:`get_state` snapshot: the next observation and step are exactly
        those that followed the snapshot. (Through ``gym.make``'s wrappers, ``reset`` the env
        once first: Gymnasium's ``OrderEnforcing`` refuses a step before any reset.)

        The snapshot is checked first (:func:`~guigym.apps.snapshot.snapshot_problems`: the
        schema, the family, its level and variation values, values the renderers and spaces can
        hold, ``history`` a list of str, ``initial_len`` an int ≥ 1; for another episode's
        scenario also its task: data it names exists, not done or failed at the start) and by a dry run; a bad one
        raises one ``ValueError`` listing every problem and leaves the env as it was. The history keeps its
        last ``HISTORY_LEN`` lines, each cut to ``HISTORY_LINE`` characters. A snapshot of the other
        split's instance in a varied env (variation values only that split holds: a held-out instance
        in a training env) is loaded with a ``UserWarning`` that names them."""
        # a snapshot of the env's own episode in a state it has seen valid: no state check needed
        same = self.scenario is not None and isinstance(snapshot, dict) and snapshot.get("scenario") == self.scenario
        known = same and any(snapshot.get("state") == s for s in self._valid_states)
        found = snapshot_problems(snapshot, self.family, STATE_VERSION, HISTORY_LEN, trusted=self.scenario if same else None,
                                  state_known=known)
        if found:
            raise ValueError("set_state: not a valid get_state() snapshot:\n  " + "\n  ".join(found[:20]))
        old = self._episode()
        history: list[str | Action] = [_cut(printable(h)) for h in snapshot.get("history", [])[-HISTORY_LEN:]]
        # the env's own scenario again (a snapshot of this episode): keep it, and with it the
        # oracle's memoised plans — what makes stage-2 grounded rewards (a set_state per candidate) cheap
        try:
            self._load(cast(Scenario, self.scenario) if same else copy_state(snapshot["scenario"]), copy_state(snapshot["state"]), history)
            self._reference()  # the oracle must be able to plan from it too
            if not known:
                self._check_stacks()  # and every screen Back or OpenApp can show next
        except Exception as e:  # noqa: BLE001 - a state the checks missed: put the env back, then report it
            self._restore_episode(old)
            if self._state is not None:
                self._refresh()
            else:
                self._view = self._lay = self._frame = None
            raise ValueError(f"set_state: the snapshot cannot be shown ({type(e).__name__}: {str(e)[:200]})") from e
        self._initial_len = int(snapshot.get("initial_len", 1))
        if not known:
            self._valid_states.append(cast(DeviceState, self._state))  # _load made it current
        if not same and self.variation is not None:  # a plain env draws from neither split
            held = held_out_of(cast(Scenario, self.scenario).get("variation"), self.split)
            if held:  # loaded as asked, but an instance of the held-out split in a training env is a leak to flag
                other = next(s for s in SPLITS if s != self.split)
                warnings.warn(f"set_state: the snapshot is an instance of the {other} split ({', '.join(held)}), "
                              f"this env's split is {self.split!r}", stacklevel=2)

    def reference(self) -> list[RefStep]:
        """The dense reference trajectory from the current state (``[]`` if none). Before the
        first ``reset()``: ``gym.error.ResetNeeded``, as from ``get_state()`` (an AttributeError
        from deep inside, before)."""
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before reference(): there is no state yet")
        return list(self._reference() or [])

    def observe(self) -> dict[str, Any]:
        """The observation of the current state (as ``reset``/``step`` return it); before the
        first ``reset()``, ``gym.error.ResetNeeded``."""
        if self._frame is None:
            raise gym.error.ResetNeeded("call reset() before observe(): there is no screen yet")
        return self._obs()

    @property
    def instruction(self) -> str:
        return self.scenario["task"]["instruction"] if self.scenario else ""

    @property
    def current_view(self) -> View | None:
        return self._view

    def elements(self) -> list[dict[str, Any]]:
        """Visible interactive widgets: ``id``, ``role``, ``label``, ``box``, ``value``, ``focused``."""
        if self._view is None:
            return []
        boxes = self.backend.boxes()
        out = []
        for w, _ in self._lay.visible:  # type: ignore[union-attr]
            if w.interactive and w.id in boxes:
                out.append({"id": w.id, "role": w.kind, "label": w.label, "box": tuple(boxes[w.id]), "value": w.value,
                            "focused": w.id == self._view.focus})
        return out

    @property
    def backend(self) -> Backend:
        """The renderer, started on first use. An env that already shows a screen but has no
        renderer (a copy made by ``pickle`` or ``copy.deepcopy``, or an env used again after
        :meth:`close`) shows that screen on the new one first, so clicks land where they did."""
        if self._backend is None:
            be = self._backend = make_backend(self.backend_name, self.width, self.height, **self._backend_kwargs)
            if self._view is not None and self._lay is not None:
                if self._frame is not None and hasattr(be, "reshow"):
                    be.reshow(self._view, self._lay, self._frame)  # the mock: the kept frame, not drawn again
                else:
                    be.show(self._view, self._lay)
        return self._backend

    # --- copies ------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """What ``pickle`` and ``copy.deepcopy`` copy: the episode (scenario, app state,
        history, the oracle's plans, the current frame) and the random generator, so a copy
        steps and resets exactly as the original would from here on; not the renderer (a
        Chromium, pygame's fonts and the process's drawing caches), which the copy starts on
        first use (:attr:`backend`), nor the window or the kept older frames."""
        d = self.__dict__.copy()
        d["_backend"] = d["_window"] = None
        d["_frames"] = OrderedDict()
        d["_epochs"] = next(self._epochs)  # itertools' counters stop being picklable in Python 3.14
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d["_epochs"] = itertools.count(d["_epochs"])
        self.__dict__.update(d)

    # --- internals ---------------------------------------------------------------------
    def _check_level(self, level: str) -> None:
        if level not in self.family.levels:
            raise ValueError(f"unknown level {level!r} for {self.family.name}; expected one of {self.family.levels}")

    def _load(self, scenario: Scenario, state: DeviceState, history: list[str | Action]) -> None:
        """Make ``scenario`` in ``state`` the env's episode. If showing it fails, part of it is
        set already: callers put the episode back with :meth:`_episode` / :meth:`_restore_episode`
        (a reset whose renderer failed left the new scenario, its oracle and an empty history over
        the old state: an instruction and plans that were not the screen's)."""
        if self.scenario is None or scenario is not self.scenario:
            self._oracle = Oracle(self.family, scenario, self.width, self.height)
            self._epoch = next(self._epochs)
            self._valid_states.clear()
        self.scenario, self._history = scenario, history
        self._refresh(state)

    def _episode(self) -> tuple[Any, ...]:
        """What :meth:`_restore_episode` puts back when loading another episode fails."""
        return self.scenario, self._state, self._history, self._oracle, self._epoch, list(self._valid_states)

    def _restore_episode(self, old: tuple[Any, ...]) -> None:
        self.scenario, self._state, self._history, self._oracle, self._epoch, valid = old
        self._valid_states.clear()
        self._valid_states.extend(valid)

    def _refresh(self, state: DeviceState | None = None, key: bytes | None = None) -> None:
        """Show ``state`` (default: the current one; ``key``: its ``state_key`` if known) and
        make it current; nothing is assigned until it has been drawn, so a failure leaves the
        env's state as it was."""
        state = self._state if state is None else state
        key = state_key(state) if key is None else key  # type: ignore[arg-type]
        v, lay = self._oracle.screen(state, key)  # type: ignore[union-attr, arg-type]
        backend, frames, fkey = self.backend, self._frames, (self._epoch, key)
        frame = frames.get(fkey) if frames else None
        if frame is not None and hasattr(backend, "reshow"):  # a state shown before: its frame again, undrawn
            frames.move_to_end(fkey)
            backend.reshow(v, lay, frame)
        else:
            backend.show(v, lay)
            frame = backend.screenshot()
            if hasattr(backend, "reshow"):
                if len(frames) >= FRAME_ENTRIES:
                    frames.popitem(last=False)
                frames[fkey] = frame
        self._state, self._view, self._lay, self._key, self._frame = state, v, lay, key, frame

    def _check_stacks(self) -> None:
        """Lay out every screen of every app's stack (``set_state``'s dry run): Back shows the
        screens under the current one, ``OpenApp`` another app's top screen, so a snapshot whose
        stacks hold a screen no app can show must fail here, not some steps later. Raises what
        showing such a screen raises, and ``ValueError`` for a focus that is no text field of its
        app's top screen (only a click on a field focuses it: Type would report an input event
        on a button or checkbox)."""
        state = cast(DeviceState, self._state)  # set_state's _load made it current
        for name, app in state["apps"].items():
            stack = app["stack"]
            for k in range(len(stack), 0, -1):
                if name == state["fg"] and k == len(stack):
                    v = cast(View, self._view)  # on screen: drawn already
                else:
                    # Back clears the focus; an app brought back by OpenApp keeps its own
                    shown: AppState = {**app, "stack": stack[:k], "focus": app["focus"] if k == len(stack) else None}
                    st: DeviceState = {**state, "fg": name, "apps": {**state["apps"], name: shown}}
                    v = self._oracle.screen(st, state_key(st))[0]  # type: ignore[union-attr]
                if k == len(stack) and app["focus"] is not None:
                    under = v.backdrop if v.backdrop is not None else v  # a pop-up over the screen keeps its focus
                    w = under.find(app["focus"])
                    if w is None or w.kind not in TEXT_KINDS:
                        what = "no widget" if w is None else f"a {w.kind}, not a text field"
                        raise ValueError(f"app {name!r}: its focus {app['focus']!r} is {what} of screen {stack[-1]!r}")

    def _reference(self) -> list[RefStep] | None:
        return self._oracle.reference(self._state, self._key)  # type: ignore[union-attr, arg-type]

    def _potential(self) -> float:
        if self.reward_mode != "shaped":
            return 0.0
        ref = self._reference()
        remaining = self._initial_len if ref is None else len(ref)
        return -remaining / self._initial_len

    def _coerce(self, action: Any) -> tuple[Action | None, str | None]:
        """The valid action ``action`` stands for, or ``None`` and why not (never raises)."""
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ActionParseError as e:
                return None, f"could not parse action: {e}"
        elif isinstance(action, dict):
            try:
                action = action_from_space(action, self.apps, answer=self.family.asks_questions)
            except (KeyError, ValueError) as e:
                return None, f"invalid action dict ({type(e).__name__}: {e}); expected a sample of env.action_space"
        elif not isinstance(action, ACTION_CLASSES):
            return None, f"unsupported action type {type(action).__name__}; expected an Action, a dict from action_space or a string"
        try:
            act = checked_action(action)
        except ValueError as e:
            return None, f"invalid action: {e}"
        return (Type(clean_text(act.text)) if isinstance(act, Type) else act), None

    def _event(self, act: Action) -> tuple[Event | None, str | None]:
        if isinstance(act, Answer):
            if self.family.question(self.scenario):  # type: ignore[arg-type]
                return Event("answer", None, act.text), None
            if not self.family.asks_questions:
                return None, f"{self.family.name}'s tasks ask no question: Answer is a no-op here (it ends information tasks)"
            return None, "this task asks no question: Answer is a no-op here (it ends information tasks)"
        if isinstance(act, Back):
            return Event("back"), None
        if isinstance(act, OpenApp):
            name = find_app(self.scenario, act.name)  # type: ignore[arg-type]
            if name is None:
                shown = repr(act.name) if len(act.name) <= 60 else repr(act.name[:60]) + "…"
                return None, f"no app called {shown} on this device; apps: {sorted(self.scenario['apps'])}"  # type: ignore[index]
            return Event("open_app", value=name), None
        return self.backend.perform(act)

    def _obs(self) -> dict[str, Any]:
        if self.share_frames:
            shot = self._frame.view()  # type: ignore[union-attr]
            shot.flags.writeable = False
        else:
            shot = self._frame.copy()  # type: ignore[union-attr]
        obs: dict[str, Any] = {"screenshot": shot, "instruction": self.instruction}
        if "elements" in self.extra_obs:
            obs["elements"] = tuple(
                {"id": _fit(e["id"], ELEMENT_ID_CHARS, tail=True), "role": role_id(e["role"]),
                 "label": _fit(e["label"], ELEMENT_LABEL_CHARS), "box": np.asarray(e["box"], dtype=np.int32)}
                for e in self.elements()
            )
        if "history" in self.extra_obs:
            obs["history"] = "\n".join(self._lines())
        return obs

    def _success(self) -> bool:
        """``family.success`` of the current state, memoised by the oracle (per state key)."""
        return self._oracle.success(self._state, self._key)  # type: ignore[union-attr, arg-type]

    def _info(self, ev: Event | None, err: str | None) -> dict[str, Any]:
        success, ref = self._success(), self._reference()
        return {
            "success": success,
            "reference": list(ref or []),
            "elements": self.elements(),
            "action_error": err,
            "event": ev,
            "level": self.scenario["level"],  # type: ignore[index]
            "variation": dict(v) if (v := self.scenario.get("variation")) is not None else None,  # type: ignore[union-attr]
            "template": self.family.template(self.scenario),  # type: ignore[arg-type]
            "failure": None if success or ref is not None else self._failure(),
        }

    def _failure(self) -> str:
        """Why the task can no longer succeed from the current state, one the oracle found no plan
        from (``Family.failed``'s reason): asked once per failed episode."""
        why = self.family.failed(self.scenario, self._state)  # type: ignore[arg-type]
        if isinstance(why, str):
            return why
        return "the task can no longer succeed" if why else "no plan reaches success from this state"

    def _show_window(self, frame: np.ndarray) -> None:
        """Show ``frame`` in pygame's window, (re)opened at this env's size when another env of the
        process resized it or quit the display (pygame has one window per process, shared)."""
        import pygame

        surface = pygame.display.get_surface() if pygame.display.get_init() else None
        if surface is None or surface is not self._window or surface.get_size() != (self.width, self.height):
            pygame.display.init()
            if surface is None or surface.get_size() != (self.width, self.height):
                surface = pygame.display.set_mode((self.width, self.height))
            pygame.display.set_caption(f"guigym {self.family.name}")
            self._window = surface
            _WINDOWS.add(self)
        pygame.surfarray.blit_array(self._window, frame.transpose(1, 0, 2))
        pygame.event.pump()
        pygame.display.flip()


#: The envs whose window is open (pygame's one window per process): ``close()`` quits the display
#: only when it was the last, so closing one env does not kill another's window.
_WINDOWS: weakref.WeakSet[GuiEnv] = weakref.WeakSet()

_LINES: dict[tuple[type, Action], str] = {}


def _history_line(act: Action) -> str:
    """One history line: the action in the function format, :func:`printable`, cut to ``HISTORY_LINE``
    (memoised: actions are frozen, and checked ones hold plain ints and strs)."""
    key = (type(act), act)
    line = _LINES.get(key)
    if line is None:
        if len(_LINES) >= 4096:
            _LINES.clear()
        line = _LINES[key] = _cut(printable(format_action(act, "function")))
    return line


def _content_language(variation: Mapping[str, Any] | None, split: str) -> str:
    """The language an instance's content is made in: the ``language`` axis's value, or the
    split's only one when it is sampled (it is drawn after the family's draws)."""
    lang = "en" if variation is None else str(variation.get("language", "en"))
    if lang != "sample":
        return lang
    values = set(AXES["language"][split])
    if len(values) != 1:  # guigym.variation's table: one language per split
        raise ValueError(f"the {split} split samples the language from {sorted(values)}: its content "
                         "language is not known before the family's draws; fix the language")
    return values.pop()


def _viewport_pair(viewport: Any) -> tuple[int, int]:
    """``viewport`` as two ints (numpy integers accepted), else a ``ValueError``: ``tuple(5)`` was a
    bare TypeError, and ``(360.5, 640)`` or a third value were silently cut to a 360x640 screen."""
    try:
        w, h = viewport
        return as_int(w, "width"), as_int(h, "height")
    except (TypeError, ValueError):
        raise ValueError(f"viewport must be (width, height), two integers, or one of {sorted(VIEWPORTS)}, "
                         f"got {str(viewport)[:60]}") from None


def _checked_backend_kwargs(backend: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``backend_kwargs`` checked at ``gym.make``, before anything starts: the names against the
    backend's ``__init__`` (a ``TypeError`` naming the unknown ones and those it takes), the
    values by its ``check_options``, where it has one (a ``ValueError``). Returns them as the
    backend will be given them. An unknown name failed only at the first reset, as a bare
    ``__init__() got an unexpected keyword argument``; a bad value, as a browser that would not
    start. None given: the backend's module is not even imported (pygame, for the mock)."""
    if not kwargs:
        return kwargs
    if backend == "mock":
        from guigym.backends.mock import MockBackend as cls
    else:
        from guigym.backends.browser import BrowserBackend as cls  # type: ignore[assignment]
    params = inspect.signature(cls.__init__).parameters.values()
    takes = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
             and p.name not in ("self", "width", "height")]  # the size is the env's
    unknown = [k for k in kwargs if k not in takes]
    if unknown:
        named = [f"{k!r}" + "".join(f" (did you mean {m!r}?)" for m in difflib.get_close_matches(k, takes, n=1)) for k in unknown]
        raise TypeError(f"backend_kwargs has {', '.join(named)}, which the {backend} backend does not take; "
                        f"it takes {', '.join(map(repr, takes))}")
    check = getattr(cls, "check_options", None)
    return dict(check(kwargs)) if check is not None else kwargs


def _cut(line: str) -> str:
    return _fit(line, HISTORY_LINE)


def gui_env(env: Any, who: str = "this") -> GuiEnv:
    """The :class:`GuiEnv` under ``env``'s wrappers (``env.unwrapped``), checked: a ``TypeError``
    naming ``who`` and what ``env`` is when it is not a guigym env (another env's missing
    attribute would surface later, deep inside the caller, as a bare ``AttributeError``).

    >>> import gymnasium as gym, guigym
    >>> type(gui_env(gym.make("GuiGym-Login-v0"))).__name__
    'GuiEnv'
    >>> gui_env(gym.make("CartPole-v1"), "DiscreteActions")
    Traceback (most recent call last):
    ...
    TypeError: DiscreteActions needs a guigym env (gym.make("GuiGym-...")), got CartPoleEnv
    """
    base = getattr(env, "unwrapped", None)
    if not isinstance(base, GuiEnv):
        got = type(base if isinstance(base, gym.Env) else env).__name__
        raise TypeError(f'{who} needs a guigym env (gym.make("GuiGym-...")), got {got}')
    return base
