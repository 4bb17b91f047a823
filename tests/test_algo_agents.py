"""Algo's agents and the multiplayer game runner: views only, epsilon as a stop probability, strength."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.algo_agents import AlgoEpsilonGreedy, AlgoMaxEntropy, attack_probabilities
from agents.multiplayer import RandomSeatAgent, SeatAgent, play_game, play_match
from agents.multiplayer_ismcts import SOISMCTS, AlgoSearchPolicy
from agents.roster import seat_agent
from deduction_envs.games.algo import AlgoDeal, AlgoEvent, AlgoRules, HandView, Move, Phase, PlayerView, parse_card
from deduction_envs.reasoning import AlgoKnowledge
from train.training_envs import playout_features


class Recorder(SeatAgent):
    """Wraps an agent and keeps the events it saw."""

    keeps_knowledge = False

    def __init__(self, inner: SeatAgent) -> None:
        super().__init__()
        self.inner, self.name, self.games = inner, inner.name, []

    def reset(self, rules, seat, seed=None):
        super().reset(rules, seat, seed)
        self.inner.reset(rules, seat, seed)
        self.games.append((seat, []))

    @property
    def events(self) -> list:
        """The events of the last game."""
        return self.games[-1][1]

    def observe(self, event):
        self.events.append(event)
        self.inner.observe(event)

    def act(self, mask):
        return self.inner.act(mask)

    def saw_only_its_own_cards(self) -> bool:
        """No event it saw, in any game, holds another seat's hand or drawn card."""
        for seat, (deal, *events) in self.games:
            others = [hand for q, hand in enumerate(deal.hands) if q != seat]
            if not (
                isinstance(deal, AlgoDeal)
                and others == [()] * len(others)
                and (deal.drawn < 0 or deal.mover == seat)
                and all(isinstance(e, AlgoEvent) and (e.drawn < 0 or e.next_mover == seat) for e in events)
            ):
                return False
        return bool(self.games)


def seated(agent: SeatAgent, rules: AlgoRules, view: PlayerView, seed: int = 0) -> SeatAgent:
    """``agent`` reset in ``view``'s seat, knowing ``view``."""
    agent.reset(rules, view.player, seed)
    agent.knowledge = AlgoKnowledge.from_view(rules, view)
    return agent


@pytest.mark.parametrize("epsilon", [0.0, 1.0])
def test_epsilon_is_a_stop_probability_after_a_hit(epsilon):
    rules = AlgoRules()
    stops = hits_then = 0
    for seed in range(20):
        agent = Recorder(AlgoEpsilonGreedy(epsilon))
        play_game(rules, [agent, RandomSeatAgent()], seed=seed)
        assert agent.saw_only_its_own_cards()
        mine = [e for e in agent.events[1:] if e.mover == 0]  # after the deal
        for event, following in itertools.pairwise(mine):  # after a hit the same player moves again
            if event.hit:
                hits_then += 1
                stops += following.move == Move("stop")
    assert hits_then > 10 and stops == (hits_then if epsilon == 1 else 0)


def test_it_attacks_the_most_probable_number():
    # The article's example: the opponent shows W1 ? ? W4 (white, white, black, white) and I hold W2: W3 and B4.
    card = parse_card
    rules = AlgoRules()
    mine = tuple(sorted(map(card, ["B0", "W2", "B5", "W7"])))
    me = HandView(tuple(c % 2 for c in mine), (-1,) * 4, (frozenset(),) * 4)
    opponent = HandView((1, 1, 0, 1), (card("W1"), -1, -1, card("W4")), (frozenset(),) * 4)
    view = PlayerView(0, (me, opponent), mine, card("B9"), 12, 0, Phase.ATTACK)
    mask = np.zeros(rules.num_actions, dtype=bool)
    mask[[rules.action_index(Move("attack", 0, p, n)) for p in (1, 2) for n in range(12)]] = True
    agent = seated(AlgoEpsilonGreedy(0.1), rules, view)
    assert rules.decode(agent.act(mask)) == Move("attack", 0, 1, 3)


def test_epsilon_greedy_beats_random_play_with_seats_balanced():
    result = play_match(AlgoRules(), [AlgoEpsilonGreedy(0.1), RandomSeatAgent()], games=60, seed=1)
    assert [g.seats[0] for g in result.games[:4]] == ["epsilon-greedy(0.1)", "random"] * 2  # seats alternate
    assert result.wins(0) + result.wins(1) == 60 and result.win_rate(0) > 0.9


