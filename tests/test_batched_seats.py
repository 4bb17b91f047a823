"""The batched seats as an SB3 VecEnv (issue 61): every game the learner plays is a game of ``clue_v0`` (replayed
move by move through the AEC env, the learner's observations, rewards and ranks compared), snapshots decide in
batches, and bad input is refused. Self-play (the learner on several seats) is tests/test_self_play.py's."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from deduction_envs.envs import algo_v0, clue_v0, generalized_clue_v0
from deduction_envs.envs.batched_tables import batched_refusal
from deduction_envs.games.algo import AlgoRules, AlgoState
from deduction_envs.games.clue import ClueRules
from deduction_envs.games.clue_board import ClueBoardRules
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from train.batched_seats import BatchedSeatsVecEnv
from train.multiplayer import SeatEnvs, make_seat_envs

SIZES = {"players": 3, "probabilities": False}


def batched_envs(env, sizes, opponents, n, seed, folder, **options):
    """The run's batched vector env, as ``python -m train --vec-env batched`` builds it."""
    return make_seat_envs(SeatEnvs(env, sizes, opponents, n, seed, folder, **options), "batched")


def recorded(venv: BatchedSeatsVecEnv) -> list[tuple]:
    """Logs every deal and every move of the batched games: ``("deal", games, places)`` and ``("step", actions,
    moving)``."""
    log: list[tuple] = []
    seats = venv.seats
    deal, step = seats.reset_games, seats.step

    def logged_deal(games, seeds=None):
        deal(games, seeds)
        batch = seats.games
        if hasattr(batch, "weapons"):  # Clue on the board: the deal, the weapons' rooms, the dice's seeds
            dealt = [(batch.places[g].copy(), batch.weapons[g].tolist(), batch._dice_seeds[g]) for g in games]
        elif hasattr(batch, "places"):  # the Clue family: each card's place
            dealt = batch.places[games].copy()
        else:  # Algo: the shuffled deck as new_game takes it (hands, the deck, the card drawn last)
            dealt = np.array([[*[c for h in batch.hands[g] for c in range(64) if h >> c & 1],
                               *batch.deck[g, : batch.deck_left[g]], batch.drawn[g]] for g in games])  # fmt: skip
        log.append(("deal", np.array(games), dealt))

    def logged_step(actions, moving=None):
        live = ~seats.games.over if moving is None else moving & ~seats.games.over
        log.append(("step", np.array(actions), live.copy(), venv.learner.copy()))
        return step(actions, moving)

    seats.reset_games, seats.step = logged_deal, logged_step
    return log


def dealt(rules, places):
    """The new game of a logged deal, as the rules' ``new_game`` would make it."""
    if isinstance(rules, ClueBoardRules):
        places, weapons, dice_seed = places
        return rules._on_board(ClueRules.state_of_deal(rules, places), weapons, dice_seed)
    if isinstance(rules, AlgoRules):
        size = rules.dealt
        order = [int(c) for c in places]
        hands = [sorted(order[p * size : (p + 1) * size]) for p in range(rules.players)]
        state = AlgoState(hands, [set() for _ in hands], order[rules.players * size :])
        rules._start_turn(state)
        return state
    return rules.state_of_deal(places)


def replay(log: list[tuple], game: int, module, rules_class, sizes: dict) -> list[dict]:
    """Each episode of batched game ``game`` replayed through the AEC env ``module`` (its deals set through
    ``rules_class.new_game``): the learner's observations at its decisions and at the end, and its reward."""
    episodes, env, learner = [], None, None

    def finish():
        if env is not None and episode["decisions"]:
            agent = f"player_{learner}"
            episode["final"] = env.observe(agent)["observation"]
            episode["reward"] = env.rewards[agent] if env.table.over else 0.0
            episodes.append(episode)

    for entry in log:
        if entry[0] == "deal" and game in entry[1]:
            finish()
            places = entry[2][list(entry[1]).index(game)]
            env = module.raw_env(**sizes)
            with mock.patch.object(rules_class, "new_game", lambda self, rng, first=0, p=places: dealt(self, p)):
                env.reset(seed=0)
            episode, learner = {"decisions": []}, None
        elif entry[0] == "step" and entry[2][game]:
            learner = int(entry[3][game])
            if env.table.mover == learner:
                episode["decisions"].append(env.observe(f"player_{learner}")["observation"])
            env.step(int(entry[1][game]))
    return episodes


