"""The README's widget gallery: each composite widget of ``guigym.apps.widgets`` as the mock
renderer draws it (the gallery app, ``guigym.apps.gallery``), one PNG per widget and a strip.

    PYTHONPATH=. python scripts/widget_gallery.py --out docs/widgets

Pixels come from the mock backend; the browser draws the same display list
(``tests/test_widgets.py`` checks that they agree).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from PIL import Image, ImageDraw  # noqa: E402

from guigym.apps.base import DeviceState, apply, start_state, view  # noqa: E402
from guigym.apps.gallery import gallery_scenario  # noqa: E402
from guigym.backends.mock import MockBackend  # noqa: E402
from guigym.events import Event  # noqa: E402
from guigym.layout import layout  # noqa: E402
from guigym.viz import folder_problem, save_image, writable_problem  # noqa: E402

W, H, GAP = 360, 640, 8


def states() -> list[tuple[str, str, DeviceState]]:
    """(file name, caption, device state) of each picture."""
    sc = gallery_scenario()

    def on(screen: str, *events: Event) -> DeviceState:
        st = apply(sc, start_state(sc), Event("click", f"open.{screen}"))
        for ev in events:
            st = apply(sc, st, ev)
        return st

    body = "Hi Bob, the meeting moved to Thursday at nine. Bring the printed slides and the budget notes."
    return [
        ("select", "select (Size: Medium)", on("select", Event("click", "colour"), Event("click", "colour.opt5"))),
        ("dropdown", "its dropdown (13 options, scrolls)", on("select", Event("click", "colour"))),
        ("textarea", "multi-line text", on("textarea", Event("click", "body"), Event("input", "body", body))),
        ("stepper", "stepper", on("stepper", Event("click", "qty.inc"))),
        ("tabs", "tabs", on("tabs", Event("click", "tab.tab1"))),
        ("date", "date picker", on("date", Event("click", "day.next"), Event("click", "day.d2026-04-17"))),
        ("time", "time picker", on("time")),
        ("search", "search with results", on("search", Event("click", "q"), Event("input", "q", "pe"))),
    ]


def main(argv: list[str] | None = None) -> None:
    # the whole docstring: its first line alone stopped mid-sentence ("... as the mock")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="docs/widgets", help="folder for the PNGs (and widgets.png, the strip, beside it)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    # checked before any work: a file there, or a folder without a name of its own ('.', where the
    # strip's name beside it is undefined), ended in a traceback
    if out.name in ("", ".", ".."):
        ap.error(f"--out {args.out}: name the gallery's folder (the strip is written beside it as <folder>.png)")
    if problem := folder_problem(out) or writable_problem(out.with_suffix(".png")):
        ap.error(f"--out {args.out}: {problem}")
    if out.with_suffix(".png").is_dir():
        ap.error(f"--out {args.out}: {out.with_suffix('.png')}, the strip's path, is a folder")
    out.mkdir(parents=True, exist_ok=True)
    sc = gallery_scenario()
    be = MockBackend(W, H)
    shots = []
    for name, caption, st in states():
        v = view(sc, st)
        be.show(v, layout(v, W, H))
        img = Image.fromarray(be.screenshot())
        save_image(img, out / f"{name}.png")
        shots.append((img, caption))
    be.close()
    strip = Image.new("RGB", (len(shots) * (W + GAP) - GAP, H + 22), (255, 255, 255))
    d = ImageDraw.Draw(strip)
    for i, (img, caption) in enumerate(shots):
        strip.paste(img, (i * (W + GAP), 0))
        d.text((i * (W + GAP) + 4, H + 5), caption, fill=(0, 0, 0))
    save_image(strip, out.with_suffix(".png"))
    print(f"wrote {len(shots)} PNGs to {out}/ and the strip {out.with_suffix('.png')}")


if __name__ == "__main__":
    main()
