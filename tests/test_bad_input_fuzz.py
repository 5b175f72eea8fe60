"""Seeded fuzz of the public surfaces with garbage: bad input is a no-op with ``info["action_error"]``
(``step``), one clear ``ValueError``/``TypeError`` naming the problem (``set_state``, the action
converters, the formatters, the wrappers' helpers), or an ``ActionParseError`` (the parsers); never
an ``AttributeError``/``KeyError``/``OverflowError`` from inside, and a refused input changes nothing.

Every registered id and level on the mock backend; a small sample on the browser backend.
"""

from __future__ import annotations

import copy
import json
import math
import random
import time
import zlib

import numpy as np
import pytest

from guigym.action_text import (
    ActionParseError,
    answer_region,
    format_action,
    format_plan,
    format_trajectory,
    parse_action,
    parse_plan,
    parse_trajectory,
)
from guigym.actions import (
    Answer,
    Back,
    Click,
    OpenApp,
    PlanStep,
    RefStep,
    Scroll,
    Type,
    action_from_dict,
    rescale_action,
    rescale_box,
    rescale_refstep,
)
from guigym.answers import answer_f1, answers_match
from guigym.wrappers import DiscreteActions, hashed_bag_of_words, instruction_spans, make_sb3_env
from tests.conftest import ID_LEVELS, IDS, make

#: What a clear rejection is; anything else escaping a public surface is a crash from inside.
CLEAR = (ValueError, TypeError)


def _garbage_text(rng: random.Random, n: int) -> str:
    """``n`` characters of hostile Unicode: NUL, lone surrogates, RTL and zero-width marks, emoji,
    printable ASCII and any code point."""
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.05:
            out.append("\x00")
        elif r < 0.1:
            out.append(chr(rng.randint(0xD800, 0xDFFF)))
        elif r < 0.15:
            out.append(rng.choice("\u200f\u202e\u200b\ufeff\u2066"))
        elif r < 0.2:
            out.append(rng.choice(["😀", "👨‍👩‍👧", "🏳️‍🌈"]))
        elif r < 0.5:
            out.append(chr(rng.randint(32, 126)))
        else:
            out.append(chr(rng.randint(0, 0x10FFFF)))
    return "".join(out)


#: Malformed model text: broken calls, non-finite or huge numbers, wrong types, unclosed or repeated
#: tags, deep nesting, code to never run.
TEXTS = [
    "click(", "click(x=1e309, y=nan)", "click(x=inf, y=-inf)", "type(text=None)", "type(text=1)", "[[[[[[", "(" * 5000,
    "[" * 100_000, "{" * 3000 + "}" * 3000, "<answer>", "<answer>click(x=1, y=2)", "<answer>back()</answer><answer>back()</answer>",
    "<think>", "<think>hmm", "<think></think>", "</think><answer>", "<answer></answer>", "<answer>[]</answer>",
    '{"action": "click", "coordinate": [1e309, 2]}', '{"action": "click", "coordinate": [NaN, 2]}',
    '{"action": "click", "coordinate": [true, false]}', '{"action": "click", "coordinate": [[1], [2]]}',
    '{"action": "click", "coordinate": [99999999999999999999, 1]}', '{"action": "type", "text": null}',
    '{"action": "open_app", "app_name": {"a": 1}}', '{"action": "scroll", "direction": 3}', '{"action": null}', "{}", "[]", "null",
    "1e309", "click(x=1.5, y=2.5)", "click(x=True, y=False)", "click(x=[1], y=2)", "click(x=1, x=2, y=3)", 'click(**{"x": 1})',
    "click(x=" + "9" * 5000 + ", y=1)", "click(x=1j, y=2)", 'click(x=__import__("os"), y=1)', 'type(text="a" * 10**9)',
    'type(text="\\ud800\\x00")', 'type(text=b"bytes")', 'open_app(name="' + "A" * 100_000 + '")', 'answer(text="' + "9" * 5000 + '")',
    "answer(text=None)", 'scroll(direction="sideways")', 'scroll(direction="down", x=1)',
    '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1e309, 1]}}</tool_call>',
    '<tool_call>{"name": "mobile_use", "arguments": {"action": "swipe", "coordinate": [1, 1]}}</tool_call>',
    '<tool_call>{"name": "mobile_use", "arguments": null}</tool_call>', "<tool_call>", "<tool_call></tool_call>" * 1000,
    "<answer>" * 10_000, "<think>" * 10_000 + "back()", "\ud800", "\x00back()", "\u202eback()", "a" * 100_000, "😀" * 30_000,
    "__import__('os').system('echo pwned')", "exec('1')", "{'action': 'click', 'coordinate': {1, 2}}", "{'action': 'type', 'text': ...}",
]


