"""Training throughput of MaskablePPO: environment steps per second, by how the envs are vectorised.

    python -m benchmarks.training [--timesteps 20000] [--env ID ...] [--threads 1]

For each env (at its default size) trains MaskablePPO with the shipped
hyperparameters for ``--timesteps`` steps in four set-ups, each with rollouts
of 1,024 steps: one env with minibatches of 64 (the reference: the libraries'
minibatch), eight envs in one process (``DummyVecEnv``) with minibatches of 64
and of 256 (the default of ``python -m train``), and eight envs in
subprocesses (``SubprocVecEnv``) with 256. Prints steps per second and the
ratio to the reference, measured in the same run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from train.training import hyperparameters, make_envs

#: (label, envs, in subprocesses, minibatch)
SETUPS = (
    ("1 env, batch 64", 1, False, 64),
    ("8 envs, batch 64", 8, False, 64),
    ("8 envs, batch 256", 8, False, 256),
    ("8 subprocesses, batch 256", 8, True, 256),
)


def steps_per_second(env_id: str, n_envs: int, subprocesses: bool, batch_size: int, timesteps: int) -> float:
    """Steps per second of ``model.learn`` (building the envs and the model not counted)."""
    from sb3_contrib import MaskablePPO

    settings = {**hyperparameters("maskable_ppo", env_id), "n_steps": 1024 // n_envs, "batch_size": batch_size}
    with tempfile.TemporaryDirectory() as folder:
        envs = make_envs(env_id, {}, n_envs, 0, Path(folder), subprocesses=subprocesses)
        model = MaskablePPO("MultiInputPolicy", envs, seed=0, device="cpu", **settings)
        start = time.perf_counter()
        model.learn(timesteps)
        seconds = time.perf_counter() - start
        envs.close()
    return model.num_timesteps / seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=20_000, help="steps per measurement (default 20000)")
    parser.add_argument("--env", nargs="+", default=["TreasureHunt-v0", "Mastermind-v0"], help="env ids")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    print(f"MaskablePPO, {args.timesteps} steps, {args.threads} torch thread(s); steps/s and ratio to 1 env")
    for env_id in args.env:
        base = None
        for label, n_envs, subprocesses, batch_size in SETUPS:
            rate = steps_per_second(env_id, n_envs, subprocesses, batch_size, args.timesteps)
            base = base or rate
            print(f"{env_id:<18} {label:<26} {rate:>8.0f} steps/s  x{rate / base:.2f}")


if __name__ == "__main__":
    main()