def test_games_are_reproducible_and_bad_input_is_a_clear_error():
    rules = AlgoRules(players=3)
    agents = [AlgoEpsilonGreedy(0.5), RandomSeatAgent(), AlgoEpsilonGreedy(0.0)]
    assert play_game(rules, agents, seed=7) == play_game(rules, agents, seed=7)
    with pytest.raises(ValueError, match="the game has 3 seats, got 2 agents"):
        play_game(rules, agents[:2])
    same = RandomSeatAgent()
    with pytest.raises(ValueError, match="agents must be distinct objects"):
        play_match(AlgoRules(), [same, same], games=2)
    twins = play_match(AlgoRules(), [RandomSeatAgent(), RandomSeatAgent()], games=4)  # names may repeat
    assert twins.wins(0) + twins.wins(1) == 4 and twins.lineups == ((0, 1), (1, 0), (0, 1), (1, 0))
    with pytest.raises(ValueError, match="epsilon must be a probability"):
        AlgoEpsilonGreedy(1.5)


def article_view(drawn: str = "B9") -> tuple[AlgoRules, PlayerView, np.ndarray]:
    card = parse_card
    rules = AlgoRules()
    mine = tuple(sorted(map(card, ["B0", "W2", "B5", "W7"])))
    me = HandView(tuple(c % 2 for c in mine), (-1,) * 4, (frozenset(),) * 4)
    opponent = HandView((1, 1, 0, 1), (card("W1"), -1, -1, card("W4")), (frozenset(),) * 4)
    view = PlayerView(0, (me, opponent), mine, card(drawn), 12, 0, Phase.ATTACK)
    mask = np.zeros(rules.num_actions, dtype=bool)
    mask[[rules.action_index(Move("attack", 0, p, n)) for p in (1, 2) for n in range(12)]] = True
    return rules, view, mask


def test_max_entropy_takes_a_certain_hit_and_values_every_candidate():
    rules, view, mask = article_view()
    agent = seated(AlgoMaxEntropy(depth=2, top_n=3, samples=4), rules, view)
    chosen = rules.decode(agent.act(mask))
    assert chosen in (Move("attack", 0, 1, 3), Move("attack", 0, 2, 4))  # W3 and B4 are certain
    assert rules.stop_action not in agent.last_values  # the first attack of a turn cannot be a stop


def test_the_win_bonus_comes_when_every_candidate_attack_is_certain_as_in_the_article():
    # W3 and B4 are certain: after hitting W3 the one attack left is certain, so the article gives the hit the
    # win bonus at once ("len(next_attacks) == 0 or all probabilities are 1"); the outright rule waits for the
    # last face-down card, which one level of search does not reach.
    rules, view, mask = article_view()
    w3 = rules.action_index(Move("attack", 0, 1, 3))
    values = {}
    for rule in AlgoMaxEntropy.WIN_RULES:
        agent = seated(AlgoMaxEntropy(depth=1, top_n=3, samples=2, win_rule=rule), rules, view)
        agent.act(mask)
        values[rule] = agent.last_values[w3]
    assert values == {"certain": 10.0, "outright": 0.0}
    with pytest.raises(ValueError, match="win_rule must be one of certain, outright"):
        AlgoMaxEntropy(win_rule="sure")


