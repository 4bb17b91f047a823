"""The batched twins' own tests: what the conformance suite (tests/test_conformance.py, which plays every twin
against its AEC env and every compiled agent against its Python agent) does not cover: bad input, deals drawn
at once, games moved apart, truncation, masked actions, what a seat cannot see, and agents' options.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.batched import DRAWS, UniformDraws
from agents.clue_batched import BatchedEntropyAgent, BatchedVelma
from agents.clue_batched import batched_agent as clue_agent
from agents.generalized_clue_batched import batched_agent as generalized_clue_agent
from deduction_envs.envs import clue_v0
from deduction_envs.envs.clue_batched import BatchedClueSeats
from deduction_envs.envs.generalized_clue_batched import BatchedGeneralizedClueSeats
from deduction_envs.games.algo import AlgoRules
from deduction_envs.games.algo_batched import BatchedAlgoRules
from deduction_envs.games.clue import ClueRules
from deduction_envs.games.clue_batched import BatchedClueRules
from deduction_envs.games.clue_board import ClueBoardRules
from deduction_envs.games.clue_board_batched import BatchedClueBoardRules
from deduction_envs.games.generalized_clue import GeneralizedClueRules
from deduction_envs.games.generalized_clue_batched import BatchedGeneralizedClueRules


# ---------------------------------------------------------------------------------------------------------- Algo
def bits(cards) -> int:
    return sum(1 << int(c) for c in cards)


def _card(rules, state, action):
    move = rules.decode(action)
    return state.hands[rules.target_player(state.mover, move.target)][move.position]


def test_algo_deals_and_bad_input():
    rules = AlgoRules(2)
    batched = BatchedAlgoRules(rules, 3000, seed=0)
    batched.reset()
    hands = np.array([[bin(h).count("1") for h in row] for row in batched.hands])
    assert (hands == 4).all() and (batched.deck_left == 15).all() and (batched.drawn >= 0).all()
    together = batched.hands[:, 0] | batched.hands[:, 1] | (np.int64(1) << batched.drawn)
    assert ((batched.hands[:, 0] & batched.hands[:, 1]) == 0).all()
    for g in range(50):
        cards = {c for c in range(24) if together[g] >> c & 1} | set(batched.deck[g, :15].tolist())
        assert cards == set(range(24))
    drawn = np.bincount(batched.drawn, minlength=24) / 3000  # the drawn card uniform over the deck
    assert np.abs(drawn - 1 / 24).max() < 0.015
    with pytest.raises(ValueError, match="rules must be AlgoRules"):
        BatchedAlgoRules(object(), 2)
    with pytest.raises(ValueError, match="each row must be a shuffle"):
        batched.deal(np.array([0]), np.zeros((1, 24), dtype=np.int64))
    with pytest.raises(ValueError, match="is not legal now"):
        batched.step(np.full(3000, rules.stop_action))  # stopping is not legal before a hit


def _algo_pair(name: str, options: dict):
    """A Python Algo agent and its compiled twin with the same options."""
    from agents.algo_agents import AlgoEpsilonGreedy, AlgoMaxEntropy
    from agents.algo_batched import BatchedEpsilonGreedy, BatchedMaxEntropy

    python, compiled = {"epsilon_greedy": (AlgoEpsilonGreedy, BatchedEpsilonGreedy),
                        "max_entropy": (AlgoMaxEntropy, BatchedMaxEntropy)}[name]  # fmt: skip
    return (lambda: python(**options)), compiled(**options)


@pytest.mark.parametrize(
    ("sizes", "name", "options", "others", "seen"),
    [
        ({"players": 2}, "epsilon_greedy", {"epsilon": 0.3}, False, ("attack", "stop")),
        ({"players": 3}, "epsilon_greedy", {"epsilon": 1.0}, False, ("attack", "stop")),
        ({"players": 2, "numbers": 6}, "epsilon_greedy", {"epsilon": 0.1}, True, ("reveal",)),
        ({"players": 2, "numbers": 8}, "max_entropy", {"win_rule": "outright", "units": "bits"}, False,
         ("attack", "stop")),
        ({"players": 3, "numbers": 6}, "max_entropy", {"depth": 3, "top_n": 3, "samples": 2}, False, ("attack",)),
        ({"players": 2, "numbers": 6}, "max_entropy", {"depth": 1, "samples": 1, "win_value": 3.0}, True,
         ("reveal",)),
    ],
)  # fmt: skip
def test_the_compiled_twin_decides_as_its_python_agent(sizes, name, options, others, seen):
    """Every decision of every seat, or (``others``) random moves with the agents only following the game, and
    their decision compared wherever one must reveal a card (the deck empty after a miss); the agents' options
    other than the roster's too (the roster's are in the conformance suite). ``seen``: the kinds of decision that
    must have been compared (attacks many times)."""
    from deduction_envs.envs import algo_v0
    from deduction_envs.envs.algo_batched import BatchedAlgoSeats

    rules, n = AlgoRules(**sizes), 12
    seats = BatchedAlgoSeats(BatchedAlgoRules(rules, n), probabilities=True)
    seats.reset(seeds=range(n))
    make_agent, twin = _algo_pair(name, options)
    envs, agents = [], []
    for g in range(n):
        env = algo_v0.raw_env(**sizes, probabilities=False)
        seated = [make_agent() for _ in range(rules.players)]
        for seat, agent in enumerate(seated):
            agent.reset(rules, seat, seed=0)
        env.seat_listeners = {seat: agent.observe for seat, agent in enumerate(seated)}
        env.reset(seed=g)
        envs.append(env)
        agents.append(seated)
    rng, kinds = np.random.default_rng(sum(sizes.values())), {"attack": 0, "stop": 0, "reveal": 0}
    while not seats.games.over.all():
        uniforms = rng.random((n, twin.draws(rules)))
        live, movers = ~seats.games.over, seats.games.mover
        actions = twin.act(seats, live, uniforms)
        masks = seats.games.legal_masks()
        for g in np.flatnonzero(live):
            env, agent = envs[g], agents[g][movers[g]]
            if others and seats.games.phase[g] != 2:  # a random move (a right guess now and then)
                legal = np.flatnonzero(masks[g])
                right = [a for a in legal if a < rules.num_attacks
                         and rules.decode(a).number == _card(rules, env.table.state, a) // 2]  # fmt: skip
                actions[g] = rng.choice(right) if right and rng.random() < 0.15 else rng.choice(legal)
                env.step(int(actions[g]))
                continue
            agent.rng = UniformDraws(uniforms[g])
            expected = agent.act(env.observe(env.agent_selection)["action_mask"])
            assert actions[g] == expected, (g, int(movers[g]), int(seats.games.phase[g]))
            kinds[rules.decode(int(expected)).kind] += 1
            env.step(int(expected))
        seats.step(actions)
    assert all(kinds[kind] > 0 for kind in seen), kinds
    assert kinds["reveal"] > n // 2 if others else kinds["attack"] > 4 * n, kinds


@pytest.mark.parametrize("players", [2, 3])
def test_the_win_decided_without_counting_is_the_counted_one(players):
    """Where one opponent alone has cards face down, the compiled max-entropy agent decides the article's win (every
    one of the likeliest attacks certain) from the hand's chains of accepted cards; on views of random games and
    views after hypothetical hits, it agrees with the win read from the counted probabilities for every top_n."""
    from agents.algo_batched import _candidates, _certain_win, _hits, _one_hand_left
    from agents.batched import BatchedRandom
    from deduction_envs.envs.algo_batched import BatchedAlgoSeats
    from deduction_envs.games.algo_batched import seat_view

    rules, n = AlgoRules(players, numbers=8), 40
    seats = BatchedAlgoSeats(BatchedAlgoRules(rules, n))
    seats.reset(seeds=range(n))
    rng, agent, compared = np.random.default_rng(players), BatchedRandom(), {True: 0, False: 0}
    batch = seats.games
    while not batch.over.all():
        for g in np.flatnonzero(~batch.over):
            sizes, colours, cards, excluded, _, seen = seat_view(g, batch.turn[g], batch.hands, batch.revealed,
                                                                 batch.ruled_out, batch.drawn, batch.turn,
                                                                 rules.max_hand)  # fmt: skip
            for _ in range(3):  # the view, then after hypothetical hits on likely cards
                hits = _hits(batch.turn[g], sizes, colours, cards, excluded, seen, rules.max_hand, rules.numbers)
                if _one_hand_left(batch.turn[g], sizes, cards):
                    for top_n in (1, 3, 5):
                        counted = bool((hits[_candidates(hits, top_n)] >= 1).all())
                        assert _certain_win(batch.turn[g], sizes, colours, cards, excluded, seen, rules.deck_size,
                                            top_n) == counted  # fmt: skip
                        compared[counted] += 1
                if not (hits > 0).any():
                    break
                action = int(rng.choice(np.flatnonzero(hits > 0), p=hits[hits > 0] / hits.sum()))
                rest, number = divmod(action, rules.numbers)
                q = (batch.turn[g] + 1 + rest // rules.max_hand) % players
                cards = cards.copy()
                cards[q, rest % rules.max_hand] = card = 2 * number + colours[q, rest % rules.max_hand]
                seen = seen | 1 << card
        seats.step(agent.act(seats, ~batch.over, rng.random((n, 1))))
    assert compared[True] > 20 and compared[False] > 20, compared


def test_the_compiled_algo_agents_refuse_bad_options():
    from agents.algo_batched import BatchedEpsilonGreedy, BatchedMaxEntropy, batched_agent

    with pytest.raises(ValueError, match="Algo's compiled opponents are random, epsilon_greedy, max_entropy"):
        batched_agent("ismcts")
    with pytest.raises(ValueError, match="epsilon must be a probability"):
        BatchedEpsilonGreedy(2)
    for bad, message in (({"depth": 0}, "depth"), ({"top_n": 1.5}, "top_n"), ({"samples": -1}, "samples"),
                         ({"win_rule": "soon"}, "win_rule must be one of certain, outright"),
                         ({"units": "hartleys"}, "units must be one of nats, bits")):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            BatchedMaxEntropy(**bad)
    assert BatchedMaxEntropy(samples=3).draws(AlgoRules(2, numbers=6)) == 36


# ---------------------------------------------------------------------------------------------------------- Clue
def test_bad_input_is_a_clear_error_and_changes_nothing():
    rules = ClueRules(3)
    batched = BatchedClueRules(rules, 2)
    batched.reset(seeds=[0, 1])
    before = batched.places.copy(), batched.phase.copy()
    with pytest.raises(ValueError, match="game 1: action 660 is not legal now"):
        batched.step(np.array([0, 660]))  # a card to show at the start of a turn
    with pytest.raises(ValueError, match="game 0: action -1 is not legal now"):
        batched.step(np.array([-1, 0]))
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        batched.step(np.array([0.5, 1.0]))
    assert (batched.places == before[0]).all() and (batched.phase == before[1]).all()
    with pytest.raises(ValueError, match="rules must be ClueRules"):
        BatchedClueRules(ClueBoardRules(3), 2)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        BatchedClueRules(rules, 0)
    with pytest.raises(ValueError, match="give one seed a game"):
        batched.reset(seeds=[1])
    with pytest.raises(ValueError, match=r"games must be indices in \[0, 1\]"):
        batched.reset_games(np.array([2]))
    batched.reset_games(np.array([1]), seeds=[5])
    assert batched.places[1].tolist() == list(rules.new_game(np.random.default_rng(5)).places)


def test_deals_drawn_at_once_are_deals_of_the_box_uniformly():
    """Without seeds of their own (an autoreset), the games are dealt together from the batch's generator: each
    a valid deal (checked by ``deal``), the case file's card of each category uniform, every other card as likely
    in each hand as that hand's size says; the same batch seed gives the same deals."""
    rules, n = ClueRules(4), 12_000
    batched = BatchedClueRules(rules, n, seed=3)
    batched.reset()
    places = batched.places
    for start, size in zip(rules.category_starts, rules.category_sizes, strict=True):
        share = (places[:, start : start + size] == rules.players).mean(axis=0)
        assert np.allclose(share, 1 / size, atol=0.02), share
    hands = np.array(rules.hand_sizes) / sum(rules.hand_sizes)
    for card in range(rules.cards):
        dealt = places[places[:, card] < rules.players, card]
        assert np.allclose(np.bincount(dealt, minlength=rules.players) / dealt.size, hands, atol=0.02), card
    again = BatchedClueRules(rules, n, seed=3)
    again.reset()
    assert (again.places == places).all()


