"""Training throughput of MaskablePPO: environment steps per second, by how the envs are vectorised.

    python -m benchmarks.training [--timesteps 20000] [--env ID ...] [--threads 1]
    python -m benchmarks.training --concurrent [--timesteps 20000] [--env ID]

``--concurrent``: one training run alone, then two at once (each its own
process, eight envs in one process, minibatch 256), first with one torch
thread per run (``python -m train``'s default) and then with torch's default
thread count (what ``python -m train`` used before); prints each run's steps
per second and the ratio of two-at-once to one alone, per setting.

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

from train.config import hyperparameters
from train.training import make_envs

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
        envs = make_envs(env_id, {}, n_envs, 0, Path(folder), vec_env="subproc" if subprocesses else "dummy")
        model = MaskablePPO("MultiInputPolicy", envs, seed=0, device="cpu", **settings)
        start = time.perf_counter()
        model.learn(timesteps)
        seconds = time.perf_counter() - start
        envs.close()
    return model.num_timesteps / seconds


def _run(job: tuple[str, int, int]) -> float:
    """One training run in its own process: ``(env id, timesteps, torch threads or 0 for torch's default)``."""
    import torch

    env_id, timesteps, threads = job
    if threads:
        torch.set_num_threads(threads)
    return steps_per_second(env_id, 8, False, 256, timesteps)


def concurrent(env_id: str, timesteps: int) -> None:
    """One run alone and two at once, with one torch thread per run and with torch's default."""
    import multiprocessing
    import os

    context = multiprocessing.get_context("spawn")
    print(f"MaskablePPO on {env_id}, {timesteps} steps a run, {os.cpu_count()} cores; steps/s per run")
    for label, threads in (("1 torch thread a run", 1), ("torch's default threads", 0)):
        with context.Pool(1) as pool:
            (alone,) = pool.map(_run, [(env_id, timesteps, threads)])
        with context.Pool(2) as pool:
            both = pool.map(_run, [(env_id, timesteps, threads)] * 2)
        ratio = sum(both) / 2 / alone
        print(f"{label:<24} alone {alone:>7.0f}; two at once {both[0]:>7.0f} and {both[1]:>7.0f}: x{ratio:.2f} each")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=20_000, help="steps per measurement (default 20000)")
    parser.add_argument("--env", nargs="+", default=["TreasureHunt-v0", "Mastermind-v0"], help="env ids")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--concurrent", action="store_true", help="two runs at once against one (see above)")
    args = parser.parse_args(argv)
    if args.concurrent:
        concurrent(args.env[-1], args.timesteps)
        return
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