def _texts(rng: random.Random, n: int) -> list[str]:
    out = list(TEXTS)
    for _ in range(n):
        t = rng.choice(TEXTS)
        k = rng.random()
        if k < 0.4:
            out.append(_garbage_text(rng, rng.randint(0, 200)))
        elif k < 0.7:
            i = rng.randint(0, len(t))
            out.append(t[:i] + _garbage_text(rng, rng.randint(1, 5)) + t[i:])
        else:
            out.append(t[: rng.randint(0, len(t))])
    return out


def _bad_values() -> list:
    return [None, True, np.bool_(True), 1.5, -0.0, math.nan, math.inf, -math.inf, 10**30, -(10**30), 2**31, -1, np.int64(5),
            np.uint64(2**64 - 1), np.int8(-128), np.float32(3.0), np.float64(math.nan), np.array(3), np.array([1, 2]), np.array([]),
            np.array(3.5), [1], (1, 2), {"a": 1}, "3", "", b"3", bytearray(b"x"), object(), 1j, set(), np.str_("x"), range(3), ...]


def _bad_dicts(rng: random.Random, n: int) -> list[dict]:
    """Dicts like ``action_space`` samples, with fields missing, of the wrong type or out of range."""
    vals, good = _bad_values(), {"type": 4, "x": 100, "y": 200, "direction": 1, "app": 0, "text": "abc"}
    out = []
    for _ in range(n):
        d = {}
        for k in good:
            r = rng.random()
            if r < 0.1:
                continue
            d[k] = {**good, "type": rng.randint(0, 5)}[k] if r < 0.45 else rng.choice(vals)
        if rng.random() < 0.2:
            d[rng.choice([1, None, "typ", b"type"])] = rng.choice(vals)
        out.append(d)
    return out


def _bad_actions(rng: random.Random, n: int) -> list:
    """Action dataclasses with bad fields (the dataclasses do not check types)."""
    vals, out = _bad_values(), []
    for _ in range(n):
        v1, v2 = rng.choice(vals), rng.choice(vals)
        kind = rng.randrange(6)
        if kind == 0:
            out.append(Click(v1, v2))
        elif kind == 1:
            out.append(Scroll(rng.choice(["up", "down"]), v1, v2))
        elif kind == 2:
            out.append(OpenApp(v1))
        elif kind == 3:
            out.append(Type(v1))
        elif kind == 4:
            out.append(Answer(v1))
        else:
            s = Scroll("down")
            object.__setattr__(s, "direction", v1)  # past the constructor's check
            out.append(s)
    return out


MISC = [None, b"click(x=1, y=2)", bytearray(b"back()"), np.array([1, 2]), np.array("back()"), 3, 3.5, [1, 2], (Back(),),
        object(), Back, Click, np.int64(3), {"type": np.array([2])}, {"type": 2.0}, {"type": True}, {}]

_UNPARSED = ("could not parse", "invalid action", "unsupported action")


