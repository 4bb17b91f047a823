"""The single-player games' task: the learner plays episodes, each a secret to find; it is compared with the
reference agents on the same secrets (:mod:`train.comparison`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from deduction_envs.envs import env_rules
from deduction_envs.envs.batched_env import batch_refusal
from deduction_envs.envs.observation import QUERY_FEATURES
from train.features import action_features
from train.options import DEFAULT_SIZES, SECRETS_DEFAULTS, SINGLE_PLAYER_EXPERTS
from train.tasks import TrainingRun

if TYPE_CHECKING:
    from train.config import RunConfig

__all__ = ["SEAT_OPTIONS", "SecretsTask", "make_envs"]

#: The options of the multiplayer games (:class:`train.tasks.seats.SeatsTask`), which a single-player run refuses.
SEAT_OPTIONS = ("opponents", "eval_opponents", "eval_games", "eval_workers", "league_threshold", "league_window",
                "pointer_weights")  # fmt: skip


def make_envs(
    env_id: str,
    env_kwargs: dict[str, Any],
    n_envs: int,
    seed: int,
    monitor_dir: Any,
    entropy_reward: float | None = None,
    gamma: float = 1.0,
    append: bool = False,
    vec_env: str = "dummy",
) -> Any:
    """``n_envs`` monitored copies of the env: ``vec_env`` ``"batched"`` one batched env
    (:func:`train.vec_env.batched_vec_env`, the same games as ``"dummy"``, stepped at once), ``"dummy"``
    copies stepped in one process, ``"subproc"`` each in its own.

    One process batches the policy's forward passes over the copies at no
    cost of communication, which is faster for all but costly env steps
    (measured in ``BENCHMARKS.md``); each subprocess env computes its own
    action masks, as sb3-contrib requires.

    With ``entropy_reward``, each copy adds :class:`~deduction_envs.wrappers.EntropyRewardWrapper` of
    that scale (and the learner's ``gamma``) outside the monitor, so the
    monitor logs the game's own reward and length. With ``append`` (a resumed
    run) the monitors add to the episode logs instead of replacing them.
    """
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from deduction_envs.wrappers import EntropyRewardWrapper

    if vec_env == "batched":
        from train.vec_env import batched_vec_env

        return batched_vec_env(env_id, n_envs, seed, str(monitor_dir), append, entropy_reward, gamma, **env_kwargs)
    return make_vec_env(
        f"deduction_envs:{env_id}",  # the prefix imports the package, registering the envs in a fresh subprocess
        n_envs=n_envs,
        seed=seed,
        env_kwargs=env_kwargs,
        monitor_dir=str(monitor_dir),
        monitor_kwargs={"override_existing": not append},
        vec_env_cls=SubprocVecEnv if vec_env == "subproc" else DummyVecEnv,
        wrapper_class=None if entropy_reward is None else EntropyRewardWrapper,
        wrapper_kwargs=None if entropy_reward is None else {"scale": entropy_reward, "gamma": gamma},
    )


class SecretsTask:
    """A single-player game's run: see the module docstring."""

    curve = ("l", "queries per episode", 100)

    def __init__(self, config: RunConfig) -> None:
        self.config = config

    @property
    def rules(self) -> Any:
        return env_rules(self.config.env, **self.config.sizes)

    def check(self) -> None:
        from deduction_envs.core.rules import marginal_pointers

        config = self.config
        if config.imitate is not None and config.imitate not in SINGLE_PLAYER_EXPERTS:
            raise ValueError(
                f"--imitate: a single-player game's experts are {', '.join(SINGLE_PLAYER_EXPERTS)}, "
                f"got {config.imitate!r}"
            )
        searched = config.search_target_options()
        if searched and config.imitate is not None:
            raise ValueError(f"{searched[0]} needs a search agent; a single-player game's experts do not search")
        from train.multiplayer import multiplayer_envs

        envs = ", ".join(multiplayer_envs())
        for name in SEAT_OPTIONS:
            if getattr(config, name) is not None:
                raise ValueError(f"--{name.replace('_', '-')} is for the multiplayer envs ({envs})")
        if config.league:
            raise ValueError(f"--league is for the multiplayer envs ({envs})")
        if config.sizes is None:
            config.sizes = dict(DEFAULT_SIZES.get(config.env, {}))
        try:
            rules = self.rules
        except TypeError as error:
            raise ValueError(str(error)) from None
        for name, default in SECRETS_DEFAULTS.items():
            if getattr(config, name) is None:
                setattr(config, name, default)
        if config.policy == "marginals":
            if config.query_features:
                raise ValueError(
                    "--policy marginals reads the marginals; --query-features gives other features: not both"
                )
            try:
                marginal_pointers(rules)
            except ValueError as error:
                raise ValueError(f"--policy marginals: {error}") from None
        if config.action_mask == "consistent" and not rules.queries_name_secrets:
            raise ValueError(f"--action-mask consistent needs queries that name secrets, which {config.env} lacks")

    def env_options(self) -> dict[str, Any]:
        config = self.config
        return {"action_mask": config.action_mask, **({"query_features": True} if config.query_features else {})}

    def algorithm(self) -> Any:
        from agents.sb3_policy import algorithm_class

        return algorithm_class(self.config.algo)

    def vec_env_refusal(self) -> str | None:
        why = batch_refusal(self.rules)
        if not why and self.config.query_features:
            why = "it has no query features"
        return why or None

    def make_envs(self, vec_env: str, gamma: float, append: bool) -> Any:
        config = self.config
        return make_envs(config.env, config.env_kwargs, config.n_envs, config.seed, config.output / "monitor",
                         config.entropy_reward, gamma, append=append, vec_env=vec_env)  # fmt: skip

    def policy(self) -> tuple[Any, dict[str, Any]]:
        from deduction_envs.core.rules import marginal_pointers
        from train.policies import flat_policy, policy_for

        config = self.config
        if config.policy not in ("features", "marginals"):
            return flat_policy(config.algo, dict_observations=True), {}
        rules, pointers, key, weight = self.rules, None, None, 0.0
        if config.policy == "marginals":  # each query also scored by the marginals of its components
            pointers, key, weight = marginal_pointers(rules), "information_set", config.marginal_weight_or_default
        query = len(QUERY_FEATURES) if config.query_features else 0
        return policy_for(config.algo, action_features(rules), True, pointers, query, key, weight)

    def callbacks(self, envs: Any, model: Any) -> list[Any]:
        return []

    def saved_settings(self) -> dict[str, Any]:
        return {}

    def report(self, model: Any, seconds: float, references: bool = True) -> TrainingRun:
        from train.comparison import compare, seen_by_imitation, write_comparison
        from train.curves import plot_learning_curve

        config = self.config
        label = f"{config.algo} on {config.env} {config.sizes or ''}".strip()
        plot_learning_curve(config.output / "monitor", config.output / "learning_curve.png", label)
        results = compare(
            model,
            config.env,
            config.sizes,
            config.eval_secrets,
            config.eval_time_limit,
            config.evaluation_seed,
            config.action_mask,
            references,
            progress=None if config.progress else False,  # --no-progress hides every bar
        )
        title = f"{label}, {model.num_timesteps} timesteps"
        print(write_comparison(results, config.output / "comparison.md", title, seen_by_imitation(config.output)))
        return TrainingRun(model.num_timesteps, seconds, results)

    def references(self) -> tuple[Any, ...]:
        from train.comparison import compare

        config = self.config
        progress = None if config.progress else False
        return tuple(compare(None, config.env, config.sizes, config.eval_secrets, config.eval_time_limit,
                             config.evaluation_seed, references=True, progress=progress))  # fmt: skip

    @staticmethod
    def demonstrations(
        env: str,
        env_kwargs: dict[str, Any],
        expert: str,
        opponents: Any,
        games: int,
        seed: int,
        gamma: float,
        workers: Any,
        secrets: Any,
    ) -> Any:
        from train.imitation import episode_demonstrations

        if opponents:
            raise ValueError(f"{env} is a single-player game: it has no opponents, got {opponents}")
        return episode_demonstrations(env, env_kwargs, expert, games, seed, gamma, workers, secrets)

    @staticmethod
    def evaluate_saved(args: Any, parser: Any, workers: Any) -> list[Any]:
        from agents import SB3Policy
        from train.arguments import output_file, refuse
        from train.comparison import compare, seen_by_imitation, write_comparison
        from train.multiplayer import multiplayer_envs

        for option, value in (("--opponents", args.opponents), ("--games", args.games),
                              ("--backend", None if args.backend == "auto" else args.backend),
                              ("--panel", args.panel or None)):  # fmt: skip
            if value is not None:
                parser.error(f"{option} is for the multiplayer envs ({', '.join(multiplayer_envs())})")
        args.eval_secrets = args.eval_secrets or SECRETS_DEFAULTS["eval_secrets"]
        args.eval_time_limit = args.eval_time_limit or SECRETS_DEFAULTS["eval_time_limit"]
        sizes = dict(args.size)
        try:
            env_rules(args.env, **sizes)
            if args.model.suffix == ".pt":  # an expert-iteration network
                from agents.set_policy import SetPolicyAgent, load_network

                policy = SetPolicyAgent(load_network(args.model)[0])
            else:
                policy = SB3Policy.load(args.model, args.algo, action_mask=args.action_mask,
                                        trust_model=args.trust_model)  # fmt: skip
            results = compare(policy, args.env, sizes, args.eval_secrets, args.eval_time_limit, args.seed,
                              references=False if args.no_references else (args.references or True),
                              workers=workers)  # fmt: skip
        except (TypeError, ValueError, FileNotFoundError) as error:
            refuse(parser, args.model, error)
        title = f"{args.model} on {args.env} {sizes or ''}".strip()
        path = output_file(args)
        seen = seen_by_imitation(args.model.parent)  # an imitation of some secrets: the others scored apart
        print(f"{write_comparison(results, path, title, seen)}\nwritten to {path}")
        return results

    @staticmethod
    def default_evaluation(run: dict[str, Any]) -> list[str]:
        """The policy alone over every secret."""
        return ["--no-references", "--eval-secrets", str(env_rules(run["env"], **run.get("sizes", {})).num_secrets)]
