"""Training on one seat of the multiplayer envs: opponents by name, the league, the seat policy, the evaluation."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import ClueDeductionSheet, RandomSeatAgent, SB3SeatPolicy, play_match
from agents.roster import agent_names, seat_agent
from deduction_envs import registry
from deduction_envs.core.multiplayer import batched_ranks, ranks_from_rewards
from deduction_envs.envs import algo_v0, clue_v0, generalized_clue_v0
from deduction_envs.envs.single_seat import SingleSeatEnv
from train import cli, curves, evaluate, multiplayer


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), min_size=4, max_size=4), min_size=1,
                max_size=6))  # fmt: skip
def test_batched_ranks_are_each_rows_places_with_ties_sharing_their_mean(rows):
    """Against the slow definition: a seat's places are those of the seats with its reward, after those above."""
    got = batched_ranks(np.array(rows))
    for row, ranks in zip(rows, got, strict=True):
        order = sorted(row, reverse=True)
        for value, rank in zip(row, ranks, strict=True):
            places = [place + 1 for place, other in enumerate(order) if other == value]
            assert rank == sum(places) / len(places)
        assert ranks.tolist() == ranks_from_rewards(row)


def test_ranks_from_rewards_by_hand():
    assert ranks_from_rewards([1.0, -0.5, -0.5, -0.5]) == [1.0, 3.0, 3.0, 3.0]  # Clue: the winner, three tied
    assert ranks_from_rewards([-1 / 3] * 4) == [2.5] * 4  # nobody solved it
    assert ranks_from_rewards([1.0, -1.0]) == [1.0, 2.0]
    assert ranks_from_rewards([0.0, 1.0, -1.0]) == [2.0, 1.0, 3.0]  # Generalized Clue, linear in rank
    assert ranks_from_rewards([0.5, 0.5, -1.0]) == [1.5, 1.5, 3.0]


def test_the_roster_makes_fresh_named_agents_and_refuses_unknown_names():
    for env in ("algo_v0", "clue_v0", "generalized_clue_v0"):
        for name in agent_names(env):
            a, b = seat_agent(env, name), seat_agent(env, name)
            assert a is not b and a.name == name
    with pytest.raises(ValueError, match="clue_v0's reference agents are random, deduction_sheet"):
        seat_agent("clue_v0", "scoreboard")
    with pytest.raises(ValueError, match="unknown game 'chess_v6'; the games are Mastermind-v0, "):
        seat_agent("chess_v6", "random")
    with pytest.raises(ValueError, match=r"env must be a multiplayer game \(algo_v0, clue_v0, generalized_clue_v0\)"):
        seat_agent("Mastermind-v0", "random")


def test_the_last_step_reports_the_learners_rank_and_whether_it_won():
    env = SingleSeatEnv(algo_v0.raw_env(players=3, probabilities=False), [RandomSeatAgent(), RandomSeatAgent()])
    rng = np.random.default_rng(0)
    seen = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        assert "rank" not in info
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated
        state = env.env.table.state
        expected = ranks_from_rewards(env.env.rules.rewards(state))[env.learner]
        assert info["rank"] == expected and info["won"] == float(env.env.rules.winner(state) == env.learner)
        seen.add(info["rank"])
    assert seen == {1.0, 2.0, 3.0}  # Algo ranks by the order of going out


def test_the_entropy_reward_shapes_the_learners_reward_by_its_own_bits():
    from deduction_envs.wrappers import EntropyRewardWrapper

    def make():
        return SingleSeatEnv(clue_v0.raw_env(players=3), [ClueDeductionSheet(), ClueDeductionSheet()], entropy=True)

    plain, shaped = make(), EntropyRewardWrapper(make(), scale=1.0, gamma=1.0)
    for seed in range(3):
        _, info = plain.reset(seed=seed)
        _, shaped_info = shaped.reset(seed=seed)
        start = info["entropy"]
        assert start == shaped_info["entropy"] == plain.env.entropy(plain.env.possible_agents[plain.learner])
        rng, total, bonus, done = np.random.default_rng(seed), 0.0, 0.0, False
        while not done:
            legal = np.flatnonzero(plain.action_masks())
            action = int(rng.choice(legal[legal < 324] if (legal < 324).any() else legal))  # no accusations
            _, reward, terminated, truncated, info = plain.step(action)
            _, shaped_reward, *_, shaped_info = shaped.step(action)
            total, bonus, done = total + reward, bonus + shaped_info["entropy_reward"], terminated or truncated
            assert shaped_reward == pytest.approx(reward + shaped_info["entropy_reward"])
        assert terminated and bonus == pytest.approx(start)  # gamma 1: every bit, to a terminal potential of 0
    with pytest.raises(ValueError, match="entropy must be True or False"):
        SingleSeatEnv(clue_v0.raw_env(players=3), [ClueDeductionSheet(), ClueDeductionSheet()], entropy=1)