def test_step_survives_garbage_on_every_id_and_level_and_a_refused_input_changes_nothing():
    """Every id and level: ~120 hostile inputs each (text, dicts, bad Action fields, other objects).
    ``step`` never raises, its observation stays in the space; an ``action_error`` leaves the apps'
    state as it was, and input that is not an action leaves the history too; the env then still
    follows its reference, and its snapshot loads into a twin exactly (nothing lost)."""
    rng = random.Random(20261207)
    texts = _texts(rng, 300)
    steps = refused = 0
    for env_id, level in ID_LEVELS:
        env = make(env_id, level=level, extra_obs=("history", "elements")).unwrapped
        env.reset(seed=rng.randrange(1000))
        inputs = rng.sample(texts, 50) + _bad_dicts(rng, 25) + _bad_actions(rng, 25) + MISC
        for x in inputs:
            before = env.get_state()
            t = time.perf_counter()
            obs, r, term, trunc, info = env.step(x)
            assert time.perf_counter() - t < 1.0, f"{env_id}: step({x!r:.80}) took over 1 s"
            steps += 1
            assert env.observation_space.contains(obs), (env_id, repr(x)[:80])
            err = info["action_error"]
            if err is not None:
                refused += 1
                assert isinstance(err, str) and info["event"] is None
                after = env.get_state()
                assert after["state"] == before["state"], f"{env_id} {level}: refused {x!r:.80} changed the state ({err})"
                if err.startswith(_UNPARSED):
                    assert after["history"] == before["history"], f"{env_id}: {x!r:.80} is no action but entered the history"
            if term:
                env.reset(seed=rng.randrange(1000))
        ref = env.reference()
        if ref:  # still steps normally
            assert env.step(ref[0].action)[4]["action_error"] is None
        snap = json.loads(json.dumps(env.get_state()))
        twin = make(env_id, level=level).unwrapped
        twin.reset(seed=5000)
        twin.set_state(snap)
        assert twin.get_state() == snap
    assert refused > steps // 2  # the fuzz is hostile: most inputs are refused


HOSTILE_TYPED = ["9" * 100_000, "\ud800\x00\u202e😀" * 100, "", "\x00", "</answer>", "a\nb\rc\td", "\udfff"]


@pytest.mark.parametrize("env_id", IDS)
def test_hostile_typed_text_and_answers_keep_snapshots_whole(env_id):
    """Following the reference but typing (or answering) hostile text instead: every step's
    snapshot survives JSON and loads into another env exactly (no state that cannot be saved)."""
    env, twin = make(env_id, level="medium").unwrapped, make(env_id, level="medium").unwrapped
    twin.reset(seed=99)
    for k, text in enumerate(HOSTILE_TYPED):
        env.reset(seed=k)
        for _ in range(25):
            ref = env.reference()
            if not ref:
                break
            a = ref[0].action
            if isinstance(a, (Type, Answer)):
                a = type(a)(text)
            _, _, term, _, info = env.step(a)
            assert info["action_error"] is None or isinstance(a, (Type, Answer))
            snap = env.get_state()
            twin.set_state(json.loads(json.dumps(snap)))
            assert twin.get_state() == snap
            if term:
                break


def _paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from _paths(v, p + (i,))


def _corrupt(snap: dict, rng: random.Random, vals: list) -> dict:
    """``snap`` with 1 to 3 random corruptions: a key dropped, a list or dict truncated, a list
    repeated 200 times, a string grown with NUL/surrogates/5,000 characters, an int moved, or a value
    replaced by garbage."""
    s = copy.deepcopy(snap)
    ps = [p for p in _paths(s) if p]
    for _ in range(rng.randint(1, 3)):
        p = rng.choice(ps)
        parent = s
        try:
            for k in p[:-1]:
                parent = parent[k]
            k, r = p[-1], rng.random()
            v = parent[k]
            if r < 0.25 and isinstance(parent, dict):
                del parent[k]
            elif r < 0.35 and isinstance(v, list):
                parent[k] = v[: rng.randint(0, len(v))]
            elif r < 0.42 and isinstance(v, list) and v:
                parent[k] = v * 200
            elif r < 0.5 and isinstance(v, dict):
                parent[k] = dict(list(v.items())[: rng.randint(0, len(v))])
            elif r < 0.55 and isinstance(v, str):
                parent[k] = v + rng.choice(["\x00", "\ud800", "x" * 5000, "😀"])
            elif r < 0.62 and isinstance(v, int) and not isinstance(v, bool):
                parent[k] = v + rng.choice([-1, 1, 1000, -1000])
            else:
                parent[k] = rng.choice(vals)
        except (KeyError, IndexError, TypeError):  # a path an earlier corruption removed
            pass
    return s


