"""Training throughput of MaskablePPO: environment steps per second, by how the envs are vectorised.

    python -m benchmarks.training [--timesteps 20000] [--env ID ...] [--threads 1]
    python -m benchmarks.training --concurrent [--timesteps 20000] [--env ID]
    python -m benchmarks.training --batched [--n-envs 64 256 1024] [--env ID]  # the last --env (Mastermind-v0)
    python -m benchmarks.training --head [--env ID ...] [--batch-size 512]

``--head``: the feature head's forward and backward passes (``--policy
marginals``: the static features plus the pointed marginals, a 256-wide
latent) on a minibatch of ``--batch-size``, as computed
(:class:`train.policies.FeatureHead`, one ``embedding_bag`` over the sparse
features) against its dense definition (``FeatureHead.reference``) in the
same run, per env (default the four games of issue 46's RL targets).

``--batched`` (issue 46): MaskablePPO end to end (rollouts and updates) on the
batched env at large ``--n-envs`` against the same batched env's random play
(masked uniform actions through the same SB3 adapter) measured in the same
run: steps per second of each, their ratio, and the share of the training
time spent collecting rollouts (the rest: the updates). Rollouts of
``n_envs x --n-steps`` steps, minibatches of ``--batch-size``, ``--epochs``
passes, the shipped hyperparameters otherwise.

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
from typing import Any

from train import arguments
from train.config import hyperparameters
from train.features import action_features
from train.policies import MaskableMultiInputPolicy
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
        model = MaskablePPO(MaskableMultiInputPolicy, envs, seed=0, device="cpu", **settings)
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


def random_play_rate(env_id: str, n_envs: int, seconds: float = 3.0) -> float:
    """Steps per second of masked uniform random play on the batched env through the SB3 adapter."""
    import numpy as np

    from train.vec_env import batched_vec_env

    venv = batched_vec_env(env_id, n_envs, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = venv.action_masks()
        scores = rng.random(masks.shape) * masks
        venv.step(scores.argmax(axis=1))
        steps += n_envs
    venv.close()
    return steps / (time.perf_counter() - start)


def batched_training(
    env_id: str, n_envs: int, timesteps: int, n_steps: int, batch_size: int, epochs: int, policy: str = "flat"
) -> dict:
    """MaskablePPO on the batched env: steps/s of ``learn`` and the seconds in rollouts and in updates;
    ``policy`` ``"flat"`` (SB3's network) or ``"features"`` (the static-feature head, ``--policy features``)."""
    from sb3_contrib import MaskablePPO

    from train.policies import policy_for
    from train.vec_env import batched_vec_env

    settings = {
        **hyperparameters("maskable_ppo", env_id),
        "n_steps": n_steps,
        "batch_size": batch_size,
        "n_epochs": epochs,
    }
    envs = batched_vec_env(env_id, n_envs, seed=0)
    network: Any = MaskableMultiInputPolicy
    if policy == "features":
        network, extra = policy_for("maskable_ppo", action_features(envs.get_attr("rules")[0]), True)
        settings["policy_kwargs"] = {**settings.get("policy_kwargs", {}), **extra}
    model = MaskablePPO(network, envs, seed=0, device="cpu", **settings)
    spent = {"rollouts": 0.0, "updates": 0.0}
    collect, train = model.collect_rollouts, model.train

    def timed(name, function):
        def run(*args, **kwargs):
            begin = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - begin

        return run

    model.collect_rollouts, model.train = timed("rollouts", collect), timed("updates", train)
    start = time.perf_counter()
    model.learn(timesteps)
    seconds = time.perf_counter() - start
    envs.close()
    return {"rate": model.num_timesteps / seconds, "seconds": seconds, **spent}


def batched(
    env_id: str, sizes: list[int], timesteps: int, n_steps: int, batch_size: int, epochs: int, policy: str = "flat"
) -> None:
    import torch

    print(
        f"MaskablePPO ({policy} policy) on the batched {env_id}, {timesteps} steps a row, rollouts of n_envs x "
        f"{n_steps}, minibatch {batch_size}, {epochs} epochs, {torch.get_num_threads()} torch thread(s)"
    )
    print("| n_envs | random play steps/s | training steps/s | ratio | rollouts share | updates share |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n_envs in sizes:
        random_rate = random_play_rate(env_id, n_envs)
        steps = max(timesteps, 2 * n_envs * n_steps)
        found = batched_training(env_id, n_envs, steps, n_steps, batch_size, epochs, policy)
        print(
            f"| {n_envs} | {random_rate:,.0f} | {found['rate']:,.0f} | {found['rate'] / random_rate:.4f} "
            f"| {found['rollouts'] / found['seconds']:.0%} | {found['updates'] / found['seconds']:.0%} |",
            flush=True,
        )


HEAD_ENVS = ("Mastermind-v0", "LowMiddleHigh-v0", "BullsAndCows-v0", "Wordle-v0")


def head(env_ids: list[str], batch_size: int, repeats: int = 10) -> None:
    """Milliseconds of the marginals head's forward and backward passes, bag against dense, per env."""
    import gymnasium as gym
    import torch

    import deduction_envs
    from train.policies import FeatureHead
    from train.training_envs import marginal_pointers

    gym.register_envs(deduction_envs)
    print(f"marginals head, latent 256, minibatch {batch_size}, {torch.get_num_threads()} torch thread(s); ms a pass")
    print("| env | actions x features | dense forward | bag forward | dense fwd+bwd | bag fwd+bwd | ratio fwd+bwd |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for env_id in env_ids:
        env = gym.make(env_id).unwrapped
        rules = env.rules
        features = action_features(rules)
        net = FeatureHead(256, features, marginal_pointers(rules), pointer_key="information_set")
        generator = torch.Generator().manual_seed(0)
        size = env.observation_space["information_set"].shape
        observation = {"information_set": torch.rand(batch_size, *size, generator=generator)}
        latent = torch.randn(batch_size, 256, generator=generator, requires_grad=True)
        times = {}
        for name, compute in (("dense", net.reference), ("bag", net)):
            for backward in (False, True):
                compute(latent, observation)  # warm up
                start = time.perf_counter()
                for _ in range(repeats):
                    logits = compute(latent, observation)
                    if backward:
                        logits.sum().backward()
                times[name, backward] = 1000 * (time.perf_counter() - start) / repeats
        print(
            f"| {env_id} | {features.shape[0]:,} x {features.shape[1]} | {times['dense', False]:.1f} "
            f"| {times['bag', False]:.1f} | {times['dense', True]:.1f} | {times['bag', True]:.1f} "
            f"| {times['dense', True] / times['bag', True]:.2f}x |",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=20_000, help="steps per measurement (default 20000)")
    parser.add_argument(
        "--env", nargs="+", help="env ids (default TreasureHunt-v0 Mastermind-v0; --head: the four RL games)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--concurrent", action="store_true", help="two runs at once against one (see above)")
    parser.add_argument("--batched", action="store_true", help="the batched env at large --n-envs (see above)")
    parser.add_argument("--n-envs", type=int, nargs="+", default=[64, 256, 1024], help="--batched: games at once")
    parser.add_argument("--n-steps", type=int, default=16, help="--batched: steps per game per rollout (16)")
    parser.add_argument("--head", action="store_true", help="the feature head, bag against dense (see above)")
    parser.add_argument("--batch-size", type=int, default=None, help="--batched: minibatch (4096); --head: 512")
    parser.add_argument("--epochs", type=int, default=4, help="--batched: passes over each rollout (4)")
    parser.add_argument(
        "--policy", choices=["flat", "features"], default="flat", help="--batched: the network (python -m train's)"
    )
    args = parser.parse_args(argv)
    if args.head:
        import torch

        torch.set_num_threads(args.threads)
        head(args.env or list(HEAD_ENVS), args.batch_size or 512)
        return
    args.batch_size = args.batch_size or 4096
    args.env = args.env or ["TreasureHunt-v0", "Mastermind-v0"]
    if args.batched:
        import torch

        torch.set_num_threads(args.threads)
        torch.distributions.Distribution.set_default_validate_args(False)  # as train.training.train
        batched(args.env[-1], args.n_envs, args.timesteps, args.n_steps, args.batch_size, args.epochs, args.policy)
        return
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
