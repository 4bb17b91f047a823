"""What every multiplayer game declares about itself, checked the same way for each (the registry's games, their
variants, and the toy duel of the tests): one suite, parametrised, instead of a copy per game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import registered
from pettingzoo.test import api_test, render_test, seed_test
from toy_duel import DUEL, DuelRules
from toy_duel import raw_env as duel_env

from agents import play_match
from agents.batched import UniformDraws
from agents.roster import seat_agent
from deduction_envs import registry
from deduction_envs.core.multiplayer import MultiplayerRules
from deduction_envs.envs.clue_batched import BatchedClueSeats, BatchedSheetSeats
from deduction_envs.text.aec import TextAECEnv, text_of

#: Each registry game at its default sizes and at variants that change who can win and what a seat is paid.
VARIANTS = [
    ("algo_v0", {}),
    ("algo_v0", {"players": 4}),
    ("clue_v0", {"players": 3}),
    ("clue_v0", {"players": 6}),
    ("clue_v0", {"players": 3, "board": True}),
    ("generalized_clue_v0", {}),
    ("generalized_clue_v0", {"cards": 9, "hidden": 1, "players": 4}),
]


def rules_of(env_id: str, sizes: dict) -> MultiplayerRules:
    return DuelRules() if env_id == "duel" else registry.game(env_id).make_rules(**sizes)


def test_the_variants_cover_every_multiplayer_game_of_the_registry():
    assert {g.env_id for g in registry.games(multiplayer=True)} == {env_id for env_id, _ in VARIANTS}


def random_game(rules: MultiplayerRules, rng: np.random.Generator, limit: int = 20_000) -> list[float] | None:
    """Each seat's reward after uniformly random legal play, or None if the game did not end within ``limit``."""
    state = rules.new_game(rng)
    for _ in range(limit):
        if rules.is_over(state):
            return list(rules.rewards(state))
        rules.apply(state, int(rng.choice(np.flatnonzero(rules.legal_mask(state)))))
    return None


@pytest.mark.parametrize(("env_id", "sizes"), [*VARIANTS, ("duel", {})], ids=lambda v: str(v))
def test_every_finished_games_rewards_lie_in_the_declared_range_and_reach_both_ends(env_id, sizes):
    """A forfeit is scored at ``reward_range[0]`` (train.llm): the range must be the game's own, not a guess. Random
    play explores the odd endings (nobody wins, ties); the game's own reference agent, at every seat, plays games
    that someone wins and someone loses outright."""
    rules = rules_of(env_id, sizes)
    assert isinstance(rules, MultiplayerRules)
    low, high = rules.reward_range
    assert low < high
    seen = [r for r in (random_game(rules, np.random.default_rng(seed)) for seed in range(60)) if r is not None]
    assert len(seen) >= 50, "random play should end most games"
    if env_id != "duel":
        game = registry.game(env_id)
        match = play_match(rules, [seat_agent(env_id, game.opponent) for _ in range(rules.players)],
                           2 * rules.players, seed=0)  # fmt: skip
        seen += [list(record.rewards) for record in match.games]
    rewards = np.array(seen)
    assert rewards.min() >= low - 1e-12 and rewards.max() <= high + 1e-12
    assert np.isclose(rewards.min(), low) and np.isclose(rewards.max(), high), (rewards.min(), rewards.max())


@pytest.mark.parametrize(("env_id", "sizes"), VARIANTS, ids=lambda v: str(v))
def test_each_game_names_its_text_in_the_registry_and_the_text_env_plays_it(env_id, sizes):
    """The text class comes from the game's entry (not from a list of rules types in the text layer), and plays every
    variant (Clue on its board too: its prompt has the board's rules, not the boardless game's "any room")."""
    game = registry.game(env_id)
    raw = game.make_raw_env(**sizes)
    text = text_of(raw)
    assert type(text) is registry.load(game.text) and text.rules is raw.rules
    env = TextAECEnv(game.make_raw_env(**sizes))
    env.reset(seed=1)
    assert env.observe(env.agent_selection).strip()
    if sizes.get("board"):
        prompt = env.prompt(env.agent_selection)
        assert "There is no board" not in prompt and "Movement: A roll of two dice" in prompt
        assert "The board (your token is" in env.observe(env.agent_selection)