def test_a_step_refuses_exactly_what_the_masks_forbid():
    """The step checks each action without building the masks; on random positions it refuses an action if and
    only if the game's mask forbids it."""
    rules, n = ClueRules(4), 64
    batched = BatchedClueRules(rules, n, seed=0)
    batched.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        masks = batched.legal_masks().copy()
        live = ~batched.over
        for g in rng.choice(n, size=8, replace=False):
            if not live[g]:
                continue
            actions = np.where(masks.any(axis=1), masks.argmax(axis=1), 0)
            actions[g] = rng.integers(-2, rules.num_actions + 2)
            inside = 0 <= actions[g] < rules.num_actions
            try:
                batched.step(actions, np.arange(n) == g)  # game g alone moves (or its action is refused)
                assert inside and masks[g, actions[g]]
                break
            except ValueError as error:
                assert not (inside and masks[g, actions[g]]) and str(error).startswith(f"game {g}:")
        else:
            keys = rng.random(masks.shape)
            keys[~masks] = -1
            batched.step(keys.argmax(axis=1))
        ended = np.flatnonzero(batched.over)
        if ended.size:
            batched.reset_games(ended)


# --------------------------------------------------------------------------------------------- Clue on the board
def test_bad_input_is_a_clear_error():
    rules = ClueBoardRules(3)
    with pytest.raises(ValueError, match=r"rules must be ClueRules, got ClueBoardRules \(on the board: Batched"):
        BatchedClueRules(rules, 2)
    batched = BatchedClueBoardRules(rules, 2)
    batched.reset(seeds=[0, 1])
    with pytest.raises(ValueError, match="not legal now"):
        batched.step(np.array([rules.move_action, rules.roll_action]))  # a move before the roll
    with pytest.raises(ValueError, match="weapons must be 1 rows of 6 distinct rooms"):
        batched.deal(np.array([0]), batched.places[:1], weapons=np.array([[0, 0, 1, 2, 3, 4]]))
    with pytest.raises(ValueError, match="one dice seed a game"):
        batched.deal(np.array([0]), batched.places[:1], dice_seeds=[1, 2])


