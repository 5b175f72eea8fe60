"""Review of df33173 (neutral instances in the robustness grid), a257262 (completion_text in TRL's
tool loop), 8b27d3a / 826753b (strict Launcher's note text, answer_failure) and eabe29e
(trl_reward_adapter): the two faults found, and the behaviour the review checked, pinned."""

from __future__ import annotations

import json
import math

import pytest

from guigym.actions import Answer, Type
from guigym.apps.family import EARLY_ANSWER, WRONG_ANSWER
from tests.conftest import follow_reference, make, tap

# ----------------------------------------------------------------------------- trl_reward_adapter


def test_trl_reward_adapter_reports_a_nan_reward_as_nan_not_as_batch_dependent() -> None:
    """A reward that returns NaN for every completion scored NaN alone and NaN in the batch; NaN != NaN
    made the adapter raise "depends on the other completions of the batch", a wrong diagnosis that hid
    check_bounded's own ("returned NaN")."""
    from guigym.testing import check_bounded, reference_cases, trl_reward_adapter

    r = trl_reward_adapter(lambda completions, **kw: [float("nan")] * len(completions), low=0, high=1, name="nanr")
    assert math.isnan(r.score_text("<answer>[]</answer>", []))
    cases = list(reference_cases("GuiGym-Login-v0", seeds=range(1), detours=0))
    with pytest.raises(AssertionError, match="returned NaN") as e:
        check_bounded(r, cases, max_examples=3)
    assert "batch" not in str(e.value)
    # a score that does depend on the batch is still told apart, NaN or not
    for alone in (float("nan"), 0.5):
        dep = trl_reward_adapter(lambda completions, a=alone, **kw: [a] if len(completions) == 1 else [0.25, 0.0],
                                 low=0, high=1, name="dep")
        with pytest.raises(ValueError, match="in a batch"):
            dep.score_text("<answer>[]</answer>", [])


# ----------------------------------------------------------------------------- the grid's instance keys


def test_the_grid_keeps_a_short_digest_per_episode_and_counts_as_the_full_key_does() -> None:
    """agents.evaluate's grid keeps one key per episode and variant: the scenario's JSON is tens of kB
    on CrossApp hard (hundreds of MB for a grid with many episodes); a digest is kept instead, and
    neutral_instances counts exactly as equality of the full instance_key does."""
    from agents.evaluate import _InstanceLog, instance_key, make_env, neutral_instances
    from guigym.variation import grid

    env = _InstanceLog(make_env("GuiGym-CrossApp-v0"))
    env.reset(seed=0, options={"level": "hard"})
    assert len(instance_key(env)) > 5000 and len(env.keys[0]) <= 64
    env.close()

    variants = [v for v in grid("train") if v[0] in ("neutral", "theme=blue", "theme=dark", "font=serif", "templates=train")]
    seeds = list(range(12))
    full: dict[str, list[str]] = {}
    for name, var in variants:
        e = make_env("GuiGym-Launcher-v0", variation=dict(var), split="train")
        full[name] = []
        for s in seeds:
            e.reset(seed=s, options={"level": "easy"})
            full[name].append(instance_key(e))
        e.close()
    want = {n: sum(a == b for a, b in zip(k, full["neutral"])) for n, k in full.items()}
    assert neutral_instances("GuiGym-Launcher-v0", "easy", variants, "train", seeds) == want
    assert 0 < want["templates=train"] < len(seeds)  # both kinds of seed are in the sample


def test_an_appearance_axis_is_neutral_only_where_the_seed_already_looks_so() -> None:
    """The suspicion that theme / font / font_scale / density change only the variation record (so a
    variant would be called neutral while its screens differ): they change scenario["theme"], so a
    theme variant is the neutral instance exactly on the seeds whose own theme is that palette, and
    font, font_scale and density never are."""
    import gymnasium as gym

    from agents.evaluate import neutral_instances
    from guigym.variation import PALETTES, grid

    seeds = list(range(20))
    names = ("neutral", "theme=blue", "theme=green", "theme=dark", "font=serif", "font_scale=0.85", "density=compact")
    variants = [v for v in grid("train") if v[0] in names]
    same = neutral_instances("GuiGym-Login-v0", "easy", variants, "train", seeds)
    env = gym.make("GuiGym-Login-v0", disable_env_checker=True)
    own = []
    for s in seeds:
        env.reset(seed=s, options={"level": "easy"})
        own.append(json.loads(json.dumps(env.unwrapped.scenario["theme"])))
    env.close()
    for t in ("blue", "green", "dark"):
        assert same[f"theme={t}"] == sum(o == json.loads(json.dumps(PALETTES[t])) for o in own)
    assert same["font=serif"] == same["font_scale=0.85"] == same["density=compact"] == 0
    assert same["neutral"] == len(seeds)