def test_a_game_without_a_text_is_refused_by_the_text_env_naming_those_with_one():
    with registered(DUEL):
        with pytest.raises(TypeError, match="algo_v0, clue_v0, generalized_clue_v0"):
            TextAECEnv(duel_env())


def test_a_reward_wrapper_adds_through_the_envs_public_seam_and_an_unknown_agent_is_refused():
    env = registry.game("algo_v0").make_raw_env()
    env.reset(seed=0)
    agent = env.agent_selection
    env.add_reward(agent, 0.25)
    assert env.rewards[agent] == 0.25 and env.last()[1] == 0.25
    with pytest.raises(ValueError, match="not at the table"):
        env.add_reward("nobody", 1.0)


# ---------------------------------------------------------------------------------------------- the batched twins
def twin_of(env_id: str) -> tuple[Any, Any, dict[str, type]]:
    """The registry's twin of ``env_id``: the games' factory, the seats class and the compiled agents by name."""
    game = registry.game(env_id)
    make_games, seats_class = (registry.load(name) for name in game.batched_seats)
    return make_games, seats_class, registry.load(game.batched_agents.partition(":")[0] + ":BATCHED_AGENTS")


#: The twins' variants: every player count and the sizes where their kernels branch (Algo's short hands and small
#: decks, Clue's board with either accusation rule, Generalized Clue's hidden cards and table sizes).
TWIN_VARIANTS = [
    ("algo_v0", {"players": 2}),
    ("algo_v0", {"players": 3}),
    ("algo_v0", {"players": 4, "numbers": 8}),
    ("algo_v0", {"players": 2, "numbers": 6}),
    ("algo_v0", {"players": 3, "hand_size": 2, "numbers": 5}),
    ("clue_v0", {"players": 2}),
    ("clue_v0", {"players": 3}),
    ("clue_v0", {"players": 4}),
    ("clue_v0", {"players": 6}),
    ("clue_v0", {"players": 2, "board": True}),
    ("clue_v0", {"players": 3, "board": True}),
    ("clue_v0", {"players": 5, "board": True}),
    ("clue_v0", {"players": 6, "board": True}),
    ("clue_v0", {"players": 3, "board": True, "accusations": "room"}),
    ("clue_v0", {"players": 4, "board": True, "accusations": "room"}),
    ("generalized_clue_v0", {"cards": 12, "hidden": 2, "players": 3}),
    ("generalized_clue_v0", {"cards": 14, "hidden": 2, "players": 3}),
    ("generalized_clue_v0", {"cards": 9, "hidden": 1, "players": 2}),
    ("generalized_clue_v0", {"cards": 10, "hidden": 2, "players": 4}),
    ("generalized_clue_v0", {"cards": 16, "hidden": 3, "players": 4}),
    ("generalized_clue_v0", {"cards": 20, "hidden": 3, "players": 5}),
]
#: Each variant with the probability pieces and without, where the twin writes them.
TWINS = [
    (env_id, sizes, probabilities)
    for env_id, sizes in TWIN_VARIANTS
    for probabilities in (False, True)
    if registry.game(env_id).batched_seats is not None
    and (not probabilities or twin_of(env_id)[1].has_probabilities)
]


def test_the_twin_variants_cover_every_twin_of_the_registry():
    assert {g.env_id for g in registry.games(multiplayer=True) if g.batched_seats} <= {e for e, _ in TWIN_VARIANTS}


@pytest.fixture
def with_the_toy():
    with registered(DUEL):
        yield