def test_a_seats_observation_on_the_board_does_not_see_the_others_cards():
    """Two deals that differ only in a card swapped between seats 1 and 2, the same weapons and dice: seats 0 and
    3, who see neither hand, get the same observations, board pieces included, through rolls, moves, passages
    and ends of turn, then wrong accusations (whose verdict depends on the case file alone, the same in both)."""
    from deduction_envs.envs.clue_batched import BatchedClueSeats

    rules = ClueBoardRules(4)
    seats = BatchedClueSeats(BatchedClueBoardRules(rules, 2))
    places = np.array(rules.new_game(np.random.default_rng(7)).places)
    twin = places.copy()
    one, two = int(np.flatnonzero(places == 1)[0]), int(np.flatnonzero(places == 2)[0])
    twin[one], twin[two] = 2, 1
    seats.deal(np.array([0, 1]), np.stack([places, twin]), weapons=np.tile(np.arange(6), (2, 1)), dice_seeds=[3, 3])
    case = sorted(np.flatnonzero(places == 4).tolist())
    wrong = next(t for t in range(rules.num_triples) if sorted(rules.triple(t)) != case)
    rng, compared, turns = np.random.default_rng(0), 0, 0
    while not seats.games.over.all():
        observed, movers, masks = seats.observe(), seats.games.mover, seats.games.legal_masks()
        assert movers[0] == movers[1] and (masks[0] == masks[1]).all()
        if movers[0] in (0, 3):
            np.testing.assert_array_equal(observed[0], observed[1])
            compared += 1
        legal = np.flatnonzero(masks[0])
        board = legal[(legal >= rules.roll_action) | (legal == rules.end_action)]
        accuse = rules.num_triples + wrong
        if turns < 40 or not masks[0, accuse]:  # walk the board without suggesting (an answer tells the swap)
            action = int(rng.choice(board))
            turns += action == rules.end_action
        else:
            action = accuse
        seats.step(np.full(2, action))
        assert not seats.illegal.any()
    assert compared > 20 and turns >= 40


