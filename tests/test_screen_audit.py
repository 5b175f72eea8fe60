"""Screen audit regressions: what the screen draws is what the state holds (typed text not clipped
at large font scales, memoised drawings never shared by different values) and German screens say
their UI in German."""

from __future__ import annotations

import pytest

from guigym.apps.base import View, Widget
from guigym.apps.settings_catalog import CATEGORIES, Choice, settings_of
from guigym.backends.mock import _Text
from guigym.display import display_list, parts, theme_of, widget
from guigym.i18n.de import translate
from guigym.layout import layout
from tests.conftest import make

W, H = 360, 640
BODY = ("see you at the station at nine and do bring the photos from the trip, "
        "Meeting moved to Thursday afternoon")


@pytest.mark.parametrize("scale", [1.15, 1.3])
@pytest.mark.parametrize("font", [None, "serif", "mono", "italic", "light"])
def test_textarea_lines_fit_the_field_at_large_font_scales(scale: float, font: str | None) -> None:
    """Every line of a multi-line field's text fits its width as the mock draws it (no line's end
    clipped off), and the lines together are the text the state holds."""
    theme = {"font_scale": scale, **({"font": font} if font else {})}
    v = View("notes", "edit", "Edit", [Widget("body", "textarea", "Text", value=BODY, span=3)], theme=theme)
    rec = next(r for r in display_list(v, layout(v, W, H)) if r["type"] == "widget")
    lines = [p for p in rec["parts"] if p["type"] == "text" and p["y"] > 4]  # the label is at y=4
    fonts = _Text()
    for p in lines:
        width = fonts._font(p["size"], p["bold"], p.get("font")).size(p["text"])[0]
        assert width <= p["clip"], (scale, font, p["text"], width, p["clip"])
    assert " ".join(p["text"] for p in lines) == BODY


@pytest.mark.parametrize("kind,blank,text", [("input", None, "None"), ("label", None, "None"), ("checkbox", False, "False")])
def test_values_with_the_same_str_draw_apart(kind: str, blank: object, text: str) -> None:
    """A field holding nothing (None) and one holding the typed text "None" (or a checkbox's
    False and the string "False") are different looks: the memos must not hand one's drawing
    (parts, widget record) to the other."""
    th = theme_of(View("a", "s", "", []))
    a = Widget("f", kind, "Name", value=blank, placeholder="Your name")
    b = Widget("f", kind, "Name", value=text, placeholder="Your name")
    pa, pb = parts(a, 328, 44, th, False), parts(b, 328, 44, th, False)
    texts = [[p.get("text") for p in ps if p["type"] == "text"] for ps in (pa, pb)]
    if kind == "checkbox":  # bool("False") is True: drawn ticked
        assert len(pa) != len(pb)
    else:
        assert texts[0] != texts[1] and text in texts[1]
    box = (16, 86, 343, 129)
    assert widget(a, box, th, False)["parts"] is pa and widget(b, box, th, False)["parts"] is pb


def test_a_failed_message_is_marked_in_german() -> None:
    """Messages marks a message that was not delivered "(Not delivered)": the German screen says
    so in German, the message's own text (content) as it is."""
    assert translate("You: See you on Friday (Not delivered)") == "Du: See you on Friday (Nicht zugestellt)"
    env = make("GuiGym-Messages-v0", variation={"language": "de", "popup": "none", "adversarial": "none",
                                                "descriptions": "own", "labels": "all"}, split="test")
    seen = 0
    for seed in range(30):
        _, info = env.reset(seed=seed, options={"level": "easy"})
        for _ in range(20):
            for w in env.unwrapped.current_view.widgets():
                assert "Not delivered" not in w.label, (seed, w.label)
                seen += "(Nicht zugestellt)" in w.label
            if not info["reference"]:
                break
            _, _, term, trunc, info = env.step(info["reference"][0].action)
            if term or trunc:
                break
    env.close()
    assert seen  # the screen with a failed message was on the way


def test_settings_time_ranges_are_german() -> None:
    """A choice of the Settings catalogue that is a span of clock times (the bedtime schedule)
    is said in German, with no English AM / PM left."""
    spans = [o for c in CATEGORIES for s in settings_of([*c.items, *(c.deep.items if c.deep else ())]) if isinstance(s, Choice)
             for o in s.options if o.endswith((" AM", " PM"))]
    assert spans
    for o in spans:
        de = translate(o)
        assert "AM" not in de and "PM" not in de and "Uhr" in de, (o, de)


def test_grounding_reads_labels_with_apostrophes() -> None:
    """The permission prompt's "Don't allow" (and any name with an apostrophe) is one quoted
    label: the reference's instruction grounds to it, not to a "Done" button, and a Type step
    types the whole text."""
    from guigym.actions import Type
    from guigym.grounding import instruction_action, match_element, quoted

    els = [{"id": "done", "label": "Done", "role": "button"}, {"id": "deny", "label": "Don't allow", "role": "button"}]
    assert match_element("Click the 'Don't allow' button", els)["id"] == "deny"
    assert match_element("Click the ‘Don’t allow’ button", els)["id"] == "deny"
    assert instruction_action("type", "Type 'I'll be late' into the 'Message' field") == Type("I'll be late")
    assert quoted("it's 'OK', then 'Cancel'") == ["OK", "Cancel"]
