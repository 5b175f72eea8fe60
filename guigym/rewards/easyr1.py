"""The guigym rewards as an EasyR1 (verl) reward module.

TraceR1 was trained with EasyR1, whose reward functions are modules with ``REWARD_NAME``,
``REWARD_TYPE`` and ``compute_score``; point EasyR1's ``worker.reward.reward_function`` at
``path/to/guigym/rewards/easyr1.py:compute_score`` and pass options through
``reward_function_kwargs`` (e.g. ``{"mode": "trajectory", "gamma": 0.9}``). Each input's
``ground_truth`` is the dense reference from the sample's state, as the ``reference`` column
of ``guigym export`` writes it (JSON of ``RefStep.to_dict()`` dicts), with its points and
boxes in the pixels of the image the model sees: the export's are the screenshot's, and
EasyR1 resizes images (up to ``data.min_pixels``, 512×512 by default, which a 360×640
screenshot is below) before the processor rounds them to its own grid (multiples of 28 for
Qwen2.5-VL), so rescale each step with :func:`guigym.actions.rescale_refstep` to that size
when building the dataset, as ``examples/trl_grpo.py`` does. The reward only compares
coordinates; it cannot tell which image they were meant for.

* ``mode="uir1"``: ``overall = uir1_reward`` (type + argument + format, in [0, 3]) against the
  first reference step, with the parts reported as ``type``, ``argument``, ``format``.
* ``mode="trajectory"``: ``overall = trajectory + format_weight · format`` — the
  :class:`~guigym.rewards.TrajectoryReward` of the predicted plan (TraceR1 stage 1; text that
  does not parse scores the bottom of its range) plus the format reward (EasyR1's own reward
  functions add a format term the same way), both parts reported.

An empty ``ground_truth`` (``[]``: a terminal state) expects a ``done`` step in both modes.

EasyR1 calls ``compute_score(reward_inputs, **reward_function_kwargs)``, each input a dict
with ``response``, ``response_length`` and ``ground_truth`` (keys of its own, such as
``response_length``, are ignored; an optional ``elements`` is read in trajectory mode). A
caller's mistakes are one clear error naming them: an option this function does not take (a
misspelt ``gama`` ran with the default γ), an input with no ``response`` or ``ground_truth``
(a missing reference was read as a terminal state), a malformed reference, a ``response``
that is neither text nor ``None`` (no completion, scores as empty text).

>>> import json
>>> from guigym.actions import Click, RefStep
>>> gt = json.dumps([RefStep(Click(30, 20), "ok", (10, 10, 50, 30), "Click OK").to_dict()])
>>> out = compute_score([{"response": '<think>t</think><answer>[{"action": "click", "coordinate": [20, 20]}]</answer>', "ground_truth": gt},
...                      {"response": "no idea", "ground_truth": gt}])
>>> [d["overall"] for d in out], out[0]["format"]
([3.0, 0.0], 1.0)
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Mapping
from typing import Any, Optional

from guigym.rewards._common import check_real
from guigym.rewards.trl import TrajectoryReward, load_reference
from guigym.rewards.uir1 import _first_predicted, action_type_reward, argument_reward, format_reward

REWARD_NAME = "guigym"
REWARD_TYPE = "batch"
MODES = ("uir1", "trajectory")


def compute_score(
    reward_inputs: list[dict[str, Any]],
    mode: str = "uir1",
    fmt: Optional[str] = "json",
    strict_args: bool = True,
    require_think: bool = True,
    gamma: float = 0.9,
    lambda_align: float = 1.0,
    lambda_rep: float = 1.0,
    horizon: Optional[int] = None,
    similarity: str = "abstract",
    text: str = "exact",
    format_weight: float = 1.0,
    **unknown: Any,
) -> list[dict[str, float]]:
    """Scores for a batch of ``{"response": str, "ground_truth": reference JSON}`` inputs:
    one dict per input with ``overall`` and its parts. Never raises on model text; an unknown
    option, or an input without ``response`` or ``ground_truth``, is an error naming it.

    >>> compute_score([], mode="trajectory", gama=0.5)
    Traceback (most recent call last):
    ...
    TypeError: compute_score: unknown option 'gama' (did you mean 'gamma'?); ...
    """
    if unknown:  # EasyR1 passes only reward_function_kwargs: a name here is the caller's typo
        raise TypeError(f"compute_score: unknown option{'s' if len(unknown) > 1 else ''} "
                        + ", ".join(_unknown(k) for k in sorted(unknown))
                        + f"; it takes {', '.join(OPTIONS)} (through EasyR1's reward_function_kwargs)")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {MODES}")
    check_real("format_weight", format_weight)  # NaN made every overall score NaN; "1" a bare TypeError
    traj = None
    if mode == "trajectory":
        traj = TrajectoryReward(gamma, lambda_align, lambda_rep, horizon, fmt, similarity=similarity, text=text)
    if isinstance(reward_inputs, (str, bytes, Mapping)) or not hasattr(reward_inputs, "__iter__"):
        raise TypeError(f"compute_score: reward_inputs must be a list of dicts, got {type(reward_inputs).__name__}")
    out: list[dict[str, float]] = []
    for i, item in enumerate(reward_inputs):
        if not isinstance(item, Mapping):  # was an AttributeError ('str' object has no attribute 'get')
            raise TypeError(f"compute_score: reward_inputs[{i}] must be a dict with 'response' and 'ground_truth', "
                            f"got {type(item).__name__}")
        missing = [k for k in ("response", "ground_truth") if k not in item]
        if missing:  # a missing reference was read as "[]", a terminal state, and scored as one
            raise ValueError(f"compute_score: reward_inputs[{i}] has no {' or '.join(map(repr, missing))} key "
                             "(EasyR1 passes 'response' and 'ground_truth', the reference JSON: '[]' for a terminal state)")
        # (not `text`: that is the text-similarity rule passed to the trajectory reward)
        response = "" if item["response"] is None else item["response"]  # None: no completion
        if not isinstance(response, str):
            raise TypeError(f"compute_score: reward_inputs[{i}]['response'] must be the model's text (a str, or None), "
                            f"got {type(response).__name__}")
        try:
            ref = load_reference(item["ground_truth"])
        except ValueError as e:
            raise ValueError(f"compute_score: reward_inputs[{i}]['ground_truth']: {e}") from e
        first = ref[0] if ref else None  # None: terminal state, `done` (a plan step) expected
        fmt_score = format_reward(response, fmt=fmt, require_think=require_think, plan=traj is not None or first is None)
        if traj is not None:
            score = traj([response], reference=[ref], elements=[item.get("elements")])[0]
            out.append({"overall": score + format_weight * fmt_score, "trajectory": score, "format": fmt_score})
            continue
        pred = _first_predicted(response, fmt, plan=first is None)
        if pred is None:
            out.append({"overall": 0.0, "type": 0.0, "argument": 0.0, "format": 0.0})  # as uir1_reward
            continue
        t, a = action_type_reward(pred, first), argument_reward(pred, first, strict=strict_args)
        out.append({"overall": t + a + fmt_score, "type": t, "argument": a, "format": fmt_score})
    return out


#: The options :func:`compute_score` takes (EasyR1's ``reward_function_kwargs``).
OPTIONS: tuple[str, ...] = tuple(name for name, p in inspect.signature(compute_score).parameters.items()
                                 if p.kind is p.KEYWORD_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and name != "reward_inputs"))


def _unknown(name: str) -> str:
    close = difflib.get_close_matches(name, OPTIONS, n=1)
    return repr(name) + (f" (did you mean {close[0]!r}?)" if close else "")
