"""Text formats of actions: parse_action / format_action / trajectories / plans."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guigym.action_text import (
    FORMATS,
    SWIPE_CENTRE,
    ActionParseError,
    format_action,
    format_plan,
    format_trajectory,
    parse_action,
    parse_plan,
    parse_trajectory,
)
from guigym.actions import DIRECTIONS, MAX_COORD, Back, Click, OpenApp, PlanStep, Scroll, Type, rescale_action

# ------------------------------------------------------------------ concrete tables

JSON_CASES = [
    ('<answer>[{"action": "click", "coordinate": [12, 30]}]</answer>', Click(12, 30)),
    ('[{"action": "click", "coordinate": [12, 30]}]', Click(12, 30)),
    ('{"action": "click", "coordinate": [12, 30]}', Click(12, 30)),
    ('  \n<answer> [{"action": "click", "coordinate": [12, 30]}] </answer>\n', Click(12, 30)),
    ('<think>the button is at the top</think>\n<answer>[{"action": "click", "coordinate": [12, 30]}]</answer>', Click(12, 30)),
    ('<think>a</think><answer>```json\n[{"action": "click", "coordinate": [12, 30]}]\n```</answer>', Click(12, 30)),
    ('```json\n[{"action": "click", "coordinate": [12, 30]}]\n```', Click(12, 30)),
    ('[{"action": "click", "x": 12, "y": 30}]', Click(12, 30)),
    ('[{"action": "click", "coordinate": [12.4, 29.6]}]', Click(12, 30)),
    ('[{"action": "click", "coordinate": [12.5, 30.5]}]', Click(12, 30)),  # half to even
    ('[{"action": "click", "coordinate": [-5, 30]}]', Click(-5, 30)),
    ('[{"action": "Click", "coordinate": [12, 30]}]', Click(12, 30)),
    ('[{"type": "click", "x": 12, "y": 30}]', Click(12, 30)),  # action_to_dict form
    ("[{'action': 'click', 'coordinate': [12, 30]}]", Click(12, 30)),  # Python literal
    ("<answer>[{'action': 'click', 'coordinate': (12, 30),}]</answer>", Click(12, 30)),
    ('[{"action": "click", "coordinate": [1, 2]}, {"action": "back"}]', Click(1, 2)),  # first
    ('[{"action": "scroll", "direction": "down"}]', Scroll("down")),
    ('[{"action": "scroll", "direction": "UP", "coordinate": [5, 6]}]', Scroll("up", 5, 6)),
    ('[{"action": "scroll", "direction": "left", "x": 5, "y": 6}]', Scroll("left", 5, 6)),
    ('[{"action": "type", "text": "hello \\"world\\""}]', Type('hello "world"')),
    ('[{"action": "input_text", "text": "hi"}]', Type("hi")),
    ("[{'action': 'type', 'text': 'it\\'s'}]", Type("it's")),
    ('[{"action": "type", "text": ""}]', Type("")),
    ('[{"action": "open_app", "app_name": "Clock"}]', OpenApp("Clock")),
    ('[{"action": "open_app", "app": "Clock"}]', OpenApp("Clock")),
    ('[{"action": "open_app", "name": "Clock"}]', OpenApp("Clock")),
    ('[{"action": "back"}]', Back()),
    ('[{"action": "navigate_back"}]', Back()),
    ('[{"action": "back", "thought": "extra keys are ignored"}]', Back()),
    ("[{'action': 'back', 'ok': True, 'note': None}]", Back()),
]

FUNCTION_CASES = [
    ("click(x=12, y=30)", Click(12, 30)),
    ("click(12, 30)", Click(12, 30)),
    ("click(12, y=30)", Click(12, 30)),
    ("click(x=12.6, y=-3)", Click(13, -3)),
    ("click(coordinate=[12, 30])", Click(12, 30)),
    ("  click(x=12, y=30)  \n", Click(12, 30)),
    ("<answer>click(x=12, y=30)</answer>", Click(12, 30)),
    ("<think>hmm</think>click(x=12, y=30)", Click(12, 30)),
    ("```python\nclick(x=12, y=30)\n```", Click(12, 30)),
    ("click(x=1, y=2)\nback()", Click(1, 2)),
    ("[click(x=1, y=2), back()]", Click(1, 2)),
    ('scroll(direction="down")', Scroll("down")),
    ("scroll('up', 4, 5)", Scroll("up", 4, 5)),
    ('scroll(direction="right", x=4, y=5)', Scroll("right", 4, 5)),
    ('type(text="a \\"b\\" \\\\ c\\nd")', Type('a "b" \\ c\nd')),
    ("type('single')", Type("single")),
    ('input_text(text="hi")', Type("hi")),
    ('open_app(name="Clock")', OpenApp("Clock")),
    ("open_app('Clock')", OpenApp("Clock")),
    ('open_app(app_name="Clock")', OpenApp("Clock")),
    ("back()", Back()),
    ("navigate_back()", Back()),
]


def _tool(args: str) -> str:
    return f'<tool_call>\n{{"name": "mobile_use", "arguments": {args}}}\n</tool_call>'


MOBILE_CASES = [
    (_tool('{"action": "click", "coordinate": [12, 30]}'), Click(12, 30)),
    ('<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [12, 30]}}</tool_call>', Click(12, 30)),
    ("I will tap it.\n" + _tool('{"action": "click", "coordinate": [12, 30]}'), Click(12, 30)),
    ("<think>x</think>" + _tool('{"action": "click", "coordinate": [12, 30]}'), Click(12, 30)),
    ("<tool_call>{'name': 'mobile_use', 'arguments': {'action': 'click', 'coordinate': [12, 30]}}</tool_call>", Click(12, 30)),
    ('<tool_call>{"name": "mobile_use", "arguments": "{\\"action\\": \\"click\\", \\"coordinate\\": [1, 2]}"}</tool_call>', Click(1, 2)),
    ('{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [12, 30]}}', Click(12, 30)),
    (_tool('{"action": "swipe", "coordinate": [100, 500], "coordinate2": [100, 200]}'), Scroll("down", 100, 500)),
    (_tool('{"action": "swipe", "coordinate": [100, 200], "coordinate2": [100, 500]}'), Scroll("up", 100, 200)),
    (_tool('{"action": "swipe", "coordinate": [300, 200], "coordinate2": [50, 210]}'), Scroll("right", 300, 200)),
    (_tool('{"action": "swipe", "coordinate": [50, 200], "coordinate2": [300, 190]}'), Scroll("left", 50, 200)),
    (_tool('{"action": "type", "text": "hello"}'), Type("hello")),
    (_tool('{"action": "system_button", "button": "Back"}'), Back()),
    (_tool('{"action": "system_button", "button": "back"}'), Back()),
    (_tool('{"action": "open", "text": "Clock"}'), OpenApp("Clock")),
    (_tool('{"action": "click", "coordinate": [1, 2]}') + "\n" + _tool('{"action": "open", "text": "X"}'), Click(1, 2)),
]


@pytest.mark.parametrize("text,expected", JSON_CASES)
def test_json_table(text: str, expected: object) -> None:
    assert parse_action(text, "json") == expected
    assert parse_action(text) == expected


@pytest.mark.parametrize("text,expected", FUNCTION_CASES)
def test_function_table(text: str, expected: object) -> None:
    assert parse_action(text, "function") == expected
    assert parse_action(text) == expected


@pytest.mark.parametrize("text,expected", MOBILE_CASES)
def test_mobile_use_table(text: str, expected: object) -> None:
    assert parse_action(text, "mobile_use") == expected
    assert parse_action(text) == expected


EXACT_OUTPUT = [
    (Click(12, 30), "json", '<answer>[{"action": "click", "coordinate": [12, 30]}]</answer>'),
    (Scroll("down"), "json", '<answer>[{"action": "scroll", "direction": "down"}]</answer>'),
    (Scroll("up", 1, 2), "json", '<answer>[{"action": "scroll", "direction": "up", "coordinate": [1, 2]}]</answer>'),
    (Type("é\n"), "json", '<answer>[{"action": "type", "text": "é\\n"}]</answer>'),
    (OpenApp("Clock"), "json", '<answer>[{"action": "open_app", "app_name": "Clock"}]</answer>'),
    (Back(), "json", '<answer>[{"action": "back"}]</answer>'),
    (Click(12, 30), "function", "click(x=12, y=30)"),
    (Scroll("down"), "function", 'scroll(direction="down")'),
    (Scroll("left", 3, 4), "function", 'scroll(direction="left", x=3, y=4)'),
    (Type('say "hi"'), "function", 'type(text="say \\"hi\\"")'),
    (OpenApp("Clock"), "function", 'open_app(name="Clock")'),
    (Back(), "function", "back()"),
    (Click(12, 30), "mobile_use", _tool('{"action": "click", "coordinate": [12, 30]}')),
    (Scroll("down", 100, 500), "mobile_use", _tool('{"action": "swipe", "coordinate": [100, 500], "coordinate2": [100, 200]}')),
    (Scroll("up", 100, 100), "mobile_use", _tool('{"action": "swipe", "coordinate": [100, 100], "coordinate2": [100, 400]}')),
    (Scroll("right", 320, 5), "mobile_use", _tool('{"action": "swipe", "coordinate": [320, 5], "coordinate2": [20, 5]}')),
    (Scroll("left"), "mobile_use", _tool('{"action": "swipe", "coordinate": [180, 320], "coordinate2": [480, 320]}')),
    (Type("hi"), "mobile_use", _tool('{"action": "type", "text": "hi"}')),
    (OpenApp("Clock"), "mobile_use", _tool('{"action": "open", "text": "Clock"}')),
    (Back(), "mobile_use", _tool('{"action": "system_button", "button": "Back"}')),
]


@pytest.mark.parametrize("action,fmt,text", EXACT_OUTPUT)
def test_format_exact(action: object, fmt: str, text: str) -> None:
    assert format_action(action, fmt) == text  # type: ignore[arg-type]


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_mobile_scroll_without_point_maps_to_centre(direction: str) -> None:
    text = format_action(Scroll(direction), "mobile_use")
    assert parse_action(text, "mobile_use") == Scroll(direction, *SWIPE_CENTRE)
    assert SWIPE_CENTRE == (180, 320)


EDGES = [(x, y) for x in (-MAX_COORD, -MAX_COORD + 1, 0, MAX_COORD - 1, MAX_COORD) for y in (-MAX_COORD, 0, MAX_COORD)]


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_mobile_swipes_near_the_coordinate_limit_stay_within_it(direction: str) -> None:
    for x, y in EDGES:
        a = Scroll(direction, x, y)
        text = format_action(a, "mobile_use")
        assert parse_action(text, "mobile_use") == a and parse_action(text) == a, text
    # shortened near the edge; on it the finger cannot move that way: zero length, direction named
    assert '"coordinate2": [2147483647, 0]}' in format_action(Scroll("left", MAX_COORD - 10, 0), "mobile_use")
    edge = _tool(f'{{"action": "swipe", "coordinate": [{MAX_COORD}, 0], "coordinate2": [{MAX_COORD}, 0], "direction": "left"}}')
    assert format_action(Scroll("left", MAX_COORD, 0), "mobile_use") == edge
    with pytest.raises(ActionParseError, match="'direction' must be one of"):
        parse_action(_tool('{"action": "swipe", "coordinate": [1, 2], "coordinate2": [1, 2], "direction": "in"}'))


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\ud83d\ude00 vs 😀", "é\x00\u2028"])
def test_texts_that_are_not_utf8_round_trip_in_every_format(text: str) -> None:
    for fmt in FORMATS:
        for a in (Type(text), OpenApp(text)):
            assert parse_action(format_action(a, fmt), fmt) == a and parse_action(format_action(a, fmt)) == a
        plan = [PlanStep(Type(text), instruction=text)]
        assert parse_plan(format_plan(plan, fmt), fmt) == plan
    assert format_action(Type("é😀"), "function") == 'type(text="é😀")'  # escaped only where it must be


# ------------------------------------------------------------------------ errors

BAD = [
    ("", None, "empty"),
    ("   ", "json", "empty"),
    ("<answer></answer>", "json", "empty"),
    ("<answer>[]</answer>", "json", "at least one action"),
    ("[click(x=1]", "function", "not a valid call"),
    ("<answer>[{action: click}]</answer>", "json", "not valid JSON"),
    ('[{"coordinate": [1, 2]}]', "json", "missing 'action'"),
    ('[{"action": "tap", "coordinate": [1, 2]}]', "json", "unknown action 'tap'"),
    ('[{"action": 3}]', "json", "'action' must be a string"),
    ('[{"action": "long_press", "coordinate": [1, 2]}]', "json", "not supported"),
    ('[{"action": "click"}]', "json", "click needs 'coordinate'"),
    ('[{"action": "click", "coordinate": [1]}]', "json", "must be [x, y]"),
    ('[{"action": "click", "coordinate": [1, 2, 3]}]', "json", "must be [x, y]"),
    ('[{"action": "click", "coordinate": "1, 2"}]', "json", "must be [x, y]"),
    ('[{"action": "click", "coordinate": ["1", 2]}]', "json", "must be a number"),
    ('[{"action": "click", "coordinate": [true, 2]}]', "json", "must be a number"),
    ('[{"action": "click", "coordinate": [NaN, 2]}]', "json", "must be finite"),
    ('[{"action": "click", "x": 1}]', "json", "both 'x' and 'y'"),
    ('[{"action": "scroll"}]', "json", "scroll needs 'direction'"),
    ('[{"action": "scroll", "direction": "sideways"}]', "json", "must be one of"),
    ('[{"action": "scroll", "direction": 1}]', "json", "must be one of"),
    ('[{"action": "type"}]', "json", "type needs 'text'"),
    ('[{"action": "type", "text": 5}]', "json", "must be a string"),
    ('[{"action": "open_app"}]', "json", "open_app needs 'app_name'"),
    # a point on an action that takes none is an error, not dropped (the function format's too)
    ('[{"action": "type", "text": "a", "coordinate": [1, 2]}]', "json", "type takes no 'coordinate' (it types into the focused"),
    ('[{"action": "back", "x": 1, "y": 2}]', "json", "back takes no 'x', 'y'"),
    ('[{"action": "open_app", "app_name": "Mail", "coordinate": [1, 2]}]', "json", "open_app takes no 'coordinate'"),
    ('[{"action": "answer", "text": "5", "x": 1}]', "json", "answer takes no 'x'"),
    ("type(text='a', x=1, y=2)", "function", "unexpected keyword 'x'"),
    ('[{"action": "open_app", "app_name": ["x"]}]', "json", "must be a string"),
    ("[1, 2]", "json", "expected an action object"),
    ('"click"', "json", "expected a list of action objects"),
    ("tap(x=1, y=2)", "function", "unknown action 'tap'"),
    ("os.system('ls')", "function", "expected a call"),
    ("__import__('os').system('ls')", "function", "expected a call"),
    ("click(x=1, y=2) + 1", "function", "expected a call"),
    ("import os", "function", "expected only calls"),
    ("x = click(1, 2)", "function", "expected only calls"),
    ("click(1, 2, 3)", "function", "at most 2 positional"),
    ("click(x=1, y=2, z=3)", "function", "unexpected keyword 'z'"),
    ("click(1, x=1, y=2)", "function", "multiple values"),
    ("click(*p)", "function", "*args"),
    ("click(**p)", "function", "**kwargs"),
    ("click(x=a, y=2)", "function", "must be a literal"),
    ("click(x=f(), y=2)", "function", "must be a literal"),
    ("click(x=True, y=2)", "function", "must be a number"),
    ("click(x='1', y=2)", "function", "must be a number"),
    ("click(x=1)", "function", "both 'x' and 'y'"),
    ('scroll(direction="diagonal")', "function", "must be one of"),
    ("type(text=5)", "function", "must be a string"),
    ("type()", "function", "type needs 'text'"),
    ("wait()", "function", "not supported"),
    (_tool('{"action": "long_press", "coordinate": [1, 2]}'), "mobile_use", "not supported"),
    (_tool('{"action": "key", "text": "enter"}'), "mobile_use", "not supported"),
    (_tool('{"action": "wait", "time": 2}'), "mobile_use", "not supported"),
    (_tool('{"action": "terminate", "status": "success"}'), "mobile_use", "ends a plan"),  # parse_plan reads it
    (_tool('{"action": "system_button", "button": "Home"}'), "mobile_use", "'Home' is not supported"),
    (_tool('{"action": "swipe", "coordinate": [1, 2]}'), "mobile_use", "swipe needs"),
    (_tool('{"action": "type", "text": "a", "coordinate": [1, 2]}'), "mobile_use", "type takes no 'coordinate'"),
    (_tool('{"action": "system_button", "button": "Back", "coordinate": [1, 2]}'), "mobile_use", "system_button takes no"),
    (_tool('{"action": "swipe", "coordinate": [1, 2], "coordinate2": [1, 2]}'), "mobile_use", "zero length"),
    (_tool('{"action": "scroll", "direction": "down"}'), "mobile_use", "unknown action 'scroll'"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "click"}}</tool_call>', "mobile_use", "unknown tool"),
    ('<tool_call>{"name": "mobile_use"}</tool_call>', "mobile_use", "needs 'arguments'"),
    ("<tool_call>{not json</tool_call>", "mobile_use", "not valid JSON"),
    ("just some words", None, "expected"),
    ("[" * 100_000, None, "expected"),
    ("(" * 100_000, "function", "expected"),
    ("click(x=" + "[" * 5000 + "]" * 5000 + ", y=1)", "function", "expected"),
]


@pytest.mark.parametrize("text,fmt,fragment", BAD)
def test_malformed_raise_useful_errors(text: str, fmt: str | None, fragment: str) -> None:
    with pytest.raises(ActionParseError) as info:
        parse_action(text, fmt)
    msg = str(info.value)
    assert fragment in msg
    assert "expected" in msg and "got" in msg


def test_json_error_message_says_what_was_expected() -> None:
    with pytest.raises(ActionParseError, match=r'expected a JSON list of actions like \[\{"action": "click"'):
        parse_action("<answer>nope</answer>", "json")
    with pytest.raises(ActionParseError, match=r"expected function calls like click\(x=12, y=30\)"):
        parse_action("nope nope", "function")
    with pytest.raises(ActionParseError, match="mobile_use"):
        parse_action("<tool_call>oops</tool_call>", "mobile_use")


def test_error_is_a_value_error_and_long_input_is_truncated_in_message() -> None:
    with pytest.raises(ValueError) as info:
        parse_action("x" * 10_000)
    assert isinstance(info.value, ActionParseError)
    assert len(str(info.value)) < 1000


@pytest.mark.parametrize("bad", [None, 3, b"click(1, 2)", ["click(1, 2)"]])
def test_non_str_input(bad: object) -> None:
    for parse in (parse_action, parse_trajectory, parse_plan):
        with pytest.raises(ActionParseError, match="expected a str"):
            parse(bad)  # type: ignore[arg-type]


def test_bad_arguments_are_programmer_errors() -> None:
    with pytest.raises(ValueError, match="unknown format"):
        parse_action("back()", "xml")
    with pytest.raises(ValueError, match="unknown format"):
        format_action(Back(), "xml")
    with pytest.raises(ValueError, match="max_len"):
        parse_trajectory("back()", max_len=0)
    with pytest.raises(TypeError):
        format_action("back()", "json")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        format_trajectory([], "json")


def test_never_evaluates_code(tmp_path: object) -> None:
    marker: list[int] = []
    globals()["_side_effect"] = lambda: marker.append(1)
    for text in ["_side_effect()", "click(x=_side_effect(), y=1)", "[_side_effect()]"]:
        with pytest.raises(ActionParseError):
            parse_action(text)
    assert marker == []


# ------------------------------------------------------------------ trajectories

TRAJ = [Click(1, 2), Type("hi"), Scroll("down", 5, 6), OpenApp("Clock"), Back()]


def test_trajectory_formats() -> None:
    assert format_trajectory(TRAJ[:2], "function") == 'click(x=1, y=2)\ntype(text="hi")'
    assert format_trajectory(TRAJ[:2], "json") == (
        '<answer>[{"action": "click", "coordinate": [1, 2]}, {"action": "type", "text": "hi"}]</answer>'
    )
    assert format_trajectory(TRAJ[:2], "mobile_use").count("<tool_call>") == 2


@pytest.mark.parametrize("fmt", FORMATS)
def test_trajectory_round_trip_and_max_len(fmt: str) -> None:
    text = format_trajectory(TRAJ, fmt)
    assert parse_trajectory(text, fmt) == TRAJ
    assert parse_trajectory(text) == TRAJ
    assert parse_trajectory(text, fmt, max_len=2) == TRAJ[:2]
    assert parse_trajectory(text, fmt, max_len=99) == TRAJ


def test_trajectory_variants() -> None:
    assert parse_trajectory("[click(x=1, y=2), type(text='hi')]") == TRAJ[:2]
    assert parse_trajectory("(click(1, 2), type('hi'))", "function") == TRAJ[:2]
    assert parse_trajectory("click(1, 2)\n    type('hi')\n") == TRAJ[:2]
    assert parse_trajectory('{"action": "back"}', "json") == [Back()]
    assert parse_trajectory("click(1, 2)") == [Click(1, 2)]


def test_trajectory_truncation_skips_validation_of_dropped_steps() -> None:
    text = '[{"action": "back"}, {"action": "bogus"}]'
    assert parse_trajectory(text, "json", max_len=1) == [Back()]
    with pytest.raises(ActionParseError, match="step 2: unknown action 'bogus'"):
        parse_trajectory(text, "json")


@pytest.mark.parametrize("text", ["<answer>[]</answer>", "[]", ""])
def test_empty_trajectory_is_an_error(text: str) -> None:
    with pytest.raises(ActionParseError):
        parse_trajectory(text)


# ------------------------------------------------------------------------- plans


def test_parse_plan_json() -> None:
    text = (
        '<answer>[{"action": "click", "instruction": "Click the \'Sign in\' button"},'
        ' {"action": "click", "coordinate": [4, 5], "instruction": "Tap OK"},'
        ' {"action": "type", "text": "bob"}]</answer>'
    )
    assert parse_plan(text) == [
        PlanStep(action=None, action_type="click", instruction="Click the 'Sign in' button"),
        PlanStep(action=Click(4, 5), instruction="Tap OK"),
        PlanStep(action=Type("bob")),
    ]
    assert parse_plan(text, max_len=1) == [PlanStep(None, "Click the 'Sign in' button", "click")]


def test_parse_plan_function_and_mobile() -> None:
    assert parse_plan('click(instruction="Tap OK")\nback()') == [
        PlanStep(action=None, instruction="Tap OK", action_type="click"),
        PlanStep(action=Back()),
    ]
    assert parse_plan(_tool('{"action": "swipe", "instruction": "Scroll to the bottom"}')) == [
        PlanStep(action=None, instruction="Scroll to the bottom", action_type="scroll")
    ]


def test_plan_errors() -> None:
    with pytest.raises(ActionParseError, match="instruction"):
        parse_plan('[{"action": "click"}]')
    with pytest.raises(ActionParseError, match="'instruction' must be a string"):
        parse_plan('[{"action": "click", "instruction": 3}]')
    with pytest.raises(ValueError):
        format_plan([PlanStep(action=None, action_type="click")])
    with pytest.raises(ValueError):
        format_plan([PlanStep(action=None, action_type="fly", instruction="x")])


def test_format_plan_exact() -> None:
    steps = [PlanStep(action=None, instruction="Tap OK", action_type="click"), PlanStep(Scroll("down"), "more")]
    assert format_plan(steps, "json") == (
        '<answer>[{"action": "click", "instruction": "Tap OK"}, '
        '{"action": "scroll", "direction": "down", "instruction": "more"}]</answer>'
    )
    assert format_plan(steps, "function") == 'click(instruction="Tap OK")\nscroll(direction="down", instruction="more")'


def test_parse_action_ignores_instruction() -> None:
    assert parse_action('click(x=1, y=2, instruction="Tap")') == Click(1, 2)
    assert parse_action('[{"action": "back", "instruction": "Go back"}]') == Back()


# ---------------------------------------------------------------------- rescaling


def test_rescale_action() -> None:
    assert rescale_action(Click(50, 100), (100, 200), (360, 640)) == Click(180, 320)
    assert rescale_action(Click(1, 1), (3, 3), (4, 4)) == Click(1, 1)  # 1.33 → 1
    assert rescale_action(Scroll("up", 10, 10), (20, 20), (40, 60)) == Scroll("up", 20, 30)
    assert rescale_action(Scroll("up"), (20, 20), (40, 60)) == Scroll("up")
    for a in (Back(), Type("x"), OpenApp("y")):
        assert rescale_action(a, (1, 1), (2, 2)) is a
    with pytest.raises(ValueError):
        rescale_action(Click(1, 1), (0, 1), (2, 2))


# --------------------------------------------------------------------- properties

coords = st.integers(min_value=-10**6, max_value=10**6) | st.sampled_from([-MAX_COORD, MAX_COORD])
texts = st.text() | st.text(alphabet="\"'\\\n\r\t{}[]()<>/ ,:`=aé😀\x00\u2028\ud800\udfff")
points = st.tuples(coords, coords)
actions = st.one_of(
    st.builds(Click, coords, coords),
    st.builds(Scroll, st.sampled_from(DIRECTIONS)),
    st.builds(lambda d, p: Scroll(d, *p), st.sampled_from(DIRECTIONS), points),
    st.just(Back()),
    st.builds(OpenApp, texts),
    st.builds(Type, texts),
)


def _mobile_expected(a: object) -> object:
    if isinstance(a, Scroll) and a.x is None:
        return Scroll(a.direction, *SWIPE_CENTRE)
    return a


@settings(max_examples=300)
@given(actions, st.sampled_from(FORMATS))
def test_round_trip(a: object, fmt: str) -> None:
    text = format_action(a, fmt)  # type: ignore[arg-type]
    expected = _mobile_expected(a) if fmt == "mobile_use" else a
    assert parse_action(text, fmt) == expected
    assert parse_action(text) == expected


@settings(max_examples=150)
@given(st.lists(actions, min_size=1, max_size=6), st.sampled_from(FORMATS))
def test_trajectory_round_trip(traj: list, fmt: str) -> None:
    text = format_trajectory(traj, fmt)
    expected = [_mobile_expected(a) for a in traj] if fmt == "mobile_use" else traj
    assert parse_trajectory(text, fmt) == expected
    assert parse_trajectory(text) == expected


plan_steps = st.one_of(
    st.builds(PlanStep, actions, texts),
    st.builds(
        lambda k, i: PlanStep(action=None, instruction=i, action_type=k),
        st.sampled_from(["click", "scroll", "type", "open_app"]),
        texts.filter(bool),
    ),
)


@settings(max_examples=150)
@given(st.lists(plan_steps, min_size=1, max_size=5), st.sampled_from(FORMATS))
def test_plan_round_trip(steps: list, fmt: str) -> None:
    text = format_plan(steps, fmt)
    if fmt == "mobile_use":
        steps = [PlanStep(_mobile_expected(s.action), s.instruction) if s.action else s for s in steps]
    assert parse_plan(text, fmt) == steps
    assert parse_plan(text) == steps


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(st.text() | st.text(alphabet="<>/[]{}()\"':,=\\ \nclickbacktyperoltswp_0123456789.-TrueNone"), st.sampled_from([None, *FORMATS]))
def test_arbitrary_text_raises_only_parse_errors(text: str, fmt: str | None) -> None:
    for parse in (parse_action, parse_trajectory, parse_plan):
        try:
            parse(text, fmt)
        except ActionParseError:
            pass


@settings(max_examples=200)
@given(actions, st.sampled_from(FORMATS), st.integers(min_value=0, max_value=200))
def test_truncated_output_raises_only_parse_errors(a: object, fmt: str, cut: int) -> None:
    text = format_action(a, fmt)[:cut]  # type: ignore[arg-type]
    try:
        parse_action(text, fmt)
        parse_action(text)
    except ActionParseError:
        pass


@pytest.mark.parametrize("fmt", ["json", "function", "mobile_use"])
def test_plans_may_stop_with_done(fmt):
    """A ``done`` step ends a plan in every format; what follows it is not read; it round-trips."""
    from guigym.action_text import format_plan, parse_plan
    from guigym.actions import DONE, PlanStep

    plan = [PlanStep(action=Click(3, 4)), PlanStep(action_type=DONE)]
    text = format_plan(plan, fmt)
    assert parse_plan(text, fmt) == plan
    assert parse_plan(text) == plan
    more = {"json": '<answer>[{"action": "back"}, {"action": "finish"}, {"action": "fly"}]</answer>',
            "function": 'back()\ndone(status="success")\nfly()',
            "mobile_use": _tool('{"action": "system_button", "button": "Back"}') + _tool('{"action": "terminate", "status": "success"}')
            + _tool('{"action": "fly"}')}[fmt]
    steps = parse_plan(more, fmt)
    assert [s.kind for s in steps] == ["back", DONE] and steps[-1].done
    with pytest.raises(ActionParseError, match="ends a plan"):
        parse_trajectory(more, fmt)


def test_mobile_use_blocks_past_the_ones_read_are_dropped_unread() -> None:
    """As a later item of a JSON list: a ``<tool_call>`` block after the first (parse_action) or
    after ``max_len`` is not read, so another tool's call or broken JSON there is no error (both
    failed the whole answer); read, it still is one."""
    click = '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1, 2]}}</tool_call>'
    for later in ('<tool_call>{"name": "other", "arguments": {}}</tool_call>', "<tool_call>{bad json</tool_call>"):
        assert parse_action(click + later) == Click(1, 2) == parse_action(click + later, "mobile_use")
        assert parse_trajectory(click + later, "mobile_use", max_len=1) == [Click(1, 2)]
        with pytest.raises(ActionParseError, match="step 2: (unknown tool 'other'|not valid JSON)"):
            parse_trajectory(click + later, "mobile_use")
