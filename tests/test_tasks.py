"""The training tasks and the config that checks itself: a Python caller gets the command line's defaults and
errors (``run(RunConfig(env="algo_v0", timesteps=64))`` raised ``TypeError: 'NoneType' object is not iterable``),
and the task of each kind of game comes from its registry entry."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduction_envs import registry
from train import cli
from train.config import RunConfig
from train.tasks import task_for
from train.tasks.seats import SeatsTask
from train.tasks.secrets import SecretsTask


def test_each_game_trains_through_the_task_its_registry_entry_names():
    for game in registry.games():
        task = task_for(RunConfig(env=game.env_id))
        assert isinstance(task, SeatsTask if game.multiplayer else SecretsTask), game.env_id
    with pytest.raises(ValueError, match=r"env must be one of Mastermind-v0, .*, got 'Chess-v0'"):
        task_for(RunConfig(env="Chess-v0"))


ARGVS = [[], ["--env", "algo_v0"], ["--env", "clue_v0", "--size", "players=3", "--league"],
         ["--env", "TreasureHunt-v0", "--policy", "features", "--eval-secrets", "5"]]  # fmt: skip


@pytest.mark.parametrize("argv", ARGVS)
def test_a_python_caller_gets_the_command_lines_defaults(argv):
    parsed = cli.parse_args(argv)
    env = argv[argv.index("--env") + 1] if "--env" in argv else "Mastermind-v0"
    built = RunConfig(env=env, **{k: getattr(parsed, k) for k in ("league", "policy")},
                      **({"sizes": {"players": 3}} if "players=3" in argv else {}),
                      **({"eval_secrets": 5} if "--eval-secrets" in argv else {})).check()  # fmt: skip
    assert built == parsed


def test_a_python_caller_gets_the_command_lines_errors():
    cases = [
        (RunConfig(env="algo_v0", eval_secrets=10), "--eval-secrets is for the single-player games"),
        (RunConfig(env="Mastermind-v0", opponents=["random"]), "--opponents is for the multiplayer envs"),
        (RunConfig(env="Mastermind-v0", league=True), "--league is for the multiplayer envs"),
        (RunConfig(env="clue_v0", league_window=10), "--league-threshold and --league-window go with --league"),
        (RunConfig(env="algo_v0", opponents=["nobody"]), "--opponents: "),
        (RunConfig(env="algo_v0", algo="dqn"), "multiplayer envs train with maskable_ppo or ppo, got dqn"),
        (RunConfig(env="Mastermind-v0", sizes={"pegs": 0}), "pegs must be an integer"),
        (RunConfig(env="Mastermind-v0", sizes={"legs": 3}), "has no size parameter 'legs'"),
        (RunConfig(env="Mastermind-v0", imitate="nobody"), "a single-player game's experts are"),
        (RunConfig(env="Mastermind-v0", imitate_soft=True), "--imitate-soft needs --imitate NAME"),
        (RunConfig(env="Mastermind-v0", workers=2), "--workers is the number of seeds or trials trained at a time"),
        (RunConfig(env="Mastermind-v0", vec_env="batched", query_features=True), "--vec-env batched: it has no"),
        (RunConfig(env="Mastermind-v0", device="tpu:x"), "--device: "),
        (RunConfig(env="Mastermind-v0", ray_memory="1"), "ray_memory (--ray-memory) must be a number, not text"),
        (RunConfig(env="Mastermind-v0", n_envs="8"), "n_envs (--n-envs) must be a number, not text"),
        (RunConfig(env="FakeCoin-v0", action_mask="consistent"), "--action-mask consistent needs queries"),
        (RunConfig(env="Mastermind-v0", marginal_weight=2.0), "--marginal-weight is for --policy marginals"),
        (RunConfig(env="generalized_clue_v0", policy="marginals"), "--policy marginals is for the single-player"),
        (RunConfig(env="algo_v0", vec_env="batched", opponents=["ismcts"]),
         "are random, epsilon_greedy, max_entropy, got"),
        (RunConfig(env="clue_v0", opponents=["self"]), "--opponents self (self-play) plays on the batched twin"),
        (RunConfig(env="algo_v0", vec_env="batched", opponents=["self"], entropy_reward=1.0),
         "--entropy-reward is not on self-play yet"),
        (RunConfig(env="clue_v0", vec_env="batched", opponents=["ismcts"]), "compiled opponents are random, deduc"),
        (RunConfig(env="clue_v0", vec_env="batched", algo="ppo"), "the batched seats train with maskable_ppo"),
        (RunConfig(env="generalized_clue_v0", vec_env="batched", opponents=["interrogation_pattern"]),
             "are random, scoreboard, exact, got"),
    ]
    for config, message in cases:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            config.check()


def test_checking_twice_changes_nothing_more():
    config = RunConfig(env="clue_v0", league=True).check()
    first = repr(config)
    assert config.check() is config and repr(config) == first
    assert config.opponents == [registry.game("clue_v0").opponent] and config.league_window == 500
    assert config.eval_games == 400 and config.sizes == registry.game("clue_v0").default_sizes()
    single = RunConfig().check()
    assert single.sizes == {"pegs": 3, "colors": 3} and single.eval_secrets == 2000 and single.vec_env == "batched"
    # Clue's twin counts the probability pieces compiled across the batch: "auto" takes it, with the env's default
    # observation (the pieces on); a run asks for the observation without them by its size.
    assert RunConfig(env="clue_v0").check().vec_env == "batched"
    assert RunConfig(env="clue_v0", sizes={"probabilities": False}).check().vec_env == "batched"
    batched = RunConfig(env="clue_v0", vec_env="batched", opponents=["self", "random"]).check()
    assert "probabilities" not in batched.sizes and batched.opponents == ["self", "random"]
    # An opponent without a compiled twin keeps the AEC env; the entropy agent has one (issue 83).
    assert RunConfig(env="clue_v0", opponents=["ismcts"]).check().vec_env == "dummy"
    assert RunConfig(env="clue_v0", opponents=["entropy"]).check().vec_env == "batched"
    counted = RunConfig(env="clue_v0", vec_env="batched", sizes={"probabilities": True}, entropy_reward=0.1).check()
    assert counted.sizes["probabilities"] is True and counted.vec_env == "batched"
    algo = RunConfig(env="algo_v0", vec_env="batched", opponents=["random"]).check()
    assert "probabilities" not in algo.sizes  # Algo's twin writes the probability pieces: the env's default


def test_evaluate_model_is_the_command_line_from_python(tmp_path):
    from train import evaluate_model

    with pytest.raises(ValueError, match="no file at"):
        evaluate_model(tmp_path / "none.zip")
    (tmp_path / "text.zip").write_text("x")
    with pytest.raises(ValueError, match="it is not a zip file"):
        evaluate_model(tmp_path / "text.zip")
    run = tmp_path / "run"
    cli.main(["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--timesteps", "64", "--n-envs",
              "2", "--no-progress", "--eval-time-limit", "0.005", "--output", str(run)])  # fmt: skip
    results = evaluate_model(run / "model.zip", references=False)  # env and sizes from run.json
    assert [r.agent for r in results] == ["MaskablePPO policy"] and results[0].episodes == 9
    assert (run / "evaluation-seed0.md").exists()
    with pytest.raises(ValueError, match="--opponents is for the multiplayer envs"):
        evaluate_model(run / "model.zip", opponents=["random"])


def test_a_python_caller_gets_the_options_own_checks():
    """The command line checks each option's value while parsing (a range, a file, a choice); a Python caller
    building a RunConfig skipped them (``timesteps=-5`` trained nothing, ``n_envs=0`` failed deep in SB3)."""
    cases = [
        (dict(timesteps=-5), "timesteps (--timesteps) must be an integer >= 0, got -5"),
        (dict(n_envs=0), "n_envs (--n-envs) must be an integer >= 1, got 0"),
        (dict(n_envs=2.5), "n_envs (--n-envs) must be an integer >= 1, got '2.5'"),
        (dict(seed=True), "seed (--seed) must be an integer >= 0, got 'True'"),
        (dict(eval_time_limit=float("nan")), "eval_time_limit (--eval-time-limit) must be a finite number > 0"),
        (dict(algo="sac"), "algo (--algo) must be one of maskable_ppo, ppo, a2c, dqn, got 'sac'"),
        (dict(progress="yes"), "progress (--no-progress) must be True or False, got 'yes'"),
        (dict(config="/no/such.toml"), "config (--config) no file at /no/such.toml"),
        (dict(seeds=[1, 1]), "seeds (--seeds) give distinct seeds"),
        (dict(sizes=[("pegs", 3)]), "sizes must be a dict of size names to values"),
        (dict(eval_seed=-1), "eval_seed must be an integer >= 0 or None, got -1"),
        (dict(device=7), "device (--device) must be a string, got 7"),
        (dict(env="algo_v0", eval_games=0), "eval_games (--eval-games) must be an integer >= 1, got 0"),
    ]
    for fields, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            RunConfig(**fields).check()


@settings(max_examples=80)
@given(field=st.sampled_from([f.name for f in dataclasses.fields(RunConfig) if f.name not in ("env", "output")]),
       value=st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True), st.text(max_size=4),
                       st.lists(st.integers(-1, 2), max_size=2)))  # fmt: skip
def test_nonsense_in_any_field_is_a_value_error_or_a_checked_config(field, value):
    config = RunConfig(**{field: value})
    try:
        config.check()
    except ValueError:
        return
    assert config.sizes is not None and config.vec_env in ("batched", "dummy", "subproc")


def test_the_features_policy_reads_the_case_files_facts_where_the_probabilities_are_off():
    """Clue's pointers read each card's probability of being in the case file; observed without the
    probabilities (``--size probabilities=false``), its facts "in the case file" and "not in it" instead."""
    from train.tasks.seats import SeatsTask
    from train.training_envs import ClueTrainingEnv

    plain = RunConfig(env="clue_v0", vec_env="batched", sizes={"players": 3, "probabilities": False},
                      opponents=["random"], policy="features")  # fmt: skip
    policy, kwargs = SeatsTask(plain.check()).policy()
    pointers = kwargs["observation_pointers"]
    assert policy.__name__ == "MaskableFeaturePolicy" and pointers.shape == (670, 12)
    env = ClueTrainingEnv(players=3, probabilities=False)
    env.reset(seed=4)
    me = env.possible_agents.index(env.agent_selection)
    observation = env.observe(env.agent_selection)["observation"]
    mine = np.array(env.knowledge[me].hand)
    triple = next(t for t in range(324) if env.rules.triple(t)[2] in mine)  # a suggestion naming a card of mine
    read = observation[pointers[triple]]
    assert read[:3].tolist() == [0, 0, 0] and read[5] == 1  # my own room is not in the case file
    accusation = observation[pointers[324 + triple]]
    assert (accusation[6:] == read[:6]).all() and (pointers[324 + triple, :6] == -1).all()
    full = RunConfig(env="clue_v0", sizes={"players": 3}, policy="features").check()
    assert SeatsTask(full).policy()[1]["observation_pointers"].shape == (670, 6)


def test_an_options_default_is_stated_once_in_run_config():
    """The option schema declares no default (argparse's own: None, or a flag's off); the command line takes
    RunConfig's, so the two cannot drift apart."""
    from train.options import run_parser

    fields = {field.name: field.default for field in dataclasses.fields(RunConfig)}
    for action in run_parser()._actions:
        if action.dest in fields:
            unset = True if action.const is False else (False if action.const is True else None)
            assert action.default == unset, f"{action.dest}: the schema states a default ({action.default!r})"
    parsed = cli.build_parser().parse_args([])
    for name, default in fields.items():
        if hasattr(parsed, name):
            assert getattr(parsed, name) == default, name
