"""Measuring robustness across variants (``python -m agents.evaluate --variations grid`` and
``benchmarks/reproduce.py --table robustness``): a grid variant whose axis the id or level does
not show (icons, layout, templates, permission, descriptions on Login easy; ``labels=train``
everywhere) ran the neutral row's episodes again without a word, and counted in the spread as a
variant; now it is marked, and the spread is given without those too. The rest guards what held:
the neutral variant is the plain instance, every variant's value is applied and is its split's,
and an episode is a function of its seed alone (order, subset), the noisy oracle included."""

from __future__ import annotations

import concurrent.futures
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import guigym.variation as variation
from agents.evaluate import evaluate, main, make_env
from agents.executors import ElementExecutor
from agents.plan_act import PlanActAgent
from agents.planners import OraclePlanner
from guigym.variation import AXES, NEUTRAL, grid

LOGIN = "GuiGym-Login-v0"


def _quiet_make(env_id, **kw):
    with warnings.catch_warnings():  # gym.make's warning for an axis the family does not show
        warnings.simplefilter("ignore")
        return make_env(env_id, **kw)


def _screens(env, seed, level, steps=40):
    """The screenshots and instruction along the oracle's reference from reset (what an agent
    that follows the task sees)."""
    obs, info = env.reset(seed=seed, options={"level": level})
    out = [obs["instruction"], obs["screenshot"].tobytes()]
    for _ in range(steps):
        if not info["reference"]:
            break
        obs, _, term, trunc, info = env.step(info["reference"][0].action)
        out.append(obs["screenshot"].tobytes())
        if term or trunc:
            break
    return out


def _pick(split, names):
    return [(n, v) for n, v in grid(split) if n in names]


def test_grid_marks_the_variants_that_are_the_neutral_instance(monkeypatch, capsys):
    names = ("neutral", "theme=blue", "density=compact", "icons=recoloured", "templates=train", "layout=grid", "labels=train")
    some = _pick("train", names)
    assert len(some) == len(names)
    monkeypatch.setattr(variation, "grid", lambda split, opt_in=False: some)
    seeds = [10000, 10001, 10002]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["--env", LOGIN, "--level", "easy", "--noise", "0.3", "--episodes", "3", "--seed", "10000",
                     "--variations", "grid", "--no-progress"]) == 0
    out = capsys.readouterr().out
    lines = {n: next(ln for ln in out.splitlines() if f"] {n:30} success" in ln) for n, _ in some}
    for n in ("icons=recoloured", "templates=train", "layout=grid", "labels=train"):  # Login easy shows none of them
        assert "[the neutral instance on every seed" in lines[n], lines[n]
    for n in ("layout=grid", "labels=train"):  # never on Login: gym.make warns of layout, labels=train never shows
        assert "(the axis does not show here)" in lines[n]
    assert "neutral instance" not in lines["density=compact"] and "neutral instance" not in lines["neutral"]
    # every seed's rate as the unwrapped evaluation gives it (the marking changes no number)
    rates = []
    for n, v in some:
        env = _quiet_make(LOGIN, variation=v, split="train")
        agent = PlanActAgent(OraclePlanner(horizon=8, noise=0.3), ElementExecutor())
        rates.append(evaluate(env, agent, seeds, "easy")[0]["success_rate"])
        env.close()
        assert f"{n:30} success {rates[-1]:.1%}" in lines[n]
    r = np.array(rates)
    spread = f"max - min {r.max() - r.min():.1%}, std {r.std():.1%} (population)"
    assert f"spread across {len(some)} variants (neutral included): {spread}" in out
    m = re.search(r"(\d+) variants the neutral instance on every seed \(([^)]*)\); spread across the other (\d+)", out)
    inert = {"icons=recoloured", "templates=train", "layout=grid", "labels=train"}
    assert m and m.group(2).split(", ") == [n for n, _ in some if n in inert]
    assert (int(m.group(1)), int(m.group(3))) == (4, 3)


def test_neutral_instances_agree_with_what_the_screens_show():
    """A variant counted as the neutral instance on a seed shows exactly the neutral screens along
    the oracle's path there; one counted as showing differs in its scenario (and, for the look
    axes, on screen) on the other seeds."""
    from agents.evaluate import neutral_instances

    seeds = [10000, 10001, 10002, 10003]
    for split in ("train", "test"):
        for env_id, level in ((LOGIN, "easy"), (LOGIN, "hard")):
            variants = grid(split)
            same = neutral_instances(env_id, level, variants, split, seeds)
            assert same["neutral"] == len(seeds) and set(same) == {n for n, _ in variants}
            plain = _quiet_make(env_id)
            base = {s: _screens(plain, s, level) for s in seeds}
            for n, v in variants:
                if not same[n] and n.split("=")[0] not in ("theme", "font_scale", "font", "density", "popup", "adversarial",
                                                           "instruction_style", "labels"):
                    continue  # a later screen may show it (a template the path does not reach): only the look is read
                env = _quiet_make(env_id, variation=v, split=split)
                seen = [_screens(env, s, level) == base[s] for s in seeds]
                env.close()
                if same[n] == len(seeds):
                    assert all(seen), (env_id, level, split, n)
                elif same[n] == 0 and n != "labels=train":
                    assert not all(seen), (env_id, level, split, n)
    expected = {"icons=recoloured", "templates=train", "layout=grid", "permission=on_open", "descriptions=short",
                "descriptions=long", "labels=train"}
    same = neutral_instances(LOGIN, "easy", grid("train"), "train", seeds)
    assert {n for n, k in same.items() if n != "neutral" and k == len(seeds)} == expected
    hard = neutral_instances(LOGIN, "hard", _pick("train", ("neutral", "icons=recoloured")), "train", seeds)
    assert hard["icons=recoloured"] < len(seeds)  # Login hard has a home screen: the icons show


