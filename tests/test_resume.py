"""A resumed run is the same run (issue 81, items 4 and 5): a run killed at any step and resumed from its last
checkpoint (as ``--seeds`` and ``--sweep`` do) ends with the same steps, updates and checkpoints as one never
killed, on a single-player game's envs, a multiplayer game's batched seat and self-play; a checkpoint is the policy
after the steps its name says, whatever the checkpoint interval; the seconds count the whole run.

A kill is a crash at a chosen step (an exception from a callback): nothing after the last checkpoint is saved, as
when the process dies."""

from __future__ import annotations

import dataclasses
import json

import pytest
from stable_baselines3.common.callbacks import BaseCallback

from train import RunConfig
from train import training as training_module
from train.seeds import from_last_checkpoint
from train.training import train


class Killed(Exception):
    pass


def _killed_at(monkeypatch, step: int) -> None:
    """The next run of :func:`train` dies when it reaches ``step`` (before learning from its rollout)."""
    learn = training_module._learn

    class Kill(BaseCallback):
        def _on_step(self) -> bool:
            if self.model.num_timesteps >= step:
                raise Killed(step)
            return True

    def dying(config, model, callbacks, start):
        monkeypatch.setattr(training_module, "_learn", learn)  # once
        learn(config, model, [*callbacks, Kill()], start)

    monkeypatch.setattr(training_module, "_learn", dying)


def _finished(config: RunConfig) -> tuple[int, int, list[str], dict]:
    model, _ = train(config)
    names = sorted(path.name for path in (config.output / "checkpoints").glob("model_*_steps.zip"))
    return model.num_timesteps, model._n_updates, names, json.loads((config.output / "run.json").read_text())


SINGLE = RunConfig(env="Mastermind-v0", sizes={"pegs": 2, "colors": 3}, n_envs=2, timesteps=1280,
                   checkpoint_every=300, progress=False)  # fmt: skip
SEAT = RunConfig(env="algo_v0", sizes={"players": 2}, vec_env="batched", opponents=["random"], n_envs=4,
                 timesteps=4 * 128 * 4, checkpoint_every=700, progress=False)  # fmt: skip
SELF_PLAY = dataclasses.replace(SEAT, opponents=["self"])


@pytest.mark.parametrize(
    ("config", "kills"),
    [(SINGLE, (100, 700, 1100)), (SEAT, (1000, 1700)), (SELF_PLAY, (600, 1900))],
    ids=["single-player", "batched-seat", "self-play"],
)
def test_a_run_killed_anywhere_and_resumed_ends_as_one_never_killed(tmp_path, monkeypatch, config, kills):
    straight = _finished(dataclasses.replace(config, output=tmp_path / "straight"))
    steps, updates, names, _ = straight
    # Exactly the steps asked (whole rollouts), 10 updates a rollout, a checkpoint once the learned steps pass each
    # multiple of the interval (which is no multiple of the rollout).
    rollout = 128 * config.n_envs
    assert steps == -(-config.timesteps // rollout) * rollout and updates == 10 * steps // rollout
    assert names == sorted({f"model_{-(-k * config.checkpoint_every // rollout) * rollout}_steps.zip"
                            for k in range(1, steps // config.checkpoint_every + 1)})  # fmt: skip
    for kill in kills:
        output = tmp_path / f"killed-at-{kill}"
        _killed_at(monkeypatch, kill)
        with pytest.raises(Killed):
            train(dataclasses.replace(config, output=output))
        assert not (output / "model.zip").exists()
        resumed = from_last_checkpoint(dataclasses.replace(config, output=output), config.timesteps, "run")
        assert _finished(resumed)[:3] == straight[:3], kill


def test_a_checkpoint_is_the_policy_after_its_steps_and_carries_the_seconds_so_far(tmp_path, monkeypatch):
    """The checkpoint named after n steps holds the weights of the uninterrupted run once it learned from n steps
    (the same seed: the same rollouts), not those of the rollout before; the seconds of a resumed run count the
    part before the kill too."""
    import torch

    from agents.model_files import load_model

    config = dataclasses.replace(SINGLE, output=tmp_path / "run", timesteps=768, checkpoint_every=256)
    seen = {}

    def keep_weights(model) -> bool:
        seen[model.num_timesteps] = {k: v.clone() for k, v in model.policy.state_dict().items()}
        return True

    train(config, every=(256, keep_weights))
    for steps in (256, 512, 768):
        saved = load_model(config.output / "checkpoints" / f"model_{steps}_steps.zip").policy.state_dict()
        assert all(torch.equal(saved[k], seen[steps][k]) for k in saved), steps
        assert json.loads((config.output / "checkpoints" / f"model_{steps}_steps.json").read_text())["seconds"] > 0
    killed = dataclasses.replace(config, output=tmp_path / "killed")
    _killed_at(monkeypatch, 600)
    with pytest.raises(Killed):
        train(killed)
    before = json.loads((killed.output / "checkpoints" / "model_512_steps.json").read_text())["seconds"]
    _, seconds = train(from_last_checkpoint(killed, config.timesteps, "run"))
    assert seconds > before and json.loads((killed.output / "run.json").read_text())["seconds"] == round(seconds, 3)


def test_a_run_stopped_within_a_rollout_says_the_steps_it_learned_from(tmp_path):
    """Stopped by its clock (or Ctrl-C, SIGTERM) part-way through a rollout, a run saves the policy it has, with
    the steps that policy learned from, not the steps collected since."""
    config = dataclasses.replace(SINGLE, output=tmp_path / "run", timesteps=100_000, max_minutes=1e-6)
    model, _ = train(config)
    assert model.num_timesteps == 0 and json.loads((config.output / "run.json").read_text())["timesteps"] == 0


def test_two_processes_never_train_into_one_folder(tmp_path):
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time; f = open(sys.argv[1], 'a+'); fcntl.flock(f, fcntl.LOCK_EX); f.write('process 1'); "
        "f.flush(); print('held', flush=True); time.sleep(60)"), str(tmp_path / ".lock")],
        stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(RuntimeError, match="is being trained into by process 1: two runs never write one folder"):
            train(dataclasses.replace(SINGLE, output=tmp_path, timesteps=256))
        from train import cli

        with pytest.raises(SystemExit, match=r"python -m train: error: .* is being trained into by process 1"):
            cli.main(["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--timesteps", "256",
                      "--no-progress", "--output", str(tmp_path)])
        assert not (tmp_path / "checkpoints").exists()
    finally:
        holder.kill()
        holder.wait()
    model, _ = train(dataclasses.replace(SINGLE, output=tmp_path, timesteps=256))
    assert model.num_timesteps == 256