def test_a_pool_draws_distinct_agents_per_seat_and_grows_only_by_real_entries(tmp_path):
    pool = multiplayer.OpponentPool("clue_v0", ["deduction_sheet", "random"], {"players": 4})
    rng = np.random.default_rng(3)
    drawn = [pool(rng) for _ in range(40)]
    assert all(len(agents) == 3 and len({id(a) for a in agents}) == 3 for agents in drawn)
    assert {a.name for agents in drawn for a in agents} == {"deduction_sheet", "random"}
    with pytest.raises(ValueError, match="neither a reference agent of clue_v0 nor a saved model"):
        pool.add(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="clue_v0's reference agents are"):
        multiplayer.OpponentPool("clue_v0", ["scoreboard"], {})
    env = SingleSeatEnv(clue_v0.raw_env(players=3), [RandomSeatAgent(), RandomSeatAgent()])
    with pytest.raises(TypeError, match="not a pool with add"):
        env.add_opponent("random")


def tiny_model(env: SingleSeatEnv, steps: int = 64):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    return model.learn(steps)


@pytest.mark.parametrize(
    "make", [lambda: algo_v0.raw_env(players=2), lambda: clue_v0.raw_env(players=3), generalized_clue_v0.raw_env]
)
def test_the_seat_policy_sees_exactly_the_learners_observation(make):
    env = SingleSeatEnv(make(), [RandomSeatAgent() for _ in range(make().rules.players - 1)], seat=0)
    model = tiny_model(env)
    policy = SB3SeatPolicy(model, make())
    # The raw env tells the policy its seat's projected events; at each of seat 0's decisions the policy's
    # rebuilt observation is the env's.
    raw, rng, decisions = make(), np.random.default_rng(0), 0
    raw.seat_listeners = {0: policy.observe}
    for seed in range(3):
        policy.reset(raw.rules, 0, seed=1)
        raw.reset(seed=seed)
        while not raw.terminations["player_0"] and not raw.truncations["player_0"]:
            seen = raw.observe(raw.agent_selection)
            if raw.agent_selection == "player_0":
                np.testing.assert_array_equal(policy.observation(), seen["observation"])
                action, decisions = policy.act(seen["action_mask"].astype(bool)), decisions + 1
            else:
                action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
            raw.step(action)
    assert decisions > 3


def test_the_seat_policy_refuses_another_game_or_size_and_plays_seeded():
    env = SingleSeatEnv(clue_v0.raw_env(players=3), [RandomSeatAgent(), RandomSeatAgent()])
    model = tiny_model(env)
    with pytest.raises(ValueError, match="trained on another game or size"):
        SB3SeatPolicy(model, clue_v0.raw_env(players=4))
    with pytest.raises(ValueError, match="must be a multiplayer env"):
        SB3SeatPolicy(model, "clue_v0")
    with pytest.raises(TypeError, match="stable-baselines3 model"):
        SB3SeatPolicy(object(), clue_v0.raw_env(players=3))
    policy = SB3SeatPolicy(model, clue_v0.raw_env(players=3))
    with pytest.raises(ValueError, match="the policy plays"):
        policy.reset(algo_v0.raw_env().rules, 0)
    rules = clue_v0.raw_env(players=3).rules
    sampled = [SB3SeatPolicy(model, clue_v0.raw_env(players=3), deterministic=False) for _ in range(2)]
    games = [play_match(rules, [p, RandomSeatAgent(), RandomSeatAgent()], 3, seed=2).games for p in sampled]
    assert games[0] == games[1]


