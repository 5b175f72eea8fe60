"""``guigym play``: a human plays an env in a pygame window (either backend).

Mouse click → Click; mouse wheel → Scroll (a sideways wheel or swipe: left / right, which pages
a home screen); typing fills a buffer shown in the caption and Enter sends it as Type (a buffer
``/open Notes`` sends OpenApp, ``/answer 42`` sends Answer); Esc → Back; F1 prints the
oracle's next step; F5 starts a new episode; closing the window quits.

    guigym play --env GuiGym-Settings-v0 --level hard [--backend browser]
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import gymnasium as gym

import guigym  # noqa: F401
from guigym.actions import Action, Answer, Back, Click, OpenApp, Scroll, Type
from guigym.backends import BACKENDS
from guigym.registration import id_level_problem, plain_id


def action_for_event(ev: Any, buffer: str) -> tuple[Action | None, str, str | None]:
    """Map one pygame event to (action, new typing buffer, command) — pure, for testing."""
    import pygame

    if ev.type == pygame.QUIT:
        return None, buffer, "quit"
    if ev.type == pygame.MOUSEBUTTONDOWN and ev.button == 1:
        return Click(*ev.pos), buffer, None
    if ev.type == pygame.MOUSEWHEEL:
        if ev.y:
            return Scroll("up" if ev.y > 0 else "down"), buffer, None
        if ev.x:  # sideways (y == 0): it was read as a Scroll down; home screens page left / right
            return Scroll("right" if ev.x > 0 else "left"), buffer, None
        return None, buffer, None
    if ev.type == pygame.KEYDOWN:
        if ev.key == pygame.K_ESCAPE:
            return Back(), buffer, None
        if ev.key == pygame.K_F1:
            return None, buffer, "hint"
        if ev.key == pygame.K_F5:
            return None, "", "reset"
        if ev.key == pygame.K_BACKSPACE:
            return None, buffer[:-1], None
        if ev.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            if buffer.startswith("/open "):
                return OpenApp(buffer[6:].strip()), "", None
            if buffer.startswith("/answer "):  # information tasks end with an Answer: no other way to send one
                return Answer(buffer[8:].strip()), "", None
            return Type(buffer), "", None
    if ev.type == pygame.TEXTINPUT:
        return None, buffer + ev.text, None
    return None, buffer, None


def display_problem(environ: Any = None, platform: str | None = None) -> str | None:
    """Why ``guigym play`` cannot show its window, or None. On Linux and other X11 / Wayland
    systems with neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set, SDL falls back to its invisible
    "offscreen" window and the loop would wait forever for events nobody can send. An explicit
    ``SDL_VIDEODRIVER`` (e.g. ``dummy`` in tests, ``x11``, ``offscreen``) is the user's choice and
    is never second-guessed; Windows and macOS always have a display.

    >>> display_problem({}, "linux") is not None, display_problem({"DISPLAY": ":0"}, "linux")
    (True, None)
    >>> display_problem({"SDL_VIDEODRIVER": "dummy"}, "linux"), display_problem({}, "darwin")
    (None, None)
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform in ("win32", "cygwin", "darwin") or environ.get("SDL_VIDEODRIVER"):
        return None
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    return ("no display: neither DISPLAY nor WAYLAND_DISPLAY is set, so the window would be invisible and "
            "play would wait forever; run it in a desktop session (or ssh -X), or set SDL_VIDEODRIVER "
            "to choose SDL's video driver yourself")


def play(env_id: str, level: str, backend: str, seed: int | None = None, max_events: int | None = None) -> dict[str, Any]:
    """Run the interactive loop; returns a summary: ``episodes`` played (those with at least one
    action sent; the one opened after the last ends, never touched, is not one) and
    ``successes``. Without ``max_events`` (the loop waits for the user's events) and without a
    display (:func:`display_problem`) it raises ``RuntimeError`` instead of waiting forever."""
    import pygame

    if max_events is None and (problem := display_problem()):
        raise RuntimeError(problem)

    env = gym.make(env_id, level=level, backend=backend, render_mode="human")
    obs, info = env.reset(seed=seed)
    print(f"Task: {obs['instruction']}")
    # an episode counts once it has had an action: each end opens the next at once, and counting
    # that one made a player who solved one task and quit read "1 success(es) in 2 episode(s)"
    buffer, episodes, wins, n, acted = "", 0, 0, 0, False
    try:
        while max_events is None or n < max_events:
            pygame.display.set_caption(f"{env_id} | type: {buffer}" if buffer else env_id)
            ev = pygame.event.wait(100) if max_events is None else pygame.event.poll()
            n += 1
            action, buffer, cmd = action_for_event(ev, buffer)
            if cmd == "quit":
                break
            if cmd == "hint":
                ref = info["reference"]
                print(f"hint: {ref[0].instruction}" if ref else "hint: nothing left to do")
            if cmd == "reset":
                obs, info = env.reset()
                acted = False
                print(f"Task: {obs['instruction']}")
            if action is None:
                continue
            if not acted:
                episodes, acted = episodes + 1, True
            obs, _, term, trunc, info = env.step(action)
            if info["action_error"]:
                print(f"  ({info['action_error']})")
            if term or trunc:
                wins += bool(info["success"])
                print("Success!" if info["success"] else "Episode over (failed or out of time).")
                obs, info = env.reset()
                acted = False
                print(f"Task: {obs['instruction']}")
    finally:
        env.close()
    return {"episodes": episodes, "successes": wins}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="guigym play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="GuiGym-Login-v0")
    p.add_argument("--level", default="easy")
    p.add_argument("--backend", default="mock", choices=BACKENDS)  # a typo: a usage error, not a traceback
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    args.env = plain_id(args.env)  # gym.make's "guigym:ID" form too
    problem = id_level_problem(args.env, args.level)
    if problem:
        p.error(problem)
    if args.seed is not None and args.seed < 0:  # gymnasium's reset takes no negative seed
        p.error(f"--seed must be >= 0, got {args.seed}")
    problem = display_problem()
    if problem:  # else SDL's invisible offscreen window: a command that waits forever, silently
        p.error(problem)
    try:
        summary = play(args.env, args.level, args.backend, args.seed)
    except KeyboardInterrupt:  # a Ctrl-C in the terminal: one line and status 130, not a traceback (the env is closed)
        print("\nguigym play: interrupted", file=sys.stderr)
        return 130
    print(f"{summary['successes']} success(es) in {summary['episodes']} episode(s)")
    return 0


if __name__ == "__main__":  # through the guigym command, for its messages on a missing Chromium or a closed pipe
    from guigym.cli import main as cli

    raise SystemExit(cli(["play", *sys.argv[1:]]))