def test_the_article_counts_in_nats_and_bits_is_the_same_search_with_a_bonus_144_times_weaker():
    """The article's code takes ``np.log`` with a win value of 10; in bits every information term is 1/ln 2 times
    larger, so ``units="bits"`` with a win value of 10 / ln 2 values every action as the nats form times 1/ln 2
    (the same random draws: the same determinisations)."""
    rules, view, mask = article_view()
    opponent = view.hands[1]._replace(known=(-1, -1, -1, parse_card("W4")))  # no attack certain
    view = view._replace(hands=(view.hands[0], opponent), phase=Phase.CONTINUE)  # stopping allowed: T enters too
    mask[[rules.action_index(Move("attack", 0, 0, n)) for n in range(12)]] = True
    mask[rules.stop_action] = True
    nats = seated(AlgoMaxEntropy(depth=2, top_n=8, samples=3), rules, view, seed=4)
    bits = seated(AlgoMaxEntropy(depth=2, top_n=8, samples=3, units="bits", win_value=10 / np.log(2)), rules, view,
                  seed=4)  # fmt: skip
    assert nats.act(mask) == bits.act(mask) and nats.last_values.keys() == bits.last_values.keys()
    assert rules.stop_action in nats.last_values and len(nats.last_values) >= 6  # uncertain attacks and the stop
    for action, value in nats.last_values.items():
        assert value == pytest.approx(bits.last_values[action] * np.log(2), abs=1e-9)
    assert (nats.name, AlgoMaxEntropy(units="bits").name) == ("max-entropy", "max-entropy(bits)")
    with pytest.raises(ValueError, match="units must be one of nats, bits"):
        AlgoMaxEntropy(units="log10")


def test_at_three_players_what_my_drawn_card_tells_is_summed_over_both_opponents():
    """S and T from each opponent's view, counted here by brute force over the same determinisations: the agent's
    figure is their sum (before issue 64 it counted the first opponent only)."""
    from deduction_envs.reasoning.algo_hands import AlgoHandPosterior

    card = parse_card
    rules = AlgoRules(players=3)
    mine = tuple(sorted(map(card, ["W0", "B3", "W5"])))
    me = HandView(tuple(c % 2 for c in mine), (card("W0"), -1, -1), (frozenset(),) * 3)
    left = HandView((0, 1, 1), (-1,) * 3, (frozenset(),) * 3)
    right = HandView((1, 0, 0), (-1, card("W6"), -1), (frozenset(),) * 3)
    view = PlayerView(0, (me, left, right), mine, card("W11"), 12, 0, Phase.CONTINUE)
    agent = AlgoMaxEntropy(samples=3)
    agent.reset(rules, 0, seed=2)
    revealed, hidden = agent._disclosure(view)
    agent.reset(rules, 0, seed=2)  # the same draws again, for the brute force
    posterior = AlgoHandPosterior(view, rules.numbers)
    per_opponent = np.zeros((2, 2))
    for _ in range(3):
        hands = posterior.sample(agent.rng)
        for row, opponent in enumerate((1, 2)):
            theirs = view._replace(player=opponent, own=tuple(hands[opponent]), drawn=-1)
            before = np.log2(AlgoHandPosterior(theirs, rules.numbers).count)
            for column, known in enumerate((card("W11"), -1)):
                placed = HandView((*me.colours, card("W11") % 2), (*me.known, known), (*me.excluded, frozenset()))
                after = AlgoHandPosterior(theirs._replace(hands=(placed, left, right)), rules.numbers).count
                per_opponent[row, column] += (before - np.log2(after)) / 3
    assert (per_opponent[:, 0] > 0).all()  # each opponent learns from W11 face up
    assert (revealed, hidden) == pytest.approx(tuple(per_opponent.sum(axis=0)))
    assert revealed > per_opponent[0, 0] + 1e-9  # more than the first opponent's alone


def test_a_drawn_card_its_neighbours_give_away_costs_the_same_face_up_or_down():
    # The article's case: my W0 is face up and I draw B0. Face down, B? left of W0 can only be B0, and face
    # up it rules out nothing else (no other card of mine could be B0): both cost nothing.
    card = parse_card
    rules = AlgoRules()
    mine = tuple(sorted(map(card, ["W0", "B3", "W5", "B8"])))
    me = HandView(tuple(c % 2 for c in mine), (card("W0"), -1, -1, -1), (frozenset(),) * 4)
    opponent = HandView((0, 1, 1, 0), (-1,) * 4, (frozenset(),) * 4)
    view = PlayerView(0, (me, opponent), mine, card("B0"), 15, 0, Phase.CONTINUE)
    agent = AlgoMaxEntropy(samples=6)
    agent.reset(rules, 0, seed=1)
    revealed, hidden = agent._disclosure(view)
    assert revealed == pytest.approx(0) and hidden == pytest.approx(0)
    up, down = agent._disclosure(view._replace(drawn=card("W11")))  # a card that a face-down place would hide
    assert up > down