def test_training_a_seat_end_to_end_then_evaluating_and_resuming(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--env", "clue_v0", "--size", "players=3", "--opponents", "deduction_sheet,random", "--output", str(out)]
    argv += ["--timesteps", "512", "--n-envs", "2", "--no-progress", "--eval-games", "6"]
    run = cli.main([*argv, "--eval-opponents", "random,deduction_sheet"])
    assert [r.opponent for r in run] == ["random", "deduction_sheet"]
    assert all(r.games == 6 and r.players == 3 and 0 <= r.wins <= 6 for r in run)
    assert (out / "learning_curve.png").read_bytes().startswith(b"\x89PNG")
    assert f"| deduction_sheet | 6 | {run[1].wins} | {run[1].wins / 6:.3f} [" in (out / "comparison.md").read_text()
    settings = json.loads((out / "run.json").read_text())
    assert settings["opponents"] == ["deduction_sheet", "random"] and settings["sizes"] == {"players": 3}
    monitor = curves.read_monitors(out / "monitor", "rank")
    assert monitor.size and set(monitor) <= {1.0, 2.5, 3.0, 2.0}
    # train.evaluate plays the same seeded games as the end of training.
    model = ["--model", str(out / "model.zip"), "--env", "clue_v0", "--size", "players=3", "--games", "6"]
    table = (out / "comparison.md").read_text()
    again = evaluate.main([*model, "--opponents", "random,deduction_sheet"])
    assert [(r.wins, r.mean_rank) for r in again] == [(r.wins, r.mean_rank) for r in run]
    assert not (out / ".jobs").exists()  # its finished parts are kept only until the table is written
    # It writes its own table next to the model, per seed, and leaves the end-of-training one alone.
    assert (out / "comparison.md").read_text() == table
    assert "| deduction_sheet | 6 |" in (out / "evaluation-seed0.md").read_text()
    evaluate.main([*model, "--opponents", "random", "--seed", "1", "--output", str(tmp_path / "e")])
    assert (tmp_path / "e" / "evaluation-seed1.md").exists() and (out / "evaluation-seed0.md").exists()
    # The panel: a table of each panel agent, every mixed table of them, and the worst case over them.
    panel = evaluate.main([*model, "--panel", "--games", "3", "--output", str(tmp_path / "p")])
    assert [r.opponent for r in panel] == multiplayer.panel_tables("clue_v0", {"players": 3})
    text = (tmp_path / "p" / "evaluation-seed0.md").read_text()
    worst = min(panel, key=lambda r: r.win_rate)
    assert f"Worst case over the 4 tables: win rate {worst.win_rate:.3f} [" in text
    assert "| deduction_sheet+entropy | 3 |" in text
    with pytest.raises(SystemExit):
        evaluate.main([*model, "--panel", "--opponents", "random"])
    assert "give it or --opponents, not both" in capsys.readouterr().err
    capsys.readouterr()
    cli.main([*argv, "--eval-opponents", "random", "--resume", str(out / "model.zip")])
    assert "trained 1024 timesteps" in capsys.readouterr().out


def test_a_league_adds_snapshots_that_play_as_opponents_and_a_resumed_run_keeps_them(tmp_path, capsys):
    out = tmp_path / "league"
    argv = ["--env", "algo_v0", "--opponents", "random", "--league", "--league-threshold", "-1"]
    argv += ["--entropy-reward", "0.5", "--league-window", "5", "--timesteps", "256", "--n-envs", "2"]
    argv += ["--eval-games", "2", "--no-progress"]
    cli.main([*argv, "--output", str(out), "--eval-opponents", "random"])
    snapshots = multiplayer.read_league(out)
    assert snapshots and all(p.endswith(".zip") for p in snapshots)
    assert "joins the pool" in capsys.readouterr().out
    pool = multiplayer.OpponentPool("algo_v0", ["random"], {"players": 2}, snapshots)
    names = {a.name for _ in range(30) for a in pool(np.random.default_rng(_))}
    assert "random" in names and any(n.startswith("snapshot") for n in names)
    cli.main([*argv, "--output", str(out), "--eval-opponents", "random", "--resume", str(out / "model.zip")])
    assert multiplayer.read_league(out)[: len(snapshots)] == snapshots


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env", "clue_v0", "--opponents", "scoreboard"], "--opponents: clue_v0's reference agents are"),
        (
            ["--env", "clue_v0", "--entropy-reward", "-1"],
            "argument --entropy-reward: must be a finite number >= 0, got -1",
        ),
        (["--env", "clue_v0", "--size", "players=9"], "clue_v0: players must be"),
        (["--env", "algo_v0", "--action-mask", "consistent"], "multiplayer envs mask their legal actions"),
        (["--env", "algo_v0", "--algo", "dqn"], "multiplayer envs train with maskable_ppo or ppo"),
        (["--env", "Mastermind-v0", "--opponents", "random"], "--opponents is for the multiplayer envs"),
        (["--env", "Mastermind-v0", "--league"], "--league is for the multiplayer envs"),
        (["--env", "algo_v0", "--eval-games", "0"], "argument --eval-games: must be an integer >= 1, got 0"),
        (["--env", "Mastermind-v0", "--imitate", "random"], "--imitate: a single-player game's experts are ises"),
        (["--env", "Mastermind-v0", "--imitate-demos", __file__], "--imitate-demos needs --imitate NAME"),
        (["--env", "algo_v0", "--imitate", "entropy"], "--imitate: algo_v0's reference agents are"),
        (
            ["--env", "algo_v0", "--imitate", "random", "--imitate-games", "0"],
            "argument --imitate-games: must be an integer >= 1, got 0",
        ),
        (["--env", "algo_v0", "--imitate-demos", __file__], "--imitate-demos needs --imitate NAME"),
        (
            ["--env", "algo_v0", "--imitate", "random", "--imitate-demos", "none.npz"],
            "argument --imitate-demos: no file at none.npz",
        ),
        (["--env", "algo_v0", "--imitate-learning-rate", "1e-3"], "--imitate-learning-rate needs --imitate NAME"),
        (
            ["--env", "algo_v0", "--imitate", "random", "--imitate-learning-rate", "0"],
            "argument --imitate-learning-rate: must be a finite number > 0, got 0",
        ),
        (
            ["--env", "algo_v0", "--imitate", "random", "--imitate-learning-rate", "nan"],
            "argument --imitate-learning-rate: must be a finite number > 0, got nan",
        ),
        (["--env", "Mastermind-v0", "--imitate-learning-rate", "1e-3"], "--imitate-learning-rate needs --imitate"),
        (["--env", "algo_v0", "--imitate-soft"], "--imitate-soft needs --imitate NAME"),
        (["--env", "algo_v0", "--imitate", "epsilon_greedy", "--imitate-soft"], "epsilon_greedy does not search"),
        (["--env", "Mastermind-v0", "--imitate", "ises", "--imitate-soft"], "single-player game's experts do not"),
        (["--env", "algo_v0", "--imitate-values", "0.1"], "--imitate-values needs --imitate NAME"),
        (
            ["--env", "algo_v0", "--imitate", "ismcts", "--imitate-values", "0"],
            "argument --imitate-values: must be a finite number > 0, got 0",
        ),
        (
            ["--env", "algo_v0", "--imitate", "ismcts", "--imitate-values", "inf"],
            "argument --imitate-values: must be a finite number > 0, got inf",
        ),
        (
            ["--env", "algo_v0", "--imitate", "ismcts", "--imitate-values", "x"],
            "argument --imitate-values: must be a number > 0, got 'x'",
        ),
        (["--env", "algo_v0", "--imitate", "ismcts", "--imitate-values", "1", "--imitate-soft"], "give one"),
        (["--env", "algo_v0", "--imitate", "max_entropy", "--imitate-values", "1"], "max_entropy does not search"),
        (["--env", "Mastermind-v0", "--imitate", "ises", "--imitate-values", "1"], "experts do not search"),
    ],
)
def test_bad_multiplayer_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        cli.main(argv)
    assert message in capsys.readouterr().err