def test_each_game_without_a_twin_says_so_and_each_twin_declares_its_capabilities(with_the_toy):
    assert "duel_v0" in {g.env_id for g in registry.games(multiplayer=True)}  # the toy, which has no twin
    for game in registry.games(multiplayer=True):
        if game.batched_seats is None:
            assert game.batched_agents is None, game.env_id
            continue
        _, seats_class, agents = twin_of(game.env_id)
        assert isinstance(seats_class.has_probabilities, bool) and isinstance(seats_class.has_entropy, bool)
        assert isinstance(seats_class.compiled_probabilities, bool)
        assert "random" in agents and game.opponent in agents, (game.env_id, sorted(agents))


def _check_observation(theirs: np.ndarray, env: Any, seat: int, seats: Any, game: int, probabilities: bool) -> None:
    """The twin's observation of seat ``seat`` against the AEC env's: equal, and to float32's rounding where both
    count with Clue's compiled sweep (the same sums, in another order of the float operations around them)."""
    expected = env.observe(env.possible_agents[seat])["observation"]
    message = f"game {game} seat {seat}"
    if probabilities and isinstance(seats, BatchedClueSeats):
        np.testing.assert_allclose(theirs, expected, rtol=0, atol=1e-6, err_msg=message)
    else:
        np.testing.assert_array_equal(theirs, expected, err_msg=message)


#: Compiled agents whose Python agents take tens of milliseconds a decision: played in a test of their own, at
#: fewer sizes and with fewer deals to score a suggestion (the same for both), beside the faster agents.
SLOW = {"entropy": {"samples": 48}, "velma": {"samples": 48}, "velma_rate": {"samples": 48}, "exact": {"samples": 64}}


@pytest.mark.parametrize(("env_id", "sizes", "probabilities"), TWINS, ids=lambda v: str(v))
def test_the_twin_plays_the_aec_envs_game_step_by_step(env_id, sizes, probabilities):
    """Seeded games of the AEC env and of its batched twin in lockstep, each seat played by a Python reference agent
    and by its compiled twin given the same random draws: at every step the same mover and mask, every seat's
    observation (and, where the twin declares them, its probability pieces and entropy) equal, the same decision
    from both agents, then the same end and rewards."""
    _, _, compiled = twin_of(env_id)
    names = sorted(set(compiled) - set(SLOW))
    own = [name for name in names if name != "random"]
    # Mostly the game's own compiled agents (whose games end), a random seat in some games.
    _lockstep(env_id, sizes, probabilities, 12, lambda g, seat: "random" if (g + seat) % 5 == 0 else
              own[(g + seat) % len(own)], {name: {} for name in names})  # fmt: skip


#: The sizes the slow agents are played at: with and without the board and the probability pieces, both rules of
#: accusation.
SLOW_VARIANTS = [
    ("clue_v0", {"players": 3}, False),
    ("clue_v0", {"players": 4}, True),
    ("clue_v0", {"players": 3, "board": True}, True),
    ("clue_v0", {"players": 4, "board": True, "accusations": "room"}, False),
    ("generalized_clue_v0", {}, True),
    ("generalized_clue_v0", {"cards": 12, "hidden": 2, "players": 4}, False),
    ("generalized_clue_v0", {"cards": 9, "hidden": 1, "players": 2}, False),
]


@pytest.mark.parametrize(("env_id", "sizes", "probabilities"), SLOW_VARIANTS, ids=lambda v: str(v))
def test_the_slow_agents_twins_decide_as_they_do(env_id, sizes, probabilities):
    """:data:`SLOW`'s agents in lockstep as above, in most seats, beside the game's other agents."""
    _slow_lockstep(env_id, sizes, probabilities)