def test_max_entropy_plays_whole_games_and_beats_random_play():
    recorder = Recorder(AlgoMaxEntropy(samples=2))
    result = play_match(AlgoRules(players=3), [recorder, RandomSeatAgent(), AlgoEpsilonGreedy(0.5)], 6)
    assert len(result.games) == 6 and result.wins(1) <= 1 and recorder.saw_only_its_own_cards()
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        AlgoMaxEntropy(depth=0)


def test_ismcts_takes_a_certain_hit_and_plays_whole_games_from_its_view():
    rules, view, mask = article_view()
    agent = seated(SOISMCTS(iterations=300), rules, view)
    action = agent.act(mask)
    assert rules.decode(action) in (Move("attack", 0, 1, 3), Move("attack", 0, 2, 4))
    # Its root's visits: every iteration one visit, to legal actions only, the most to the action taken.
    visits = agent.last_visits
    assert sum(visits.values()) == agent.last_iterations == 300 and mask[list(visits)].all()
    assert visits[action] == max(visits.values())
    assert agent.last_values.keys() == visits.keys() and all(-1 <= v <= 1 for v in agent.last_values.values())
    # B4 face up: W3 is the opponent's last face-down card, and hitting it wins (+1) whatever follows. With
    # three of my four cards face up, a miss shows my drawn card and leaves my last one to an easy guess.
    me = view.hands[0]._replace(known=(-1, *view.own[1:]))
    opponent = view.hands[1]._replace(known=(parse_card("W1"), -1, parse_card("B4"), parse_card("W4")))
    view = view._replace(hands=(me, opponent))
    mask[[rules.action_index(Move("attack", 0, 2, n)) for n in range(12)]] = False
    agent = seated(SOISMCTS(iterations=600), rules, view)
    win = rules.action_index(Move("attack", 0, 1, 3))
    assert agent.act(mask) == win and agent.last_values[win] == 1.0
    assert all(value < 1.0 for action, value in agent.last_values.items() if action != win)
    recorder = Recorder(SOISMCTS(iterations=30))
    result = play_match(AlgoRules(players=3), [recorder, RandomSeatAgent(), AlgoEpsilonGreedy(0.5)], games=3)
    assert len(result.games) == 3 and recorder.saw_only_its_own_cards()


def test_ismcts_beats_random_play_and_stops_on_the_clock():
    result = play_match(AlgoRules(), [SOISMCTS(iterations=100), RandomSeatAgent()], games=6, seed=2)
    assert result.win_rate(0) >= 5 / 6
    rules, view, mask = article_view()
    agent = seated(SOISMCTS(iterations=None, time_limit=0.02), rules, view)
    agent.act(mask)
    assert agent.last_iterations >= 1
    for kwargs, message in (
        ({"iterations": 0}, "iterations must be an integer >= 1"),
        ({"iterations": 10, "time_limit": 0.1}, "exactly one of"),
        ({"exploration": -1}, "exploration must be >= 0"),
    ):
        with pytest.raises(ValueError, match=message):
            SOISMCTS(**kwargs)


def test_algo_search_roots_at_the_likeliest_attacks_and_stopping():
    rules, view, mask = article_view()
    policy = AlgoSearchPolicy(attacks=3)
    agent = seated(SOISMCTS(iterations=200, policy=policy), rules, view)
    sure = [rules.action_index(Move("attack", 0, 1, 3)), rules.action_index(Move("attack", 0, 2, 4))]
    assert policy.root_options(agent, mask).tolist() == sure  # every other attack has no chance to hit
    assert agent.act(mask) in sure
    assert sorted(agent.last_visits) == sure and sum(agent.last_visits.values()) == 200
    forced = seated(SOISMCTS(iterations=200, policy=AlgoSearchPolicy()), rules, view)
    assert forced.act(mask) in sure and forced.last_iterations == 0  # one option
    assert forced.last_visits == forced.last_values == {}
    # The opponent's hand all face down: many attacks may hit, and the root takes the three likeliest.
    view = view._replace(hands=(view.hands[0], view.hands[1]._replace(known=(-1,) * 4)))
    mask[: rules.num_attacks] = [rules.decode(a).position < 4 for a in range(rules.num_attacks)]
    hits = attack_probabilities(rules, view)
    by_hand = sorted(sorted(range(rules.num_attacks), key=lambda a: (-hits[a], a))[:3])
    assert hits[by_hand].min() > 0 and hits[by_hand].min() >= np.sort(hits)[-3]
    agent = seated(SOISMCTS(iterations=10, policy=policy), rules, view)
    assert policy.root_options(agent, mask).tolist() == by_hand
    after_hit = seated(SOISMCTS(iterations=10, policy=policy), rules, view._replace(phase=Phase.CONTINUE))
    continue_mask = mask.copy()
    continue_mask[rules.stop_action] = True
    assert policy.root_options(after_hit, continue_mask).tolist() == [*by_hand, rules.stop_action]
    for kwargs, message in (({"attacks": 0}, "attacks must be an integer >= 1"), ({"epsilon": 1.5}, "epsilon")):
        with pytest.raises(ValueError, match=message):
            AlgoSearchPolicy(**kwargs)