GAMES = [
    ("clue_v0", SIZES, ["random", "deduction_sheet"], clue_v0, ClueRules),
    ("clue_v0", {**SIZES, "board": True}, ["random", "deduction_sheet"], clue_v0, ClueBoardRules),
    ("generalized_clue_v0", {"cards": 12, "hidden": 2, "players": 3, "probabilities": False},
     ["random", "scoreboard"], generalized_clue_v0, GeneralizedClueRules),
    ("algo_v0", {"players": 3, "probabilities": False}, ["random"], algo_v0, AlgoRules),
    ("algo_v0", {"players": 2}, ["random", "snapshot"], algo_v0, AlgoRules),  # the probability pieces on
]  # fmt: skip


@pytest.mark.parametrize(
    ("env", "sizes", "opponents", "module", "rules_class"), GAMES, ids=["clue", "board", "gc", "algo", "algo-p"]
)
def test_every_game_is_a_game_of_the_aec_env_from_the_learners_seat(env, sizes, opponents, module, rules_class,
                                                                    tmp_path):  # fmt: skip
    if "snapshot" in opponents:  # an untrained policy, saved, plays the snapshot's seats
        from sb3_contrib import MaskablePPO

        untrained = MaskablePPO("MlpPolicy", BatchedSeatsVecEnv(env, sizes, ["random"], 2), n_steps=8, batch_size=8,
                                seed=0, device="cpu")  # fmt: skip
        untrained.save(tmp_path / "snapshot")
        opponents = [str(tmp_path / "snapshot.zip") if o == "snapshot" else o for o in opponents]
    venv = BatchedSeatsVecEnv(env, sizes, opponents, 6, seed=3)
    rules = venv.rules
    log = recorded(venv)
    venv.seed(3)
    seen = {g: [[]] for g in range(6)}  # game -> episodes -> (observation, reward, info) of the learner
    observations = venv.reset()
    rng = np.random.default_rng(0)
    for g in range(6):
        seen[g][-1].append(observations[g])
    results: dict[int, list[tuple]] = {g: [] for g in range(6)}
    rewards_so_far = np.zeros(6)
    for _ in range(800):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()  # the learner is to act in every game
        keys = rng.random(masks.shape)
        if env == "clue_v0":  # mostly suggestions and ends of turn, no accusation: the games last
            keys += 2 * (np.arange(masks.shape[1]) < rules.num_triples)
            keys[:, rules.end_action] += 2
        keys[~masks] = -1
        observations, rewards, dones, infos = venv.step(keys.argmax(axis=1))
        rewards_so_far += rewards
        for g in range(6):
            if dones[g]:
                seen[g][-1].append(infos[g]["terminal_observation"])
                results[g].append((rewards_so_far[g], infos[g]["rank"], infos[g]["won"], infos[g]["seat"]))
                rewards_so_far[g] = 0.0
                seen[g].append([])
            seen[g][-1].append(observations[g])
    compared = 0
    assert sum(map(len, results.values())) >= 8
    for g in range(6):
        episodes = replay(log, g, module, rules_class, sizes)
        finished = results[g]
        for k, (reward, rank, won, seat) in enumerate(finished):
            episode = episodes[k]
            expected = [*episode["decisions"], episode["final"]]
            assert len(seen[g][k]) == len(expected)
            for got, want in zip(seen[g][k], expected, strict=True):
                np.testing.assert_array_equal(got, want)
                compared += 1
            assert reward == pytest.approx(episode["reward"])
            assert won == float(reward == 1.0) and (rank == 1.0) == (reward == 1.0)
            assert seat in range(rules.players)
    assert compared > 200


