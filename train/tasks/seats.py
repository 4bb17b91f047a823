"""The multiplayer games' task: the learner plays one seat (drawn each game) against opponents drawn from a pool,
and is measured against each evaluation opponent, seats rotated (:mod:`train.multiplayer`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from deduction_envs import registry
from deduction_envs.core.entropy import DEFAULT_ENTROPY_END
from deduction_envs.envs.batched_tables import SELF
from train.features import action_features
from train.options import SEATS_DEFAULTS
from train.tasks import TrainingRun

if TYPE_CHECKING:
    from train.config import RunConfig

__all__ = ["SECRET_OPTIONS", "SeatsTask"]

#: The options of the single-player games' comparison, which a multiplayer run refuses.
SECRET_OPTIONS = ("eval_secrets", "eval_time_limit")


class SeatsTask:
    """A multiplayer game's run: see the module docstring."""

    curve = ("won", "win rate", 500)

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.snapshots: list[str] = []  # a resumed league's snapshots, read when its envs are made

    def check(self) -> None:
        from agents.roster import seat_agent
        from train.multiplayer import check_opponents, default_sizes, raw_env

        config = self.config
        config.sizes = {**default_sizes(config.env), **(config.sizes or {})}
        try:
            env = raw_env(config.env, **config.sizes)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{config.env}: {error}") from None
        if config.pointer_weights is not None:
            from train.training_envs import observation_pointers

            pointers = observation_pointers(env)
            columns = 0 if pointers is None else pointers.shape[1]
            if not 1 <= len(config.pointer_weights) <= columns:
                raise ValueError(
                    f"--pointer-weights: {config.env} {config.sizes}'s head has {columns} pointer columns "
                    f"(its training env's observation_pointers), got {len(config.pointer_weights)} weights"
                )
        if config.action_mask != "all":
            raise ValueError("--action-mask is for single-player games; multiplayer envs mask their legal actions")
        for name in SECRET_OPTIONS:
            if getattr(config, name) is not None:
                raise ValueError(f"--{name.replace('_', '-')} is for the single-player games (their comparison)")
        if not config.league and (config.league_threshold is not None or config.league_window is not None):
            raise ValueError("--league-threshold and --league-window go with --league")
        if config.algo not in ("maskable_ppo", "ppo"):
            raise ValueError(f"multiplayer envs train with maskable_ppo or ppo, got {config.algo}")
        game = registry.game(config.env)
        config.opponents = list(config.opponents or [game.opponent])
        config.eval_opponents = list(config.eval_opponents or game.evaluation)
        if SELF in config.opponents and config.vec_env != "batched":
            raise ValueError("--opponents self (self-play) plays on the batched twin: give --vec-env batched")
        if SELF in config.opponents and config.entropy_reward is not None:
            raise ValueError("--entropy-reward is not on self-play yet (--opponents self)")
        if config.vec_env == "batched":  # a twin that does not count them compiled observes without them
            from deduction_envs.envs.batched_tables import compiled_probabilities

            if not compiled_probabilities(config.env):
                config.sizes.setdefault("probabilities", False)
        for name in ("opponents", "eval_opponents"):
            names = getattr(config, name)
            try:
                if name == "eval_opponents" or names != [SELF]:  # self-play alone needs no reference agent
                    check_opponents(config.env, [n for n in names if n != SELF or name == "eval_opponents"])
            except ValueError as error:
                raise ValueError(f"--{name.replace('_', '-')}: {error}") from None
        if config.imitate is not None:
            try:
                check_opponents(config.env, [config.imitate])
            except ValueError as error:
                raise ValueError(f"--imitate: {error}") from None
            searches = hasattr(seat_agent(config.env, config.imitate), "last_visits")
            searched = config.imitate_demos is not None or searches
            options = config.search_target_options()
            if options and not searched:
                raise ValueError(f"{options[0]} needs a search agent; {config.imitate} does not search (try ismcts)")
        if config.imitate_secrets is not None:
            raise ValueError("--imitate-secrets is for the single-player games (a multiplayer game deals its cards)")
        if config.policy == "marginals":
            raise ValueError(
                "--policy marginals is for the single-player games (a multiplayer env has its own pointers)"
            )
        if config.query_features:
            raise ValueError("--query-features is for the single-player games")
        if config.league:
            names = ("league_threshold", "league_window", "eval_games", "eval_workers")
        else:
            names = ("eval_games", "eval_workers")
        for name in names:
            if getattr(config, name) is None:
                setattr(config, name, SEATS_DEFAULTS[name])

    def env_options(self) -> dict[str, Any]:
        return {}  # a multiplayer env masks its legal actions and has no query features

    def self_play(self) -> bool:
        """Whether the run is self-play on the batched twin (:mod:`train.self_play`): ``self`` in its pool."""
        return self.config.vec_env == "batched" and SELF in (self.config.opponents or [])

    def algorithm(self) -> Any:
        if self.self_play():
            from train.self_play import SelfPlayMaskablePPO

            return SelfPlayMaskablePPO
        from agents.sb3_policy import algorithm_class

        return algorithm_class(self.config.algo)

    def vec_env_refusal(self) -> str | None:
        from deduction_envs.envs.batched_tables import batched_refusal, compiled_probabilities

        config = self.config
        if config.algo != "maskable_ppo":
            return "the batched seats train with maskable_ppo"
        sizes = config.sizes or {}
        if config.vec_env == "auto" and sizes.get("probabilities", True) and not compiled_probabilities(config.env):
            return "the twin counts the probability pieces no faster than the AEC env (one seat at a time)"
        return batched_refusal(config.env, sizes, config.opponents or [], config.entropy_reward)

    def make_envs(self, vec_env: str, gamma: float, append: bool) -> Any:
        from train.multiplayer import SeatEnvs, make_seat_envs, read_league

        config = self.config
        self.snapshots = read_league(config.output) if config.resume is not None else []
        spec = SeatEnvs(config.env, config.env_kwargs, config.opponents or [], config.n_envs, config.seed,
                        config.output / "monitor", self.snapshots, append, config.algo, config.entropy_reward, gamma,
                        config.entropy_reward_end or DEFAULT_ENTROPY_END, config.torch_threads)  # fmt: skip
        return make_seat_envs(spec, vec_env)

    def policy(self) -> tuple[Any, dict[str, Any]]:
        from train.multiplayer import raw_env
        from train.policies import flat_policy, policy_for
        from train.training_envs import observation_pointers

        config = self.config
        if config.policy != "features":
            return flat_policy(config.algo, dict_observations=False), {}
        game = raw_env(config.env, **config.sizes)  # its rules, and its observation's pointers
        weights = config.pointer_weights or 0.0  # each pointer column's start
        return policy_for(
            config.algo, action_features(game.rules), False, observation_pointers(game), pointer_weight=weights
        )

    def callbacks(self, envs: Any, model: Any) -> list[Any]:
        from train.multiplayer import league_callback

        config = self.config
        if not config.league:
            return []
        return [league_callback(envs, config.output, config.league_threshold, config.league_window, self.snapshots)]

    def saved_settings(self) -> dict[str, Any]:
        config = self.config
        return {"opponents": config.opponents, "league": config.league, "pointer_weights": config.pointer_weights,
                "entropy_reward_end": config.entropy_reward_end}  # fmt: skip

    def report(self, model: Any, seconds: float, references: bool = True) -> TrainingRun:
        from train.curves import plot_seat_curve
        from train.multiplayer import evaluate_seat_policy, raw_env, write_seat_evaluation

        config = self.config
        players = raw_env(config.env, **config.sizes).rules.players
        label = f"{config.algo} on {config.env} {config.sizes} against {','.join(config.opponents or [])}"
        plot_seat_curve(config.output / "monitor", config.output / "learning_curve.png", label, players)
        results = evaluate_seat_policy(
            config.output / "model.zip",
            config.env,
            config.sizes,
            config.eval_opponents,
            config.eval_games,
            config.evaluation_seed,
            config.algo,
            config.executor_for(config.eval_workers),
        )
        title = f"{label}, {model.num_timesteps} timesteps"
        print(write_seat_evaluation(results, config.output / "comparison.md", title))
        return TrainingRun(model.num_timesteps, seconds, results)

    def references(self) -> tuple[Any, ...]:
        return ()  # the seeds are scored against the evaluation opponents themselves

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
        from train.imitation import seat_demonstrations

        if secrets is not None:
            raise ValueError(f"{env} deals its cards each game: secrets are for the single-player games")
        return seat_demonstrations(env, env_kwargs, expert, opponents, games, seed, gamma, workers)

    @staticmethod
    def evaluate_saved(args: Any, parser: Any, workers: Any) -> list[Any]:
        import hashlib

        from agents.sb3_policy import SB3SeatPolicy
        from deduction_envs.executor import discard_store
        from train.arguments import output_file, refuse
        from train.multiplayer import (
            check_opponents,
            default_sizes,
            evaluate_seat_policy,
            panel_tables,
            raw_env,
            write_seat_evaluation,
        )

        if args.action_mask != "all" or args.eval_secrets is not None or args.eval_time_limit is not None:
            parser.error("--action-mask, --eval-secrets and --eval-time-limit are for the single-player games")
        if args.no_references or args.references:
            parser.error("--no-references and --references are for the single-player games (a seat is measured "
                         "against --opponents)")  # fmt: skip
        games = args.games or SEATS_DEFAULTS["eval_games"]
        sizes = {**default_sizes(args.env), **dict(args.size)}
        if args.panel and args.opponents:
            parser.error("--panel plays the game's evaluation panel: give it or --opponents, not both")
        opponents = args.opponents or list(registry.game(args.env).evaluation)
        if args.panel:
            opponents = panel_tables(args.env, sizes)
        try:
            check_opponents(args.env, opponents)
            # a mismatch (or a file that holds code) is refused first
            SB3SeatPolicy.load(args.model, raw_env(args.env, **sizes), args.algo, trust_model=args.trust_model)
            path = output_file(args)
            # Finished parts are kept beside the table until it is written: a killed evaluation resumes.
            digest = hashlib.sha256(args.model.read_bytes()).hexdigest()[:16]
            store = path.parent / ".jobs" / f"evaluation-{digest}"
            results = evaluate_seat_policy(
                args.model, args.env, sizes, opponents, games, args.seed, args.algo, workers, store=store,
                trust_model=args.trust_model, backend=args.backend,
            )
        except (TypeError, ValueError, FileNotFoundError) as error:
            refuse(parser, args.model, error)
        print(f"{write_seat_evaluation(results, path, f'{args.model} on {args.env} {sizes}')}\nwritten to {path}")
        discard_store(store)  # kept only while the run is unfinished
        return results

    @staticmethod
    def default_evaluation(run: dict[str, Any]) -> list[str]:
        """The evaluation's default opponents and number of games."""
        return []