def test_algo_search_rollouts_play_epsilon_greedy_from_each_seats_own_view():
    """A simulated player's move depends on its own view only: the same in every determinisation."""
    rules = AlgoRules()
    for seed in range(5):
        rng = np.random.default_rng(seed)
        state = rules.new_game(rng)
        for _ in range(seed):  # a few random moves into the game
            rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
        if rules.is_over(state):
            continue
        knowledge = AlgoKnowledge.from_view(rules, rules.view(state, rules.mover(state)))
        policy = AlgoSearchPolicy(epsilon=0.0)
        states = [knowledge.determinise(rng) for _ in range(6)]
        assert len({tuple(map(tuple, state.hands)) for state in states}) > 1  # the opponent's hand differs
        moves = {policy.rollout(None, rules, state, rules.legal_mask(state), rng) for state in states}
        baseline = seated(AlgoEpsilonGreedy(0.0), rules, knowledge.view)
        assert moves == {baseline.act(rules.legal_mask(states[0]))}


def test_algo_search_plays_whole_games_from_its_view_and_beats_random_play():
    recorder = Recorder(seat_agent("algo_v0", "ismcts_greedy"))
    recorder.inner.iterations = 20
    result = play_match(AlgoRules(), [recorder, RandomSeatAgent()], games=6, seed=3)
    assert result.win_rate(0) >= 5 / 6 and recorder.saw_only_its_own_cards()
    again = play_match(AlgoRules(), [recorder, RandomSeatAgent()], games=6, seed=3)
    assert [g.actions for g in again.games] == [g.actions for g in result.games]  # seeded: the same games


def test_the_envs_playout_entries_estimate_what_the_search_values_at_its_root():
    """``algo_v0``'s play-out entries and SO-ISMCTS with ``AlgoSearchPolicy`` (written apart) estimate the
    same thing: the mean reward of stopping and of the likeliest attack, every seat played on by
    epsilon-greedy(0.1). Estimates of 800 and 400 play-outs an option agree within 0.08 (their difference has
    a standard deviation near 0.03 on the entries' [0, 1] scale), and both prefer stopping here by more."""
    rules, view, _ = article_view()
    # Three of my cards face up and the deck low: a miss shows my drawn card too, and stopping is better.
    me = view.hands[0]._replace(known=(*view.own[:3], -1))
    opponent = view.hands[1]._replace(known=(parse_card("W1"), -1, -1, -1))
    view = view._replace(hands=(me, opponent), phase=Phase.CONTINUE, deck=5)
    entries = playout_features(rules, AlgoKnowledge.from_view(rules, view), 800)
    search = seated(SOISMCTS(iterations=800, exploration=100.0, policy=AlgoSearchPolicy()), rules, view)
    mask = np.zeros(rules.num_actions, dtype=bool)
    mask[[rules.action_index(Move("attack", 0, p, n)) for p in (1, 2, 3) for n in range(12)]] = True
    mask[rules.stop_action] = True
    search.act(mask)
    attack = int(np.argmax(attack_probabilities(rules, view)))
    assert sorted(search.last_values) == sorted([attack, rules.stop_action])
    assert min(search.last_visits.values()) > 300  # the wide exploration shares the play-outs
    values = [(search.last_values[action] + 1) / 2 for action in (rules.stop_action, attack)]
    assert np.allclose(entries, values, atol=0.08)
    assert entries[0] - entries[1] > 0.08 and values[0] - values[1] > 0.08