def test_a_snapshot_decides_for_all_its_games_in_one_pass(tmp_path):
    from sb3_contrib import MaskablePPO

    venv = batched_envs("clue_v0", SIZES, ["random"], 8, 0, tmp_path / "monitor")
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.save(tmp_path / "snapshot")
    inner = venv.venv
    inner.env_method("add_opponent", str(tmp_path / "snapshot.zip"))
    snapshot = inner._players[inner.entries[-1]].policy  # the pool holds it as a player that chooses
    assert inner.entries[-1].endswith("snapshot.zip") and snapshot is not model.policy
    calls = []
    get_distribution = snapshot.get_distribution

    def counted(observations, *args, **kwargs):
        calls.append(len(observations))
        return get_distribution(observations, *args, **kwargs)

    snapshot.get_distribution = counted
    model.learn(256)
    assert calls and max(calls) > 1  # several games in one pass
    monitor = (tmp_path / "monitor" / "batched.monitor.csv").read_text().splitlines()
    assert monitor[1] == "r,l,t,rank,won" and len(monitor) > 2


def test_a_game_without_a_twin_says_so():
    from conftest import registered
    from toy_duel import DUEL

    with registered(DUEL):
        why = batched_refusal(DUEL.env_id, {"probabilities": False}, ["random"])
    assert why.startswith(f"{DUEL.env_id} has no batched twin yet (batched: ") and "algo_v0" in why


def test_bad_input_is_refused(tmp_path):
    from deduction_envs.envs.clue_batched import BatchedClueSeats

    with mock.patch.object(BatchedClueSeats, "has_probabilities", False):  # a twin without them says so
        assert "give --size probabilities=false" in batched_refusal("clue_v0", {"players": 3}, ["random"])
    assert batched_refusal("clue_v0", {"players": 3}, ["random"]) is None  # counted with the AEC env's engine
    assert batched_refusal("clue_v0", {"players": 3, "board": True, "probabilities": False}, ["random"]) is None
    assert "compiled opponents are random, deduction_sheet" in batched_refusal("clue_v0", SIZES, ["ismcts"])
    assert batched_refusal("clue_v0", SIZES, ["self", "random"]) is None
    big = {"cards": 16, "hidden": 3, "players": 5, "probabilities": False}  # past the exact agent's count
    assert "exact: the compiled exact agent counts a seat's deals whole" in batched_refusal(
        "generalized_clue_v0", big, ["scoreboard", "exact"])
    assert batched_refusal("generalized_clue_v0", big, ["scoreboard"]) is None
    assert batched_refusal("generalized_clue_v0", {"probabilities": False}, ["exact"]) is None
    with pytest.raises(ValueError, match="'self' in the pool is self-play"):
        BatchedSeatsVecEnv("clue_v0", SIZES, ["self", "random"], 4)
    with pytest.raises(ValueError, match="give at least one opponent"):
        BatchedSeatsVecEnv("clue_v0", SIZES, [], 4)
    with pytest.raises(ValueError, match="n_envs"):
        BatchedSeatsVecEnv("clue_v0", SIZES, ["random"], 0)
    with pytest.raises(ValueError, match="maskable_ppo"):
        BatchedSeatsVecEnv("clue_v0", SIZES, ["random"], 4, algo="ppo")
    venv = BatchedSeatsVecEnv("clue_v0", SIZES, ["random"], 4)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(AttributeError, match="no per-game method 'render'"):
        venv.env_method("render")
    with pytest.raises(FileNotFoundError, match="no saved model"):
        venv.add_opponent(tmp_path / "missing.zip")


def test_python_m_train_trains_a_seat_on_the_batched_twin_and_evaluates_it_on_the_aec_env(tmp_path):
    import json

    from train import RunConfig, run

    config = RunConfig(env="clue_v0", vec_env="batched", sizes={"players": 3}, opponents=["self", "random"],
                       n_envs=32, timesteps=1024, eval_games=9, eval_opponents=["random"], league=True,
                       league_threshold=-1.0, league_window=300, output=tmp_path / "run", progress=False)  # fmt: skip
    done = run(config)
    assert done.timesteps >= 1024 and [r.opponent for r in done.results] == ["random"] and done.results[0].games == 9
    settings = json.loads((tmp_path / "run" / "run.json").read_text())
    assert settings["sizes"] == {"players": 3}  # the env's observation, the probability pieces counted compiled
    assert settings["opponents"] == ["self", "random"]
    league = json.loads((tmp_path / "run" / "league.json").read_text())["snapshots"]
    assert league and all(path.endswith(".zip") for path in league)  # the league's snapshots joined the pool
    assert (tmp_path / "run" / "monitor" / "batched.monitor.csv").exists()