# ---------------------------------------------------------------------------------------------- Generalized Clue
def test_generalized_clue_deals_and_bad_input():
    rules = GeneralizedClueRules(12, 2, 3)
    batched = BatchedGeneralizedClueRules(rules, 2000, seed=1)
    batched.reset()
    places = batched.places
    assert ((places == 3).sum(axis=1) == 2).all() and ((places == 0).sum(axis=1) == rules.hand_sizes[0]).all()
    case = (places == 3).mean(axis=0)  # each card in the case file with chance 2/12
    assert np.abs(case - 2 / 12).max() < 0.03
    with pytest.raises(ValueError, match="rules must be GeneralizedClueRules"):
        BatchedGeneralizedClueRules(object(), 2)
    with pytest.raises(ValueError, match="a deal gives each player its hand"):
        batched.deal(np.array([0]), np.zeros((1, 12), dtype=np.int64))
    with pytest.raises(ValueError, match="actions must be 2000 integers"):
        batched.step(np.zeros(3, dtype=np.int64))
    submit = np.full(2000, rules.submit_action)  # submitting is never legal at the start of a turn
    with pytest.raises(ValueError, match="game 0: action 16 is not legal now"):
        batched.step(submit)
    assert batched.illegal(submit).all() and (batched.phase == 0).all()  # nothing moved