# ----------------------------------------------------------------------------- completion_text


def test_completion_text_in_tool_loops_reads_the_turn_that_made_the_first_call() -> None:
    from guigym.rewards.trl import completion_text

    def fn(args: object) -> dict:
        return {"type": "function", "function": {"name": "click", "arguments": args}}

    call1 = {"role": "assistant", "content": "", "tool_calls": [fn('{"x": 1}')]}
    call2 = {"content": "", "tool_calls": [fn({"x": 2})]}  # no role: TRL's parsed turn
    tool = {"role": "tool", "name": "click", "content": "ok"}
    first = '<tool_call>\n{"name": "click", "arguments": {"x": 1}}\n</tool_call>'
    assert completion_text([call1]) == first
    assert completion_text([call1, tool, call2, tool, {"role": "assistant", "content": "Done."}]) == first  # several rounds
    # a tool message first (no turn of the model before it): the model's last turn, as before a257262
    assert completion_text([tool, {"role": "assistant", "content": "reply"}]) == "reply"
    assert completion_text([{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]) == "b"  # no tool: unchanged


# ----------------------------------------------------------------------------- strict Launcher's note text


@pytest.mark.parametrize("variation, split", [("all", "train"),
                                              ({"language": "de", "templates": "all", "font_scale": 1.3, "density": "dense"}, "test")])
def test_strict_launcher_clears_text_typed_into_a_title_only_note_on_each_level_with_one(variation, split) -> None:
    """The reference's clear step is reachable under a varied look and in German, on every level:
    text typed into the Note field of a note asked for by its title alone is cleared before Save
    (easy and hard: medium's notes always have a text)."""
    env = make("GuiGym-Launcher-v0", strict=True, variation=variation, split=split)
    for level in ("easy", "hard"):
        checked = 0
        for seed in range(40):
            _, info = env.reset(seed=seed, options={"level": level})
            notes = [t for t in env.unwrapped.scenario["task"]["tasks"] if t["type"] == "note"]
            if not notes or notes[0]["body"] is not None:
                continue
            while info["reference"][0].event.widget != "save":
                *_, info = env.step(info["reference"][0].action)
            tap(env, "body")
            *_, info = env.step(Type("  Some Text  "))
            assert info["reference"][0].event.widget == "body" and info["reference"][0].event.value == ""
            run = follow_reference(env, info, 20)
            assert run.success, (level, seed)
            assert env.unwrapped.get_state()["state"]["apps"]["Notes"]["data"]["notes"][-1]["body"] == ""
            checked += 1
            if checked == 2:
                break
        assert checked == 2, level
    env.close()


# ----------------------------------------------------------------------------- answer_failure


@pytest.mark.parametrize("family", ["Calendar", "Contacts", "Mail", "Messages", "Phone", "Shop"])
def test_the_right_answer_at_reset_is_a_success_or_early_never_wrong(family) -> None:
    """answer_failure compares as success does (the same fact, answers_match), in English and German:
    the reference's own answer, given at once, is a success or EARLY_ANSWER; nonsense is WRONG_ANSWER."""
    seen = 0
    for kw in ({}, {"variation": {"language": "de"}, "split": "test"}):
        env = make(f"GuiGym-{family}-v0", **kw)
        for level in ("easy", "hard"):
            for seed in range(8):
                _, info = env.reset(seed=seed, options={"level": level})
                answers = [s.action for s in info["reference"] if isinstance(s.action, Answer)]
                if not env.unwrapped.family.question(env.unwrapped.scenario) or not answers:
                    continue
                snap = env.unwrapped.get_state()
                *_, term, _, info = env.step(answers[-1])
                assert term and (info["success"] or info["failure"] == EARLY_ANSWER), (kw, level, seed, info["failure"])
                env.unwrapped.set_state(snap)
                *_, term, _, info = env.step(Answer("zzz qqq 12345"))
                assert term and info["failure"] == WRONG_ANSWER
                seen += 1
        env.close()
    assert seen
