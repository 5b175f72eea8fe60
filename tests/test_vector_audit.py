"""Faults found in an audit of the vector envs, the Ray front and the SB3 wrappers, each with the test that found it."""

from __future__ import annotations

import os
import signal
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from guigym.vector import GuiVectorEnv, WorkerDied


def login() -> gym.Env:
    return gym.make("GuiGym-Login-v0")


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_an_episode_lost_with_a_worker_killed_in_a_call_is_reported_at_the_next_step(mode: AutoresetMode) -> None:
    """A worker found dead by ``get_attr`` (or ``call``, ``set_attr``) was restarted and the
    error raised, but the next step then showed env 0 in a new episode with reward 0 and neither
    ``terminated`` nor ``truncated`` nor ``worker_failed``: an episode boundary no learner could
    see (under ``Disabled`` too, which never resets on its own). It is now that step's failure."""
    venv = GuiVectorEnv([login, login], autoreset_mode=mode)
    try:
        obs, _ = venv.reset(seed=0)
        before = list(obs["instruction"])
        os.kill(venv.processes[0].pid, signal.SIGKILL)
        time.sleep(0.2)
        with pytest.raises(WorkerDied):
            venv.get_attr("level")
        obs, reward, terminated, truncated, info = venv.step(["back()", "back()"])
        assert truncated.tolist() == [True, False] and terminated.tolist() == [False, False]
        assert reward[0] == 0.0 and info["_worker_failed"].tolist() == [True, False]
        assert "call" in info["worker_error"][0]
        if mode == AutoresetMode.SAME_STEP:  # the new episode at once; final_obs: the lost episode's last
            assert info["_final_obs"][0] and info["final_obs"][0]["instruction"] == before[0]
        else:  # its last observation, a new episode at the next step (NEXT_STEP) or after a reset (DISABLED)
            assert obs["instruction"][0] == before[0]
            if mode == AutoresetMode.DISABLED:
                with pytest.raises(gym.error.ResetNeeded):
                    venv.step(["back()", "back()"])
                venv.reset(options={"reset_mask": np.array([True, False])})
            obs, reward, terminated, truncated, info = venv.step(["back()", "back()"])
            assert not truncated.any() and "worker_failed" not in info
            if mode == AutoresetMode.NEXT_STEP:
                assert obs["instruction"][0] != before[0] and reward[0] == 0.0  # the autoreset step
        assert obs["instruction"][1] == before[1]  # env 1 went on
    finally:
        venv.close()