# -------------------------------------------------------------------------------------------------- Clue's seats
def test_a_clue_seats_observation_does_not_see_the_others_cards():
    """Two deals that differ only in a card swapped between seats 1 and 2: seats 0 and 3, who see neither hand,
    get the same observations while every turn is a wrong accusation (its verdict depends on the case file alone,
    the same in both)."""
    rules = ClueRules(4)
    seats = BatchedClueSeats(BatchedClueRules(rules, 2))
    places = np.array(rules.new_game(np.random.default_rng(7)).places)
    twin = places.copy()
    one, two = int(np.flatnonzero(places == 1)[0]), int(np.flatnonzero(places == 2)[0])
    twin[one], twin[two] = 2, 1
    seats.deal(np.array([0, 1]), np.stack([places, twin]))
    case = sorted(np.flatnonzero(places == 4).tolist())
    wrong = next(t for t in range(rules.num_triples) if sorted(rules.triple(t)) != case)
    compared = 0
    while not seats.games.over.all():
        observed, movers = seats.observe(), seats.games.mover
        assert movers[0] == movers[1]
        if movers[0] in (0, 3):
            np.testing.assert_array_equal(observed[0], observed[1])
            compared += 1
        seats.step(np.full(2, rules.num_triples + wrong))
    assert compared == 2
    with pytest.raises(ValueError, match="a deal gives each player its hand"):
        seats.deal(np.array([0]), np.zeros((1, rules.cards), dtype=np.int64))


def test_a_step_can_move_some_games_only():
    """The games not marked keep their state, knowledge and record; the marked ones move as if alone."""
    rules, n = ClueRules(3), 6
    both = [BatchedClueSeats(BatchedClueRules(rules, n)) for _ in range(2)]
    for seats in both:
        seats.reset(seeds=range(n))
    rng = np.random.default_rng(0)
    for turn in range(30):
        masks = both[0].games.legal_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        moving = np.arange(n) % 2 == turn % 2
        both[0].step(actions, moving)  # half the games a step, in turn
        both[1].step(np.where(moving, actions, 0), moving)
        np.testing.assert_array_equal(both[0].observe(), both[1].observe())
        assert (both[0].record == both[1].record).all()
    frozen = BatchedClueSeats(BatchedClueRules(rules, n))
    frozen.reset(seeds=range(n))
    before = frozen.observe().copy()
    frozen.step(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool))
    np.testing.assert_array_equal(frozen.observe(), before)
    with pytest.raises(ValueError, match="moving must be 6 bools"):
        frozen.step(np.zeros(n, dtype=np.int64), np.ones(n))


