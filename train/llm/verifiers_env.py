"""The deduction games as a `verifiers <https://github.com/PrimeIntellect-ai/verifiers>`_ environment (its v1 API:
a taskset and an env), for evaluation with ``vf-eval`` and training with prime-rl.

    vf-eval train.llm.verifiers_env -m gpt-4.1-mini --env.taskset.game Mastermind-v0 --env.taskset.games 20
    vf-eval train.llm.verifiers_env -m MODEL --client.base-url http://127.0.0.1:8000/v1 \\
        --env.taskset.game clue_v0 --env.taskset.sizes '{"players": 4}' --env.player.runtime.type subprocess

Each task is one game (:mod:`train.llm.session`): a single-player game on the secret the reference agents'
evaluation draws for that episode (or secret ``i`` with ``all_secrets``), or one seat of Algo, Clue or Generalized
Clue against reference agents (the seat rotating with the task, the deal fixed by ``seed``). The game engine plays
the user: the rules are the system prompt, the game so far the first user turn, and after each of the model's
replies the game so far again, until the game ends. Replies that are not a legal move are not played; the model is
told what was wrong and ``max_invalid`` of them end the game (a forfeit in a multiplayer game).

The rubric, recorded on the trace: reward ``solved`` (single-player: 1 if found, weight 1) or ``game`` (the seat's
reward, -1 to 1, the lowest for a forfeit, weight 1), and ``efficiency`` (the information efficiency of the
game's questions, 0 to 1, weight ``efficiency_weight``, default 0: recorded, not paid); metrics ``queries`` (or
``won``, ``forfeit``), ``invalid_replies``, ``bits_gained``, ``bits_expected`` and ``bits_best`` summed over the
game's questions.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from pydantic import Field

from train.llm.session import session

__all__ = ["DeductionEnv", "DeductionTaskset"]


class DeductionConfig(vf.TasksetConfig):
    """Which games the tasks are."""

    game: str = "Mastermind-v0"
    """An env id of this package: a single-player one, or algo_v0, clue_v0, generalized_clue_v0."""
    sizes: dict[str, Any] = Field(default_factory=dict)
    """The env's keyword arguments (``{"pegs": 5}``, ``{"players": 4}``)."""
    games: int = Field(100, ge=1)
    """Tasks: games 0 to games - 1."""
    all_secrets: bool = False
    """Single-player games: one task a secret (every secret once), instead of ``games`` drawn ones."""
    seed: int = Field(0, ge=0)
    """Fixes the drawn secrets, the deals and the reference agents' play."""
    opponents: list[str] = Field(default_factory=list)
    """Multiplayer games: roster agents in the other seats (default: the game's usual opponent)."""
    max_invalid: int = Field(5, ge=1)
    """Replies that are not a legal move a game allows before it ends."""
    efficiency_weight: float = Field(0.0, ge=0.0)
    """The weight of the ``efficiency`` reward."""


class DeductionData(vf.TaskData):
    info: dict
    """The game, its sizes and number, and the seed the env rebuilds it from."""


class DeductionTask(vf.Task[DeductionData, vf.State, vf.TaskConfig]):
    pass


class DeductionEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"})
    """The model playing: a plain chat loop (no tools)."""


def _session(info: dict[str, Any]) -> Any:
    return session(info["env"], info["sizes"], info["game"], info["seed"], info["opponents"] or None,
                   info["max_invalid"], info["secret"])  # fmt: skip


class DeductionEnv(vf.Env[DeductionEnvConfig]):
    """Plays one task's game with the model as the player, and scores it (see the module docstring)."""

    async def run(self, task: DeductionTask, agents: Any) -> None:
        info = task.data.info
        play = _session(info)
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()  # the task's prompt is the game's first observation
            while not segment.terminated:
                play.reply(segment.last_reply)
                if play.done:
                    break
                segment = await interaction.turn(play.observation)
        trace = interaction.trace
        outcome = play.outcome()
        if "solved" in outcome:
            trace.record_reward("solved", float(outcome["solved"]))
            trace.record_metric("queries", outcome["queries"])
        else:
            trace.record_reward("game", outcome["reward"])
            trace.record_metrics({"won": float(outcome["won"]), "forfeit": float(outcome["forfeit"])})
        efficiency = outcome["efficiency"]
        trace.record_reward("efficiency", 1.0 if math.isnan(efficiency) else efficiency, info["efficiency_weight"])
        bits = outcome["bits"]
        trace.record_metrics({"invalid_replies": float(outcome["invalid"]),
                              **{f"bits_{name}": float(sum(b[k] for b in bits))
                                 for k, name in enumerate(("gained", "expected", "best"))}})  # fmt: skip


class DeductionTaskset(vf.Taskset[DeductionTask, DeductionConfig]):
    """One task a game (see the module docstring)."""

    def load(self) -> Iterator[DeductionTask]:
        import gymnasium as gym

        from deduction_envs import registry

        config = self.config
        game = registry.game(config.game)  # a clear error for an unknown id
        secrets = None
        if config.all_secrets:
            if game.multiplayer:
                raise ValueError("all_secrets is for the single-player games")
            secrets = gym.make(config.game, **config.sizes).unwrapped.rules.num_secrets  # type: ignore[attr-defined]
        for i in range(config.games if secrets is None else secrets):
            info = {"env": config.game, "sizes": dict(config.sizes), "game": i, "seed": config.seed,
                    "secret": None if secrets is None else i, "opponents": list(config.opponents),
                    "max_invalid": config.max_invalid, "efficiency_weight": config.efficiency_weight}  # fmt: skip
            play = _session(info)
            yield DeductionTask(
                DeductionData(name=f"{config.game}#{i}", prompt=play.observation, system_prompt=play.prompt, info=info),
                config.task,
            )
