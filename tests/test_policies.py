"""The features policy: every action scored by its feature row, masks as usual, saved and loaded whole."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from agents import ClueDeductionSheet, RandomSeatAgent, SB3SeatPolicy, play_match
from deduction_envs.envs import clue_v0
from deduction_envs.envs.single_seat import SingleSeatEnv
from deduction_envs.games.clue import ClueRules
from train import cli
from train.features import action_features
from train.multiplayer import raw_env
from train.policies import FeatureHead, OneHotInputs, flat_policy, one_hot, policy_for


def test_clue_action_features_name_each_actions_cards_and_kind():
    rules = ClueRules(4)
    features = action_features(rules)
    cards = rules.cards
    assert features.shape == (rules.num_actions, 3 * cards + 4)
    for action in range(rules.num_actions):
        move = rules.decode(action)
        kind = ("suggest", "accuse", "end", "show").index(move.kind)
        expected = np.zeros(3 * cards + 4)
        expected[3 * cards + kind] = 1
        if move.kind in ("suggest", "accuse"):
            expected[kind * cards + np.array(move.cards)] = 1
        elif move.kind == "show":
            expected[2 * cards + move.card] = 1
        np.testing.assert_array_equal(features[action], expected)


def test_the_head_scores_every_action_as_its_features_dot_the_weights():
    features = np.random.default_rng(0).random((7, 3)).astype(np.float32)
    head = FeatureHead(5, features)
    latent = torch.randn(4, 5)
    weights = head.weights(latent)
    torch.testing.assert_close(head(latent), weights @ torch.as_tensor(features.T))


@pytest.mark.parametrize(
    "algorithm",
    [MaskablePPO, pytest.param(PPO, marks=pytest.mark.filterwarnings("ignore:.*chose the masked action"))],
)  # PPO has no masks: its masked choices end games, as the env documents (and warns)
def test_a_feature_policy_trains_masks_saves_and_loads(algorithm, tmp_path):
    env = SingleSeatEnv(clue_v0.raw_env(players=3), [ClueDeductionSheet(), ClueDeductionSheet()])
    name = "maskable_ppo" if algorithm is MaskablePPO else "ppo"
    policy, kwargs = policy_for(name, action_features(env.env.rules))
    model = algorithm(policy, env, n_steps=32, batch_size=32, n_epochs=1, seed=0, policy_kwargs=kwargs, device="cpu")
    model.learn(64)
    assert isinstance(model.policy.action_net, FeatureHead)
    model.save(tmp_path / "m")
    loaded = algorithm.load(tmp_path / "m", device="cpu")
    observation, _ = env.reset(seed=3)
    mask = env.action_masks()
    a = SB3SeatPolicy(model, clue_v0.raw_env(players=3))
    b = SB3SeatPolicy(loaded, clue_v0.raw_env(players=3))
    from agents.sb3_policy import _action_scores

    np.testing.assert_allclose(_action_scores(a.model, observation, mask), _action_scores(b.model, observation, mask))
    assert (_action_scores(a.model, observation, mask)[~mask] == 0).all()


def test_bad_feature_matrices_and_algorithms_are_refused(tmp_path, capsys):
    env = SingleSeatEnv(clue_v0.raw_env(players=3), [ClueDeductionSheet(), ClueDeductionSheet()])
    policy, _ = policy_for("maskable_ppo", np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"a row per action \(670\)"):
        MaskablePPO(policy, env, policy_kwargs={"action_features": np.zeros((3, 2))})
    with pytest.raises(ValueError, match="the features policy is for maskable_ppo or ppo"):
        policy_for("dqn", np.zeros((670, 2)))
    with pytest.raises(SystemExit):
        cli.main(["--env", "Mastermind-v0", "--policy", "features", "--algo", "a2c"])
    assert "--policy features is for maskable_ppo and ppo" in capsys.readouterr().err


def test_algo_features_and_pointers_read_each_attacks_hit_probability():
    from agents.algo_agents import attack_probabilities

    env = raw_env("algo_v0", players=3)  # the training side's env: the game's with its pointers
    rules, pointers = env.rules, env.observation_pointers()
    features = action_features(rules)
    for action in range(rules.num_actions):
        move = rules.decode(action)
        kind = ("attack", "stop", "reveal").index(move.kind)
        assert features[action, :3].tolist() == [float(k == kind) for k in range(3)]
        assert (pointers[action, 0] >= 0) == (move.kind == "attack")
    rng, checked = np.random.default_rng(0), 0
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        knowledge = env.knowledge[env.possible_agents.index(agent)]
        hits = attack_probabilities(rules, knowledge.view, knowledge.posterior)
        legal = observation["action_mask"][: rules.num_attacks].astype(bool)
        read = observation["observation"][pointers[: rules.num_attacks, 0]]
        np.testing.assert_allclose(read[legal], hits[legal], rtol=1e-6)
        checked += legal.any()
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert checked > 10
    with pytest.raises(ValueError, match="need the probabilities"):
        raw_env("algo_v0", probabilities=False).observation_pointers()


def test_a_pointer_heads_logits_move_with_the_pointed_observation_only():
    features = np.eye(4, dtype=np.float32)
    head = FeatureHead(3, features, pointers=np.array([[2], [-1], [0], [-1]]))
    latent, observation = torch.randn(1, 3), torch.zeros(1, 5)
    base = head(latent, observation)
    for entry, action in ((2, 0), (0, 2)):
        moved = observation.clone()
        moved[0, entry] = 1.0
        change = (head(latent, moved) - base)[0]
        expected = torch.zeros(4)
        expected[action] = head.state_weights(latent)[0, 0]
        torch.testing.assert_close(change, expected)
    with pytest.raises(ValueError, match="needs the observation"):
        head(latent)


def test_the_algo_feature_policy_trains_and_plays_as_a_seat(tmp_path):
    from deduction_envs.envs import algo_v0

    out = tmp_path / "algo"
    argv = ["--env", "algo_v0", "--policy", "features", "--timesteps", "256", "--n-envs", "2", "--no-progress"]
    cli.main([*argv, "--eval-games", "4", "--eval-opponents", "random", "--output", str(out)])
    env = algo_v0.raw_env()
    policy = SB3SeatPolicy.load(out / "model.zip", env)
    assert policy.model.policy.action_net.pointers.shape == (env.rules.num_actions, 1)
    bad = np.full((env.rules.num_actions, 1), 10**6)
    policy_class, kwargs = policy_for("maskable_ppo", action_features(env.rules), pointers=bad)
    with pytest.raises(ValueError, match="observation_pointers must be"):
        MaskablePPO(policy_class, SingleSeatEnv(algo_v0.raw_env(), [ClueDeductionSheet()]), policy_kwargs=kwargs)
    # With the exposure and play-out entries, the stop action reads them: the head has their columns, and the
    # policy plays a seat of an env with them (and of no other).
    cli.main([*argv, "--size", "exposure=1", "--size", "playouts=1", "--eval-games", "2", "--eval-opponents",
                   "random", "--output", str(tmp_path / "exposure")])  # fmt: skip
    env = raw_env("algo_v0", exposure=1, playouts=1)
    policy = SB3SeatPolicy.load(tmp_path / "exposure" / "model.zip", env)
    assert np.array_equal(policy.model.policy.action_net.pointers.numpy(), env.observation_pointers())
    result = play_match(env.rules, [policy, RandomSeatAgent()], games=2)
    assert len(result.games) == 2
    alone = SB3SeatPolicy.load(tmp_path / "exposure" / "model.zip", env.observer)  # the observer, no env
    again = play_match(env.rules, [alone, RandomSeatAgent()], games=2)
    assert [g.actions for g in again.games] == [g.actions for g in result.games]
    for other in (algo_v0.raw_env(), raw_env("algo_v0", exposure=1)):
        with pytest.raises(ValueError, match="trained on another game or size"):
            SB3SeatPolicy.load(tmp_path / "exposure" / "model.zip", other)


def test_clue_pointers_read_the_case_file_probability_of_each_actions_cards():
    env = raw_env("clue_v0", players=4)
    pointers, rules, rng = env.observation_pointers(), env.rules, np.random.default_rng(1)
    env.reset(seed=4)
    for _ in range(12):
        agent = env.agent_selection
        observation = env.observe(agent)["observation"]
        knowledge = env.knowledge[env.possible_agents.index(agent)]
        case = knowledge.solution().probabilities[:, rules.players]
        for action in range(rules.num_actions):
            cards = [c for c in range(rules.cards) if c in _named_cards(rules, action)]
            read = sorted(observation[p] for p in pointers[action] if p >= 0)
            np.testing.assert_allclose(read, sorted(case[cards]), rtol=1e-6)
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        if env.terminations[agent]:
            break


@pytest.mark.parametrize("probabilities", [True, False])
def test_generalized_clue_pointers_read_every_place_of_a_card_actions_card(probabilities):
    """A card action reads its card at every place, in the observer's order (the case file, then each seat from
    the observer on): with the probabilities on, the card's probability there (the exact solver's); without,
    every fact the sheet holds of it ("in the case file", "not in it", then "held by" and "not held by" each
    seat), played some way into a game; the other actions read nothing."""
    env = raw_env("generalized_clue_v0", probabilities=probabilities)
    env.reset(seed=1)
    pointers, rules, rng = env.observation_pointers(), env.rules, np.random.default_rng(2)
    players = rules.players
    assert pointers.shape == (rules.num_actions, (1 if probabilities else 2) * (players + 1))
    assert (pointers[rules.cards :] == -1).all()
    learned = 0.0
    for _ in range(40):
        agent = env.agent_selection
        me = env.possible_agents.index(agent)
        observation = env.observe(agent)["observation"]
        places = [players, *((me + i) % players for i in range(players))]  # the observer's order: itself first
        if probabilities:
            expected = env.knowledge[me].solution().probabilities[:, places]
            np.testing.assert_allclose(observation[pointers[: rules.cards]], expected, atol=1e-6)
            learned += float(((expected > 0) & (expected < 1)).sum())
        else:
            held, lacked = env.knowledge[me].engine.facts()
            expected = np.c_[held[:, places[:1]], lacked[:, places[:1]], held[:, places[1:]], lacked[:, places[1:]]]
            assert np.array_equal(observation[pointers[: rules.cards]], expected.astype(np.float32))
            learned += float(expected.sum())
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        if env.terminations[agent]:
            break
    # More than the hand tells: the test reads what the seat is unsure of, or facts about other seats.
    assert learned > 40 * rules.cards if not probabilities else learned > 0


def _named_cards(rules, action: int) -> tuple[int, ...]:
    """The cards whose case-file probability an action's pointers read: a Clue suggestion's or accusation's
    three, a Generalized Clue card action's one."""
    if isinstance(rules, ClueRules):
        move = rules.decode(action)
        return move.cards if move.kind in ("suggest", "accuse") else ()
    return (action,) if action < rules.cards else ()