def test_past_the_sweeps_budget_the_slow_agents_twins_still_decide_as_they_do(monkeypatch):
    """With the compiled sweep's budget cut to nothing, every count and every suggestion's deals go to the engine
    (the twin's through the Python scoring, from the number the compiled agent drew): the same decisions."""
    for module in ("agents.clue_batched", "deduction_envs.reasoning.clue_player",
                   "deduction_envs.reasoning.clue_suggestions", "deduction_envs.envs.clue_batched"):  # fmt: skip
        monkeypatch.setattr(f"{module}.SWEEP_WORK", 1.0)
    import agents.clue_batched

    scored = []
    score = agents.clue_batched.score_suggestions
    monkeypatch.setattr("agents.clue_batched.score_suggestions", lambda *a, **k: scored.append(1) or score(*a, **k))
    _slow_lockstep("clue_v0", {"players": 3}, True)
    assert len(scored) > 10, scored


def test_past_the_sweeps_budget_the_compiled_exact_agent_still_decides_as_its_python_agent(monkeypatch):
    """Generalized Clue's exact agent with the sweep's budget cut to nothing: its asks' deals drawn by the engine
    from the number drawn, the twin's through the Python scoring (``score_asks``), the same decisions."""
    for module in ("agents.generalized_clue_batched", "deduction_envs.reasoning.clue_suggestions"):
        monkeypatch.setattr(f"{module}.SWEEP_WORK", 1.0)
    import agents.generalized_clue_batched as compiled

    scored, score = [], compiled.score_asks
    monkeypatch.setattr(compiled, "score_asks", lambda *a, **k: scored.append(1) or score(*a, **k))
    _slow_lockstep("generalized_clue_v0", {}, False)
    assert len(scored) > 10, scored


@pytest.mark.parametrize("options", [{"pad": True, "sure": True, "threshold": 0.6},
                                     {"race": False, "listeners": 0.0, "threshold": 0.9}], ids=str)  # fmt: skip
def test_the_compiled_exact_agent_decides_as_its_python_agent_with_each_option(options):
    """Generalized Clue's exact agent with its options other than the roster's, in lockstep as above."""
    _lockstep("generalized_clue_v0", {}, False, 6, lambda g, seat: "scoreboard" if seat == g % 3 else "exact",
              {"exact": {"samples": 64, **options}, "scoreboard": {}})  # fmt: skip


@pytest.mark.parametrize(("env_id", "sizes"), [("clue_v0", {"players": 3}), ("generalized_clue_v0", {})], ids=str)
def test_clause_tables_that_start_at_one_row_grow_and_the_twin_still_plays_as_the_aec_env(monkeypatch, env_id, sizes):
    """Every seat's clause table starting at one row (long games of random agents overflowed the 96 rows): the
    tables double as open clauses fill them, and the twin, its compiled agents (the entropy agent's kept facts
    among them) and the AEC env still agree step by step."""
    monkeypatch.setattr("deduction_envs.envs.clue_batched.CLAUSES", 1)
    grown = []
    make_room = BatchedSheetSeats.make_room

    def watched(self, live):
        make_room(self, live)
        grown.append(self.clauses.shape[2])

    monkeypatch.setattr(BatchedSheetSeats, "make_room", watched)
    _slow_lockstep(env_id, sizes, True)
    assert max(grown) >= 4, max(grown)


def _slow_lockstep(env_id: str, sizes: dict, probabilities: bool) -> None:
    _, _, compiled = twin_of(env_id)
    slow = sorted(set(SLOW) & set(compiled))
    assert slow, f"{env_id} has none of the slow agents compiled"
    others = sorted(set(compiled) - set(SLOW))
    kinds = [*slow, *slow, *others]
    _lockstep(env_id, sizes, probabilities, 6, lambda g, seat: kinds[(g + 2 * seat) % len(kinds)],
              {name: SLOW.get(name, {}) for name in compiled})  # fmt: skip


