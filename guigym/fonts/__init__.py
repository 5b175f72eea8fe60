"""Bundled fonts for the ``font`` variation axis (:mod:`guigym.variation`): one TrueType file
per font, drawn by both renderers from the same file (the mock with
``pygame.font.Font(path, px)``, the browser runtime with a ``FontFace`` made from the file's
bytes), so glyph shapes agree across backends.

The default look (``"default"``: no font key on the text records) is not one of these: both
renderers draw pygame's own font file (FreeSansBold), which the browser loads from the
installed pygame package like these.

All four are DejaVu faces (Bitstream Vera licence, DejaVu changes public domain: see
``LICENSE-DejaVu.txt``), copied from Debian's ``fonts-dejavu-core``/``fonts-dejavu-extra``
(version 2.37):

* ``serif``: DejaVu Serif;
* ``mono``: DejaVu Sans Mono;
* ``italic``: DejaVu Serif Condensed Italic (narrow, slanted glyphs);
* ``light``: DejaVu Sans ExtraLight, the hard-to-read one: hairline strokes that
  anti-aliasing turns into faint, low-contrast text at the 11-20 px sizes the apps use.
"""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path

FONT_DIR: Path = Path(__file__).resolve().parent

#: Font name -> file in :data:`FONT_DIR`.
FONT_FILES: dict[str, str] = {
    "serif": "DejaVuSerif.ttf",
    "mono": "DejaVuSansMono.ttf",
    "italic": "DejaVuSerifCondensed-Italic.ttf",
    "light": "DejaVuSans-ExtraLight.ttf",
}


def font_path(name: str) -> str:
    """The file of bundled font ``name``."""
    try:
        return str(FONT_DIR / FONT_FILES[name])
    except KeyError:
        raise ValueError(f"unknown font {name!r}; bundled: {sorted(FONT_FILES)}") from None


def family(name: str) -> str:
    """The CSS family name the browser runtime registers font ``name`` under."""
    return f"guigym-{name}"


@cache
def font_base64(name: str) -> str:
    """The font file of ``name``, base64-encoded (what the browser backend sends the page)."""
    return base64.b64encode(Path(font_path(name)).read_bytes()).decode("ascii")
