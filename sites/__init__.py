"""The web side of guigym's browser backend: one small runtime that draws any app state as
real DOM and records what the user did (see ``guigym/backends/browser.py``).

* ``index.html`` — the page skeleton (a strict Content-Security-Policy: no network, no
  external resources); ``runtime.css`` and ``runtime.js`` are inlined into it once per page.
* ``runtime.js`` — ``window.guigym.show(view)`` builds DOM from the view's display list
  (``guigym/display.py``: one case per record type, widgets rooted in native controls; text
  only through ``textContent``/``value``, never HTML), ``drain()`` returns the recorded DOM
  events (clicks, toggles, input values, wheel) and restores the DOM to the last shown view.
* ``runtime.css`` — generic rules only (every box and colour comes from Python); caret
  hidden, animations and transitions off (deterministic pixels).

The app's behaviour is not here: it stays in Python (``guigym.apps``).
"""

from __future__ import annotations

from pathlib import Path

#: Folder holding ``index.html``, ``runtime.js`` and ``runtime.css``.
RUNTIME_DIR: Path = Path(__file__).resolve().parent
FILES = ("index.html", "runtime.js", "runtime.css")


def page_html() -> str:
    """``index.html`` with the CSS and JS inlined (one self-contained document)."""
    html = (RUNTIME_DIR / "index.html").read_text(encoding="utf-8")
    css = (RUNTIME_DIR / "runtime.css").read_text(encoding="utf-8")
    js = (RUNTIME_DIR / "runtime.js").read_text(encoding="utf-8")
    if "</style" in css.lower() or "</script" in js.lower():
        raise ValueError("runtime files must not contain closing style/script tags")
    return html.replace("/*GUIGYM_CSS*/", css, 1).replace("/*GUIGYM_JS*/", js, 1)
