"""A model file a user hands in never runs code (agents.model_files): a pickle planted in a saved model's settings,
its weights or an expert-iteration checkpoint is refused, never run, on every path that loads one; a damaged file
is a clear error; a kept model is checked against its recorded SHA-256 each time it is loaded."""

from __future__ import annotations

import base64
import json
import pickle
import shutil
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO

import deduction_envs
from agents import SB3Policy
from agents.model_files import UnsafeModelError, load_model
from agents.sb3_policy import SB3SeatPolicy

SIZES = {"pegs": 2, "colors": 3}


class _Planted:
    """Pickles to a call of ``exec``: unpickled, it writes ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('ran')",)


def _rewrite(source: Path, target: Path, **members: bytes) -> Path:
    with zipfile.ZipFile(source) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in {**contents, **members}.items():
            archive.writestr(name, content)
    return target


def _planted_in_settings(source: Path, target: Path, key: str, marker: Path) -> Path:
    with zipfile.ZipFile(source) as archive:
        data = json.loads(archive.read("data"))
    data[key] = {":type:": "<class 'gymnasium.spaces.box.Box'>",
                 ":serialized:": base64.b64encode(pickle.dumps(_Planted(marker))).decode()}  # fmt: skip
    return _rewrite(source, target, data=json.dumps(data).encode())


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    from train.policies import flat_policy

    gym.register_envs(deduction_envs)
    policy = flat_policy("maskable_ppo", dict_observations=True)
    model = MaskablePPO(policy, gym.make("Mastermind-v0", **SIZES), seed=0, n_steps=32, batch_size=32)
    model.learn(32)
    path = tmp_path_factory.mktemp("model") / "model.zip"
    model.save(path)
    return path


@pytest.mark.parametrize("key", ["observation_space", "policy_class", "policy_kwargs", "ep_info_buffer", "lr_schedule"])
def test_a_pickle_planted_in_a_models_settings_is_refused_and_never_runs(saved, tmp_path, key):
    marker = tmp_path / "ran"
    planted = _planted_in_settings(saved, tmp_path / "planted.zip", key, marker)
    for load in (lambda: load_model(planted), lambda: SB3Policy.load(planted)):
        with pytest.raises(UnsafeModelError, match=rf"its setting '{key}' cannot be read as plain data \(it asks "
                           r"for builtins.exec.*--trust-model"):  # fmt: skip
            load()
    assert not marker.exists()
    # The planted pickle is live: SB3's own load, asked for by trust_model, runs it.
    try:
        load_model(planted, trust_model=True)
    except ValueError:
        pass  # the model does not load after it ran (its setting is no longer a space, a class...)
    assert marker.read_text() == "ran"


def test_a_pickle_planted_in_a_models_weights_is_refused_and_never_runs(saved, tmp_path):
    marker = tmp_path / "ran"
    for member in ("policy.pth", "pytorch_variables.pth"):
        planted = _rewrite(saved, tmp_path / "planted.zip", **{member: pickle.dumps(_Planted(marker))})
        with pytest.raises(ValueError, match="could not be loaded as a maskable_ppo model"):
            load_model(planted)
    assert not marker.exists()


def test_the_models_this_project_saves_and_keeps_load_as_plain_data(saved):
    model = load_model(saved)
    assert type(model.policy).__name__ == "MaskableMultiInputPolicy"
    assert model.observation_space == gym.make("Mastermind-v0", **SIZES).observation_space
    assert model.clip_range(1.0) == pytest.approx(0.2) and model.lr_schedule(0.5) == pytest.approx(3e-4)


def test_the_command_lines_refuse_a_planted_model_and_run_nothing(saved, tmp_path, capsys):
    from train import RunConfig, train
    from train import evaluate as evaluate_command
    from train.kept_models import keep

    marker = tmp_path / "ran"
    run = tmp_path / "run"
    run.mkdir()
    _planted_in_settings(saved, run / "model.zip", "observation_space", marker)
    (run / "run.json").write_text(json.dumps({"env": "Mastermind-v0", "sizes": SIZES, "algo": "maskable_ppo",
                                              "action_mask": "all", "seed": 0}))  # fmt: skip
    with pytest.raises(SystemExit):
        evaluate_command.main(["--model", str(run / "model.zip"), "--no-references"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "cannot be read as plain data" in err and "--trust-model" in err, err
    config = RunConfig(env="Mastermind-v0", sizes=SIZES, resume=run / "model.zip", timesteps=64, progress=False,
                       output=tmp_path / "resumed", n_envs=1)  # fmt: skip
    with pytest.raises(UnsafeModelError):
        train(config)
    with pytest.raises(ValueError, match="--trust-model is for the model of --resume"):
        RunConfig(env="Mastermind-v0", sizes=SIZES, trust_model=True, output=tmp_path / "x").check()
    kept = tmp_path / "kept"
    with pytest.raises(UnsafeModelError):
        keep(run, "planted", "k", "c", folder=kept)
    assert not marker.exists()
    assert sorted(p.name for p in kept.iterdir()) == []  # a failed keep leaves no folder behind


def test_flipped_bytes_are_a_clear_error_and_a_kept_model_is_checked_on_every_load(saved, tmp_path):
    from train.kept_models import KeptModel, _write_manifest, seat_policy

    raw = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as archive:
        info = archive.getinfo("policy.pth")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200  # inside the stored weights
    raw[start : start + 64] = bytes(b ^ 0xFF for b in raw[start : start + 64])
    (tmp_path / "flipped.zip").write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"is damaged: its member 'policy\.pth' is not what was written"):
        load_model(tmp_path / "flipped.zip")
    # A kept model: any change to its file, even one that is a whole zip, is refused on load.
    from train.multiplayer import raw_env

    env = raw_env("algo_v0", players=2)
    model = MaskablePPO("MlpPolicy", _SeatSpaces(env), seed=0, n_steps=16, batch_size=16)
    folder = tmp_path / "models"
    (folder / "seat").mkdir(parents=True)
    model.save(folder / "seat" / "model.zip")
    from agents.model_files import file_sha256

    entry = KeptModel(name="seat", kind="k", env="algo_v0", sizes={"players": 2}, command="c", seed=0, commit="x",
                      evaluate=[], figures={}, bytes=0, sha256=file_sha256(folder / "seat" / "model.zip"))  # fmt: skip
    _write_manifest([entry], folder)
    assert isinstance(seat_policy("seat", folder), SB3SeatPolicy)
    weights = model.policy.state_dict()
    first = next(iter(weights))
    weights[first] = weights[first] + 1.0
    model.policy.load_state_dict(weights)
    model.save(folder / "seat" / "model.zip")  # whole, but not the file the manifest records
    with pytest.raises(ValueError, match="has changed since it was kept"):
        seat_policy("seat", folder)
    from train import evaluate as evaluate_command

    with pytest.raises(ValueError, match="has changed since it was kept"):
        evaluate_command.main(["--model", str(folder / "seat" / "model.zip"), "--env", "algo_v0"], raise_errors=True)


class _SeatSpaces(gym.Env):
    """The spaces of a multiplayer env's single seat, for an untrained model of its shape."""

    def __init__(self, env) -> None:
        size = env.observer.size
        self.observation_space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = gym.spaces.Discrete(env.rules.num_actions)

    def reset(self, *, seed=None, options=None):
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, True, False, {}

    def action_masks(self):
        return np.ones(self.action_space.n, dtype=bool)


def test_an_expert_iteration_checkpoint_with_a_planted_pickle_or_damage_is_refused(tmp_path):
    import torch

    from train import expert_iteration as ei

    settings = ei.Settings(env="Mastermind-v0", sizes=SIZES, iterations=2, games=4)
    ei.train(settings, tmp_path / "run", progress=False, until=1)
    checkpoint = tmp_path / "run" / "checkpoint.pt"
    saved = torch.load(checkpoint, weights_only=True)
    marker = tmp_path / "ran"
    torch.save({**saved, "seconds": _Planted(marker)}, checkpoint)
    with pytest.raises(ValueError, match=r"is not a checkpoint of python -m train\.expert_iteration"):
        ei.train(settings, tmp_path / "run", progress=False)
    assert not marker.exists()
    checkpoint.write_bytes(b"garbage")
    with pytest.raises(ValueError, match=r"is not a checkpoint of python -m train\.expert_iteration"):
        ei.train(settings, tmp_path / "run", progress=False)
    torch.save({**saved, "buffer": [{"members": torch.zeros(3)}]}, checkpoint)
    with pytest.raises(ValueError, match="is damaged: KeyError"):
        ei.train(settings, tmp_path / "run", progress=False)
    shutil.rmtree(tmp_path / "run")
