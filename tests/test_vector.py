"""Vector envs: every vectorization mode delivers what the single env does (instruction and
history included) for every registered id; guigym's vector env contains faults (an env that
raises, a SIGKILLed or hung worker) and always closes promptly, leaving no process."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from guigym.vector import GuiVectorEnv
from tests.conftest import IDS

N = 2  # envs per vector env
STEPS = 7  # with max_episode_steps=3: two autoresets inside the rollout
MAX_STEPS = 3


def actions(env_id: str, steps: int, n: int = N) -> list[dict[str, Any]]:
    """Fixed random batched actions (the same for every mode)."""
    space = gym.make(env_id).action_space
    space.seed(7)
    return [[space.sample() for _ in range(n)] for _ in range(steps)]


def stack(batch: list[dict[str, Any]], space: gym.Space) -> Any:
    return gym.vector.utils.concatenate(space, batch, gym.vector.utils.create_empty_array(space, n=len(batch)))


def single_rollout(env_id: str, seed: int, acts: list[dict[str, Any]], mode: AutoresetMode, **kw: Any) -> list[tuple]:
    """What env ``seed`` of a vector env must return per step: a single env driven with the
    autoreset rule of ``mode`` by hand. Entries: (obs, reward, terminated, truncated, final_obs)."""
    env = gym.make(env_id, **kw)
    obs, _ = env.reset(seed=seed)
    out = [(obs, 0.0, False, False, None)]
    done = False
    for a in acts:
        if done and mode == AutoresetMode.NEXT_STEP:
            obs, _ = env.reset()
            out.append((obs, 0.0, False, False, None))
            done = False
            continue
        obs, r, te, tr, _ = env.step(a)
        final = None
        if (te or tr) and mode == AutoresetMode.SAME_STEP:
            final, (obs, _) = obs, env.reset()
        out.append((obs, r, te, tr, final))
        done = te or tr
    env.close()
    return out


def assert_obs_equal(got: dict[str, Any], want: dict[str, Any], where: str) -> None:
    assert set(got) == set(want), where
    for k in want:
        if k == "elements":
            assert len(got[k]) == len(want[k]), where
            for g, w in zip(got[k], want[k]):
                assert g["id"] == w["id"] and g["label"] == w["label"] and g["role"] == w["role"], where
                assert np.array_equal(g["box"], w["box"]), where
        elif isinstance(want[k], np.ndarray):
            assert np.array_equal(got[k], want[k]), f"{where}: {k} differs"
        else:
            assert got[k] == want[k], f"{where}: {k}: {got[k]!r} != {want[k]!r}"


def check_against_single(venv: gym.vector.VectorEnv, env_id: str, mode: AutoresetMode, seed: int = 11, **kw: Any) -> None:
    n = venv.num_envs
    acts = actions(env_id, STEPS, n)
    want = [single_rollout(env_id, seed + i, [a[i] for a in acts], mode, max_episode_steps=MAX_STEPS, **kw) for i in range(n)]

    def unbatch(obs: Any, i: int) -> dict[str, Any]:
        return {k: v[i] for k, v in obs.items()}

    obs, _ = venv.reset(seed=seed)
    for i in range(n):
        assert_obs_equal(unbatch(obs, i), want[i][0][0], f"{type(venv).__name__} reset env {i}")
    dones = 0
    for t, a in enumerate(acts, start=1):
        obs, r, te, tr, info = venv.step(stack(a, venv.single_action_space))
        for i in range(n):
            w_obs, w_r, w_te, w_tr, w_final = want[i][t]
            where = f"{type(venv).__name__} {mode.value} step {t} env {i}"
            assert_obs_equal(unbatch(obs, i), w_obs, where)
            assert (r[i], te[i], tr[i]) == (w_r, w_te, w_tr), where
            if w_final is not None:
                assert info["_final_obs"][i], where
                assert_obs_equal(info["final_obs"][i], w_final, where + " final_obs")
            dones += bool(te[i] or tr[i])
    assert dones >= 2, "the rollout should cross episode ends (autoreset)"
    assert "worker_failed" not in info


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("vmode", ["sync", "async", "vector_entry_point"])
def test_every_mode_matches_the_single_env(env_id: str, vmode: str) -> None:
    """Defaults only (no shared_memory=False): the instruction and history arrive every step."""
    kw = {"extra_obs": ("history",), "max_episode_steps": MAX_STEPS}
    if vmode == "vector_entry_point":
        kw["envs_per_worker"] = 1  # one env per worker, whatever the machine's cores (the default's rule)
    venv = gym.make_vec(env_id, num_envs=N, vectorization_mode=vmode, **kw)
    try:
        if vmode == "vector_entry_point":
            assert isinstance(venv, GuiVectorEnv)
        check_against_single(venv, env_id, AutoresetMode.NEXT_STEP, extra_obs=("history",))
    finally:
        venv.close()


@pytest.mark.parametrize("env_id", IDS)
def test_several_envs_per_worker_match_the_single_env(env_id: str) -> None:
    """Three envs in two workers (two, then one): each env still gets exactly its own episode."""
    kw = {"extra_obs": ("history",), "max_episode_steps": MAX_STEPS}
    venv = gym.make_vec(env_id, num_envs=3, envs_per_worker=2, **kw)
    try:
        assert [list(r) for r in venv.worker_envs] == [[0, 1], [2]]
        assert venv.processes[0] is venv.processes[1] is not venv.processes[2]
        check_against_single(venv, env_id, AutoresetMode.NEXT_STEP, extra_obs=("history",))
    finally:
        venv.close()


def test_several_envs_per_worker_same_step_and_elements() -> None:
    kw = {"extra_obs": ("elements", "history"), "max_episode_steps": MAX_STEPS}
    venv = gym.make_vec("GuiGym-Launcher-v0", 3, envs_per_worker=3, autoreset_mode="SameStep", **kw)
    try:
        assert len({p.pid for p in venv.processes}) == 1
        check_against_single(venv, "GuiGym-Launcher-v0", AutoresetMode.SAME_STEP, extra_obs=("elements", "history"))
    finally:
        venv.close()


def test_default_make_vec_is_guigyms(monkeypatch: pytest.MonkeyPatch) -> None:
    import guigym.vector as vector

    venv = gym.make_vec("GuiGym-Settings-v0", num_envs=N, envs_per_worker=1)
    try:
        assert isinstance(venv, GuiVectorEnv) and repr(venv) == "GuiVectorEnv(GuiGym-Settings-v0, num_envs=2)"
    finally:
        venv.close()
    # the default: at most one mock worker per usable core, as few envs in each as that allows
    for cores, n, per in [(2, 2, 1), (2, 5, 3), (4, 8, 2), (16, 3, 1), (1, 3, 3)]:
        monkeypatch.setattr(vector, "_usable_cores", lambda c=cores: c)
        venv = gym.make_vec("GuiGym-Login-v0", num_envs=n)
        try:
            assert venv.envs_per_worker == per and len(venv.worker_envs) == -(-n // per), (cores, n)
            assert len({p.pid for p in venv.processes}) == len(venv.worker_envs)
        finally:
            venv.close()
    with pytest.raises(ValueError, match="envs_per_worker"):
        GuiVectorEnv([login], envs_per_worker=0)


@pytest.mark.parametrize("vmode", ["async", "vector_entry_point"])
def test_same_step_autoreset_matches(vmode: str) -> None:
    kw = {"extra_obs": ("history",), "max_episode_steps": MAX_STEPS}
    if vmode == "async":
        venv = gym.make_vec("GuiGym-Login-v0", N, vectorization_mode=vmode, vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}, **kw)
    else:
        venv = gym.make_vec("GuiGym-Login-v0", N, autoreset_mode="SameStep", **kw)
    try:
        check_against_single(venv, "GuiGym-Login-v0", AutoresetMode.SAME_STEP, extra_obs=("history",))
    finally:
        venv.close()


def test_elements_go_through_the_pipe() -> None:
    kw = {"extra_obs": ("elements", "history"), "max_episode_steps": MAX_STEPS}
    venv = gym.make_vec("GuiGym-Launcher-v0", N, **kw)
    try:
        check_against_single(venv, "GuiGym-Launcher-v0", AutoresetMode.NEXT_STEP, extra_obs=("elements", "history"))
    finally:
        venv.close()


def test_elements_in_gymnasium_shared_memory_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match=r"make_vec\(id, n\).*shared_memory=False"):
        gym.make_vec("GuiGym-Login-v0", N, vectorization_mode="async", extra_obs=("elements",))


def test_copy_false_gives_live_views_and_copies_are_plain() -> None:
    venv = gym.make_vec("GuiGym-Login-v0", N, copy=False)
    try:
        obs, _ = venv.reset(seed=0)
        first = obs["instruction"][0]
        assert isinstance(obs["screenshot"], np.ndarray) and not obs["screenshot"].flags.owndata
        venv.reset(seed=100)
        assert obs["instruction"][0] != first  # a view: shows the new episode
        import copy

        assert type(copy.deepcopy(obs)["instruction"]) is tuple
    finally:
        venv.close()


def test_api_call_attrs_seeding_reset_mask() -> None:
    venv = gym.make_vec("GuiGym-Login-v0", N, level="medium")
    try:
        a, _ = venv.reset(seed=5)
        b, _ = venv.reset(seed=5)
        assert a["instruction"] == b["instruction"] and np.array_equal(a["screenshot"], b["screenshot"])
        assert venv.get_attr("level") == ("medium", "medium")
        venv.set_attr("level", ["easy", "hard"])
        assert venv.get_attr("level") == ("easy", "hard")
        assert [len(r) for r in venv.call("reference")] == [len(r) for r in venv.call("reference")]
        with pytest.raises(AttributeError):
            venv.get_attr("no_such_attribute")
        c, _ = venv.reset(seed=9, options={"reset_mask": np.array([False, True])})
        assert c["instruction"][0] == b["instruction"][0] and c["instruction"][1] != b["instruction"][1]
        with pytest.raises(ValueError, match="unknown level"):
            venv.reset(options={"level": "impossible"})
        obs, *_ = venv.step(venv.action_space.sample())  # still usable after the errors
        assert len(obs["instruction"]) == N
        assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    finally:
        venv.close()


# ------------------------------------------------------------------------------ faults


class Boom(gym.Wrapper):
    """Raises in its ``at``-th step (counted from the env's creation)."""

    def __init__(self, env: gym.Env, at: int) -> None:
        super().__init__(env)
        self.n, self.at = 0, at

    def step(self, action: Any) -> Any:
        self.n += 1
        if self.n == self.at:
            raise RuntimeError(f"boom at step {self.n}")
        return self.env.step(action)


class Hang(Boom):
    def step(self, action: Any) -> Any:
        self.n += 1
        if self.n == self.at:
            time.sleep(120)
        return self.env.step(action)


def login(level: str = "easy") -> gym.Env:
    return gym.make("GuiGym-Login-v0", level=level)


def no_process_left(procs: list[Any]) -> bool:
    return all(p is None or not p.is_alive() for p in procs)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_env_exception_is_reported_restarted_and_the_others_go_on(mode: AutoresetMode) -> None:
    venv = GuiVectorEnv([login, lambda: Boom(login(), 3)], autoreset_mode=mode)
    ref = gym.make("GuiGym-Login-v0")  # what env 0 must keep doing
    try:
        obs, _ = venv.reset(seed=[0, 1])
        ref.reset(seed=0)
        acts = actions("GuiGym-Login-v0", 6)
        old_pid = venv.processes[1].pid
        for t, a in enumerate(acts, start=1):
            if t == 4 and mode == AutoresetMode.DISABLED:  # the failed env's episode ended: the caller resets it
                with pytest.raises(gym.error.ResetNeeded, match=r"envs \[1\] ended"):
                    venv.step(stack(a, venv.single_action_space))
                obs, _ = venv.reset(options={"reset_mask": np.array([False, True])})
                assert_obs_equal({k: v[1] for k, v in obs.items()}, venv.call("observe")[1], "reset after the failure")
            prev = {k: v[1] for k, v in obs.items()}
            obs, r, te, tr, info = venv.step(stack(a, venv.single_action_space))
            w_obs, *_ = ref.step(a[0])
            assert np.array_equal(obs["screenshot"][0], w_obs["screenshot"]), "the healthy env must carry on undisturbed"
            if t < 3:
                assert "worker_failed" not in info
            elif t == 3:
                assert list(info["worker_failed"]) == [False, True] and list(info["_worker_failed"]) == [False, True]
                assert "RuntimeError: boom at step 3" in info["worker_error"][1]
                assert (r[1], te[1], tr[1]) == (0.0, False, True)
                assert venv.restarts == [0, 1] and venv.processes[1].pid != old_pid
                if mode == AutoresetMode.SAME_STEP:  # a new episode now; the last observation is final_obs
                    assert_obs_equal(info["final_obs"][1], prev, "final_obs")
                    assert info["final_info"]["worker_failed"][1]
                    assert not np.array_equal(obs["screenshot"][1], prev["screenshot"]) or obs["instruction"][1] != prev["instruction"]
                else:  # the last observation again
                    assert_obs_equal({k: v[1] for k, v in obs.items()}, prev, "last obs")
            elif t == 4 and mode == AutoresetMode.NEXT_STEP:  # the restarted worker's first step: a new episode
                assert (r[1], te[1], tr[1]) == (0.0, False, False) and "worker_failed" not in info
                fresh = venv.call("observe")[1]
                assert_obs_equal({k: v[1] for k, v in obs.items()}, fresh, "new episode")
    finally:
        venv.close()
        ref.close()


def test_sigkilled_worker_is_restarted_and_close_leaves_nothing() -> None:
    venv = gym.make_vec("GuiGym-Login-v0", 3, envs_per_worker=1)
    seen = list(venv.processes)
    try:
        venv.reset(seed=0)
        os.kill(venv.processes[1].pid, signal.SIGKILL)
        obs, r, te, tr, info = venv.step(venv.action_space.sample())
        assert list(info["worker_failed"]) == [False, True, False]
        assert "SIGKILL" in info["worker_error"][1] and tr[1] and not tr[0] and not tr[2]
        seen += venv.processes
        for _ in range(3):  # the replacement works; so do the others
            obs, r, te, tr, info = venv.step(venv.action_space.sample())
            assert "worker_failed" not in info
        assert all(obs["instruction"]) and venv.restarts == [0, 1, 0]
        os.kill(venv.processes[2].pid, signal.SIGKILL)  # killed between steps: noticed by reset too
        time.sleep(0.2)
        obs, info = venv.reset(seed=3)
        assert list(info["worker_failed"]) == [False, False, True] and all(obs["instruction"])
        # found on the send, in the words (docs/vector.md) a kill during a step gets on the receive
        assert info["worker_error"][2].startswith("worker process died: exit code -9 (signal SIGKILL) ("), info["worker_error"][2]
        seen += venv.processes
    finally:
        t = time.monotonic()
        venv.close()
        assert time.monotonic() - t < 3
    assert no_process_left(seen)


def test_hung_worker_is_killed_after_worker_timeout_and_close_is_prompt() -> None:
    venv = GuiVectorEnv([login, lambda: Hang(login(), 2)], worker_timeout=2.0, close_timeout=1.0)
    seen = list(venv.processes)
    try:
        venv.reset(seed=0)
        venv.step(venv.action_space.sample())
        t = time.monotonic()
        obs, r, te, tr, info = venv.step(venv.action_space.sample())
        assert time.monotonic() - t < 6
        assert list(info["worker_failed"]) == [False, True] and "did not answer within 2.0 s" in info["worker_error"][1]
        seen += venv.processes
        venv.step(venv.action_space.sample())
        venv.step(venv.action_space.sample())  # step 2 of the new worker hangs again: close while it is in flight
        venv.step_async(venv.action_space.sample())
    finally:
        t = time.monotonic()
        venv.close()
        assert time.monotonic() - t < 5
    assert no_process_left(seen)


def test_max_restarts_raises() -> None:
    venv = GuiVectorEnv([login, lambda: Boom(login(), 1)], max_restarts=2)
    try:
        venv.reset(seed=0)
        for _ in range(2):
            _, _, _, _, info = venv.step(venv.action_space.sample())
            assert info["worker_failed"][1]
            venv.step(venv.action_space.sample())  # NEXT_STEP: the new episode's first step resets
        with pytest.raises(RuntimeError, match="max_restarts=2"):
            venv.step(venv.action_space.sample())
    finally:
        venv.close()


_MADE_IN: set[int] = set()


def login_once_per_process() -> gym.Env:
    """Login that raises at step 2, and cannot be made a second time in the same process."""
    if os.getpid() in _MADE_IN:
        raise RuntimeError("cannot make it again here")
    _MADE_IN.add(os.getpid())
    return Boom(login(), 2)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_env_that_raises_is_made_anew_and_its_worker_mates_carry_on(mode: AutoresetMode) -> None:
    """Two envs in one worker: the one that raises is made anew in the worker (same process);
    the other's episode goes on undisturbed, in every autoreset mode."""
    venv = GuiVectorEnv([login, lambda: Boom(login(), 3), login], envs_per_worker=2, autoreset_mode=mode)
    refs = [gym.make("GuiGym-Login-v0") for _ in range(2)]  # what envs 0 and 2 must keep doing
    try:
        obs, _ = venv.reset(seed=[0, 1, 2])
        refs[0].reset(seed=0)
        refs[1].reset(seed=2)
        pids = [p.pid for p in venv.processes]
        acts = actions("GuiGym-Login-v0", 6, 3)
        for t, a in enumerate(acts, start=1):
            if t == 4 and mode == AutoresetMode.DISABLED:  # the failed env's episode ended: the caller resets it
                with pytest.raises(gym.error.ResetNeeded, match=r"envs \[1\] ended"):
                    venv.step(stack(a, venv.single_action_space))
                obs, _ = venv.reset(options={"reset_mask": np.array([False, True, False])})
                assert_obs_equal({k: v[1] for k, v in obs.items()}, venv.call("observe")[1], "reset after the failure")
            prev = {k: v[1] for k, v in obs.items()}
            obs, r, te, tr, info = venv.step(stack(a, venv.single_action_space))
            for ref, i in zip(refs, (0, 2)):
                w_obs, w_r, w_te, w_tr, _ = ref.step(a[i])
                assert np.array_equal(obs["screenshot"][i], w_obs["screenshot"]), f"env {i} must carry on undisturbed"
                assert (r[i], te[i], tr[i]) == (w_r, w_te, w_tr)
            if t == 3:
                assert list(info["worker_failed"]) == [False, True, False]
                assert "RuntimeError: boom at step 3" in info["worker_error"][1]
                assert (r[1], te[1], tr[1]) == (0.0, False, True)
                assert venv.restarts == [0, 1, 0] and [p.pid for p in venv.processes] == pids  # no process restarted
                if mode == AutoresetMode.SAME_STEP:
                    assert_obs_equal(info["final_obs"][1], prev, "final_obs")
                    assert_obs_equal({k: v[1] for k, v in obs.items()}, venv.call("observe")[1], "a new episode now")
                else:
                    assert_obs_equal({k: v[1] for k, v in obs.items()}, prev, "last obs")
            elif t == 4 and mode == AutoresetMode.NEXT_STEP:  # the new env's first step: a new episode
                assert (r[1], te[1], tr[1]) == (0.0, False, False) and "worker_failed" not in info
                assert_obs_equal({k: v[1] for k, v in obs.items()}, venv.call("observe")[1], "new episode")
            elif t < 3:  # (the env made anew raises again at its own third step)
                assert "worker_failed" not in info
    finally:
        venv.close()
        for ref in refs:
            ref.close()


def test_two_worker_mates_that_raise_in_the_same_step_are_both_made_anew() -> None:
    venv = GuiVectorEnv([lambda: Boom(login(), 2)] * 2 + [login], envs_per_worker=2)
    try:
        venv.reset(seed=0)
        pids = [p.pid for p in venv.processes]
        venv.step(venv.action_space.sample())
        _, _, _, tr, info = venv.step(venv.action_space.sample())
        assert list(info["worker_failed"]) == [True, True, False] and list(tr) == [True, True, False]
        assert all("boom at step 2" in info["worker_error"][i] for i in (0, 1))
        assert venv.restarts == [1, 1, 0] and [p.pid for p in venv.processes] == pids
        obs, r, te, tr, info = venv.step(venv.action_space.sample())  # both: a new episode
        assert "worker_failed" not in info and all(obs["instruction"])
    finally:
        venv.close()


def test_env_that_cannot_be_made_anew_restarts_its_worker() -> None:
    """Making the env anew fails too: the worker is restarted, and its other env's episode ends with it."""
    venv = GuiVectorEnv([login, login_once_per_process, login], envs_per_worker=2)
    seen = list(venv.processes)
    try:
        venv.reset(seed=0)
        old = venv.processes[0].pid
        venv.step(venv.action_space.sample())
        _, _, _, tr, info = venv.step(venv.action_space.sample())
        assert list(info["worker_failed"]) == [True, True, False] and list(tr) == [True, True, False]
        assert "boom at step 2" in info["worker_error"][1] and "restarted with its worker" in info["worker_error"][0]
        assert venv.processes[0].pid != old and venv.restarts == [1, 2, 0]
        seen += venv.processes
        obs, r, te, tr, info = venv.step(venv.action_space.sample())  # the new worker's envs: new episodes
        assert "worker_failed" not in info and list(r[:2]) == [0.0, 0.0] and not (te[:2].any() or tr[:2].any())
        assert all(obs["instruction"])
    finally:
        venv.close()
    assert no_process_left(seen)


def test_sigkilled_worker_of_several_envs_fails_them_all_and_the_others_go_on() -> None:
    venv = GuiVectorEnv([login] * 3, envs_per_worker=2)
    seen = list(venv.processes)
    try:
        venv.reset(seed=0)
        os.kill(venv.processes[0].pid, signal.SIGKILL)
        obs, r, te, tr, info = venv.step(venv.action_space.sample())
        assert list(info["worker_failed"]) == [True, True, False] and list(tr) == [True, True, False]
        assert "SIGKILL" in info["worker_error"][0] and venv.restarts == [1, 1, 0]
        seen += venv.processes
        for _ in range(3):
            obs, *_, info = venv.step(venv.action_space.sample())
            assert "worker_failed" not in info
        assert all(obs["instruction"])
    finally:
        venv.close()
    assert no_process_left(seen)


def test_closing_twice_and_after_a_kill() -> None:
    venv = gym.make_vec("GuiGym-Login-v0", 2)
    seen = list(venv.processes)
    for p in seen:
        os.kill(p.pid, signal.SIGKILL)
    venv.close()
    venv.close()
    assert no_process_left(seen)
    with pytest.raises(gym.error.ClosedEnvironmentError):
        venv.reset()


def running(pid: int) -> bool:
    """``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_die_with_a_sigkilled_parent(tmp_path: Path) -> None:
    """Linux: a parent killed without a chance to close (SIGKILL) takes its workers with it."""
    if not os.path.exists("/proc/self"):
        pytest.skip("needs Linux (PR_SET_PDEATHSIG)")
    import subprocess
    import sys

    script = tmp_path / "parent.py"
    script.write_text("import time, gymnasium as gym, guigym\n"
                      "v = gym.make_vec('GuiGym-Login-v0', 2)\nv.reset(seed=0)\n"
                      "print(' '.join(str(p.pid) for p in v.processes), flush=True)\ntime.sleep(120)\n")
    root = Path(__file__).resolve().parents[1]
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=root,
                              env={**os.environ, "PYTHONPATH": str(root)})
    try:
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert len(workers) == 2
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [w for w in workers if running(w)]
    assert alive == []


# ------------------------------------------------------------------------------ SB3


def test_sb3_subproc_vec_env_through_the_wrappers() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from guigym.wrappers import make_sb3_env

    # fork: SB3's default (forkserver) works too but starts each worker with fresh imports (~10 s here)
    venv = SubprocVecEnv([lambda: make_sb3_env("GuiGym-Login-v0", max_episode_steps=4) for _ in range(2)], start_method="fork")
    try:
        obs = venv.reset()
        assert obs["image"].shape == (2, 128, 72, 3) and obs["instruction"].shape == (2, 256)
        dones = 0
        for _ in range(5):
            obs, rew, done, infos = venv.step(np.array([venv.action_space.sample() for _ in range(2)]))
            dones += int(done.sum())
        assert dones == 2 and "success" in infos[0] and obs["image"].shape == (2, 128, 72, 3)  # both truncated at step 4
    finally:
        venv.close()


# ------------------------------------------------------------------------------ browser


def marked_chromium(worker_pids: list[int]) -> list[int]:
    """Chromium processes whose command line carries a worker's ``--guigym-instance=<pid>-`` marker
    (found even after a SIGKILLed worker's browser was re-parented)."""
    marks = [f"--guigym-instance={p}-".encode() for p in worker_pids]
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes()
                state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z" and any(m in cmd for m in marks):
                out.append(int(d.name))
    return out


def test_browser_vector_env_matches_single_and_survives_a_kill() -> None:
    """Real headless Chromium (never skipped): each worker starts its own; a killed worker's
    browser goes with it; close leaves none."""
    venv = gym.make_vec("GuiGym-Login-v0", 2, backend="browser", worker_timeout=90)
    single = gym.make("GuiGym-Login-v0", backend="browser")
    pids = [p.pid for p in venv.processes]
    try:
        obs, _ = venv.reset(seed=20)
        want, _ = single.reset(seed=21)
        assert obs["instruction"][1] == want["instruction"] and np.array_equal(obs["screenshot"][1], want["screenshot"])
        ref = single.unwrapped.reference()[0].action
        a = single.unwrapped.action_space.sample()
        a.update(type=0, x=ref.x, y=ref.y)
        obs, *_ = venv.step(stack([a, a], venv.single_action_space))
        want, *_ = single.step(ref)
        assert np.array_equal(obs["screenshot"][1], want["screenshot"])
        assert len(marked_chromium(pids)) >= 2
        os.kill(pids[0], signal.SIGKILL)
        _, _, _, tr, info = venv.step(venv.action_space.sample())
        assert info["worker_failed"][0] and tr[0]
        obs, *_ = venv.step(venv.action_space.sample())  # the restarted worker starts a new browser
        pids += [p.pid for p in venv.processes]
        assert all(obs["instruction"])
    finally:
        single.close()
        t = time.monotonic()
        venv.close()
        assert time.monotonic() - t < 8
    deadline = time.monotonic() + 10
    while marked_chromium(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marked_chromium(pids) == []


def test_workers_hand_frames_to_shared_memory_without_a_copy_and_users_get_their_own() -> None:
    """make_vec's envs hand out read-only views of their kept frames (``share_frames``: the
    worker copies them into shared memory at once); the user's observations are writable copies
    that writing into changes nothing else."""
    env = gym.make("GuiGym-Login-v0")
    env.unwrapped.share_frames = True
    obs, info = env.reset(seed=3)
    assert not obs["screenshot"].flags.writeable and obs["screenshot"].base is env.unwrapped._frame
    with pytest.raises(ValueError):
        obs["screenshot"][0, 0] = 1
    env.close()
    venv = gym.make_vec("GuiGym-Login-v0", 2, envs_per_worker=1)
    ref = gym.make("GuiGym-Login-v0")
    try:
        assert venv.get_attr("share_frames") == (True, True)
        obs, _ = venv.reset(seed=3)
        assert obs["screenshot"].flags.writeable
        obs["screenshot"][:] = 0
        again = venv.call("observe")[0]["screenshot"]
        want, _ = ref.reset(seed=3)
        assert np.array_equal(again, want["screenshot"])
    finally:
        venv.close()
        ref.close()


class Frames(gym.Env):
    """Observations are read-only views of frames ``A``, ``B`` (plain colours) picked by the
    action; action 2 breaks the ``share_frames`` contract: it writes into the frame in view."""

    observation_space = gym.spaces.Box(0, 255, (4, 4, 3), np.uint8)
    action_space = gym.spaces.Discrete(3)

    def __init__(self, share: bool) -> None:
        self.share_frames = share
        self.frames = [np.full((4, 4, 3), 10, np.uint8), np.full((4, 4, 3), 20, np.uint8)]
        self.shown = 0

    def _obs(self) -> np.ndarray:
        view = self.frames[self.shown].view()
        view.flags.writeable = False
        return view

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self.shown = 0
        return self._obs(), {}

    def step(self, action: Any) -> Any:
        if action == 2:
            self.frames[self.shown] += 1  # in place: allowed only without share_frames
        else:
            self.shown = int(action)
        return self._obs(), 0.0, False, False, {}


@pytest.mark.parametrize("share", [True, False])
def test_a_slot_skips_only_the_frame_it_holds_and_only_under_share_frames(share: bool) -> None:
    """A worker does not copy a frame its slot already holds when the env shares frames (most
    of a random policy's steps change nothing on screen); a frame seen before but not the last
    one is copied again; without ``share_frames`` every frame is copied. Views are read-only."""
    venv = GuiVectorEnv([lambda: Frames(share)] * 2, envs_per_worker=2)
    try:
        first, _ = venv.reset(seed=0)
        assert first[:, 0, 0, 0].tolist() == [10, 10]
        seen = [venv.step(np.array(a))[0][:, 0, 0, 0].tolist() for a in ([1, 0], [0, 0], [1, 1], [0, 1])]
        assert seen == [[20, 10], [10, 10], [20, 20], [10, 20]]  # A, B, A: the second A is copied again
        changed = venv.step(np.array([2, 2]))[0][:, 0, 0, 0].tolist()
        # the same frame object, written in place: a sharing env's slot keeps what it holds
        assert changed == ([10, 20] if share else [11, 21])
        with pytest.raises(ValueError):
            venv.observations[0, 0, 0, 0] = 1  # only workers write to shared memory
    finally:
        venv.close()


def test_worker_threads_step_a_workers_envs_at_once_and_match_the_single_env() -> None:
    """``worker_threads``: each env of a worker resets and steps in a thread of its own; every
    env still gets exactly its own episode (mock: drawing is serialised by the caches' lock)."""
    kw = {"extra_obs": ("history",), "max_episode_steps": MAX_STEPS}
    venv = gym.make_vec("GuiGym-Settings-v0", 3, envs_per_worker=3, worker_threads=True, **kw)
    try:
        assert venv.worker_threads and len(venv.worker_envs) == 1
        check_against_single(venv, "GuiGym-Settings-v0", AutoresetMode.NEXT_STEP, extra_obs=("history",))
    finally:
        venv.close()


def test_browser_envs_in_threads_of_one_worker_match_the_single_env() -> None:
    """Two real Chromium envs in one worker, stepped at once from two threads (their browser
    calls interleave on the worker's event loop): each env's episode is the single env's."""
    kw = {"backend": "browser", "max_episode_steps": MAX_STEPS}
    venv = gym.make_vec("GuiGym-Login-v0", 2, envs_per_worker=2, worker_threads=True, worker_timeout=90, **kw)
    pids = [p.pid for p in venv.processes]
    try:
        assert pids[0] == pids[1]
        check_against_single(venv, "GuiGym-Login-v0", AutoresetMode.NEXT_STEP, backend="browser")
        marks = set()
        for pid in marked_chromium(pids[:1]):  # a browser per env, both started by the one worker
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            marks.add(cmd.split(b"--guigym-instance=", 1)[1].split(b"\0", 1)[0])
        assert len(marks) == 2, marks
    finally:
        venv.close()
    deadline = time.monotonic() + 10
    while marked_chromium(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marked_chromium(pids) == []


class _Echo(gym.Env):
    """An env whose info says what action it was given: each field's type and value."""

    observation_space = gym.spaces.Box(0, 1, (1,), np.float32)
    action_space = gym.spaces.Dict({
        "d": gym.spaces.Discrete(5), "m": gym.spaces.MultiBinary(3), "n": gym.spaces.MultiDiscrete([4, 70000]),
        "b": gym.spaces.Box(-1, 1, (2,), np.float32), "t": gym.spaces.Text(5),
    })

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        return np.zeros(1, np.float32), {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return np.zeros(1, np.float32), 0.0, False, False, {"got": _described(action)}


def _described(action: dict[str, Any]) -> tuple[Any, ...]:
    """Each field of ``action``: its name, type, dtype (of an array) and value."""
    return tuple((k, type(v), v.dtype.str if isinstance(v, np.ndarray) else None, v.tolist() if isinstance(v, np.ndarray) else v)
                 for k, v in action.items())


def test_envs_get_the_actions_gymnasium_iterates_types_included() -> None:
    """Actions reach the envs as the parent's ``iterate`` gives them: numpy scalars stay numpy
    scalars of their dtype (guigym's pipe pickles integer and bool scalars its own way)."""
    venv = GuiVectorEnv([_Echo] * 4, envs_per_worker=2)
    try:
        venv.reset(seed=0)
        venv.action_space.seed(3)
        for _ in range(5):
            batch = venv.action_space.sample()
            _, _, _, _, info = venv.step(batch)
            for i, want in enumerate(gym.vector.utils.iterate(venv.action_space, batch)):
                got = info["got"][i]
                assert got == _described(want)
                assert [type(f[3]) for f in got] == [type(f[3]) for f in _described(want)]  # == alone: 1 == np.int64(1)
                assert dict((f[0], f[1]) for f in got)["d"] is np.int64
    finally:
        venv.close()


def test_pipe_pickling_keeps_numpy_scalars_exact() -> None:
    import pickle

    from guigym.vector import _dumps

    values = [np.int64(-(2**63)), np.int64(2**63 - 1), np.uint64(2**64 - 1), np.int8(-128), np.uint8(255), np.int16(-3),
              np.uint16(7), np.int32(-(2**31)), np.uint32(2**32 - 1), np.bool_(True), np.bool_(False),
              np.float32(np.nan), np.float64(-0.0), np.float16(1.5), 3, True, "x"]
    back = pickle.loads(_dumps(("step", values)))[1]
    assert [type(v) for v in back] == [type(v) for v in values]
    for a, b in zip(back, values):
        assert (np.isnan(a) and np.isnan(b)) if isinstance(b, np.floating) and np.isnan(b) else a == b
    assert np.signbit(back[12]) and np.asarray(back[11]).tobytes() == np.asarray(values[11]).tobytes()


def test_a_list_of_per_env_actions_text_included_steps_each_env_with_its_own() -> None:
    """``step`` takes a list of ``num_envs`` actions too (what a language model's policy gives:
    one action text per env), as ``RayVectorEnv`` does; each env gets its own, as ``env.step``
    would; a list of another length is a ValueError, and the vector env stays usable."""
    from guigym.actions import Back

    venv = gym.make_vec("GuiGym-Login-v0", num_envs=3, envs_per_worker=2)
    singles = [gym.make("GuiGym-Login-v0") for _ in range(3)]
    try:
        _, info = venv.reset(seed=[4, 5, 6])
        refs = [s.reset(seed=seed)[1]["reference"] for s, seed in zip(singles, (4, 5, 6))]
        assert [r[0].action for r in refs] == [r[0].action for r in info["reference"]]
        first = refs[0][0].action
        actions = [f"click(x={first.x}, y={first.y})", Back(), "not an action"]
        obs, _, _, _, info = venv.step(actions)
        for i, (single, action) in enumerate(zip(singles, actions)):
            o, _, _, _, inf = single.step(action)
            assert np.array_equal(obs["screenshot"][i], o["screenshot"]) and obs["instruction"][i] == o["instruction"]
            assert info["action_error"][i] == inf["action_error"]
        assert info["action_error"][0] is None and "could not parse" in info["action_error"][2]
        with pytest.raises(ValueError, match="2 actions for num_envs=3"):
            venv.step(["back()", "back()"])
        venv.step(("back()", "back()", "back()"))  # a tuple too, and the env goes on
    finally:
        venv.close()
        for s in singles:
            s.close()


def test_step_before_reset_is_reset_needed_not_a_worker_failure() -> None:
    """As in Gymnasium, stepping an env never reset is the caller's error: raised at once, no
    worker restarted, no restart counted."""
    venv = GuiVectorEnv([login, login])
    try:
        with pytest.raises(gym.error.ResetNeeded):
            venv.step(["back()", "back()"])
        venv.reset(seed=0, options={"reset_mask": np.array([True, False])})
        with pytest.raises(gym.error.ResetNeeded, match=r"\[1\]"):
            venv.step(["back()", "back()"])
        assert venv.restarts == [0, 0]
        venv.reset(seed=0)
        *_, info = venv.step(["back()", "back()"])
        assert "worker_failed" not in info and venv.restarts == [0, 0]
    finally:
        venv.close()


def test_an_action_that_cannot_be_pickled_raises_before_any_worker_gets_the_step() -> None:
    """No worker is left with a step whose reply the next call would read as its own."""
    import threading

    venv = GuiVectorEnv([login, login])
    ref = login()
    try:
        venv.reset(seed=0)
        with pytest.raises(TypeError, match="pickle"):
            venv.step(["back()", threading.Lock()])
        obs, _ = venv.reset(seed=3)
        want, _ = ref.reset(seed=3)
        assert obs["instruction"][0] == want["instruction"] and np.array_equal(obs["screenshot"][0], want["screenshot"])
        _, _, _, tr, info = venv.step(["back()", "back()"])
        assert not tr.any() and "worker_failed" not in info
    finally:
        venv.close()
        ref.close()


class _Texts(gym.Env):
    """Observations whose Gymnasium shared-memory read is a snapshot: a plain ``Text``, a ``OneOf``."""

    observation_space = gym.spaces.Dict({
        "x": gym.spaces.Box(0, 99, (1,), np.int64), "t": gym.spaces.Text(8),
        "c": gym.spaces.OneOf([gym.spaces.Discrete(3), gym.spaces.Discrete(99)]),
    })
    action_space = gym.spaces.Discrete(2)

    def obs(self) -> dict[str, Any]:
        return {"x": np.array([self.k]), "t": f"s{self.k}", "c": (1, np.int64(self.k))}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self.k = 0
        return self.obs(), {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self.k += 1
        return self.obs(), 0.0, False, False, {}


class _Text(_Texts):
    observation_space = gym.spaces.Text(8)  # type: ignore[assignment]

    def obs(self) -> Any:
        return f"s{self.k}"


def test_plain_text_and_one_of_observations_follow_the_env() -> None:
    """Gymnasium reads a plain ``Text`` or a ``OneOf`` out of shared memory once, as it is then:
    such keys go through the pipe, so every step shows the env's own observation."""
    venv = GuiVectorEnv([_Texts, _Texts])
    whole = GuiVectorEnv([_Text, _Text])
    try:
        obs, _ = venv.reset(seed=0)
        assert obs["t"] == ("s0", "s0") and whole.reset(seed=0)[0] == ("s0", "s0")
        for k in (1, 2):
            obs, *_ = venv.step(np.array([0, 1]))
            assert obs["t"] == (f"s{k}", f"s{k}") and obs["c"] == ((1, k), (1, k)) and list(obs["x"].ravel()) == [k, k]
            assert whole.step(np.array([0, 1]))[0] == (f"s{k}", f"s{k}")
    finally:
        venv.close()
        whole.close()


def test_workers_started_from_a_thread_outlive_it() -> None:
    """Linux's parent-death signal fires when the thread that forked a worker ends: a vector
    env built in a short-lived thread must keep its workers."""
    import threading

    box: dict[str, GuiVectorEnv] = {}
    t = threading.Thread(target=lambda: box.setdefault("venv", GuiVectorEnv([login, login])))
    t.start()
    t.join()
    venv = box["venv"]
    try:
        time.sleep(1.0)
        assert all(p.is_alive() for p in venv.processes)
        _, info = venv.reset(seed=0)
        assert "worker_failed" not in info and venv.restarts == [0, 0]
    finally:
        venv.close()


class Nested(_Texts):
    """Observations with a nested Dict and a Tuple: both go to shared memory."""

    observation_space = gym.spaces.Dict({  # type: ignore[assignment]
        "pos": gym.spaces.Dict({"x": gym.spaces.Box(0, 99, (1,), np.int64)}),
        "pair": gym.spaces.Tuple((gym.spaces.Box(0, 99, (1,), np.int64), gym.spaces.Discrete(5))),
    })

    def obs(self) -> dict[str, Any]:
        return {"pos": {"x": np.array([self.k])}, "pair": (np.array([self.k + 10]), self.k % 5)}


def test_same_step_final_obs_of_a_failed_env_with_nested_spaces() -> None:
    """SAME_STEP: a failed env's ``final_obs`` is its last observation, read from shared
    memory; a nested Dict's view was indexed by the env's number as if it were an array
    (KeyError: 1, the whole step lost), a Tuple's gave a sub-space instead of the env."""
    venv = GuiVectorEnv([Nested, lambda: Boom(Nested(), 2)], autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        venv.reset(seed=0)
        venv.step(np.array([0, 0]))
        obs, _r, _te, tr, info = venv.step(np.array([0, 0]))
        assert list(tr) == [False, True] and info["worker_failed"][1]
        last = info["final_obs"][1]
        assert last["pos"]["x"].tolist() == [1]
        assert last["pair"][0].tolist() == [11] and int(last["pair"][1]) == 1
        assert obs["pos"]["x"][:, 0].tolist() == [2, 0]  # env 0 goes on; env 1 starts a new episode
    finally:
        venv.close()


def test_a_batch_of_the_wrong_size_is_a_clear_error_before_anything_is_sent() -> None:
    """A batch of num_envs + 1 actions was split by ``iterate`` into num_envs + 1 and the extra
    one dropped silently (one short: a bare IndexError). As Gymnasium's ValueError, and no env
    is stepped."""
    venv = GuiVectorEnv([login, login], envs_per_worker=2)
    try:
        venv.reset(seed=0)
        venv.action_space.seed(0)
        for n in (3, 1):
            batch = stack([venv.single_action_space.sample() for _ in range(n)], venv.single_action_space)
            with pytest.raises(ValueError, match=f"batch of {n} actions for num_envs=2"):
                venv.step(batch)
        assert venv.get_attr("_elapsed_steps") == (0, 0) and venv.restarts == [0, 0]
        venv.step(stack([venv.single_action_space.sample() for _ in range(2)], venv.single_action_space))
        assert venv.get_attr("_elapsed_steps") == (1, 1)
    finally:
        venv.close()


class CodeError(Exception):
    """Pickles (as ``CodeError(str(self))``), but its ``__init__`` needs two arguments: unpickling fails."""

    def __init__(self, code: int, msg: str) -> None:
        super().__init__(f"{code}: {msg}")


class RaisesCodeError(gym.Wrapper):
    """Raises ``CodeError`` in its second step and in a reset with ``options={"fail": True}``;
    with ``in_info``, puts one in its first step's info instead of raising."""

    def __init__(self, env: gym.Env, in_info: bool = False) -> None:
        super().__init__(env)
        self.in_info, self.steps = in_info, 0

    def reset(self, **kwargs: Any) -> Any:
        if (kwargs.get("options") or {}).get("fail"):
            raise CodeError(7, "bad reset")
        return super().reset(**kwargs)

    def step(self, action: Any) -> Any:
        self.steps += 1
        obs, r, te, tr, info = super().step(action)
        if self.in_info and self.steps == 1:
            return obs, r, te, tr, {**info, "err": CodeError(1, "in info")}
        if not self.in_info and self.steps == 2:
            raise CodeError(42, "boom")
        return obs, r, te, tr, info


def test_an_env_error_that_cannot_be_unpickled_fails_its_step_not_the_vector_env() -> None:
    """An exception that pickles in the worker but not back in the parent escaped ``step_wait``
    as a TypeError with the step still pending: every later call was AlreadyPendingCallError."""
    venv = GuiVectorEnv([login, lambda: RaisesCodeError(login())], worker_timeout=60)
    try:
        venv.reset(seed=0)
        venv.step(["back()", "back()"])
        _, _, _, tr, info = venv.step(["back()", "back()"])
        assert list(tr) == [False, True] and list(info["worker_failed"]) == [False, True]
        assert "CodeError: 42: boom" in info["worker_error"][1]
        _, _, _, tr, info = venv.step(["back()", "back()"])  # env 1 made anew: a new episode
        assert not tr.any() and "worker_failed" not in info
        with pytest.raises(RuntimeError, match="CodeError: 7: bad reset"):  # reset's own errors: the caller's
            venv.reset(seed=1, options={"fail": True, "reset_mask": np.array([False, True])})
        _, info = venv.reset(seed=1)
        assert "worker_failed" not in info
    finally:
        venv.close()
    # an info value that does not unpickle: that worker's envs fail (it is restarted), the others go on
    venv = GuiVectorEnv([login, lambda: RaisesCodeError(login(), in_info=True)], worker_timeout=60)
    try:
        venv.reset(seed=0)
        _, _, _, tr, info = venv.step(["back()", "back()"])
        assert list(tr) == [False, True] and "could not be unpickled" in info["worker_error"][1]
        _, _, _, tr, info = venv.step(["back()", "back()"])
        assert not tr.any() and "worker_failed" not in info and venv.restarts == [0, 1]
    finally:
        venv.close()


def test_an_env_fn_that_cannot_be_pickled_leaves_no_worker() -> None:
    """Under ``spawn`` each env fn is pickled as its worker starts: when the second could not be,
    the first worker was left running (then crashed on its freed shared memory)."""
    import functools
    import multiprocessing as mp
    import threading

    before = set(mp.active_children())
    with pytest.raises(TypeError, match="pickle"):
        GuiVectorEnv([login, functools.partial(login, threading.Lock())], context="spawn")
    assert set(mp.active_children()) <= before


@pytest.mark.parametrize("mate_ends", [False, True])
def test_same_step_worker_mate_keeps_its_final_obs_and_info_when_its_worker_restarts(mate_ends: bool) -> None:
    """SAME_STEP: env 1 raises at step 2 and cannot be made anew, so its worker restarts; env 0,
    its mate, stepped well in that step (``mate_ends``: its TimeLimit ended the episode in that
    very step). Its ``final_obs`` / ``final_info`` must be that step's observation and info: it
    got the failure keys only, and (episode ended) the worker's reset that followed as ``final_obs``."""
    import functools

    limit = 2 if mate_ends else None
    mate = functools.partial(gym.make, "GuiGym-Login-v0", max_episode_steps=limit)
    venv = GuiVectorEnv([mate, login_once_per_process, login], envs_per_worker=2, autoreset_mode=AutoresetMode.SAME_STEP)
    ref = gym.make("GuiGym-Login-v0", max_episode_steps=limit)  # what env 0 does
    try:
        venv.reset(seed=[0, 1, 2])
        ref.reset(seed=0)
        for a in actions("GuiGym-Login-v0", 2, 3):
            obs, r, te, tr, info = venv.step(stack(a, venv.single_action_space))
            w_obs, w_r, w_te, w_tr, w_info = ref.step(a[0])
        assert w_tr == mate_ends and list(info["worker_failed"]) == [True, True, False]
        assert "restarted with its worker" in info["worker_error"][0] and venv.restarts == [1, 2, 0]
        assert (r[0], te[0], tr[0]) == (w_r, w_te, True)  # its step's reward; truncated: the episode ended with the worker
        assert_obs_equal(info["final_obs"][0], w_obs, "env 0's final_obs: its own step's observation")
        final = info["final_info"]
        for key in ("success", "template", "level", "action_error"):
            assert final["_" + key][0] and final[key][0] == w_info[key], key
        assert final["worker_failed"][0] and "restarted with its worker" in final["worker_error"][0]
        assert_obs_equal({k: v[0] for k, v in obs.items()}, venv.call("observe")[0], "env 0 starts a new episode")
        assert "success" not in final or not final["_success"][1]  # the failed env's final_info: the failure keys only
    finally:
        venv.close()
        ref.close()


def test_copy_true_hands_out_piped_observations_the_vector_env_does_not_keep() -> None:
    """``copy=True``: ``elements`` (sent by pipe) came back as the very objects the vector env keeps
    for later (a masked reset, a failed env's next step or ``final_obs`` show them again), so a
    caller changing them in place changed what those showed."""
    import copy

    venv = gym.make_vec("GuiGym-Launcher-v0", 2, extra_obs=("elements",))
    try:
        obs, _ = venv.reset(seed=0)
        want = copy.deepcopy(obs["elements"])
        for one in obs["elements"]:
            for e in one:
                e["box"][:] = -1
                e["label"] = "changed"
        again, _ = venv.reset(seed=5, options={"reset_mask": np.array([False, True])})
        assert_obs_equal({"elements": again["elements"][0]}, {"elements": want[0]}, "env 0 was not reset")
        assert again["elements"][0] is not obs["elements"][0]
        venv.copy = False  # views of what the vector env holds, as the shared-memory keys are
        assert venv.reset(seed=5, options={"reset_mask": np.array([False, True])})[0]["elements"][0] is venv.observations["elements"][0]
    finally:
        venv.close()


class Slow(gym.Wrapper):
    """Sleeps ``seconds`` in every step and in every reset but its first."""

    def __init__(self, env: gym.Env, seconds: float) -> None:
        super().__init__(env)
        self.seconds, self.resets = seconds, 0

    def reset(self, **kwargs: Any) -> Any:
        self.resets += 1
        if self.resets > 1:
            time.sleep(self.seconds)
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> Any:
        time.sleep(self.seconds)
        return self.env.step(action)


def test_a_wait_with_an_infinite_timeout_waits_and_a_bad_one_is_refused() -> None:
    """``step_wait(timeout=inf)`` waits with no limit (the selector raised ``OverflowError``
    on it); a negative or NaN timeout is a ``ValueError`` that leaves the call pending, so the
    next wait with a good timeout gets its results."""
    venv = GuiVectorEnv([login, login])
    try:
        venv.reset(seed=0)
        venv.step_async(venv.action_space.sample())
        for bad in (-1.0, float("nan")):
            with pytest.raises(ValueError, match="timeout must be"):
                venv.step_wait(timeout=bad)
        obs, _, _, tr, info = venv.step_wait(timeout=float("inf"))
        assert not tr.any() and not info.get("worker_failed", np.zeros(2, bool)).any()
        venv.reset_async(seed=1)
        obs, info = venv.reset_wait(timeout=float("inf"))
        assert len(obs["instruction"]) == 2 and all(obs["instruction"]) and venv.restarts == [0, 0]
    finally:
        venv.close()


def test_a_wait_with_timeout_zero_polls_once() -> None:
    """``step_wait(timeout=0)`` / ``reset_wait(timeout=0)`` poll once, as Gymnasium's
    ``AsyncVectorEnv`` (which then raises ``TimeoutError``); here a worker not done yet counts as
    hung and is restarted, as with any timeout. ``timeout or worker_timeout`` read 0 as no
    timeout: both waited for the slow env (without ``worker_timeout``, for ever)."""
    venv = GuiVectorEnv([lambda: Slow(login(), 3.0)])
    try:
        venv.reset(seed=0)
        venv.step_async(venv.action_space.sample())
        t0 = time.monotonic()
        _, _, _, tr, info = venv.step_wait(timeout=0)
        assert time.monotonic() - t0 < 2.0 and tr[0] and info["worker_failed"][0]
        assert "did not answer within 0 s" in info["worker_error"][0] and venv.restarts == [1]
        venv.reset_async(seed=1)
        t0 = time.monotonic()
        with pytest.raises(RuntimeError, match="within 0 s"):  # restarted, and its repeated reset not done at once either
            venv.reset_wait(timeout=0)
        assert time.monotonic() - t0 < 2.0
        _, info = venv.reset(seed=2)  # the worker left hung is restarted; the default (no limit) waits for it
        assert info["worker_failed"][0] and venv.restarts == [3]
    finally:
        venv.close()


# ------------------------------------------------------------------------------ usage errors and construction


class BadInit(gym.Wrapper):
    """An env that cannot be made (its wrapper refuses it)."""

    def __init__(self, env: gym.Env) -> None:
        env.close()
        raise ValueError("cannot build env")


class BigBounds(gym.Env):
    """Spaces whose bounds are large and not uniform: the spaces' check, pickled, is larger than a
    pipe holds (8 MB), so sending it blocks until the worker reads it, or breaks when it ends."""

    observation_space = gym.spaces.Box(np.arange(2**20, dtype=np.float32), np.arange(2**20, dtype=np.float32) + 1)
    action_space = gym.spaces.Discrete(2)


@pytest.mark.parametrize("make", [login, BigBounds], ids=["login", "big_bounds"])
def test_an_env_that_cannot_be_made_raises_its_own_error_from_the_constructor(make: Any) -> None:
    """The worker reports the env's exception and ends; the constructor raised ``WorkerDied
    (BrokenPipeError on send)`` with ``error=None`` instead, after restarting the worker: the
    spaces' check (2.77 MB for Login, pickled) broke on the ended worker's pipe before its reply was read."""
    import multiprocessing as mp
    import warnings

    before = set(mp.active_children())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="cannot build env") as err:
            GuiVectorEnv([make, lambda: BadInit(make())])
    assert any("worker of env 1" in note and "BadInit" in note for note in err.value.__notes__), "the worker's traceback"
    assert not [w for w in caught if "restarted" in str(w.message)], "a worker that cannot make its env is not restarted"
    assert set(mp.active_children()) <= before


def test_a_vector_env_is_not_closed_by_a_forked_childs_garbage_collector() -> None:
    """A vector env whose construction failed (it was left unclosed), or one dropped without
    ``close()``, sits in a reference cycle; when a worker forked for a later vector env collected
    it first, its ``__del__`` tried to join the parent's workers: ``Exception ignored in
    AsyncVectorEnv.__del__ ... AssertionError: can only join a child process``."""
    import subprocess
    import sys

    code = """if True:
        import gc, os
        import gymnasium as gym, guigym
        from guigym.vector import GuiVectorEnv
        class BadInit(gym.Wrapper):
            def __init__(self, env):
                raise ValueError("cannot build env")
        def login():
            return gym.make("GuiGym-Login-v0")
        gc.disable()  # the cycles wait for a collection: the forked workers' below
        try:
            GuiVectorEnv([login, lambda: BadInit(login())], context="fork")
        except Exception:
            pass
        dropped = GuiVectorEnv([login], context="fork")
        dropped.cycle = dropped
        pids = [p.pid for p in dropped.processes]
        del dropped
        PARENT = os.getpid()
        def collecting() -> gym.Env:
            if os.getpid() != PARENT:
                gc.collect()
            return login()
        venv = GuiVectorEnv([collecting, collecting], context="fork")
        venv.reset(seed=0)
        venv.close()
        for pid in pids:  # the dropped vector env's worker: still alive, not closed by a child
            os.kill(pid, 0)
        print("ok")
    """
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
    assert "Exception ignored" not in out.stderr and "child process" not in out.stderr, out.stderr[-3000:]


def test_disabled_autoreset_refuses_to_step_an_env_whose_episode_ended() -> None:
    """Under ``Disabled`` a terminated env stepped without a reset paid its reward again (and a
    truncated one was truncated again); Gymnasium's ``SyncVectorEnv`` asserts there. Now
    ``ResetNeeded`` names the envs before anything is sent, and a masked reset lets them go on."""
    venv = GuiVectorEnv([lambda: gym.make("GuiGym-Login-v0", max_episode_steps=12)] * 2, autoreset_mode="Disabled")
    try:
        venv.reset(seed=[0, 0])  # the same task: both reach success at the same step
        for _ in range(12):
            refs = venv.call("reference")
            _, r, te, tr, _ = venv.step([ref[0].action if ref else "back()" for ref in refs])
            if te.any():
                break
        assert list(te) == [True, True] and list(r) == [1.0, 1.0] and not tr.any()
        steps = venv.get_attr("_elapsed_steps")
        with pytest.raises(gym.error.ResetNeeded, match=r"envs \[0, 1\] ended.*reset_mask"):
            venv.step(["back()", "back()"])
        assert venv.get_attr("_elapsed_steps") == steps, "nothing was stepped"
        venv.reset(seed=5, options={"reset_mask": np.array([True, False])})
        with pytest.raises(gym.error.ResetNeeded, match=r"envs \[1\] ended"):
            venv.step(["back()", "back()"])
        venv.reset(seed=6, options={"reset_mask": np.array([False, True])})
        for t in range(1, 13):  # now truncated at the limit, both
            _, r, te, tr, info = venv.step(["back()", "back()"])
            assert list(tr) == [t == 12] * 2 and not te.any() and list(r) == [0.0, 0.0] and "worker_failed" not in info
        with pytest.raises(gym.error.ResetNeeded, match=r"envs \[0, 1\] ended"):
            venv.step(["back()", "back()"])
        assert venv.get_attr("_elapsed_steps") == (12, 12)
        venv.reset()
        _, _, te, tr, _ = venv.step(["back()", "back()"])
        assert not (te.any() or tr.any()) and venv.restarts == [0, 0]
    finally:
        venv.close()


def test_an_action_that_cannot_be_pickled_is_a_type_error_naming_its_env() -> None:
    """A lambda raised ``AttributeError: Can't pickle local object`` (the documented error is ``TypeError``)."""
    venv = GuiVectorEnv([login, login, login], envs_per_worker=2)
    try:
        venv.reset(seed=0)
        with pytest.raises(TypeError, match="action of env 0 cannot be pickled") as err:
            venv.step([lambda: 1, "back()", "back()"])
        assert isinstance(err.value.__cause__, (AttributeError, TypeError, __import__("pickle").PicklingError))
        with pytest.raises(TypeError, match="call's arguments of env 0 cannot be pickled"):
            venv.call("observe", lambda: 1)
        _, _, _, tr, info = venv.step(["back()"] * 3)
        assert not tr.any() and "worker_failed" not in info and venv.get_attr("_elapsed_steps") == (1, 1, 1)
    finally:
        venv.close()


@pytest.mark.parametrize("n", [2.0, "2", True, None, np.float64(2)])
def test_make_vec_num_envs_of_another_type_is_a_type_error(n: Any) -> None:
    """``2.0`` and ``"2"`` failed deep inside with unrelated messages; ``True`` built one env."""
    with pytest.raises(TypeError, match="num_envs must be an int"):
        gym.make_vec("GuiGym-Login-v0", n)


def test_make_vec_num_envs_below_one_and_numpy_ints() -> None:
    for n in (0, -1):
        with pytest.raises(ValueError, match="num_envs must be >= 1"):
            gym.make_vec("GuiGym-Login-v0", n)
    venv = gym.make_vec("GuiGym-Login-v0", np.int64(2))
    try:
        assert venv.num_envs == 2
    finally:
        venv.close()


@pytest.mark.parametrize("kw", [{"close_timeout": -1}, {"close_timeout": float("nan")}, {"close_timeout": float("inf")},
                                {"close_timeout": "5"}, {"max_restarts": -1}, {"max_restarts": 1.5}, {"max_restarts": True},
                                {"max_restarts": "3"}, {"worker_timeout": float("nan")}, {"worker_timeout": float("inf")},
                                {"worker_timeout": "1"}, {"worker_timeout": 0}])
def test_bad_close_timeout_max_restarts_and_worker_timeout_are_clear_errors(kw: dict[str, Any]) -> None:
    """``close_timeout=-1`` closed by killing the workers unasked; ``max_restarts=-1`` raised at
    the first failure; NaN and infinite timeouts were accepted (an infinite one overflows the wait)."""
    import multiprocessing as mp

    before = set(mp.active_children())
    with pytest.raises(ValueError, match=next(iter(kw))):
        GuiVectorEnv([login], **kw)
    assert set(mp.active_children()) <= before
    venv = GuiVectorEnv([login], close_timeout=0, max_restarts=0, worker_timeout=30)  # the bounds themselves are fine
    venv.close()