def test_a_policy_draws_its_legal_actions_at_their_probabilities():
    from agents.sb3_policy import sample_actions

    probabilities = np.array([[0.0, 0.5, 0.0, 0.5], [0.0, 0.0, 0.0, 1.0], [0.25, 0.25, 0.25, 0.25]])
    uniforms = np.linspace(0, 1, 2001)[:-1]
    for row in probabilities:
        drawn = sample_actions(np.tile(row, (uniforms.size, 1)), uniforms)
        np.testing.assert_allclose(np.bincount(drawn, minlength=4) / uniforms.size, row, atol=1e-3)
        assert set(drawn) <= set(np.flatnonzero(row))


def test_the_same_seed_plays_the_same_games():
    runs = []
    for _ in range(2):
        venv = BatchedSeatsVecEnv("clue_v0", SIZES, ["random", "deduction_sheet"], 8)
        venv.seed(5)
        seen, rng = [venv.reset()], np.random.default_rng(1)
        for _ in range(60):
            masks = venv.action_masks()
            keys = rng.random(masks.shape)
            keys[~masks] = -1
            observations, rewards, dones, _ = venv.step(keys.argmax(axis=1))
            seen += [observations, rewards, dones]
        runs.append(seen)
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)
    other = BatchedSeatsVecEnv("clue_v0", SIZES, ["random", "deduction_sheet"], 8)
    other.seed(6)
    assert not np.array_equal(other.reset(), runs[0][0])


@pytest.mark.parametrize(
    ("env", "sizes", "opponents"),
    [("algo_v0", {"players": 2}, ["random", "epsilon_greedy"]),
     ("generalized_clue_v0", {"cards": 12}, ["random", "scoreboard"]),
     ("clue_v0", {"players": 3, "probabilities": False}, ["random", "deduction_sheet"])],
)  # fmt: skip
def test_the_entropy_shaped_reward_on_the_twins(tmp_path, env, sizes, opponents):
    """The shaping of each step is EntropyRewardWrapper's over the learner's bits (the AEC env's
    ``entropy(agent)``, tested equal in tests/test_conformance.py)
    before its decision and after the replies, added outside the monitor (Clue's counted by the AEC env's engine from
    the twin's facts); a twin without bits refuses it."""
    from deduction_envs.wrappers.entropy_reward import entropy_shaping

    venv = batched_envs(env, sizes, opponents, 8, 0, tmp_path / "m", entropy_reward=0.5,
                                  gamma=0.9)  # fmt: skip
    adapter = venv.venv.venv
    every = np.ones(8, dtype=bool)
    venv.reset()
    rng, shaped = np.random.default_rng(0), 0
    for _ in range(40):
        before = adapter.seats.entropy(every, adapter.learner)
        masks = adapter.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        adapter.step_async(actions)
        _, _, dones, infos = adapter.step_wait()
        assert not any(info.get("TimeLimit.truncated") for info in infos)  # the games end by the rules here
        after = adapter.seats.entropy(every, adapter.learner)  # at the learner's next decision, where it goes on
        expected = entropy_shaping(before, after, scale=0.5, gamma=0.9, terminal=dones)
        np.testing.assert_allclose(adapter.shaping, expected)  # an ended game's potential after is 0
        shaped += int((adapter.shaping != 0).sum())
    assert shaped > 100
    from deduction_envs.envs.clue_batched import BatchedClueSeats

    with mock.patch.object(BatchedClueSeats, "has_entropy", False), pytest.raises(
            ValueError, match="clue_v0's batched twin has no entropy in bits"):  # fmt: skip
        BatchedSeatsVecEnv("clue_v0", SIZES, ["random"], 4, entropy_reward=0.5)