def test_demonstrations_are_the_experts_legal_seeded_decisions_with_their_returns():
    from train.tasks import demonstrations

    demos = demonstrations("algo_v0", {"players": 2}, "epsilon_greedy", ["random"], 6, seed=3, gamma=0.9)
    again = demonstrations("algo_v0", {"players": 2}, "epsilon_greedy", ["random"], 6, seed=3, gamma=0.9)
    assert len(demos) > 12 and (demos.actions == again.actions).all()
    assert (demos.observations == again.observations).all()
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # every action legal where it was taken
    assert set(demos.games) == set(range(6))
    for game in range(6):  # Algo rewards only the end: each return is the last one discounted by the steps left
        returns = demos.returns[demos.games == game]
        assert abs(returns[-1]) == 1
        np.testing.assert_allclose(returns, returns[-1] * 0.9 ** np.arange(returns.size)[::-1], rtol=1e-6)
    with pytest.raises(ValueError, match="reference agents are"):
        demonstrations("algo_v0", {"players": 2}, "entropy", ["random"], 2)


def test_a_search_experts_demonstrations_hold_its_visit_shares(tmp_path):
    from train.imitation import Demonstrations
    from train.tasks import demonstrations

    demos = demonstrations("algo_v0", {"players": 2}, "ismcts_greedy", ["epsilon_greedy"], 4, seed=1)
    targets = demos.targets
    assert targets.shape == demos.masks.shape and np.allclose(targets.sum(axis=1), 1)
    assert not targets[~demos.masks].any()  # shares of legal actions only
    rows = np.arange(len(demos))
    assert (targets[rows, demos.actions] == targets.max(axis=1)).all()  # the most visited is the one taken
    searched = targets.max(axis=1) < 1
    assert 0 < searched.sum() < len(demos)  # a choice after a hit was searched; a lone attack was not
    # Shares of the 100 iterations: whole visits.
    assert np.allclose(targets[searched] * 100, np.round(targets[searched] * 100), atol=1e-4)
    # Its root values: mean rewards of exactly the options it visited, the best of them the one taken.
    values = demos.values
    assert values.shape == targets.shape and (np.isfinite(values) == (targets > 0) & searched[:, None]).all()
    assert (np.abs(values[np.isfinite(values)]) <= 1).all()
    chosen = values[rows[searched], demos.actions[searched]]
    assert np.mean(chosen == np.nanmax(values[searched], axis=1)) > 0.9  # most visits go to the best mean
    demos.save(tmp_path / "d.npz")
    again = Demonstrations.load(tmp_path / "d.npz")
    assert np.array_equal(again.targets, targets) and np.array_equal(again.values, values, equal_nan=True)
    plain = demonstrations("algo_v0", {"players": 2}, "epsilon_greedy", ["random"], 2)
    assert plain.targets is None and Demonstrations.join([plain, demos]).targets is None
    assert plain.values is None and Demonstrations.join([plain, demos]).values is None
    plain.save(tmp_path / "p.npz")
    assert Demonstrations.load(tmp_path / "p.npz").targets is None