def test_a_masked_action_ends_its_game_only_as_the_aec_env_says():
    rules, n = ClueRules(3), 4
    seats = BatchedClueSeats(BatchedClueRules(rules, n))
    seats.reset(seeds=range(n))
    env = clue_v0.raw_env(players=3, probabilities=False)
    env.reset(seed=2)
    masked = int(np.flatnonzero(~seats.games.legal_masks()[2])[0])
    actions = np.array([0, 0, masked, 0])
    with pytest.warns(UserWarning, match="masked action"):
        env.step(masked)
    rewards, terminated, truncated = seats.step(actions)
    assert rewards[2].tolist() == [env.rewards[a] for a in env.possible_agents] == [-1.0, 0.0, 0.0]
    assert terminated.tolist() == [False, False, True, False] and not truncated.any()
    assert seats.illegal.tolist() == [False, False, True, False] and seats.games.over.tolist() == terminated.tolist()
    assert (seats.games.event["kind"][[0, 1, 3]] == 1).all()  # the others suggested
    strict = BatchedClueSeats(BatchedClueRules(rules, n), illegal_action="raise")
    strict.reset(seeds=range(n))
    before = strict.observe().copy()
    with pytest.raises(ValueError, match="game 2: action"):
        strict.step(actions)
    np.testing.assert_array_equal(strict.observe(), before)  # nothing moved
    with pytest.raises(ValueError, match="illegal_action must be"):
        BatchedClueSeats(BatchedClueRules(rules, n), illegal_action="skip")
    with pytest.raises(ValueError, match="max_cycles"):
        BatchedClueSeats(BatchedClueRules(rules, n), max_cycles=0)
    with pytest.raises(ValueError, match="seats must be 4 seats"):
        seats.observe(np.full(n, 3))


def test_max_cycles_truncates_as_the_aec_env():
    rules, n, cycles = ClueRules(4), 3, 7
    seats = BatchedClueSeats(BatchedClueRules(rules, n), max_cycles=cycles)
    seats.reset(seeds=range(n))
    envs = [clue_v0.raw_env(players=4, probabilities=False, max_cycles=cycles) for _ in range(n)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    for step in range(cycles):
        masks = seats.games.legal_masks()
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks])  # suggest, show, end
        rewards, terminated, truncated = seats.step(actions)
        for g, env in enumerate(envs):
            env.step(int(actions[g]))
            assert truncated[g] == env.truncations[env.agent_selection] == (step == cycles - 1)
        assert not terminated.any() and not rewards.any()
    assert seats.games.over.all()
    final = seats.observe(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    for g, env in enumerate(envs):
        np.testing.assert_array_equal(final[g], env.observe("player_0")["observation"])


# -------------------------------------------------------------------------------------- Generalized Clue's seats
def choose(rng, rules, mask):
    """Mostly asks with short lists, a guess now and then: games that last, asks answered both ways."""
    legal = np.flatnonzero(mask)
    asks = legal[(legal >= rules.cards) & (legal < rules.guess_action)]
    if asks.size and rng.random() < 0.9:
        return rng.choice(asks)
    if mask[rules.submit_action] and rng.random() < 0.4:
        return rules.submit_action
    return rng.choice(legal)


def test_a_generalized_clue_seats_observation_does_not_see_the_others_cards():
    """Two deals that differ only in a card swapped between seats 1 and 2: seat 0, who sees neither hand, gets
    the same observations while it and the others ask only about its own cards (answered "no" alike)."""
    rules = GeneralizedClueRules(12, 2, 3)
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, 2))
    places = np.array(rules.new_game(np.random.default_rng(3)).places)
    twin = places.copy()
    one, two = int(np.flatnonzero(places == 1)[0]), int(np.flatnonzero(places == 2)[0])
    twin[one], twin[two] = 2, 1
    seats.deal(np.array([0, 1]), np.stack([places, twin]))
    mine = np.flatnonzero(places == 0)
    compared = 0
    for _ in range(60):
        observed = seats.observe(np.zeros(2, dtype=np.int64))
        np.testing.assert_array_equal(observed[0], observed[1])
        compared += 1
        masks = seats.games.legal_masks()
        assert (masks[0] == masks[1]).all()
        if seats.games.phase[0] == 0:  # a turn starts: ask seat 1 (seat 1 asks seat 2)
            action = rules.cards + (2 if seats.games.turn[0] == 1 else 1)
        elif not seats.games.chosen[0]:  # about one of seat 0's cards: "no" in both deals
            action = int(mine[0])
        else:
            action = rules.submit_action
        assert masks[0, action]
        seats.step(np.full(2, action))
    assert compared == 60 and not seats.games.over.any()