def test_the_entropy_reward_that_pays_nothing_at_the_end(tmp_path, capsys):
    """``entropy_end="none"``: the shaping is the potential's wherever the learner's game goes on, and at its last
    step pays nothing for the bits still unknown nor for what the end revealed: ``scale * (1 - gamma)`` times the
    bits before the learner's last decision (0 with gamma = 1). The options that do not fit are refused."""
    from deduction_envs.wrappers.entropy_reward import entropy_shaping

    venv = batched_envs("generalized_clue_v0", {"cards": 9, "hidden": 1}, ["scoreboard"], 8, 0,
                                  tmp_path / "m", entropy_reward=0.5, gamma=0.9, entropy_end="none")  # fmt: skip
    adapter = venv.venv.venv
    every = np.ones(8, dtype=bool)
    venv.reset()
    rng, ended, learned = np.random.default_rng(1), 0, 0
    for _ in range(60):
        before = adapter.seats.entropy(every, adapter.learner)
        masks = adapter.action_masks()
        adapter.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        _, _, dones, _ = adapter.step_wait()
        after = adapter.seats.entropy(every, adapter.learner)
        going = entropy_shaping(before, after, scale=0.5, gamma=0.9)
        np.testing.assert_allclose(adapter.shaping[~dones], going[~dones])
        np.testing.assert_allclose(adapter.shaping[dones], 0.5 * 0.1 * before[dones])
        ended += int(dones.sum())
        learned += int((~dones & (after < before - 1e-9)).sum())
    assert ended > 8 and learned > 8
    with pytest.raises(ValueError, match="entropy_end must be one of potential, none"):
        BatchedSeatsVecEnv("generalized_clue_v0", {"cards": 9, "hidden": 1}, ["random"], 4, entropy_reward=0.5,
                           entropy_end="later")  # fmt: skip
    from train import cli

    for argv, match in (
        (["--env", "generalized_clue_v0", "--entropy-reward-end", "none"], "goes with --entropy-reward"),
        (["--env", "Mastermind-v0", "--entropy-reward", "1", "--entropy-reward-end", "none"], "on the batched seats"),
        (["--env", "generalized_clue_v0", "--size", "cards=9", "--size", "hidden=1", "--vec-env", "dummy",
          "--entropy-reward", "1", "--entropy-reward-end", "none"], "on the batched seats"),
    ):  # fmt: skip
        with pytest.raises(SystemExit):
            cli.parse_args([*argv, "--output", str(tmp_path / "bad")])
        assert match in capsys.readouterr().err, argv


def test_the_entropy_reward_for_the_learners_own_moves(tmp_path):
    """``entropy_end="own"``: a step pays the scale times the bits the learner's own move taught it, its entropy
    before the move less its entropy just before the first move of a turn not its own (read here by watching
    every move the seats play), nothing for what other seats' moves reveal, 0 for adding a card to a list and 0 at
    the learner's last step of a game."""
    venv = batched_envs("generalized_clue_v0", {"cards": 9, "hidden": 1}, ["scoreboard"], 8, 0,
                                  tmp_path / "m", entropy_reward=0.5, entropy_end="own")  # fmt: skip
    adapter = venv.venv.venv
    seats, games, every = adapter.seats, adapter.seats.games, np.ones(8, dtype=bool)
    seen = {}  # game -> the learner's entropy before the first move of another's turn since its own move
    step = seats.step

    def watched(actions, moving):
        others = moving & (games.turn != adapter.learner)
        entropy = seats.entropy(every, adapter.learner)
        for g in np.flatnonzero(others):
            seen.setdefault(int(g), float(entropy[g]))
        return step(actions, moving)

    seats.step = watched
    venv.reset()
    cards = 9
    rng, paid, others_taught = np.random.default_rng(2), 0, 0
    for _ in range(160):
        before = seats.entropy(every, adapter.learner)
        masks = adapter.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        adding = (games.phase != 0) & (actions < cards)  # a card added to a list: the turn stays, nothing learned
        seen.clear()
        adapter.step_async(actions)
        _, _, dones, _ = adapter.step_wait()
        after = seats.entropy(every, adapter.learner)
        for g in range(8):
            if dones[g] or adding[g]:
                assert adapter.shaping[g] == 0.0
                continue
            answered = seen.get(g, after[g])  # the turn stayed: the learner decides again
            np.testing.assert_allclose(adapter.shaping[g], 0.5 * (before[g] - answered), atol=1e-12)
            paid += adapter.shaping[g] > 1e-9
            others_taught += answered - after[g] > 1e-9  # bits from the other seats' moves: not paid
    assert paid > 8 and others_taught > 8