def test_a_soft_fit_learns_the_visit_shares_and_a_hard_fit_the_choice():
    """The same decision 512 times, the search's visits 70 / 30 between two moves: a soft fit's policy plays
    them about 70 / 30, a fit to the choice alone nearly always the first."""
    import torch
    from sb3_contrib import MaskablePPO

    from train.imitation import Demonstrations, fit
    from train.multiplayer import single_seat_env

    env = single_seat_env("algo_v0", {"players": 2}, ["random"], [], 1)
    observation, _ = env.reset(seed=0)
    mask = env.action_masks()
    first, second = np.flatnonzero(mask)[:2]
    mask = np.zeros_like(mask)
    mask[[first, second]] = True
    targets = np.zeros((512, mask.size), dtype=np.float32)
    targets[:, [first, second]] = 0.7, 0.3
    n = len(targets)
    demos = Demonstrations(
        np.repeat(observation[None], n, axis=0), np.repeat(mask[None], n, axis=0), np.full(n, first),
        np.zeros(n, dtype=np.float32), np.arange(n), targets,
    )  # fmt: skip
    values = np.full(targets.shape, np.nan, dtype=np.float32)
    values[:, [first, second]] = 0.5 + 0.1 * np.log(0.7 / 0.3), 0.5  # at temperature 0.1: shares 70 / 30
    demos = replace(demos, values=values)
    for soft, temperature, low, high in ((True, None, 0.65, 0.75), (False, 0.1, 0.65, 0.75), (False, None, 0.95, 1)):
        model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu")
        report = fit(model, demos, 30, learning_rate=1e-3, soft=soft, temperature=temperature)
        assert report["targets"] == ("visit shares" if soft else "root values at 0.1" if temperature else "actions")
        with torch.no_grad():
            obs = torch.as_tensor(observation[None])
            probs = model.policy.get_distribution(obs, action_masks=mask[None]).distribution.probs[0].numpy()
        assert low < probs[first] < high and probs[[first, second]].sum() > 0.999
    plain = replace(demos, targets=None, values=None)
    for kwargs, message in (
        ({"soft": True}, "soft targets need"),
        ({"temperature": 1.0}, "value targets need"),
        ({"soft": True, "temperature": 1.0}, "not both"),
    ):
        with pytest.raises(ValueError, match=message):
            fit(model, demos if len(kwargs) == 2 else plain, 1, **kwargs)
    for temperature in (0, -1, float("nan"), True, "1"):
        with pytest.raises(ValueError, match="temperature must be a positive number"):
            fit(model, demos, 1, temperature=temperature)