def test_single_player_rules_give_one_hot_features_of_their_components():
    from deduction_envs.games import GAMES, make_rules

    for name in GAMES:
        rules = make_rules(name)
        features = action_features(rules)
        assert features.shape == (rules.num_actions, sum(rules.action_nvec)) and features.dtype == np.float32
        assert (features.sum(axis=1) == len(rules.action_nvec)).all()  # one column per component
        assert np.unique(features, axis=0).shape[0] == rules.num_actions  # no two queries alike
    rules = make_rules("Mastermind", pegs=2, colors=3)
    code = rules.parse_action("BC")
    np.testing.assert_array_equal(action_features(rules)[code], [0, 1, 0, 0, 0, 1])  # B at peg 1, C at peg 2


def test_a_single_player_game_trains_and_evaluates_with_the_features_policy(tmp_path):
    argv = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--policy", "features",
            "--timesteps", "128", "--n-envs", "2", "--eval-time-limit", "0.005", "--no-progress",
            "--output", str(tmp_path)]  # fmt: skip
    results = cli.main(argv)
    assert results[0].agent == "MaskablePPO policy" and results[0].episodes == 9
    model = MaskablePPO.load(tmp_path / "model.zip")
    assert model.policy.action_net.features_t.shape == (6, 9)  # the head scores the 9 codes by their 6 features