def test_the_deals_are_counted_as_by_hand():
    """Five cards, one hidden, two players of two: seat 0 (cards 0 and 1) sees three deals, each of cards 2-4
    the case file once (log2 3 bits). Seat 0 asks seat 1 about cards 2 and 3: "yes", it shows 3; seat 1 then
    holds 3 and one of 2 and 4, the other hidden: two deals left, one bit."""
    rules = GeneralizedClueRules(5, 1, 2)
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, 1), probabilities=True)
    seats.deal(np.array([0]), np.array([[0, 0, 1, 1, 2]]))  # seat 1 holds 2 and 3; 4 is hidden
    one, seat0 = np.ones(1, dtype=bool), np.zeros(1, dtype=np.int64)
    probabilities, cases = seats.solve(one, seat0)
    np.testing.assert_allclose(probabilities[0, :, 2], [0, 0, 1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(probabilities[0, :, 1], [0, 0, 2 / 3, 2 / 3, 2 / 3])
    np.testing.assert_array_equal(probabilities[0, :2, 0], [1, 1])
    np.testing.assert_array_equal(cases[0], [0, 0, 1, 1, 1])  # colex: {0}, {1}, {2}, {3}, {4}
    assert seats.entropy(one, seat0)[0] == pytest.approx(np.log2(3))
    for action in [rules.cards + 1, 2, 3, rules.submit_action, 3]:  # seat 0 asks seat 1 about 2, 3; 3 is shown
        seats.step(np.array([action]))
    probabilities, cases = seats.solve(one, seat0)
    np.testing.assert_allclose(probabilities[0, :, 2], [0, 0, 1 / 2, 0, 1 / 2])
    assert probabilities[0, 3, 1] == 1.0 and seats.entropy(one, seat0)[0] == pytest.approx(1.0)
    observed = seats.observe(seat0)[0]
    slots = seats.observer.pieces.slices
    assert observed[slots["entropy"]][0] == pytest.approx(1.0 / np.log2(5))  # over log2 C(5, 1)


def test_the_enumeration_refuses_games_too_large_and_bad_input():
    from deduction_envs.envs.generalized_clue_batched import DEAL_LIMIT

    big = BatchedGeneralizedClueRules(GeneralizedClueRules(16, 3, 5), 2)
    assert BatchedGeneralizedClueSeats(big).deal_bound > DEAL_LIMIT
    with pytest.raises(ValueError, match=r"probabilities=True enumerates the deals a seat may face: .* give "
                                         r"probabilities=False"):  # fmt: skip
        BatchedGeneralizedClueSeats(big, probabilities=True)
    seats = BatchedGeneralizedClueSeats(big)
    seats.reset(seeds=[0, 1])
    with pytest.raises(ValueError, match="no exact entropy at these sizes"):
        seats.entropy(np.ones(2, dtype=bool), np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="probabilities must be True or False"):
        BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(GeneralizedClueRules(12), 2), probabilities="yes")


# ---------------------------------------------------------------------------------------- Clue's compiled agents
def test_bad_input_is_refused():
    seats = BatchedClueSeats(BatchedClueRules(ClueRules(3), 4))
    seats.reset(seeds=range(4))
    every = np.ones(4, dtype=bool)
    with pytest.raises(ValueError, match="opponents are random, deduction_sheet, entropy, velma, velma_rate, got"):
        clue_agent("ismcts")
    for bad, message in (({"samples": 0}, "samples"), ({"enumerate_limit": -1}, "enumerate_limit"),
                         ({"samples": 2.5}, "samples"), ({"threshold": 0}, "threshold"),
                         ({"threshold": True}, "threshold")):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            BatchedEntropyAgent(**bad)
    for bad in (-1, float("inf"), "far"):
        with pytest.raises(ValueError, match="remoteness must be a weight"):
            BatchedVelma(remoteness=bad)
    with pytest.raises(ValueError, match="games must be 4 bools"):
        clue_agent("random").act(seats, np.ones(4), np.zeros((4, DRAWS)))
    with pytest.raises(ValueError, match="uniforms must be"):
        clue_agent("deduction_sheet").act(seats, every, np.ones((4, DRAWS)))
    actions = clue_agent("deduction_sheet").act(seats, every, np.zeros((4, DRAWS)))
    assert seats.games.legal_masks()[np.arange(4), actions].all()


@pytest.mark.parametrize("env_id", ["algo_v0", "clue_v0", "generalized_clue_v0"])
def test_every_twin_counts_the_deals_of_each_game(env_id):
    """``dealt``: how many times each game slot has been dealt (what an agent keeping something per game checks),
    moved by a reset of every game and by dealing one game anew, whatever the twin."""
    from deduction_envs import registry
    from deduction_envs.envs.batched_tables import twin

    make_games, seats_class, _ = twin(env_id)
    seats = seats_class(make_games(registry.game(env_id).make_rules(), 3, 0))
    assert seats.dealt.tolist() == [0, 0, 0]
    seats.reset(seeds=range(3))
    seats.reset_games(np.array([1]), seeds=[5])
    assert seats.dealt.tolist() == [1, 2, 1]


def test_the_compiled_entropy_agent_scores_once_a_change_of_facts_as_its_python_agent():
    """Its scores are kept while the seat's facts and deal are the same (no draw taken for them: the Python agent's
    cache), made again (a draw taken) when a new game is dealt into the slot; one agent may serve two batches."""
    seats, other = (BatchedClueSeats(BatchedClueRules(ClueRules(3), 2)) for _ in range(2))
    agent, every = BatchedEntropyAgent(samples=50), np.ones(2, dtype=bool)
    for batch in (seats, other):
        batch.reset(seeds=[0, 1])
    memory = agent._memory

    def scored(batch: BatchedClueSeats) -> list[bool]:
        agent.act(batch, every, np.full((2, DRAWS), 0.5))
        return memory[batch].scored_now.tolist()

    assert scored(seats) == [True, True] and scored(seats) == [False, False]
    assert scored(other) == [True, True] and scored(seats) == [False, False]
    seats.reset_games(np.array([1]), seeds=[1])  # the same deal, a new game: its scores are made again
    assert scored(seats) == [False, True]


# ---------------------------------------------------------------------------- Generalized Clue's compiled agents
def test_the_random_agent_plays_whole_games_legally_and_bad_input_is_refused():
    rules = GeneralizedClueRules(12, 2, 3)
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, 4))
    seats.reset(seeds=range(4))
    every, agent, rng = np.ones(4, dtype=bool), generalized_clue_agent("random"), np.random.default_rng(0)
    while not seats.games.over.all():
        live = ~seats.games.over
        actions = agent.act(seats, live, rng.random((4, rules.cards + 2)))
        assert seats.games.legal_masks()[live, actions[live]].all()
        seats.step(actions)
    with pytest.raises(ValueError, match=r"uniforms must be \(4, 14\)"):
        agent.act(seats, every, np.full((4, 1), 0.5))
    seats.reset(seeds=range(4))
    with pytest.raises(ValueError, match="Generalized Clue's compiled opponents are random, scoreboard, exact"):
        generalized_clue_agent("ismcts")
    with pytest.raises(ValueError, match=r"uniforms must be \(4, 13\)"):
        generalized_clue_agent("scoreboard").act(seats, every, np.zeros((4, 3)))