def test_value_targets_are_the_softmax_of_the_searched_options_values():
    from train.imitation import Demonstrations, value_targets

    nan = np.nan
    values = np.array([[0.2, 0.0, nan], [nan, nan, nan], [nan, -0.5, -0.5], [-1.0, nan, 1.0]], dtype=np.float32)
    demos = Demonstrations(np.zeros((4, 1)), np.ones((4, 3), bool), np.array([0, 2, 1, 2]), np.zeros(4),
                           np.arange(4), values=values)  # fmt: skip
    e2 = np.exp(2.0)  # a gap of 0.2 at temperature 0.1
    expected = [
        [e2 / (1 + e2), 1 / (1 + e2), 0],
        [0, 0, 1],
        [0, 0.5, 0.5],
        [1 / (1 + e2**10), 0, e2**10 / (1 + e2**10)],
    ]
    np.testing.assert_allclose(value_targets(demos, 0.1), expected, rtol=1e-5)  # row 2 not searched: its action
    assert np.isfinite(value_targets(demos, 1e-6)).all()  # a gap of 2e6 temperatures does not overflow


def test_fitting_a_policy_to_an_expert_makes_the_experts_actions_its_own(tmp_path, capsys):
    from train.imitation import Demonstrations

    out = tmp_path / "bc"
    argv = ["--env", "algo_v0", "--policy", "features", "--opponents", "random", "--imitate", "epsilon_greedy"]
    argv += ["--imitate-games", "40", "--imitate-epochs", "100", "--timesteps", "0", "--eval-games", "20"]
    argv += ["--eval-opponents", "random", "--no-progress", "--output", str(out)]
    cli.main(argv)
    report = json.loads((out / "imitation.json").read_text())
    first, last = report["epochs"][0], report["epochs"][-1]
    assert report["expert"] == "epsilon_greedy" and report["games"] == 40 and report["held_out_games"] == 4
    # Epsilon-greedy(0.1) attacks the likeliest card 9 times in 10, which the features head reads: fitted from
    # about 1 in 3 to 2 in 3 and more.
    assert last["loss"] < first["loss"] - 1 and first["agreement_fitted"] < 0.5 < 0.6 < last["agreement_fitted"]
    settings = json.loads((out / "run.json").read_text())
    assert (settings["imitated"], settings["imitation_targets"]) == ("epsilon_greedy", "actions")
    assert "imitation_demonstrations" not in settings
    assert (out / "imitation.png").stat().st_size > 10_000
    assert "0 timesteps" in capsys.readouterr().out
    demos = Demonstrations.load(out / "demonstrations.npz")
    assert len(demos) == report["decisions"]
    argv = [{"100": "3", "20": "2"}.get(a, a) for a in argv]  # the rest checks bookkeeping: a short fit will do
    cli.main([*argv[:-1], str(tmp_path / "again"), "--imitate-demos", str(out / "demonstrations.npz")])
    assert json.loads((tmp_path / "again" / "imitation.json").read_text())["decisions"] == len(demos)
    settings = json.loads((tmp_path / "again" / "run.json").read_text())
    assert settings["imitation_demonstrations"] == [str(out / "demonstrations.npz")]  # which games were fitted
    twice = [*argv[:-1], str(tmp_path / "twice"), "--imitate-demos", *[str(out / "demonstrations.npz")] * 2]
    cli.main(twice)  # several runs' demonstrations together, each file's games counted apart
    report = json.loads((tmp_path / "twice" / "imitation.json").read_text())
    assert (report["decisions"], report["games"], report["held_out_games"]) == (2 * len(demos), 80, 8)
    with pytest.raises(ValueError, match="soft targets need demonstrations of a search agent"):
        cli.main([*twice, "--imitate-soft"])  # epsilon-greedy's demonstrations hold no visit counts
    with pytest.raises(ValueError, match="value targets need demonstrations of a search agent"):
        cli.main([*twice, "--imitate-values", "0.1"])  # nor root values
    with pytest.raises(ValueError, match="another env or size"):
        cli.main(["--env", "algo_v0", "--size", "players=3", "--imitate", "random", "--timesteps", "0",
                       "--imitate-demos", str(out / "demonstrations.npz"), "--output", str(tmp_path / "x"),
                       "--no-progress"])  # fmt: skip