def test_the_librarys_batched_tables_play_without_stable_baselines():
    """deduction_envs' own batched vector env: the learner's observations and masks for every game, autoreset
    with the learner's rank and seat in the info, and a caller's player (deciding from observations) in the pool."""
    from deduction_envs.envs.batched_tables import BatchedTables

    class FirstLegal:
        """A player that decides from observations: the lowest legal action (``uniforms`` unused)."""

        def __init__(self) -> None:
            self.games = 0

        def choose(self, observations, masks, uniforms):
            assert len(observations) == len(masks) == len(uniforms)
            self.games += len(observations)
            return masks.argmax(axis=1)

    first = FirstLegal()
    tables = BatchedTables("clue_v0", SIZES, ["deduction_sheet"], 6, seed=2)
    tables.add_opponent("first-legal", first)
    observations = tables.reset()
    assert observations.shape == (6, *tables.observation_space.shape)
    rng, ended = np.random.default_rng(0), []
    for _ in range(400):
        masks = tables.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        observations, rewards, dones, infos = tables.step(actions)
        assert rewards.dtype == np.float32 and observations.shape[0] == 6
        ended += [info for info, done in zip(infos, dones, strict=True) if done]
    assert ended and first.games > 0
    assert all(1.0 <= info["rank"] <= SIZES["players"] and info["won"] == (info["rank"] == 1.0) for info in ended)
    with pytest.raises(ValueError, match="'self' in the pool is self-play"):
        BatchedTables("clue_v0", SIZES, ["self", "random"], 2)
    with pytest.raises(ValueError, match="compiled opponents are"):
        BatchedTables("clue_v0", SIZES, ["ismcts"], 2)


def test_the_librarys_self_play_tables_stop_at_every_learner_seat():
    """BatchedSelfPlay: each step's mover is a learner's seat (every ``self`` seat is), the reward returned is the
    mover's share of every seat's, and each game that ends reports every seat's whole return, decisions and rank."""
    from deduction_envs.core.multiplayer import batched_ranks
    from deduction_envs.envs.batched_tables import BatchedSelfPlay

    tables = BatchedSelfPlay("clue_v0", SIZES, ["self", "deduction_sheet"], 6, seed=4)
    tables.reset()
    rows, rng = np.arange(6), np.random.default_rng(1)
    returns, decisions, ended = np.zeros((6, 3)), np.zeros((6, 3), dtype=np.int64), 0
    for _ in range(300):
        movers = tables.seats.games.mover.copy()
        assert (tables.seated[rows, movers] == -1).all()
        masks = tables.action_masks()
        _, rewards, dones, _ = tables.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        np.testing.assert_array_equal(rewards, tables.step_rewards[rows, movers].astype(np.float32))
        returns += tables.step_rewards
        decisions[rows, movers] += 1
        np.testing.assert_array_equal(tables.ended, np.flatnonzero(dones))
        np.testing.assert_allclose(tables.ended_returns, returns[tables.ended])
        np.testing.assert_array_equal(tables.ended_decisions, decisions[tables.ended])
        np.testing.assert_array_equal(tables.ended_ranks, batched_ranks(returns[tables.ended]))
        returns[tables.ended], decisions[tables.ended] = 0.0, 0
        ended += tables.ended.size
    assert ended > 0
    with pytest.raises(ValueError, match="needs 'self'"):
        BatchedSelfPlay("clue_v0", SIZES, ["random"], 2)


