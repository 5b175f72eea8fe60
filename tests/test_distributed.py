"""``guigym.distributed`` on a real two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``).

Custom resources pin one actor to each node; the envs give exactly what local ``gym.make`` envs
give for the same seeds and actions (pixels, instruction, reward, termination, state), through
the VectorEnv API with autoreset and through the subset API; killed, exiting and hung actors and
the actor of a removed node are replaced and reported; a Chromium that dies inside an actor is
reported and recovered; nothing of Ray (or Chromium) outlives the module (checked by an
environment marker every process the cluster starts inherits).
"""

from __future__ import annotations

import functools
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
import uuid
import zlib
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers.vector import DictInfoToList

import guigym  # noqa: F401

ray = pytest.importorskip("ray", reason="the Ray extra: pip install 'guigym[ray]' (CI installs it)")
from ray.cluster_utils import Cluster

from guigym.distributed import ActorFailure, EnvActor, PackedFrame, RayVectorEnv, pack_frame, unpack_frame

ENV = "GuiGym-Login-v0"
STORE = 80 * 2**20  # object store per node: small, the machine is shared
MARK = "GUIGYM_RAY_TEST"  # every process the cluster starts inherits it: the leak check finds them by it
#: one actor per node: actor 0 needs "node_a" (head), actor 1 "node_b" (second node)
ON_TWO_NODES = [{"num_cpus": 0, "resources": {"node_a": 1}}, {"num_cpus": 0, "resources": {"node_b": 1}}]


def marked_pids(mark: str) -> list[int]:
    """Live processes (not zombies) whose environment carries ``MARK=mark``."""
    out = []
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"{MARK}={mark}".encode() not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    continue
        except OSError:
            continue
        out.append(pid)
    return out


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    mark = uuid.uuid4().hex
    os.environ[MARK] = mark
    c = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "resources": {"node_a": 8, "spare": 1}, "object_store_memory": STORE, "include_dashboard": False})
    try:
        c.add_node(num_cpus=1, resources={"node_b": 8}, object_store_memory=STORE)
        c.wait_for_nodes()
        ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
        yield c
    finally:
        ray.shutdown()
        c.shutdown()
        del os.environ[MARK]
    end = time.monotonic() + 20
    while marked_pids(mark) and time.monotonic() < end:
        time.sleep(0.2)
    left = marked_pids(mark)
    assert not left, f"processes of the test cluster still running: {left}"


@pytest.fixture(scope="module")
def venv(cluster: Cluster) -> Iterator[RayVectorEnv]:
    """2 actors (one per node) × 2 envs, states recorded, zlib screenshots."""
    v = RayVectorEnv(ENV, num_actors=2, envs_per_actor=2, compress="zlib", record_state=True, actor_options=ON_TWO_NODES)
    yield v
    v.close()


def local_envs(n: int, **kw: Any) -> list[gym.Env]:
    return [gym.make(ENV, **kw) for _ in range(n)]


def pick(info: dict[str, Any], space: gym.Space, rng: np.random.Generator) -> Any:
    """Mostly the oracle's next action, sometimes a random one from the space (detours)."""
    if info["reference"] and rng.random() < 0.75:
        return info["reference"][0].action
    space.seed(int(rng.integers(2**31)))
    return space.sample()


def kill(v: RayVectorEnv, k: int) -> None:
    """``ray.kill`` actor ``k`` and wait until its process is gone (the kill is asynchronous: a
    call sent right after could otherwise still be answered)."""
    pid = v.pids()[k]
    ray.kill(v.actors[k])
    end = time.monotonic() + 30
    while running(pid) and time.monotonic() < end:
        time.sleep(0.02)
    assert not running(pid)


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def same_obs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["instruction"] == b["instruction"] and np.array_equal(a["screenshot"], b["screenshot"])


# --------------------------------------------------------------------------- no cluster needed