def test_a_query_feature_heads_logits_move_with_each_actions_own_row_only():
    head = FeatureHead(3, np.eye(4, dtype=np.float32), query_features=2)
    latent = torch.randn(1, 3)
    observation = {"query_features": torch.zeros(1, 4, 2)}
    base = head(latent, observation)
    for action, column in ((1, 0), (3, 1)):
        moved = {"query_features": observation["query_features"].clone()}
        moved["query_features"][0, action, column] = 1.0
        expected = torch.zeros(4)
        expected[action] = head.state_weights(latent)[0, column]
        torch.testing.assert_close((head(latent, moved) - base)[0], expected)
    with pytest.raises(ValueError, match="needs the observation"):
        head(latent)
    with pytest.raises(ValueError, match="not both"):
        FeatureHead(3, np.eye(4, dtype=np.float32), pointers=np.zeros((4, 1)), query_features=2)


def test_the_query_features_option_trains_evaluates_and_resumes_only_with_itself(tmp_path, capsys):
    argv = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--policy", "features",
            "--query-features", "--timesteps", "128", "--n-envs", "2", "--eval-time-limit", "0.005",
            "--no-progress", "--output", str(tmp_path)]  # fmt: skip
    results = cli.main(argv)
    assert results[0].agent == "MaskablePPO policy" and results[0].episodes == 9
    model = MaskablePPO.load(tmp_path / "model.zip")
    assert model.policy.action_net.state_weights.out_features == 3  # reads the 3 features of every query
    # The network's input leaves the (9, 3) matrix out: the head reads it per query.
    assert "query_features" not in model.policy.features_extractor.extractors
    from agents import SB3Policy, evaluate

    result = evaluate(SB3Policy(model), "Mastermind-v0", {"pegs": 2, "colors": 3}, progress=False)
    assert result.episodes == 9 and result.mean_steps == results[0].mean_steps  # the loaded model plays the same
    plain = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--policy", "features",
             "--resume", str(tmp_path / "model.zip"), "--output", str(tmp_path / "more")]  # fmt: skip
    with pytest.raises(SystemExit):
        cli.parse_args(plain)
    assert "trained with query_features True" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.parse_args(["--env", "algo_v0", "--query-features"])
    assert "single-player" in capsys.readouterr().err
    with pytest.raises(ValueError, match="needs a Dict observation"):
        policy, kwargs = policy_for("maskable_ppo", np.eye(9, dtype=np.float32), True)
        MaskablePPO(policy, gym.make("Mastermind-v0", pegs=2, colors=3), policy_kwargs={**kwargs, "query_features": 2})