def test_corrupted_snapshots_are_one_value_error_and_leave_the_env_untouched():
    """Every id and level, 30 corrupted snapshots each (into the env they came from and into
    another episode's): ``set_state`` loads it or raises ``ValueError``, never anything else; a
    refused one leaves ``get_state()`` as it was, and the env steps on after either."""
    rng = random.Random(7)
    vals = _bad_values() + [[0] * 100_000, "x" * 100_000, {str(i): i for i in range(5000)}, [[[[[]]]]], 10**400]
    refused = 0
    for env_id, level in ID_LEVELS:
        env = make(env_id, level=level).unwrapped
        env.reset(seed=rng.randrange(1000))
        for _ in range(2):
            ref = env.reference()
            if ref:
                env.step(ref[0].action)
        good = env.get_state()
        other = make(env_id, level=level).unwrapped
        other.reset(seed=rng.randrange(1000, 2000))
        for i in range(30):
            tgt = env if i % 2 else other
            before = tgt.get_state()
            try:
                tgt.set_state(_corrupt(good, rng, vals))
            except ValueError:
                refused += 1
                assert tgt.get_state() == before, f"{env_id} {level}: a refused snapshot changed the env"
            ref = tgt.reference()
            tgt.step(ref[0].action if ref else "back()")
        for v in vals:  # not a snapshot at all
            with pytest.raises(ValueError):
                env.set_state(v)
    assert refused > len(ID_LEVELS) * 15


def test_parsers_raise_only_action_parse_error_and_answers_never_raise():
    """Seeded hostile text (and non-text) through every parser and format: a result or an
    ``ActionParseError``; ``answers_match``/``answer_f1`` of any two strings: a bool and a score in [0, 1]."""
    rng = random.Random(3)
    texts = _texts(rng, 400)
    for t in texts + _bad_values():
        for fmt in (None, "json", "function", "mobile_use"):
            for parse in (parse_action, parse_trajectory, parse_plan):
                try:
                    parse(t, fmt)
                except ActionParseError:
                    pass
    expected = ["3", "15:00", "2026-12-01", ["Alice", "Bob"], "402-555-7199", "12.5", ""]
    for g in texts[:250] + ["9" * 5000, "1e309", "-" + "9" * 5000, "1," + "000," * 2000 + "000", "12/31/99999", "25 pm", "nan", "inf"]:
        for e in expected + [rng.choice(texts)]:
            assert answers_match(g, e) in (True, False)
            assert 0.0 <= answer_f1(g, e) <= 1.0


def test_action_from_dict_and_refstep_from_dict_name_what_is_wrong():
    """A missing field was a bare ``KeyError: 'y'``, a non-mapping an ``AttributeError: ... 'get'``
    (also inside ``RefStep.from_dict``, which read a dataset's reference)."""
    for d, missing in [({"type": "click", "x": 3}, "'y'"), ({"type": "open_app"}, "'name'"), ({"type": "scroll"}, "'direction'"),
                       ({"type": "type"}, "'text'"), ({"type": "answer", "name": "x"}, "'text'")]:
        with pytest.raises(ValueError, match=f"needs {missing}"):
            action_from_dict(d)
    for v in [None, 3, "click", ["type", "click"], np.array([1]), ("type", "back")]:
        with pytest.raises(TypeError, match="must be a mapping"):
            action_from_dict(v)
        with pytest.raises(TypeError, match="must be a mapping"):
            RefStep.from_dict(v)
    with pytest.raises(ValueError, match="needs an 'action'"):
        RefStep.from_dict({"box": [0, 0, 1, 1], "instruction": "x"})
    with pytest.raises(ValueError, match="needs 'y'"):
        RefStep.from_dict({"action": {"type": "click", "x": 1}})
    # the good forms still read
    assert action_from_dict({"type": "scroll", "direction": "up"}) == Scroll("up")
    assert RefStep.from_dict({"action": {"type": "back"}, "target": None, "box": None, "instruction": ""}).action == Back()