def test_import_guigym_does_not_import_ray_and_missing_ray_names_the_extra() -> None:
    code = (
        "import sys, guigym; assert 'ray' not in sys.modules, 'import guigym imported ray'\n"
        "sys.modules['ray'] = None\n"
        "try:\n    import guigym.distributed\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                         env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    assert out.returncode == 0, out.stderr
    assert "pip install 'guigym[ray]'" in out.stdout


@pytest.mark.parametrize("codec", ["zlib", "png"])
def test_codecs_are_lossless_and_small(codec: str) -> None:
    env = gym.make(ENV, level="hard")
    obs, _ = env.reset(seed=1)
    frame = obs["screenshot"]
    packed = pack_frame(frame, codec)
    assert isinstance(packed, PackedFrame) and len(packed.data) < frame.nbytes / 10
    back = unpack_frame(packed)
    assert back.dtype == np.uint8 and np.array_equal(back, frame)
    assert pack_frame(frame, None) is frame and unpack_frame(frame) is frame
    with pytest.raises(ValueError, match="unknown codec"):
        pack_frame(frame, "jpeg")  # lossy would break parity: not offered
    env.close()


@pytest.mark.parametrize("kw", [{"timeout_s": None}, {"start_timeout_s": None}, {"timeout_s": float("inf")},
                                {"timeout_s": "5"}, {"reset_retries": None}, {"reset_retries": 1.5}])
def test_a_timeout_of_none_or_a_bad_retry_count_is_a_clear_error(kw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # timeout_s=None raised "'<=' not supported between NoneType and int"; inf an OverflowError
    # inside ray.get; reset_retries=1.5 was accepted. No deadline is not offered: a hung actor
    # would block forever. Checked before Ray starts (ray.init here would fail the test).
    import guigym.distributed as dist

    monkeypatch.setattr(dist.ray, "is_initialized", lambda: False)
    monkeypatch.setattr(dist.ray, "init", lambda *a, **k: pytest.fail("Ray started before the arguments were checked"))
    name = next(iter(kw))
    with pytest.raises(ValueError, match=f"^{name} must be (a finite number of seconds > 0|an int >= 0)"):
        RayVectorEnv(ENV, **kw)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_where_no_cluster_listens_is_a_clear_error_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # ray.init retried 127.0.0.1:1 for minutes (its GCS client waits per try); now a TCP check fails first
    import guigym.distributed as dist

    monkeypatch.setattr(dist.ray, "is_initialized", lambda: False)
    monkeypatch.setattr(dist.ray, "init", lambda *a, **k: pytest.fail("ray.init called for an address where nothing listens"))
    address = f"127.0.0.1:{_free_port()}"
    t0 = time.monotonic()
    with pytest.raises(ConnectionError, match=f"no Ray cluster answers at address='{address}'.*ray start --head.*address=None"):
        RayVectorEnv(ENV, address=address)
    assert time.monotonic() - t0 < 10


def test_auto_with_no_cluster_running_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # Ray's own ConnectionError (what ray.init("auto") raises with no cluster) came as a 30-line traceback
    import guigym.distributed as dist

    def no_cluster(*a: Any, **k: Any) -> None:
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to by setting "
                              "`--address` flag or `RAY_ADDRESS` environment variable.")

    monkeypatch.setattr(dist.ray, "is_initialized", lambda: False)
    monkeypatch.setattr(dist.ray, "init", no_cluster)
    with pytest.raises(ConnectionError, match="address='auto' .*Could not find any running Ray instance.*ray start --head") as e:
        RayVectorEnv(ENV, address="auto")
    assert isinstance(e.value.__cause__, ConnectionError) and "\n" not in str(e.value)
    assert dist._host_port("auto") is None and dist._host_port("ray://[::1]:10001") == ("::1", 10001)


def test_env_actor_isolates_each_envs_failure() -> None:
    """The actor's batch runner, in-process: one env's exception is that env's record, the others
    run; with a codec the frame and the info travel packed."""
    actor = EnvActor(ENV, {}, 2, compress="png", record_state=True)
    recs = actor.run([("reset", 0, 3, None), ("step", 1, "back()"), ("step", 0, "back()")])
    assert recs[0][0] and recs[2][0] and recs[1] == (False, recs[1][1]) and recs[1][1].startswith("ResetNeeded")
    local = gym.make(ENV)
    obs, info = local.reset(seed=3)
    assert np.array_equal(unpack_frame(recs[0][1]["screenshot"]), obs["screenshot"])
    _, reward, term, trunc, _ = local.step("back()")
    assert recs[2][2:5] == (reward, term, trunc)
    info = pickle.loads(zlib.decompress(recs[2][5].data))  # packed by the codec
    assert info["state"] == local.unwrapped.get_state() and info["actor_failed"] is False
    assert actor.describe()["node_id"] is None and actor.call([0, 1], "level", (), {}) == ["easy", "easy"]
    actor.close()


# --------------------------------------------------------------------------- on the cluster


def test_actors_run_on_different_nodes(cluster: Cluster, venv: RayVectorEnv) -> None:
    nodes = venv.node_ids()
    alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(alive) == 2 and nodes[0] != nodes[1] and set(nodes) == alive
    assert venv.num_envs == 4 and [venv.actor_of(i) for i in range(4)] == [0, 0, 1, 1]
    assert venv.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    local = gym.make(ENV)
    assert venv.single_observation_space == local.observation_space and venv.single_action_space == local.action_space
    assert venv.observation_space["screenshot"].shape == (4, 640, 360, 3)


def test_vector_api_matches_local_envs_with_autoreset(venv: RayVectorEnv) -> None:
    """reset(seed) + 30 steps of oracle/random actions; episodes end and autoreset (NEXT_STEP)
    at different times; every step equals four local envs driven the same way. (Gymnasium's
    ``DictInfoToList`` turns the vector info back into one dict per env.)"""
    rng = np.random.default_rng(0)
    local = local_envs(4)
    wrapped = DictInfoToList(venv)
    obs, infos = wrapped.reset(seed=100)
    lobs, linfo = zip(*[e.reset(seed=100 + i) for i, e in enumerate(local)])
    lobs, linfo, done = list(lobs), list(linfo), [False] * 4
    ends = 0
    for _ in range(30):
        for i in range(4):
            assert same_obs({"instruction": obs["instruction"][i], "screenshot": obs["screenshot"][i]}, lobs[i])
            assert infos[i]["state"] == local[i].unwrapped.get_state() and not infos[i]["actor_failed"]
        actions = [pick(linfo[i], local[i].action_space, rng) for i in range(4)]
        obs, rew, term, trunc, infos = wrapped.step(actions)
        for i in range(4):
            if done[i]:  # NEXT_STEP: the action is ignored, the env resets (continuing its seeded RNG)
                lobs[i], linfo[i] = local[i].reset()
                r, te, tr = 0.0, False, False
            else:
                lobs[i], r, te, tr, linfo[i] = local[i].step(actions[i])
            assert (rew[i], term[i], trunc[i]) == (r, te, tr)
            done[i] = te or tr
            ends += te or tr
    assert ends >= 4, "the rollout should span several episodes"


def test_subset_api_matches_local_envs_and_leaves_others_alone(venv: RayVectorEnv) -> None:
    """The trainer's lockstep loop: reset a subset with explicit seeds, step only the envs
    still active, no autoreset; states recorded every step."""
    venv.reset(seed=0)
    before = venv.call("get_state")
    idx, seeds = [3, 0, 2], [7, 8, 9]
    got = venv.reset_envs(idx, seeds)
    local = {i: e for i, e in zip(idx, local_envs(3))}
    infos = {}
    for i, s, (obs, info) in zip(idx, seeds, got):
        lobs, infos[i] = local[i].reset(seed=s)
        assert same_obs(obs, lobs) and info["state"] == local[i].unwrapped.get_state() and not info["actor_failed"]
        assert obs["screenshot"].flags.writeable  # copy=True (default)
    active = list(idx)
    while active:
        acts = [infos[i]["reference"][0].action for i in active]
        out = venv.step_envs(active, acts)
        for i, a, (obs, r, te, tr, info) in zip(list(active), acts, out):
            lobs, lr, lte, ltr, infos[i] = local[i].step(a)
            assert same_obs(obs, lobs) and (r, te, tr) == (lr, lte, ltr) and info["state"] == local[i].unwrapped.get_state()
            if te or tr:
                active.remove(i)
    assert venv.call("get_state")[1] == before[1], "env 1 was not in any call"
    assert venv.step_envs([], []) == [] and venv.reset_envs([]) == []
    got = venv.reset_envs([2, 0], [4, 4], options=[{"level": "hard"}, None])  # options per env
    assert [info["level"] for _, info in got] == ["hard", "easy"]


def test_bad_arguments_are_clear_errors(cluster: Cluster, venv: RayVectorEnv) -> None:
    for kw, msg in [({"num_actors": 0}, "num_actors"), ({"envs_per_actor": 1.5}, "envs_per_actor"), ({"compress": "jpeg"}, "compress"),
                    ({"actor_options": [{}]}, "actor_options"), ({"timeout_s": 0}, "timeout_s")]:
        with pytest.raises(ValueError, match=msg):
            RayVectorEnv(ENV, **{"num_actors": 2, **kw})
    with pytest.raises(ValueError, match="duplicate"):
        venv.reset_envs([1, 1])
    with pytest.raises(ValueError, match="index"):
        venv.step_envs([4], ["back()"])
    with pytest.raises(ValueError, match="2 seeds for 1 envs"):
        venv.reset_envs([0], [1, 2])
    with pytest.raises(ValueError, match="values"):
        venv.set_attr("level", ["easy"])
    with pytest.raises(gym.error.NameNotFound):  # checked in the driver, before any actor starts
        RayVectorEnv("GuiGym-Nope-v0")
    with pytest.raises(ValueError, match="unknown level"):
        RayVectorEnv(ENV, level="extreme")
    # an env method that raises is the caller's error, as its own type; the actor lives on
    with pytest.raises(AttributeError) as e:
        venv.call("no_such_method")
    assert type(e.value) is AttributeError  # not Ray's RayTaskError(AttributeError)
    with pytest.raises(ValueError, match="not a valid get_state") as e:
        venv.call_envs([2], "set_state", {"version": 1})
    assert type(e.value) is ValueError
    assert venv.restarts == [0, 0]
    assert venv.call_envs([3, 1], "level") == ["easy", "easy"]
    (_, info), = venv.reset_envs([0], [1], options={"level": "hard"})
    assert info["level"] == "hard" and venv.restarts == [0, 0]


def test_a_bad_reset_option_is_the_callers_error_at_once_as_in_gui_vector_env(venv: RayVectorEnv) -> None:
    """A reset option the env refuses was retried ``reset_retries`` times and raised as
    ``ActorFailure``; ``GuiVectorEnv`` raises the env's own ``ValueError``. Now both do, at once,
    and the envs keep the episodes they had."""
    import guigym.distributed as distributed

    venv.reset(seed=0)
    venv.step(["back()"] * 4)
    states = venv.call("get_state")
    calls = []
    run = distributed.RayVectorEnv._exec

    def counting(self: RayVectorEnv, items: Any) -> Any:
        calls.append(len(items))
        return run(self, items)

    distributed.RayVectorEnv._exec = counting  # type: ignore[method-assign]
    try:
        with pytest.raises(ValueError, match="unknown level 'nope'"):
            venv.reset(seed=0, options={"level": "nope"})
        with pytest.raises(ValueError, match="unknown level 'extreme'"):
            venv.reset_envs([0], [1], options={"level": "extreme"})
        with pytest.raises(ValueError, match="unknown reset options"):
            venv.reset_envs([2], options={"levle": "hard"})
    finally:
        distributed.RayVectorEnv._exec = run  # type: ignore[method-assign]
    assert calls == [4, 1, 1], "each bad reset ran once, not retried"
    assert venv.restarts == [0, 0] and venv.call("get_state") == states, "the episodes go on"
    _, r, te, tr, info = venv.step(["back()"] * 4)
    assert not info["actor_failed"].any() and not tr.any()


def test_step_envs_refuses_an_env_whose_episode_ended(venv: RayVectorEnv) -> None:
    """``step_envs`` never autoresets: an env whose episode ended (terminated here) was stepped
    on and paid its reward again, as under ``GuiVectorEnv``'s ``Disabled`` mode. Now it raises
    ``ResetNeeded`` until ``reset_envs``; ``step()`` resets it (NEXT_STEP) instead of stepping it on."""
    venv.reset_envs([0, 1, 2, 3], [0, 0, 1, 1])
    infos = {i: venv.call_envs([i], "reference")[0] for i in (0, 1)}
    for _ in range(12):
        (_, r, te, _, info), = venv.step_envs([0], [infos[0][0].action])
        infos[0] = info["reference"]
        if te:
            break
    assert te and r == 1.0
    state = venv.call_envs([0], "get_state")
    with pytest.raises(gym.error.ResetNeeded, match=r"envs \[0\] ended"):
        venv.step_envs([1, 0], ["back()", "back()"])
    assert venv.call_envs([0], "get_state") == state and venv.get_attr("_elapsed_steps")[1] == 0, "nothing was stepped"
    (_, r, te, tr, _), = venv.step_envs([1], ["back()"])  # the others are not concerned
    assert (r, te, tr) == (0.0, False, False)
    obs, r, te, tr, info = venv.step(["back()"] * 4)  # NEXT_STEP: env 0 is reset, its action ignored
    assert (r[0], te[0], tr[0]) == (0.0, False, False) and venv.get_attr("_elapsed_steps") == (0, 2, 1, 1)
    (_, r, te, tr, _), = venv.step_envs([0], ["back()"])  # a new episode: stepped again
    assert (r, te, tr) == (0.0, False, False)
    venv.step_envs([0], ["back()"])
    for _ in range(12):  # ended by step_envs again, then reset_envs lets step_envs go on
        ref = venv.call_envs([0], "reference")[0]
        (_, r, te, _, _), = venv.step_envs([0], [ref[0].action if ref else "back()"])
        if te:
            break
    assert te
    venv.reset_envs([0], [3])
    (_, r, te, tr, info), = venv.step_envs([0], ["back()"])
    assert (r, te, tr) == (0.0, False, False) and not info["actor_failed"]


def test_an_action_that_cannot_be_pickled_raises_before_any_actor_gets_its_step(venv: RayVectorEnv) -> None:
    """Ray pickles a call's arguments as it submits it: actor 0 got its step (its envs stepped
    unseen, their last observation stale) before actor 1's action failed to pickle."""
    import threading

    venv.reset(seed=0)
    with pytest.raises(TypeError, match="pickle"):
        venv.step(["back()", "back()", "back()", threading.Lock()])
    with pytest.raises(TypeError, match="pickle"):
        venv.step_envs([0, 3], ["back()", threading.Lock()])
    assert venv.get_attr("_elapsed_steps") == (0, 0, 0, 0)
    _, _, _, tr, info = venv.step(["back()"] * 4)
    assert not tr.any() and not info["actor_failed"].any() and venv.get_attr("_elapsed_steps") == (1, 1, 1, 1)
    space = venv.single_action_space
    five = gym.vector.utils.concatenate(space, [space.sample() for _ in range(5)], gym.vector.utils.create_empty_array(space, n=5))
    with pytest.raises(ValueError, match="batch of 5 actions for num_envs=4"):  # the fifth was dropped silently
        venv.step(five)
    assert venv.get_attr("_elapsed_steps") == (1, 1, 1, 1)

def test_callable_env_time_limit_batched_actions_and_usage_errors(cluster: Cluster) -> None:
    """An env factory instead of an id; its TimeLimit truncates and NEXT_STEP resets; a batch
    sampled from ``action_space`` is split per env; stepping before a reset is an error."""
    v = RayVectorEnv(functools.partial(gym.make, ENV, max_episode_steps=2), num_actors=1, envs_per_actor=2)
    try:
        with pytest.raises(gym.error.ResetNeeded):
            v.step(["back()", "back()"])
        with pytest.raises(gym.error.ResetNeeded):
            v.step_envs([0], ["back()"])
        obs0, _ = v.reset(seed=np.int64(5))
        with pytest.raises(ValueError, match="3 actions for num_envs=2"):
            v.step(["back()"] * 3)
        v.action_space.seed(0)
        truncs = [v.step(v.action_space.sample())[3] for _ in range(3)]
        assert [list(t) for t in truncs] == [[False, False], [True, True], [False, False]]
        obs, *_ = v.step(["back()", "back()"])
        assert obs["instruction"] != obs0["instruction"], "autoreset continues the seeded RNG: a new task"
        local = gym.make(ENV)
        local.reset(seed=6)
        assert local.reset()[0]["instruction"] == v.call("observe")[1]["instruction"]
        # raw frames arrive as zero-copy views of Ray's store; copy=True (default) hands out writable copies
        assert v.reset_envs([0], [1])[0][0]["screenshot"].flags.writeable
        v.copy = False
        view = v.reset_envs([0], [1])[0][0]["screenshot"]
        assert not view.flags.writeable and np.array_equal(view, local.reset(seed=1)[0]["screenshot"])
    finally:
        v.close()


def test_killed_and_exiting_actors_are_replaced_and_reported(venv: RayVectorEnv) -> None:
    """Mid-rollout, actor 1 is killed (``ray.kill``), later exits by itself (``os._exit``): its
    envs' step is a failed, truncated episode; the next step resets them on a fresh actor on the
    same node (its resources), and the rollout goes on; the other actor never notices."""
    venv.reset(seed=0)
    node_b, restarts = venv.node_ids()[1], venv.restarts[1]
    killers = [lambda: kill(venv, 1), lambda: venv.actors[1].__ray_call__.remote(lambda self: os._exit(1))]
    for n, stop in enumerate(killers, 1):
        obs, *_ = venv.step(["back()"] * 4)
        last = obs["screenshot"].copy()
        stop()
        t = time.monotonic()
        obs, rew, _, trunc, info = venv.step(["back()"] * 4)
        assert time.monotonic() - t < 30
        assert list(info["actor_failed"]) == [False, False, True, True] and list(trunc) == [False, False, True, True]
        assert "Actor" in info["actor_error"][2] and info["actor_error"][0] == "" and list(rew) == [0, 0, 0, 0]
        assert np.array_equal(obs["screenshot"][2:], last[2:]), "a failed env repeats its last observation"
        assert venv.restarts[1] == restarts + n
        obs, rew, term, trunc, info = venv.step(["back()"] * 4)  # autoreset on the new actor
        assert not info["actor_failed"].any() and not (term | trunc).any() and info["_reference"].all()
        assert venv.node_ids()[1] == node_b
    assert venv.restarts[0] == 0


def test_subset_failure_is_reported_until_reset(venv: RayVectorEnv) -> None:
    venv.reset_envs([0, 1, 2, 3], [1, 2, 3, 4])
    kill(venv, 0)
    (_, r, te, tr, info), (*_, info2) = venv.step_envs([0, 2], ["back()", "back()"])
    assert info["actor_failed"] and tr and r == 0.0 and not te and not info2["actor_failed"]
    # env 1 shared the dead actor: its episode is gone too, though it was not stepped
    (_, _, _, tr1, info1), = venv.step_envs([1], ["back()"])
    assert info1["actor_failed"] and tr1 and "replaced" in info1["actor_error"]
    (obs, info), = venv.reset_envs([1], [2])
    local = gym.make(ENV)
    assert same_obs(obs, local.reset(seed=2)[0]) and not info["actor_failed"]
    assert not venv.step_envs([1], ["back()"])[0][4]["actor_failed"]
    assert venv.step_envs([0], ["back()"])[0][4]["actor_failed"], "env 0 still needs its reset"


def test_hung_actor_is_timed_out_and_replaced(cluster: Cluster) -> None:
    v = RayVectorEnv(ENV, num_actors=2, timeout_s=2.0, actor_options=ON_TWO_NODES)
    try:
        v.reset(seed=0)
        v.actors[0].__ray_call__.remote(lambda self: time.sleep(120))  # the next call queues behind it
        t = time.monotonic()
        _, _, _, trunc, info = v.step(["back()", "back()"])
        took = time.monotonic() - t
        assert 1.5 < took < 20, took
        assert list(info["actor_failed"]) == [True, False], info["actor_error"]
        assert "no answer within 2 s" in info["actor_error"][0] and trunc[0]
        _, _, _, trunc, info = v.step(["back()", "back()"])
        assert not info["actor_failed"].any() and v.restarts == [1, 0]
    finally:
        t = time.monotonic()
        v.close()
        assert time.monotonic() - t < 15


def test_an_actors_slow_first_reset_gets_the_start_deadline(cluster: Cluster) -> None:
    """An actor's first reset also loads and draws for the first time, so it waits up to
    ``start_timeout_s``, not ``timeout_s``: on a loaded machine a first reset slower than a short
    ``timeout_s`` had a healthy actor replaced (the suite beside two training runs)."""
    def make() -> gym.Env:
        import time as t

        class SlowFirstReset(gym.Wrapper):
            first = True

            def reset(self, **kw):  # type: ignore[no-untyped-def]
                if self.first:
                    self.first = False
                    t.sleep(3.0)
                return self.env.reset(**kw)

        return SlowFirstReset(gym.make(ENV))

    v = RayVectorEnv(make, num_actors=1, timeout_s=2.0)
    try:
        _, info = v.reset(seed=0)
        assert v.restarts == [0] and not info["actor_failed"].any()
        _, _, _, _, info = v.step(["back()"])
        assert v.restarts == [0] and not info["actor_failed"].any()
    finally:
        v.close()


def test_close_returns_when_every_actor_is_dead(cluster: Cluster) -> None:
    v = RayVectorEnv(ENV, num_actors=2, actor_options=ON_TWO_NODES)
    v.reset(seed=0)
    for a in v.actors:
        ray.kill(a)
    t = time.monotonic()
    v.close()
    v.close()  # idempotent
    assert time.monotonic() - t < 15 and v.closed
    with pytest.raises(ActorFailure, match="did not start: no answer within 1 s"):
        RayVectorEnv(ENV, actor_options={"resources": {"no_such_node": 1}}, start_timeout_s=1)
    with pytest.raises(ActorFailure, match="ZeroDivisionError"):  # an env factory that raises in the actor
        RayVectorEnv(functools.partial(divmod, 1, 0))



def test_batches_from_reset_and_step_are_the_callers_own(venv: RayVectorEnv) -> None:
    """With ``copy=True`` (default) a batch kept from ``reset``/``step`` does not change under
    later calls (as Gymnasium's vector envs); ``copy=False`` hands out the buffer they overwrite."""
    obs, _ = venv.reset(seed=0)
    kept = obs["screenshot"].copy()
    later, *_ = venv.step(["back()"] * 4)
    fresh, _ = venv.reset(seed=50)
    assert not np.array_equal(fresh["screenshot"], kept), "seeds 0 and 50 should show other screens"
    assert np.array_equal(obs["screenshot"], kept) and later["screenshot"] is not fresh["screenshot"]
    venv.copy = False
    try:
        a, _ = venv.reset(seed=0)
        b, *_ = venv.step(["back()"] * 4)
        assert a["screenshot"] is b["screenshot"]
    finally:
        venv.copy = True


def test_a_closed_vector_env_says_so(cluster: Cluster) -> None:
    """Every call after ``close()`` raises Gymnasium's ``ClosedEnvironmentError``, not an
    ``IndexError`` from the emptied actor list."""
    v = RayVectorEnv(ENV, num_actors=1, envs_per_actor=2, actor_options={"num_cpus": 0, "resources": {"node_a": 1}})
    v.reset(seed=0)
    v.close()
    for call in (lambda: v.step(["back()", "back()"]), lambda: v.reset(seed=0), lambda: v.call("level"),
                 lambda: v.set_attr("level", "hard"), lambda: v.reset_envs([0], [1]), lambda: v.step_envs([0], ["back()"]),
                 v.pids):
        with pytest.raises(gym.error.ClosedEnvironmentError):
            call()


def test_an_env_reset_with_reset_envs_after_its_episode_ended_is_stepped_not_reset_again(cluster: Cluster) -> None:
    """``step`` resets an env whose episode ended (NEXT_STEP) unless ``reset_envs`` already started a new one."""
    v = RayVectorEnv(functools.partial(gym.make, ENV, max_episode_steps=1), num_actors=1, envs_per_actor=2,
                     actor_options={"num_cpus": 0, "resources": {"node_a": 1}})
    local = gym.make(ENV, max_episode_steps=1)
    try:
        v.reset(seed=0)
        assert v.step(["back()", "back()"])[3].all()
        (obs, _), = v.reset_envs([0], [7])
        assert same_obs(obs, local.reset(seed=7)[0])
        obs, _, _, trunc, _ = v.step(["back()", "back()"])
        assert trunc[0] and obs["instruction"][0] == local.step("back()")[0]["instruction"], "env 0's seed-7 episode was stepped"
    finally:
        v.close()
        local.close()

def test_a_first_reset_may_reset_some_envs_only(cluster: Cluster) -> None:
    """As GuiVectorEnv and Gymnasium's AsyncVectorEnv: ``reset(options={"reset_mask": ...})``
    before any full reset resets those envs (the others show zeros and empty strings) and
    ``step()`` waits until every env was reset. It was a ValueError."""
    v = RayVectorEnv(ENV, num_actors=1, envs_per_actor=2, actor_options={"num_cpus": 0, "resources": {"node_a": 1}})
    local = gym.make(ENV)
    try:
        obs, info = v.reset(seed=[None, 4], options={"reset_mask": np.array([False, True])})
        assert same_obs({k: x[1] for k, x in obs.items()}, local.reset(seed=4)[0])
        assert not obs["screenshot"][0].any() and obs["instruction"][0] == "" and list(info["_actor_failed"]) == [False, True]
        with pytest.raises(gym.error.ResetNeeded, match=r"envs \[0\] were never reset"):
            v.step(["back()", "back()"])
        obs, _ = v.reset(seed=[7, None], options={"reset_mask": np.array([True, False])})
        assert same_obs({k: x[0] for k, x in obs.items()}, local.reset(seed=7)[0])
        assert same_obs({k: x[1] for k, x in obs.items()}, local.reset(seed=4)[0])  # left as it was
        _, _, _, trunc, info = v.step(["back()", "back()"])
        assert not trunc.any() and not info["actor_failed"].any()
    finally:
        v.close()
        local.close()


def test_actors_end_with_a_vector_env_dropped_without_close(cluster: Cluster) -> None:
    """No ``__del__`` is needed: Ray ends an actor when the last handle to it goes, and the
    vector env holds its actors' only handles (a reference cycle through it would keep them)."""
    v = RayVectorEnv(ENV, num_actors=1, actor_options={"num_cpus": 0, "resources": {"node_a": 1}})
    v.reset(seed=0)
    v.step(["back()"])
    pid = v.pids()[0]
    del v
    end = time.monotonic() + 30
    while running(pid) and time.monotonic() < end:
        time.sleep(0.1)
    assert not running(pid)

@pytest.mark.browser
def test_browser_envs_on_two_nodes_match_local_and_survive_a_chromium_crash(cluster: Cluster) -> None:
    """backend="browser": a real headless Chromium in each actor, one per node. Oracle episodes
    equal a local browser env's; Chromium killed inside actor 1 is reported (BrowserCrashed) and
    the next step's reset starts a new one, in the same actor."""
    v = RayVectorEnv(ENV, num_actors=2, backend="browser", actor_options=ON_TWO_NODES)
    local = gym.make(ENV, backend="browser")
    try:
        assert len(set(v.node_ids())) == 2
        (obs, info), = v.reset_envs([1], [11])
        lobs, linfo = local.reset(seed=11)
        while True:
            assert same_obs(obs, lobs)
            a = linfo["reference"][0].action
            (obs, r, te, tr, info), = v.step_envs([1], [a])
            lobs, lr, lte, ltr, linfo = local.step(a)
            assert (r, te, tr) == (lr, lte, ltr)
            if te:
                break
        v.reset(seed=0)
        pid = ray.get(v.actors[1].__ray_call__.remote(lambda self: self.envs[0].unwrapped.backend.browser_pid))
        os.kill(pid, signal.SIGKILL)
        _, rew, _, trunc, info = v.step(["back()", "back()"])
        assert rew[1] == 0 and list(info["actor_failed"]) == [False, True] and trunc[1] and "BrowserCrashed" in info["actor_error"][1]
        obs, _, _, trunc, info = v.step(["back()", "back()"])
        assert not info["actor_failed"].any() and not trunc.any() and v.restarts == [0, 0]
        new_pid = ray.get(v.actors[1].__ray_call__.remote(lambda self: self.envs[0].unwrapped.backend.browser_pid))
        assert new_pid != pid and info["reference"][1]
        # a browser actor killed outright takes its Chromium with it (the module's leak check too)
        pids = ray.get(v.actors[0].__ray_call__.remote(lambda self: self.envs[0].unwrapped.backend.chromium_pids()))
        kill(v, 0)
        assert v.step(["back()", "back()"])[4]["actor_failed"][0] and v.restarts == [1, 0]
        end = time.monotonic() + 15
        while any(map(running, pids)) and time.monotonic() < end:
            time.sleep(0.1)
        assert not [p for p in pids if running(p)], "Chromium outlived its actor"
    finally:
        v.close()
        local.close()


def test_actor_of_a_lost_node_is_replaced_on_another(cluster: Cluster) -> None:
    """A whole node goes away mid-rollout. Its actor needs one "spare" unit, which the head and a
    third node have; the head's is held by a placeholder, so the actor starts on the third node.
    That node is removed (the placeholder freed): the step reports the failure, the replacement
    starts on the head, and the next step resets there."""
    node = cluster.add_node(num_cpus=0, resources={"spare": 1}, object_store_memory=STORE)
    cluster.wait_for_nodes()

    @ray.remote(num_cpus=0, resources={"spare": 1})
    class Placeholder:  # defined here: Ray ships it by value (the workers cannot import this test module)
        def ping(self) -> int:
            return 1

    placeholder = Placeholder.remote()
    ray.get(placeholder.ping.remote(), timeout=60)
    v = RayVectorEnv(ENV, actor_options={"num_cpus": 0, "resources": {"spare": 1}})
    try:
        v.reset(seed=0)
        assert v.node_ids() == [node.node_id]
        ray.kill(placeholder)
        cluster.remove_node(node)
        _, _, _, trunc, info = v.step(["back()"])
        assert info["actor_failed"][0] and trunc[0]
        _, _, _, trunc, info = v.step(["back()"])
        assert not info["actor_failed"][0] and not trunc[0] and v.node_ids() == [cluster.head_node.node_id]
    finally:
        v.close()