def _lockstep(env_id: str, sizes: dict, probabilities: bool, n: int, kind_of: Any, settings: dict[str, dict]) -> None:
    """``n`` seeded games in lockstep (see the tests above), seat ``seat`` of game ``g`` played by the agent named
    ``kind_of(g, seat)``, built from ``settings[name]`` on both sides."""
    game = registry.game(env_id)
    make_games, seats_class, compiled = twin_of(env_id)
    rules, max_cycles = game.make_rules(**sizes), 3000
    options = {"probabilities": probabilities} if seats_class.has_probabilities else {}
    try:
        seats = seats_class(make_games(rules, n), max_cycles=max_cycles, **options)
    except ValueError as error:  # a twin that counts deals exactly refuses sizes past its limit, and says so
        assert probabilities and "give probabilities=False" in str(error)
        return
    seats.reset(seeds=range(n))
    entropy = seats_class.has_entropy
    kinds = [[kind_of(g, seat) for seat in range(rules.players)] for g in range(n)]
    names = sorted({kind for row in kinds for kind in row})
    twins = {name: compiled[name](**settings[name]) for name in names}
    envs, players = [], []
    for g in range(n):
        env = game.make_raw_env(**sizes, probabilities=probabilities, max_cycles=max_cycles)
        seated = [_python_agent(env_id, kind, settings[kind]) for kind in kinds[g]]
        for seat, agent in enumerate(seated):
            agent.reset(rules, seat, seed=0)
        env.seat_listeners = {seat: agent.observe for seat, agent in enumerate(seated)}
        env.reset(seed=g)
        envs.append(env)
        players.append(seated)
    draws = max(twin.draws(rules) for twin in twins.values())
    rng, decisions, everyone = np.random.default_rng(len(sizes)), {name: 0 for name in names}, np.ones(n, bool)
    while not seats.games.over.all():
        for seat in range(rules.players):
            theirs = seats.observe(np.full(n, seat), everyone)
            for g, env in enumerate(envs):
                _check_observation(theirs[g], env, seat, seats, g, probabilities)
            if entropy:
                live = ~seats.games.over
                try:
                    got = seats.entropy(live, np.full(n, seat))[live]
                except ValueError as error:  # past the twin's exact count (as the probabilities above)
                    assert "no exact entropy at these sizes" in str(error)
                    entropy = False
                    continue
                expected = [envs[g].entropy(envs[g].possible_agents[seat]) for g in np.flatnonzero(live)]
                assert got == pytest.approx(expected, abs=1e-9)
        uniforms = rng.random((n, draws))
        movers, live, masks = seats.games.mover, ~seats.games.over, seats.games.legal_masks().copy()
        actions = np.zeros(n, dtype=np.int64)
        for name, twin in twins.items():
            theirs = live & np.array([kinds[g][movers[g]] == name for g in range(n)])
            actions = np.where(theirs, twin.act(seats, theirs, uniforms), actions)
        for g in np.flatnonzero(live):
            env = envs[g]
            assert env.agent_selection == env.possible_agents[movers[g]], g
            mask = env.observe(env.agent_selection)["action_mask"]
            np.testing.assert_array_equal(masks[g], mask, err_msg=f"game {g}")
            agent = players[g][movers[g]]
            agent.rng = UniformDraws(uniforms[g])
            expected = agent.act(mask)
            assert actions[g] == expected, (g, int(movers[g]), kinds[g][movers[g]])
            decisions[kinds[g][movers[g]]] += 1
            env.step(int(expected))
        rewards, terminated, truncated = seats.step(actions)
        for g in np.flatnonzero(live):
            env = envs[g]
            assert terminated[g] == env.table.over and truncated[g] == any(env.truncations.values()), g
            if env.table.over:
                assert rewards[g].tolist() == pytest.approx(rules.rewards(env.table.state))
    assert all(decisions.values()) and sum(decisions.values()) > 4 * n, decisions