def test_robustness_table_marks_neutral_rows_and_gives_the_spread_without_them(tmp_path, monkeypatch):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import reproduce

    rate = {"neutral": 0.9, "icons=recoloured": 0.9, "density=compact": 0.1, "icons=shuffled": 0.9, "density=dense": 0.3}

    def fake_grid(path, split, seeds):
        names = ("neutral", "icons=recoloured", "density=compact") if split == "train" else ("neutral", "icons=shuffled", "density=dense")
        return {n: rate[n] for n in names}

    monkeypatch.setattr(reproduce, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(reproduce, "_train_seeds", lambda *a, **k: [])
    monkeypatch.setattr(reproduce, "_policy_grid", fake_grid)
    monkeypatch.setattr(reproduce, "ProcessPoolExecutor", concurrent.futures.ThreadPoolExecutor)
    text = reproduce.robustness_table(reproduce.Args(table="robustness", seeds=[1, 2], out=str(tmp_path / "runs")))
    rows = [line.split("|")[2].strip() for line in text.splitlines() if line.startswith("| t")]
    assert rows == ["neutral", "icons=recoloured (= neutral)", "density=compact", "neutral", "icons=shuffled (= neutral)",
                    "density=dense"]
    # the published spread (every variant, neutral included) as before; then the one without the repeated rows
    assert "plain, train split: max − min 80 points, std 37.7, mean 63.3 %" in text  # (0.9, 0.9, 0.1)
    without = text.split("Without them: ")[1]
    assert "icons=recoloured, icons=shuffled" in text
    assert "plain, train split: max − min 80 points, std 40.0, mean 50.0 %" in without  # (0.9, 0.1)
    assert "varied, test split: max − min 60 points, std 30.0, mean 60.0 %" in without  # (0.9, 0.3)
    saved = (tmp_path / "results" / "robustness.json").read_text()
    assert '"icons=recoloured": 0.9' in saved  # the JSON keeps the variants' own names


@pytest.mark.parametrize("split", ["train", "test"])
def test_each_variant_applies_its_own_split_value_on_every_episode(split, monkeypatch):
    """``info["variation"]`` is the variant on every seed, and every value is the split's (or the
    axis's neutral one): a grid of ``--split test`` never runs a train-only value it chose."""
    other = "train" if split == "test" else "test"
    made = []
    real = make_env

    def spy(env_id, *a, **kw):
        made.append((kw.get("variation"), kw.get("split")))
        return real(env_id, *a, **kw)

    for n, v in grid(split):
        axis = [a for a in v if v[a] != NEUTRAL[a]]
        assert len(axis) == (0 if n == "neutral" else 1)
        for a in axis:
            assert v[a] in AXES[a][split] and v[a] not in AXES[a][other] and n == f"{a}={v[a]}"
    import agents.evaluate as ev

    monkeypatch.setattr(ev, "make_env", spy)
    some = _pick(split, {n for n, _ in grid(split)[:3]} | {"popup=cookie", "popup=update", "adversarial=injection"})
    monkeypatch.setattr(variation, "grid", lambda s, opt_in=False: some)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["--env", "GuiGym-Shop-v0", "--level", "easy", "--episodes", "2", "--seed", "10000",
                     "--variations", "grid", "--split", split, "--no-progress"]) == 0
    graded = [m for m in made if m[0] is not None]
    assert [m[0] for m in graded] == [v for _, v in some] and {m[1] for m in graded} == {split}
    for _, v in some:
        env = _quiet_make("GuiGym-Shop-v0", variation=v, split=split)
        for s in (10000, 10001):
            _, info = env.reset(seed=s, options={"level": "easy"})
            assert info["variation"] == v
        env.close()


def test_the_neutral_variant_is_the_plain_instance_in_both_splits():
    for env_id in (LOGIN, "GuiGym-Shop-v0", "GuiGym-Mail-v0"):
        plain = make_env(env_id)
        for split in ("train", "test"):
            neutral = make_env(env_id, variation=dict(grid(split)[0][1]), split=split)
            assert grid(split)[0][0] == "neutral"
            for s in (10000, 10001):
                assert _screens(neutral, s, "easy") == _screens(plain, s, "easy")
            neutral.close()
        plain.close()


def test_a_variant_episode_is_a_function_of_its_seed_alone():
    """The noisy oracle reseeds its generator from the episode's seed: the same records in any
    order, alone or among others (so a job's numbers do not depend on how many run, nor on what
    ran before it in the same worker)."""
    v = dict(_pick("test", ("popup=update",))[0][1])
    seeds = [10000, 10001, 10002, 10003]

    def run(order):
        env = make_env(LOGIN, max_steps=40, variation=v, split="test")
        _, recs = evaluate(env, PlanActAgent(OraclePlanner(horizon=8, noise=0.5), ElementExecutor()), order, "easy")
        env.close()
        return {r.seed: (r.success, r.steps, [a for a in r.to_dict()["actions"]]) for r in recs}

    together = run(seeds)
    assert run(seeds[::-1]) == together
    assert run([seeds[2]]) == {seeds[2]: together[seeds[2]]}
    assert len({str(x) for x in together.values()}) > 1  # the noise does act


def test_a_bad_variations_value_is_a_usage_error(capsys):
    for argv in (["--variations", "gird"], ["--variations", "theme=blue"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "--variations" in err and "'grid'" in err and "'all'" in err