def test_the_compiled_exact_agent_refuses_bad_options_and_games_past_its_count():
    from agents.generalized_clue_batched import BatchedGeneralizedClueExact

    for bad, message in (({"threshold": 0}, "threshold"), ({"threshold": True}, "threshold"),
                         ({"samples": 0}, "samples"), ({"listeners": -1}, "listeners"), ({"race": 1}, "race"),
                         ({"pad": "yes"}, "pad"), ({"sure": None}, "sure")):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            BatchedGeneralizedClueExact(**bad)
    rules = GeneralizedClueRules(16, 3, 5)
    seats = BatchedGeneralizedClueSeats(BatchedGeneralizedClueRules(rules, 2))
    seats.reset(seeds=range(2))
    agent = BatchedGeneralizedClueExact()
    draws = np.zeros((2, agent.draws(rules)))
    with pytest.raises(ValueError, match=r"counts a seat.s deals whole: .* \(the Python agent plays these sizes\)"):
        agent.act(seats, np.ones(2, dtype=bool), draws)
    assert agent.draws(rules) == 4 * 16 + 2


def test_uniform_draws_shuffle_as_draws_without_replacement():
    """``permutation`` (what ``ask_candidates`` draws) takes the ``int(u * left)``-th of the cards left, in
    order, as the compiled exact agent picks them."""
    assert UniformDraws([0.5, 0.0, 0.99]).permutation([3, 5, 8]).tolist() == [5, 3, 8]
    assert UniformDraws([0.9, 0.9, 0.1]).permutation(3).tolist() == [2, 1, 0]
    rng = UniformDraws([0.2])
    with pytest.raises(IndexError):
        rng.permutation(2)  # two draws wanted, one given