def _python_agent(env_id: str, name: str, settings: dict) -> Any:
    """The roster's agent ``name`` of ``env_id``, with ``settings`` in place of its own where given."""
    if not settings:
        return seat_agent(env_id, name)
    declared = registry.game(env_id).agents[name]
    agent = registry.load(declared.maker)(**{**declared.kwargs, **settings})
    agent.name = name
    return agent


# ------------------------------------------------------------------------------------------ PettingZoo's own tests
#: Each game's envs as PettingZoo's api, seed and render tests play them: (env id, keyword arguments, cycles).
PETTINGZOO_VARIANTS = [
    *[("algo_v0", {"players": p}, 300) for p in (2, 3, 4)],
    *[("clue_v0", {"players": p}, 200) for p in (2, 3, 4, 5, 6)],
    *[("clue_v0", {"players": p, "board": True, "probabilities": p < 4}, 200) for p in (2, 3, 4, 5, 6)],
    ("clue_v0", {"players": 3, "board": True, "accusations": "room", "probabilities": False}, 200),
    *[("generalized_clue_v0", dict(zip(("cards", "hidden", "players"), s, strict=True)), 200)
      for s in ((12, 2, 3), (6, 1, 2), (20, 3, 4))],
    ("generalized_clue_v0", {"cards": 45, "hidden": 5, "players": 8}, 40),  # the report's 8 x 5
]


def test_pettingzoos_tests_see_every_multiplayer_game_of_the_registry():
    assert {g.env_id for g in registry.games(multiplayer=True)} == {env_id for env_id, _, _ in PETTINGZOO_VARIANTS}


# api_test warns about every Dict observation, the {"observation", "action_mask"} form of PettingZoo's classic envs.
@pytest.mark.filterwarnings("ignore:Observation (space for each agent probably|is not a NumPy array):UserWarning")
@pytest.mark.parametrize(("env_id", "kwargs", "cycles"), PETTINGZOO_VARIANTS, ids=lambda v: str(v))
def test_the_env_users_get_passes_pettingzoos_api_seed_and_render_tests(env_id, kwargs, cycles):
    game = registry.game(env_id)
    api_test(game.make_env(**kwargs), num_cycles=cycles)
    seed_test(lambda **more: game.make_env(**kwargs, **more), num_cycles=cycles)
    render_test(lambda render_mode=None: game.make_env(**kwargs, render_mode=render_mode))


# ----------------------------------------------------------------------------------------------------- the text
@pytest.mark.parametrize(("env_id", "sizes"), VARIANTS, ids=lambda v: str(v))
@pytest.mark.parametrize("seed", range(3))
def test_a_game_said_in_text_is_the_game_played_with_actions(env_id, sizes, seed):
    """Seeded random whole moves (a move of several sub-steps drawn on a copy of the position), played once as
    actions and once as the replies the game's text says for them (``say``, read back by ``steps``): after every
    move every seat observes the same, and the rewards are the same."""
    game = registry.game(env_id)

    def play(text: bool) -> list:
        raw = game.make_raw_env(**sizes)
        env = TextAECEnv(raw) if text else raw
        env.reset(seed=seed)
        words, rules, rng, seen = text_of(raw), raw.rules, np.random.default_rng(seed), []
        while raw.agents and not raw.table.over and not any(raw.truncations.values()):
            position, steps = raw.table.state.copy(), []
            while not steps or not words.complete(steps):
                steps.append(int(rng.choice(np.flatnonzero(rules.legal_mask(position)))))
                rules.apply(position, steps[-1])
            if text:
                agent = raw.agent_selection
                env.step(f"My move.\n<answer>{words.say(raw.possible_agents.index(agent), steps)}</answer>")
                assert "invalid" not in raw.infos.get(agent, {}), raw.infos[agent]
            else:
                for step in steps:
                    env.step(step)
            seen.append([raw.observe(a)["observation"].tolist() for a in raw.possible_agents])
        return [*seen, [raw.rewards[a] for a in raw.possible_agents]]

    moves = play(False)
    assert len(moves) > 3 and play(True) == moves