def test_the_fit_runs_at_its_own_learning_rate_and_ppo_after_it_at_the_configs(tmp_path):
    """--imitate-learning-rate sets the fit's rate only: the PPO updates that follow use the config's."""
    from sb3_contrib import MaskablePPO

    from train.imitation import Demonstrations, fit

    config = tmp_path / "slow.toml"
    config.write_text("[maskable_ppo]\nlearning_rate = 1e-5\nn_steps = 32\nbatch_size = 64\n")
    out = tmp_path / "ft"
    argv = ["--env", "algo_v0", "--opponents", "random", "--imitate", "epsilon_greedy", "--imitate-games", "6"]
    argv += ["--imitate-epochs", "2", "--imitate-learning-rate", "2e-3", "--config", str(config)]
    argv += ["--timesteps", "64", "--n-envs", "2", "--eval-games", "2", "--no-progress", "--output", str(out)]
    cli.main(argv)
    assert json.loads((out / "imitation.json").read_text())["learning_rate"] == 2e-3
    model = MaskablePPO.load(out / "model.zip")
    assert {g["lr"] for g in model.policy.optimizer.param_groups} == {1e-5}  # PPO's updates set its own again
    demos = Demonstrations.load(out / "demonstrations.npz")
    assert fit(model, demos, 1)["learning_rate"] == 1e-5  # default: the model's
    fit(model, demos, 1, learning_rate=5e-4)
    assert {g["lr"] for g in model.policy.optimizer.param_groups} == {5e-4}  # the optimizer's steps took it
    for bad in (0, -1e-3, float("inf"), True, "1e-3"):
        with pytest.raises(ValueError, match="learning_rate must be a positive number"):
            fit(model, demos, 1, learning_rate=bad)


def test_every_multiplayer_game_has_a_panel_of_its_agents_and_its_strongest():
    """Each game's panel: its reference agents (every table passes the opponents' check), the strongest among them
    (Velma on the board only), a table of each agent alone, then each mixed multiset of the others once (by hand:
    3 kinds over 3 seats make 10 multisets, of which 7 mix; 2 kinds over 3 seats make 4, of which 2 mix)."""
    strongest = {"algo_v0": {"max_entropy", "ismcts_greedy"}, "clue_v0": {"entropy"},
                 "generalized_clue_v0": {"exact"}}  # fmt: skip
    for game in registry.games(multiplayer=True):
        assert strongest[game.env_id] <= set(game.panel)
        for players in (2, 3, 4):
            tables = multiplayer.panel_tables(game.env_id, {"players": players})
            multiplayer.check_opponents(game.env_id, tables)
            assert tables[: len(game.panel)] == list(game.panel) and len(set(tables)) == len(tables)
    assert multiplayer.panel_tables("algo_v0") == ["random", "epsilon_greedy", "max_entropy", "ismcts_greedy"]
    assert multiplayer.panel_tables("clue_v0", {"players": 4})[3:] == [
        "deduction_sheet+deduction_sheet+entropy", "deduction_sheet+entropy+entropy"]
    board = multiplayer.panel_tables("clue_v0", {"players": 4, "board": True})
    assert len(board) == 4 + 7 and "deduction_sheet+entropy+velma" in board and "velma+velma+velma" not in board
    assert multiplayer.panel_tables("generalized_clue_v0")[4:] == [
        "scoreboard+interrogation_pattern", "scoreboard+exact", "interrogation_pattern+exact"]
    with pytest.raises(ValueError, match="players must be"):
        multiplayer.panel_tables("clue_v0", {"players": 1})
    with pytest.raises(ValueError, match="Mastermind-v0 has no evaluation panel"):
        multiplayer.panel_tables("Mastermind-v0")


