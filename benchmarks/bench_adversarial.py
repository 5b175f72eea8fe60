"""Worst-case parse and reward time on hostile model output (issue 15).

For every input family (each a way model text once stalled a parser or a reward) and every
size (1k, ``MAX_TEXT_CHARS`` = 8k, the longest answer parsed in full, 10k and 100k characters)
it times each parser and reward entry point on that text and prints the slowest call, then a
one-line verdict: are all calls at 100k chars within 10 ms?

    python benchmarks/bench_adversarial.py            # the table and the verdict
    python benchmarks/bench_adversarial.py --repeat 5 # best of 5 per call (default 3)
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from _args import at_least  # benchmarks/, the script's folder (on sys.path)

from guigym.action_text import MAX_TEXT_CHARS, parse_action, parse_plan, parse_trajectory
from guigym.actions import Click, RefStep
from guigym.rewards import format_reward, uir1_reward
from guigym.rewards.easyr1 import compute_score
from guigym.rewards.trl import TrajectoryReward

SIZES = tuple(sorted((1_000, 10_000, MAX_TEXT_CHARS, 100_000)))  # MAX_TEXT_CHARS: the longest answer parsed in full
LIMIT_S = 0.010  # the goal: every call on 100k characters within 10 ms


def _fill(unit: str, n: int, head: str = "", tail: str = "") -> str:
    body = n - len(head) - len(tail)
    return head + (unit * (body // len(unit) + 1))[: max(0, body)] + tail


#: Input families: name -> text of about n characters.
FAMILIES: dict[str, Callable[[int], str]] = {
    "fence + spaces": lambda n: _fill(" ", n, "```", "\nx"),
    "fence + spaces, closed": lambda n: _fill(" ", n, "```", "\n```x"),
    "tool_call + trailing spaces": lambda n: _fill(" ", n, "<think>t</think><tool_call>{}</tool_call>", "x"),
    "<answer> repeated": lambda n: _fill("<answer>", n),
    "<tool_call> repeated": lambda n: _fill("<tool_call>{", n),
    "many clicks": lambda n: _fill('{"action": "click", "coordinate": [20, 40]}, ', n, "<think>t</think><answer>[", "]</answer>"),
    "many calls (function)": lambda n: _fill("click(x=20, y=40)\n", n, "<answer>", "</answer>"),
    "long digit coordinate": lambda n: _fill("9", n, '<answer>[{"action": "click", "coordinate": [', ', 5]}]</answer>'),
    "hex literal": lambda n: _fill("f", n, "<answer>click(x=0x", ", y=1)</answer>"),
    "nested brackets": lambda n: _fill("[", n, "<answer>", "</answer>"),
    "nested calls": lambda n: _fill("click(", n, "<answer>", "</answer>"),
    "long think + answer": lambda n: _fill("a ", n, "<think>", '</think><answer>[{"action": "back"}]</answer>'),
    "tags mixed": lambda n: _fill("<think><answer></think> </answer><tool_call>", n),
    "whitespace only": lambda n: _fill(" \n\t", n),
    "ungrounded step, long instruction":
        lambda n: _fill("a b ", n, '<answer>[{"action": "click", "instruction": "Click \'', '\'"}]</answer>'),
    "long type text": lambda n: _fill("x", n, '<answer>[{"action": "type", "text": "', '"}]</answer>'),
    "unclosed quotes in an instruction": lambda n: _fill("‘", n, '<answer>[{"action": "click", "instruction": "', '"}]</answer>'),
    "spaces inside an open_app instruction":
        lambda n: _fill(" ", n, '<answer>[{"action": "open_app", "instruction": "open x', 'y"}]</answer>'),
}

_REF = [RefStep(Click(30, 20), "ok", (10, 10, 50, 30), "Click OK", label="OK").to_dict()]
_GT = json.dumps(_REF)
_TRAJ = TrajectoryReward()


def _quiet(f: Callable[[str], object]) -> Callable[[str], object]:
    def call(text: str) -> object:
        try:
            return f(text)
        except ValueError:  # the parsers' ActionParseError: the expected outcome on bad text
            return None
    return call


#: Entry points: name -> f(text).
CALLS: dict[str, Callable[[str], object]] = {
    "parse_action": _quiet(parse_action),
    "parse_trajectory(json)": _quiet(lambda t: parse_trajectory(t, "json")),
    "parse_plan": _quiet(parse_plan),
    "format_reward(json)": lambda t: format_reward(t),
    "format_reward(mobile_use)": lambda t: format_reward(t, fmt="mobile_use"),
    "uir1_reward": lambda t: uir1_reward(t, RefStep.from_dict(_REF[0])),
    "TrajectoryReward()": lambda t: _TRAJ([t], reference=[_REF]),
    "easyr1 trajectory": lambda t: compute_score([{"response": t, "ground_truth": _GT}], mode="trajectory"),
}


def best_time(f: Callable[[str], object], text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs per call")
    args = ap.parse_args(argv)
    at_least(ap, 1, repeat=args.repeat)  # as every benchmark script
    print(f"{'input family':34s}" + "".join(f"{n // 1000:>8d}k ms" for n in SIZES) + "   slowest call at 100k")
    worst_100k, worst_cap = 0.0, (0.0, "", "")
    for fam, make in FAMILIES.items():
        row, slowest = [], ""
        for n in SIZES:
            text = make(n)
            times = {name: best_time(f, text, args.repeat) for name, f in CALLS.items()}
            name = max(times, key=times.__getitem__)
            row.append(times[name])
            if n == SIZES[-1]:
                slowest, worst_100k = name, max(worst_100k, times[name])
            if n == MAX_TEXT_CHARS:
                worst_cap = max(worst_cap, (times[name], fam, name))
        print(f"{fam:34s}" + "".join(f"{t * 1e3:11.2f}" for t in row) + f"   {slowest}")
    ok = worst_100k <= LIMIT_S
    print(f"longest answer parsed in full (MAX_TEXT_CHARS={MAX_TEXT_CHARS}): worst call {worst_cap[0] * 1e3:.2f} ms "
          f"({worst_cap[1]}, {worst_cap[2]})")
    print(f"verdict: worst call at 100k chars {worst_100k * 1e3:.2f} ms: {'all' if ok else 'NOT all'} <= {LIMIT_S * 1e3:.0f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
