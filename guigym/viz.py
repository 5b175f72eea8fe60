"""Annotated frames and GIFs of episodes (click markers, action captions)."""

from __future__ import annotations

import errno
import math
import numbers
import os
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from guigym.action_text import format_action
from guigym.actions import Action, Click, Scroll


def writable_problem(path: str | Path) -> str | None:
    """Why a file or folder cannot be made at ``path`` (None: it can): the nearest existing
    folder above it must be a folder in which the writer can create its file. Commands check
    their output paths with it before any work, not after.

    It does what :func:`write_whole` will do, and undoes it: makes the missing folders above
    ``path``, creates the temporary ``.NAME.partial`` beside it, then removes both. Asking
    ``os.access`` was not enough: for root it allows everything, /proc included, and a GIF to
    ``/proc/x.gif`` failed only after the last episode.

    >>> writable_problem("out/deeper/run.gif") is None
    True
    """
    path = Path(path)
    parent = path.parent
    missing = []  # the folders the writer would make, outermost last
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is not a folder"
    probe = path.parent / f".{path.name or 'probe'}.partial"  # write_whole's temporary name
    made: list[Path] = []
    where = parent
    try:
        for folder in reversed(missing):
            where = folder.parent
            folder.mkdir()
            made.append(folder)
        where = path.parent
        existed = os.path.lexists(probe)  # a killed run's leftover: the writer truncates it, so only open it
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644))
        if not existed:
            probe.unlink()
    except OSError as e:
        if isinstance(e, PermissionError) or e.errno == errno.EROFS:
            return f"{where} is not writable"
        return f"cannot create files in {where} ({e.strerror or type(e).__name__})"
    finally:
        for folder in reversed(made):  # deepest first: only the (empty) folders made here
            try:
                folder.rmdir()
            except OSError:
                pass
    return None


def folder_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot serve as an output folder (None: it can): an existing folder it may
    write into can, a file cannot, a missing one where :func:`writable_problem` finds nothing
    against it.

    >>> folder_problem("out/runs/a") is None
    True
    """
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            return "exists and is not a folder"
        # a read-only folder (a mount, another user's) passed, and the run ended in a
        # PermissionError traceback at its first file, after the work
        return None if os.access(p, os.W_OK | os.X_OK) else "is not writable"
    return writable_problem(p)


def annotate(frame: np.ndarray, action: Action | None, note: str = "") -> np.ndarray:
    """``frame`` with a marker where ``action`` points and a caption of the action."""
    img = Image.fromarray(frame)
    d = ImageDraw.Draw(img)
    if isinstance(action, Click):
        x, y, r = action.x, action.y, 12
        d.ellipse((x - r, y - r, x + r, y + r), outline=(255, 0, 0), width=3)
        d.line((x - 4, y, x + 4, y), fill=(255, 0, 0), width=2)
        d.line((x, y - 4, x, y + 4), fill=(255, 0, 0), width=2)
    elif isinstance(action, Scroll):
        w, h = img.size
        x = action.x if action.x is not None else w // 2
        y = action.y if action.y is not None else h // 2
        dx, dy = {"up": (0, -60), "down": (0, 60), "left": (-60, 0), "right": (60, 0)}[action.direction]
        d.line((x, y, x + dx, y + dy), fill=(255, 0, 0), width=4)
        d.ellipse((x + dx - 6, y + dy - 6, x + dx + 6, y + dy + 6), fill=(255, 0, 0))
    caption = (format_action(action, "function") if action is not None else "") + (f"  {note}" if note else "")
    if caption:
        h = img.size[1]
        d.rectangle((0, h - 22, img.size[0], h), fill=(0, 0, 0))
        if not isinstance(d.getfont(), ImageFont.FreeTypeFont):  # Pillow 10.0's default bitmap font: Latin-1 only
            caption = caption.encode("latin-1", "replace").decode("latin-1")  # "•" of a step instruction raised
        d.text((4, h - 18), caption[:70], fill=(255, 255, 0))
    return np.asarray(img)


def save_gif(frames: Sequence[np.ndarray], path: str | Path, fps: float = 2.0) -> Path:
    """Write ``frames`` (H x W x 3 uint8) as a looping GIF, ``fps`` frames a second
    (0.002 to 100: a GIF stores each frame's delay in 1/100 s, in 16 bits). The GIF is written
    under a temporary name beside ``path`` and renamed over it at the end, so an error or a
    Ctrl-C while writing leaves ``path`` as it was (no truncated GIF). Pillow stores a frame
    identical to the one before it once, shown for their summed time: the file can hold fewer
    frames than ``frames`` (an agent's repeated no-op step), and plays for as long."""
    if not frames:
        raise ValueError("save_gif needs at least one frame")
    # Outside this range Pillow raised ZeroDivisionError / OverflowError deep inside, or (fps > 100)
    # wrote a delay of 0 that viewers play at a speed of their own.
    if not (isinstance(fps, numbers.Real) and math.isfinite(fps) and 0.002 <= fps <= 100):
        raise ValueError(f"save_gif: fps must be a number from 0.002 to 100, got {fps!r}")
    imgs = [Image.fromarray(f) for f in frames]
    return write_whole(path, lambda tmp: imgs[0].save(tmp, format="GIF", save_all=True, append_images=imgs[1:],
                                                      duration=int(1000 / fps), loop=0))


def write_whole(path: str | Path, write: Callable[[Path], object]) -> Path:
    """``write(tmp)`` to a temporary name beside ``path`` (its folder made if missing), then a
    rename over ``path``: an error or a Ctrl-C while writing leaves ``path`` as it was, never a
    truncated file that passes for a result."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        write(partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def image_out_problem(out: str | Path) -> str | None:
    """Why a picture cannot be saved at ``out`` (None: it can), checked before the work: Pillow
    named an unknown extension, a folder or a missing parent only after the drawing."""
    out = Path(out)
    if Image.registered_extensions().get(out.suffix.lower()) not in Image.SAVE:  # .txt; .psd: Pillow reads only
        return f"{out.suffix or 'no extension'} is not an image file type Pillow writes (e.g. .png)"
    if out.is_dir():
        return "is a folder"
    return writable_problem(out)


def save_image(img: Image.Image, out: str | Path, optimize: bool = False) -> Path:
    """``img`` saved whole or not at all (:func:`write_whole`), in the format of ``out``'s extension."""
    fmt = Image.registered_extensions()[Path(out).suffix.lower()]
    return write_whole(out, lambda tmp: img.save(tmp, format=fmt, optimize=optimize))