def test_converters_fuzz_raise_only_clear_errors():
    """Seeded random dicts and Action objects through the converters and formatters: a result or a
    ``ValueError``/``TypeError`` (a ``KeyError`` from the mobile-use swipe of a Scroll whose direction
    was set past its check, an ``OverflowError`` from a numpy point, before)."""
    rng = random.Random(11)
    vals = _bad_values() + ["click", "scroll", "back", "open_app", "type", "answer", "down", 5]
    for _ in range(400):
        d = {k: rng.choice(vals) for k in rng.sample(["type", "x", "y", "direction", "name", "text", "zz"], rng.randint(0, 7))}
        for call in (lambda: action_from_dict(d), lambda: RefStep.from_dict({"action": d, "box": rng.choice(vals)})):
            try:
                call()
            except CLEAR:
                pass
    for a in _bad_actions(rng, 300):
        for fmt in ("json", "function", "mobile_use"):
            try:
                format_action(a, fmt)
            except CLEAR:
                pass
        try:
            rescale_action(a, (360, 640), (1000, 1000))
        except CLEAR:
            pass


def test_the_mobile_use_swipe_of_a_bad_scroll_is_a_value_error():
    s = Scroll("down")
    object.__setattr__(s, "direction", "sideways")  # KeyError: 'sideways' from the swipe table
    with pytest.raises(ValueError, match="direction must be one of"):
        format_action(s, "mobile_use")
    with pytest.raises(ValueError, match="point must be numbers"):  # TypeError: can only concatenate str
        format_action(Scroll("down", "a", "b"), "mobile_use")
    # an invalid point is still written as given (a caption of what an episode recorded), without numpy's overflow
    assert '"coordinate": [18446744073709551615, 3]' in format_action(Scroll("down", np.uint64(2**64 - 1), 3), "mobile_use")
    with pytest.raises(ValueError, match="direction must be one of"):  # numpy's "truth value of an array is ambiguous"
        Scroll(np.array(["down", "up"]))


def test_format_plan_names_a_step_that_is_no_plan_step():
    for bad in ([None], [1], ["back()"], [Back()], [PlanStep(action="click")]):  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="PlanStep"):
            format_plan(bad, "json")
    for bad in ([None], ["back()"], [PlanStep(action=Back())]):
        with pytest.raises(TypeError, match="not an action"):
            format_trajectory(bad, "json")
    assert format_plan([PlanStep(action=Back(), instruction="go")], "function") == 'back(instruction="go")'


def test_rescale_rejects_non_finite_sizes_and_points():
    """``rescale_action``/``rescale_box`` took NaN sizes (NaN <= 0 is False) and infinite ones or
    points to ``round(inf)``: an ``OverflowError``; an ``int8`` point overflowed inside numpy."""
    for size in [(math.nan, 640), (360, math.inf), (0, 1), (True, 5), None, (1,), ("360", 640)]:
        with pytest.raises(ValueError, match="sizes must be"):
            rescale_action(Click(1, 2), size, (100, 100))
        with pytest.raises(ValueError, match="sizes must be"):
            rescale_box((0, 0, 1, 1), (100, 100), size)
    for a in [Click(math.inf, 1), Click(1, math.nan), Scroll("down", 10**400, 1), Click("3", 4), Click(True, 4)]:
        with pytest.raises(ValueError, match="must be"):
            rescale_action(a, (360, 640), (1000, 1000))
    for box in [(0, 0, math.inf, 1), (math.nan, 0, 1, 1), (0, 0, 1), "abcd"]:
        with pytest.raises(ValueError, match="box must be"):
            rescale_box(box, (100, 100), (200, 200))
    # a numpy integer point is the int's (it overflowed int8 arithmetic before)
    assert rescale_action(Click(np.int8(100), np.int16(50)), (200, 100), (400, 300)) == Click(200, 150)
    assert rescale_action(Click(101, 51), (200, 100), (100, 50)) == Click(round(101 * 100 / 200), round(51 * 50 / 100))
    ref = RefStep(Click(100, 50), "ok", (80, 40, 121, 60), "Click OK")
    assert rescale_refstep(ref, (200, 100), (100, 50)).box == (40, 20, 61, 30)


def test_answer_region_of_no_text_is_a_type_error():
    for v in [None, 3, b"<answer>back()</answer>", ["<answer>x</answer>"]]:
        with pytest.raises(TypeError, match="a str"):
            answer_region(v, None)
    assert answer_region("<think>a</think><answer>back()</answer>", None) == "back()"