def test_the_librarys_matches_rotate_the_seats_seat_the_table_in_order_and_count_every_game():
    """BatchedMatches: game g's player in seat g mod players, the table's agents after it in its order (cycled),
    every game played once to its end (none dealt anew), and the action cap stops a game as nobody's win."""
    from deduction_envs.core.multiplayer import batched_ranks
    from deduction_envs.envs.batched_tables import BatchedMatches

    matches = BatchedMatches("clue_v0", {"players": 4, "probabilities": False}, ["random", "deduction_sheet"], 40, 3)
    rng = np.random.default_rng(0)
    seats, rewards, truncated = matches.play(lambda obs, masks: [rng.choice(np.flatnonzero(m)) for m in masks])
    np.testing.assert_array_equal(seats, np.arange(40) % 4)
    names = [[matches.entries[e] if e >= 0 else "player" for e in row] for row in matches.seated]
    assert names[1] == ["random", "player", "random", "deduction_sheet"]  # after seat 1: random, sheet, random
    assert matches.seats.games.over.all() and not truncated.any()
    ranks = batched_ranks(rewards)
    assert (ranks.min(axis=1) == 1.0).all() and np.allclose(rewards.sum(axis=1), 0.0)  # each of these has a winner
    capped = BatchedMatches("clue_v0", {"players": 3, "probabilities": False, "max_cycles": 4}, ["random"], 6)
    _, rewards, truncated = capped.play(lambda obs, masks: np.asarray(masks).argmax(axis=1))
    assert truncated.all() and not rewards.any()
    with pytest.raises(ValueError, match="compiled agents' roster names"):
        BatchedMatches("clue_v0", SIZES, [], 6)
    with pytest.raises(ValueError, match="compiled opponents are"):
        BatchedMatches("clue_v0", SIZES, ["ismcts"], 6)


def test_a_saved_policy_measured_on_the_twin_gives_the_table_of_the_python_route():
    """train.evaluate's batched route (the compiled agents, the batch's deals) against its Python route (the Python
    agents, games seeded (seed, g)) on a kept Clue policy: the same seats, and win rates that a two-proportion test
    does not tell apart; an opponent without a compiled twin is played by the Python route under "auto" and refused
    under "batched"."""
    from scipy.stats import fisher_exact

    from train.multiplayer import evaluate_seat_policy

    model, sizes = "models/rl-clue4-seed-0/model.zip", {"players": 4, "probabilities": False}
    twin, python = (evaluate_seat_policy(model, "clue_v0", sizes, ["deduction_sheet"], 240, backend=backend)[0]
                    for backend in ("batched", "python"))  # fmt: skip
    assert (twin.backend, python.backend, twin.games, python.games) == ("batched", "python", 240, 240)
    assert twin.win_rate > 0.4 and python.win_rate > 0.4  # the policy's ~0.56 against sheets, on both
    table = [[twin.wins, twin.games - twin.wins], [python.wins, python.games - python.wins]]
    assert fisher_exact(table).pvalue > 0.01, table
    auto = evaluate_seat_policy(model, "clue_v0", sizes, ["random", "entropy", "ismcts"], 4, backend="auto")
    assert [row.backend for row in auto] == ["batched", "batched", "python"]  # the entropy agent compiled (issue 83)
    with pytest.raises(ValueError, match=r"--backend batched against ismcts: .*compiled opponents are"):
        evaluate_seat_policy(model, "clue_v0", sizes, ["ismcts"], 4, backend="batched")


def test_algo_against_the_compiled_max_entropy_agent_gives_the_table_of_the_python_route():
    """The same on Algo against the strongest agent compiled for it (issue 83): the kept RL policy against
    max-entropy, 240 games a route, win rates that a two-proportion test does not tell apart."""
    from scipy.stats import fisher_exact

    from train.multiplayer import evaluate_seat_policy

    model, sizes = "models/rl-algo2-seed-0/model.zip", {"players": 2}
    twin, python = (evaluate_seat_policy(model, "algo_v0", sizes, ["max_entropy"], 240, backend=backend)[0]
                    for backend in ("batched", "python"))  # fmt: skip
    assert (twin.backend, python.backend) == ("batched", "python")
    assert 0.4 < twin.win_rate < 0.7 and 0.4 < python.win_rate < 0.7  # about 0.545 on both (400 games each)
    table = [[twin.wins, twin.games - twin.wins], [python.wins, python.games - python.wins]]
    assert fisher_exact(table).pvalue > 0.01, table