@given(st.lists(st.integers(2, 9), min_size=1, max_size=12), st.integers(1, 40), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_the_one_hot_scatter_equals_sb3s_entry_by_entry_encoding(nvec, batch, seed):
    from gymnasium import spaces
    from stable_baselines3.common.preprocessing import preprocess_obs

    space = spaces.MultiDiscrete(nvec, seed=seed)
    observation = torch.as_tensor(np.stack([space.sample() for _ in range(batch)]))
    assert torch.equal(one_hot(observation, space.nvec), preprocess_obs(observation, space))


@pytest.mark.parametrize("algorithm", ["maskable_ppo", "ppo"])
def test_the_one_hot_policies_compute_what_sb3s_multi_input_policy_computes(algorithm):
    """Same seed, same weights: the same values, log-probabilities and entropies on the same observations, on
    every path that encodes an observation (actor and critic, rollouts and updates)."""
    env = gym.make("Mastermind-v0", pegs=4, colors=6)
    cls = {"maskable_ppo": MaskablePPO, "ppo": PPO}[algorithm]
    ours = cls(flat_policy(algorithm, dict_observations=True), env, seed=0, device="cpu")
    sb3 = cls("MultiInputPolicy", env, seed=0, device="cpu")
    assert isinstance(ours.policy, OneHotInputs) and not isinstance(sb3.policy, OneHotInputs)
    sb3.policy.load_state_dict(ours.policy.state_dict())
    env.observation_space.seed(1)
    observations = [env.observation_space.sample() for _ in range(16)]
    batch, _ = ours.policy.obs_to_tensor({k: np.stack([o[k] for o in observations]) for k in observations[0]})
    actions = torch.as_tensor(np.arange(16) * 81)
    with torch.no_grad():
        found, expected = ours.policy.evaluate_actions(batch, actions), sb3.policy.evaluate_actions(batch, actions)
        for a, b in zip(found, expected, strict=True):  # values, log-probabilities, entropies
            assert torch.allclose(a, b)
        assert torch.allclose(ours.policy.predict_values(batch), sb3.policy.predict_values(batch))


@pytest.mark.parametrize(
    ("env_id", "sizes"),
    [("Mastermind-v0", {"pegs": 3, "colors": 4}), ("BullsAndCows-v0", {"digits": 3, "symbols": 5}),
     ("LowMiddleHigh-v0", {"n": 12})],
)  # fmt: skip
def test_marginal_pointers_read_each_querys_components_marginals(env_id, sizes):
    """Checked against a slow reference: the share of the secrets still possible whose component holds the
    query's value, read at the pointer from the env's own observation after a few random queries."""
    from deduction_envs.core.rules import marginal_pointers

    env = gym.make(env_id, **sizes)
    rules = env.unwrapped.rules
    pointers = marginal_pointers(rules)
    observation, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    possible = np.arange(rules.num_secrets)
    secrets = rules.secret_components(possible)
    for _ in range(3):
        query = int(rng.integers(rules.num_actions))
        observation, _, terminated, _, info = env.step(query)
        if terminated:
            break
        possible = possible[[rules.feedback(query, s) == info["feedback"] for s in possible]]
        components = rules.action_components(np.array([query]))[0]
        for i, pointer in enumerate(pointers[query]):
            slot = i if len(rules.secret_nvec) > 1 else 0
            share = np.mean(secrets[possible, slot] == components[i])
            assert observation["information_set"][pointer] == pytest.approx(share, abs=1e-6)


def test_games_whose_queries_do_not_name_secret_values_have_no_marginal_pointers(capsys):
    from deduction_envs.core.rules import marginal_pointers
    from deduction_envs.envs import env_rules

    with pytest.raises(ValueError, match="no marginal pointers"):
        marginal_pointers(env_rules("TreasureHunt-v0"))
    for argv, match in (
        (["--env", "TreasureHunt-v0", "--policy", "marginals"], "no marginal pointers"),
        (["--env", "algo_v0", "--policy", "marginals"], "single-player games"),
        (["--env", "Mastermind-v0", "--policy", "marginals", "--query-features"], "not both"),
        (["--env", "Mastermind-v0", "--policy", "marginals", "--algo", "a2c"], "maskable_ppo and ppo"),
    ):
        capsys.readouterr()
        with pytest.raises(SystemExit):
            cli.parse_args(argv)
        assert match in capsys.readouterr().err, argv


def test_the_marginals_policy_scores_queries_by_their_pointed_marginals_and_trains(tmp_path):
    from deduction_envs.core.rules import marginal_pointers

    head = FeatureHead(4, np.eye(3, dtype=np.float32), np.array([[0], [2], [-1]]), pointer_key="information_set")
    with torch.no_grad():
        head.state_weights.weight.zero_()
        head.state_weights.bias.fill_(2.0)
        head.weights.weight.zero_()
        head.weights.bias.zero_()
    observation = {"information_set": torch.tensor([[0.5, 0.9, 0.25]]), "history": torch.zeros(1, 2)}
    logits = head(torch.zeros(1, 4), observation).detach().numpy()
    np.testing.assert_allclose(logits, [[1.0, 0.5, 0.0]])  # 2 x the pointed marginal, 0 where none
    with pytest.raises(ValueError, match="pointer_key"):
        policy_for("maskable_ppo", np.eye(3), True, np.array([[0], [1], [2]]))
    # The pointed features' weights start at pointer_weight (the bias of the layer that sets them), else at 0.
    from deduction_envs.core.rules import marginal_pointers as pointers_of

    env = gym.make("Mastermind-v0", pegs=2, colors=3)
    for weight in (0.0, 1.0):
        policy, kwargs = policy_for("maskable_ppo", action_features(env.unwrapped.rules), True,
                                    pointers_of(env.unwrapped.rules), 0, "information_set", weight)  # fmt: skip
        fresh = MaskablePPO(policy, env, policy_kwargs=kwargs, device="cpu", seed=0)
        assert (fresh.policy.action_net.state_weights.bias == weight).all()
    out = tmp_path / "marginals"
    argv = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--policy", "marginals"]
    policy, *_ = cli.main([*argv, "--timesteps", "256", "--eval-time-limit", "0.002", "--no-progress",
                           "--output", str(out)])  # fmt: skip
    assert policy.episodes == 9 and json.loads((out / "run.json").read_text())["policy"] == "marginals"
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    assert model.policy.action_net.pointer_key == "information_set" and model.policy.pointer_weight == 1.0
    rules = gym.make("Mastermind-v0", pegs=2, colors=3).unwrapped.rules
    np.testing.assert_array_equal(model.policy.action_net.pointers.numpy(), marginal_pointers(rules))


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    actions=st.integers(1, 12),
    k=st.integers(1, 6),
    size=st.integers(1, 7),
    m=st.integers(0, 3),
    batch=st.integers(1, 4),
)
def test_the_heads_bag_of_sparse_features_equals_the_dense_definition(data, actions, k, size, m, batch):
    """Any features (sparse or dense, any values, empty rows) and pointers (-1 included): the head's logits and
    their gradients equal the dense definition's, for a Box observation and a Dict entry."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    features = (rng.random((actions, k)) * (rng.random((actions, k)) < 0.4)).astype(np.float32)
    pointers = rng.integers(-1, size, (actions, m)) if m else None
    key = data.draw(st.sampled_from([None, "information_set"])) if m else None
    head = FeatureHead(3, features, pointers, pointer_key=key)
    latent = torch.randn(batch, 3, requires_grad=True)
    flat = torch.rand(batch, size)
    observation = flat if key is None else {key: flat, "history": torch.zeros(batch, 2)}
    grads = []
    for compute in (head, head.reference):
        latent.grad = None
        head.zero_grad()
        logits = compute(latent, observation)
        (logits * torch.arange(actions)).sum().backward()
        grads.append((logits.detach(), latent.grad.clone(), head.weights.weight.grad.clone()))
    for fast, dense in zip(*grads, strict=True):
        # float32 sums in another order (the bag's scatter and the dense matrix product): a few ulps of 1e-2 to 1
        torch.testing.assert_close(fast, dense, rtol=1e-4, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), actions=st.integers(1, 9), batch=st.integers(1, 3))
def test_inverse_cdf_sampling_never_picks_a_masked_action_and_follows_the_probabilities(data, actions, batch):
    from train.policies import InverseCdfCategorical

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    masks = rng.random((batch, actions)) < 0.5
    masks[np.arange(batch), rng.integers(0, actions, batch)] = True  # at least one legal action a row
    distribution = InverseCdfCategorical(actions).proba_distribution(torch.randn(batch, actions) * 3)
    distribution.apply_masking(masks)
    torch.manual_seed(int(rng.integers(0, 2**31)))
    draws = torch.stack([distribution.sample() for _ in range(4000)]).numpy()  # (draws, batch)
    assert masks[np.arange(batch), draws].all()
    probs = distribution.distribution.probs.numpy()
    for row in range(batch):
        shares = np.bincount(draws[:, row], minlength=actions) / len(draws)
        np.testing.assert_allclose(shares, probs[row], atol=0.035)  # 4,000 draws: sd of a share <= 0.008


def test_the_maskable_policies_sample_by_inverse_cdf():
    from train.policies import InverseCdfCategorical

    env = gym.make("Mastermind-v0", pegs=2, colors=3)
    for policy, kwargs in (
        (flat_policy("maskable_ppo", True), {}),
        policy_for("maskable_ppo", action_features(env.unwrapped.rules), True),
    ):
        model = MaskablePPO(policy, env, policy_kwargs=kwargs, device="cpu", seed=0, n_steps=16, batch_size=16)
        assert isinstance(model.policy.action_dist, InverseCdfCategorical)
        model.learn(32)


def test_the_marginal_weight_option_sets_the_start_and_is_recorded(tmp_path, capsys):
    out = tmp_path / "weighted"
    argv = ["--env", "Mastermind-v0", "--size", "pegs=2", "--size", "colors=3", "--policy", "marginals"]
    cli.main(
        [
            *argv,
            "--marginal-weight",
            "2.5",
            "--timesteps",
            "0",
            "--eval-time-limit",
            "0.002",
            "--no-progress",
            "--output",
            str(out),
        ]
    )  # fmt: skip  (--timesteps 0: the untrained policy, saved and evaluated)
    run = json.loads((out / "run.json").read_text())
    assert run["marginal_weight"] == 2.5 and run["timesteps"] == 0
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    assert model.policy.pointer_weight == 2.5 and (model.policy.action_net.state_weights.bias == 2.5).all()
    assert (out / "comparison.md").exists()
    for bad, match in (
        (["--env", "Mastermind-v0", "--marginal-weight", "3"], "--marginal-weight is for --policy marginals"),
        ([*argv, "--marginal-weight", "inf"], "argument --marginal-weight: must be a finite number >= 0, got inf"),
        ([*argv, "--marginal-weight", "-1"], "argument --marginal-weight: must be a finite number >= 0, got -1"),
        ([*argv, "--marginal-weight", "x"], "argument --marginal-weight: must be a number >= 0, got 'x'"),
    ):
        with pytest.raises(SystemExit):
            cli.parse_args(bad)
        assert match in capsys.readouterr().err, bad


def test_the_pointer_weights_option_starts_each_pointer_column_and_refuses_what_does_not_fit(tmp_path, capsys):
    """``--pointer-weights 4,0,-1``: the head's first three pointer columns start at those weights, the rest at 0,
    so that an untrained Generalized Clue policy scores a card by 4 x its case-file probability minus its
    probability of being the observer's; a seat's policy scores a card action so (and nothing else)."""
    out = tmp_path / "weighted"
    argv = ["--env", "generalized_clue_v0", "--size", "cards=9", "--size", "hidden=1", "--policy", "features"]
    cli.main([*argv, "--pointer-weights", "4,0,-1", "--timesteps", "0", "--eval-games", "3", "--n-envs", "1",
              "--vec-env", "dummy", "--no-progress", "--output", str(out)])  # fmt: skip
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    env = raw_env("generalized_clue_v0", cards=9, hidden=1)
    columns = env.observation_pointers().shape[1]
    assert model.policy.pointer_weight == (4.0, 0.0, -1.0)
    assert model.policy.action_net.state_weights.bias.tolist() == [4.0, 0.0, -1.0] + [0.0] * (columns - 3)
    assert json.loads((out / "run.json").read_text())["pointer_weights"] == [4.0, 0.0, -1.0]
    env.reset(seed=3)
    observation = torch.as_tensor(env.observe(env.agent_selection)["observation"])[None]
    head = model.policy.action_net
    with torch.no_grad():  # the start's weights alone: zero the network's own part of the scores
        head.weights.weight.zero_(), head.weights.bias.zero_(), head.state_weights.weight.zero_()
        logits = head(torch.zeros(1, head.weights.in_features), observation)[0].numpy()
    read = observation[0].numpy()[env.observation_pointers()[: env.rules.cards]]
    np.testing.assert_allclose(logits[: env.rules.cards], 4 * read[:, 0] - read[:, 2], atol=1e-6)
    assert not logits[env.rules.cards :].any()
    for bad, match in (
        ([*argv, "--pointer-weights", "1,2,3,4,5"], "head has 4 pointer columns"),
        (["--env", "generalized_clue_v0", "--pointer-weights", "1"], "--pointer-weights is for --policy features"),
        (["--env", "Mastermind-v0", "--policy", "features", "--pointer-weights", "1"], "is for the multiplayer envs"),
        ([*argv, "--pointer-weights", "1,,2"], "must be comma-separated numbers"),
        ([*argv, "--pointer-weights", "nan"], "must be a finite number"),
        ([*argv, "--pointer-weights", "1000"], "must be a finite number"),
    ):
        with pytest.raises(SystemExit):
            cli.parse_args(bad)
        assert match in capsys.readouterr().err, bad