def test_discrete_actions_index_of_and_helpers_reject_garbage_clearly():
    """``index_of`` of a non-action was an ``AttributeError`` (``.text``), of a float point a float
    index, of an ``int8`` point numpy's overflow; the text helpers raised ``AttributeError`` on non-text."""
    env = DiscreteActions(make("GuiGym-Login-v0"))
    env.reset(seed=0)
    for bad in [None, 3, "back()", np.int64(2), {"type": 2}, Back]:
        with pytest.raises(TypeError, match="not an action"):
            env.index_of(bad)
    for bad in [Click(200.5, 300.5), Click(math.nan, 1), Click(True, 1), Click(np.float64(3), 1), Click(2**40, 1), Type(None), OpenApp(3)]:
        with pytest.raises(ValueError):
            env.index_of(bad)
    assert env.index_of(Click(np.int8(5), np.int16(5))) == env.index_of(Click(5, 5)) == 0
    for bad in [None, 3, b"ab", ["a b"]]:
        with pytest.raises(TypeError, match="a str"):
            instruction_spans(bad, 3)
        with pytest.raises(TypeError, match="a str"):
            hashed_bag_of_words(bad, 8)
    # any str counts (a lone surrogate was a UnicodeEncodeError); valid text's buckets are unchanged
    assert hashed_bag_of_words("a \ud800 b", 8).sum() == 0.75
    want = np.zeros(16, dtype=np.float32)
    for w in (b"sign", b"in", b"as", b"bob"):
        want[zlib.crc32(w) % 16] += 0.25
    assert np.array_equal(hashed_bag_of_words("Sign in as bob.", 16), want)
    with pytest.raises(ValueError, match="dim must be an integer >= 1"):  # ZeroDivisionError (a modulo by 0) before
        hashed_bag_of_words("a b", 0)


def test_sb3_env_refuses_a_bad_index_with_a_value_error_and_changes_nothing():
    """Through ``make_sb3_env`` (``PreviousAction`` and ``NoEffectPenalty`` too): a bad index is one
    ``ValueError`` before anything happens (the documented behaviour of ``DiscreteActions``), and the
    env, its previous-action record and its next step are as if it had not been sent."""
    env = make_sb3_env("GuiGym-Login-v0", prev_action=2, noop_penalty=0.1)
    obs, _ = env.reset(seed=1)
    gui = env.unwrapped
    vals = _bad_values()
    valid = [v for v in vals if isinstance(v, (np.int64, np.ndarray)) and v.dtype.kind == "i" and v.ndim == 0]
    assert len(valid) == 2  # np.int64(5) and np.array(3) are indices: left out
    for bad in [v for v in vals if not any(v is w for w in valid)] + [np.array([3]), 3.0, 10**5, -5, int(env.action_space.n)]:
        before = gui.get_state()
        with pytest.raises(ValueError, match="action index"):
            env.step(bad)
        assert gui.get_state() == before
    obs2, r, *_ = env.step(np.int64(0))
    assert obs2["prev_action"][0] == 1.0 and obs2["prev_action"][int(env.action_space.n) + 1:].sum() == 0.0


@pytest.mark.browser
@pytest.mark.parametrize("env_id", ["GuiGym-Login-v0", "GuiGym-Contacts-v0"])
def test_browser_step_survives_garbage(env_id):
    """The browser backend, 20 hostile inputs: no raise, a refused input changes nothing, and the
    reference still steps."""
    rng = random.Random(5)
    env = make(env_id, backend="browser").unwrapped
    try:
        env.reset(seed=3)
        inputs = rng.sample(_texts(rng, 40), 8) + _bad_dicts(rng, 4) + _bad_actions(rng, 4) + [
            None, b"back()", 'type(text="\\ud800\\x00' + "x" * 300 + '")', "click(x=100000, y=5)"]
        assert len(inputs) == 20
        for x in inputs:
            before = env.get_state()
            _, _, term, _, info = env.step(x)
            if info["action_error"] is not None:
                assert env.get_state()["state"] == before["state"], repr(x)[:80]
            if term:
                env.reset(seed=4)
        ref = env.reference()
        assert ref and env.step(ref[0].action)[4]["action_error"] is None
    finally:
        env.close()