def test_the_evaluation_table_ends_with_its_worst_case():
    def row(opponent, wins, rank):
        return multiplayer.SeatEvaluation(opponent, 10, 3, wins, (0.1, 0.6), 0.5, rank, (rank - 0.2, rank + 0.2), 0.5)

    text = multiplayer.write_seat_evaluation([row("a", 5, 1.8), row("b", 2, 2.1), row("c", 3, 2.4)], None, "t")
    assert ("Worst case over the 3 tables: win rate 0.200 [0.100, 0.600] against b (parity 0.333); mean rank "
            "2.400 [2.200, 2.600] against c (parity 2).") in text
    assert "Worst case" not in multiplayer.write_seat_evaluation([row("a", 5, 1.8)], None, "t")


def test_the_evaluation_table_says_how_many_games_were_stopped_at_the_cap():
    def row(opponent, truncated):
        return multiplayer.SeatEvaluation(opponent, 10, 2, 4, (0.2, 0.7), 0.6, 1.6, (1.3, 1.9), 0.8, truncated)

    quiet = multiplayer.write_seat_evaluation([row("random", 0)], None, "t")
    assert "stopped at the cap" not in quiet
    told = multiplayer.write_seat_evaluation([row("random", 0), row("deduction_sheet", 3)], None, "t")
    assert told.rstrip().endswith("(nobody's win): 3 of the 10 against deduction_sheet.")


def test_a_seat_trains_on_the_clue_board_and_its_evaluation_replays(tmp_path):
    out = tmp_path / "board"
    argv = ["--env", "clue_v0", "--size", "players=3", "--size", "board=true", "--opponents", "deduction_sheet"]
    run = cli.main([*argv, "--timesteps", "256", "--n-envs", "2", "--eval-games", "3", "--no-progress",
                    "--eval-opponents", "deduction_sheet", "--output", str(out)])  # fmt: skip
    assert json.loads((out / "run.json").read_text())["sizes"] == {"players": 3, "board": True}
    model = ["--model", str(out / "model.zip"), "--games", "3", "--opponents", "deduction_sheet"]
    again = evaluate.main([*model, "--output", str(tmp_path / "e")])  # the env and its sizes read from run.json
    assert [(r.wins, r.mean_rank, r.truncated) for r in again] == [(r.wins, r.mean_rank, r.truncated) for r in run]


def test_a_mixed_table_seats_its_agents_in_order_after_the_policy_and_bad_names_are_refused():
    """A policy was measured against copies of one opponent only; ``NAME+NAME+...`` is a mixed table (issue 81,
    item 20: the Clue policy against a sheet, an entropy agent and Velma)."""
    agents = multiplayer.table_agents("clue_v0", "deduction_sheet+entropy+velma", 3)
    assert [agent.name for agent in agents] == [seat_agent("clue_v0", n).name for n in ("deduction_sheet", "entropy",
                                                                                        "velma")]  # fmt: skip
    assert [a.name for a in multiplayer.table_agents("algo_v0", "random", 3)] == ["random"] * 3
    assert multiplayer.check_opponents("clue_v0", ["entropy", "deduction_sheet+velma"]) == ["entropy",
                                                                                            "deduction_sheet+velma"]
    with pytest.raises(ValueError, match="nobody"):
        multiplayer.check_opponents("clue_v0", ["deduction_sheet+nobody"])
