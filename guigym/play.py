"""``guigym play``: a human plays an env in a pygame window (either backend).

Mouse click → Click; mouse wheel → Scroll (a sideways wheel or swipe: left / right, which pages
a home screen); typing fills a buffer shown in the caption and Enter sends it as Type (a buffer
``/open Notes`` sends OpenApp, ``/answer 42`` sends Answer); Esc → Back; F1 prints the
oracle's next step; F5 starts a new episode; closing the window quits.

    guigym play --env GuiGym-Settings-v0 --level hard [--backend browser]
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym

import guigym  # noqa: F401
from guigym.actions import Action, Answer, Back, Click, OpenApp, Scroll, Type
from guigym.backends import BACKENDS
from guigym.registration import id_level_problem


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


def play(env_id: str, level: str, backend: str, seed: int | None = None, max_events: int | None = None) -> dict[str, Any]:
    """Run the interactive loop; returns a summary (episodes, successes)."""
    import pygame

    env = gym.make(env_id, level=level, backend=backend, render_mode="human")
    obs, info = env.reset(seed=seed)
    print(f"Task: {obs['instruction']}")
    buffer, episodes, wins, n = "", 1, 0, 0
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
                episodes += 1
                print(f"Task: {obs['instruction']}")
            if action is None:
                continue
            obs, reward, term, trunc, info = env.step(action)
            if info["action_error"]:
                print(f"  ({info['action_error']})")
            if term or trunc:
                wins += bool(info["success"])
                print("Success!" if info["success"] else "Episode over (failed or out of time).")
                obs, info = env.reset()
                episodes += 1
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
    problem = id_level_problem(args.env, args.level)
    if problem:
        p.error(problem)
    if args.seed is not None and args.seed < 0:  # gymnasium's reset takes no negative seed
        p.error(f"--seed must be >= 0, got {args.seed}")
    summary = play(args.env, args.level, args.backend, args.seed)
    print(f"{summary['successes']} success(es) in {summary['episodes']} episode(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
