"""Exact Clue counts from a seat's fact masks, compiled whole: a sweep over types of cards carrying the open clauses.

:mod:`~deduction_envs.reasoning.clue_knowledge` counts a seat's consistent deals with two programmes driven from
Python: by types of interchangeable cards (:mod:`~deduction_envs.reasoning.clue_types`), whose states are the
counts of every type still to deal and grow as two to the number of types once clauses tell the cards apart, and
the bitmask programme (:mod:`~deduction_envs.reasoning.clue_counting`), whose work grows with the hands of each
place. Mid-game Clue (15 free cards in a dozen types, a handful of open clauses) is too much for both within an
observation's budget. This module counts the same deals another way, from the masks a seat keeps (``required``,
``forbidden`` and a clause table, propagated), with no Python between the masks and the answer. A Clue env's seats
(:class:`~deduction_envs.reasoning.clue_player.CluePlayerKnowledge`) and the batched twins count with it, and ask
the engine only past its budget (:data:`SWEEP_WORK`):

- the free cards are grouped into *types* (cards every fact and clause treats alike), and the *places* are the
  players still to receive cards and, for the case file, one place per category (it takes a fixed number of
  each);
- the sweep deals the types one after another: a state is how many cards each place still takes (a bit field a
  place) and, for each clause that has some of its types dealt and some not (the *frontier*), whether it is
  settled so far (an at-least clause: a card went to its place; a not-all clause: a card went elsewhere). A type's
  cards go to the places in every way their counts allow, weighted by the multinomial coefficient (which of the
  type's cards); a clause whose last type is dealt must be settled; a state that cannot finish (a place left more
  than the later types can fill, an open at-least clause whose place is full) is dropped;
- the order: the types the case file may take first, category by category, fewest types first (within each and
  after them, greedily the type that leaves the fewest clauses open), then the rest;
- the forward and backward counts give the number of deals and the expected cards of each type at each place
  (a card's probability by symmetry within its type); the forward's states swept again, each carrying a vector
  over what the case file has taken (a digit a category, the last category read off where its card is dealt),
  give the case file's distribution (:func:`solve_seat`) and its entropy;
- a deal is a number below the count, read back layer by layer through the counts (which way the type is dealt,
  then which of its cards go where): :func:`deal_seat` lists every deal so; it draws uniform ones from a seed
  layer by layer, each way in proportion to its deals, then the type's cards at random.

The counts are float64 sums of integers: exact while the number of deals is below 2**53 (Clue's are). The work
(states times ways to deal a type, summed over the passes) is bounded by a budget; past it, or where the frontier
or the state's code would not fit, the functions say so and the caller counts another way. Tested against
brute-force enumeration of small decks and against
:class:`~deduction_envs.reasoning.clue_knowledge.ClueKnowledge` without a budget (``tests/test_clue_sweep.py``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from deduction_envs.reasoning.clue_counting import popcount

__all__ = ["CONTRADICTION", "EXACT", "MAX_WIDTH", "OVER_BUDGET", "SWEEP_WORK", "count_seat", "deal_seat", "solve_seat"]

#: What :func:`count_seat` returns: counted exactly, over its budget (nothing written), or no deal at all.
EXACT, OVER_BUDGET, CONTRADICTION = 0, 1, 2
#: Open clauses the sweep carries at most (a bit each in a state's code).
MAX_WIDTH = 20
#: Places the sweep deals to at most (players taking cards, and a case-file place per category).
MAX_PLACES = 16
EMPTY = -1
#: Work a seat's count may do by default (states times ways to deal a type; tens of milliseconds at most on the
#: 2-core benchmark machine) before the caller counts another way. Every seat's state of the benchmarks' games
#: fits, 6 players included (671 states; 3 of them need more than 1e6).
SWEEP_WORK = 3e6
#: Contents of the case file the entropy's table may have to tell apart (types' counts): a table of twice as many.
MAX_CASE_CODES = 1 << 20


@njit(cache=True)
def _slot(key, bits):  # pragma: no cover - compiled
    """A key's home in a table of ``2**bits`` slots (Fibonacci hashing)."""
    return np.int64((np.uint64(key) * np.uint64(11400714819323198485)) >> np.uint64(64 - bits))


@njit(cache=True)
def _add(keys, values, bits, key, value):  # pragma: no cover - compiled
    """Add ``value`` at ``key`` (inserted if new); 1 if the key was new."""
    mask = keys.size - 1
    i = _slot(key, bits)
    while True:
        k = keys[i]
        if k == key:
            values[i] += value
            return 0
        if k == EMPTY:
            keys[i] = key
            values[i] = value
            return 1
        i = (i + 1) & mask


@njit(cache=True)
def _get(keys, values, bits, key):  # pragma: no cover - compiled
    """The value at ``key``, 0 if absent."""
    mask = keys.size - 1
    i = _slot(key, bits)
    while True:
        k = keys[i]
        if k == key:
            return values[i]
        if k == EMPTY:
            return 0.0
        i = (i + 1) & mask


@njit(cache=True)
def _grown(keys, values, bits):  # pragma: no cover - compiled
    """The table rehashed into twice the slots."""
    new_keys = np.full(keys.size * 2, EMPTY, dtype=np.int64)
    new_values = np.zeros(keys.size * 2)
    for i in range(keys.size):
        if keys[i] != EMPTY:
            _add(new_keys, new_values, bits + 1, keys[i], values[i])
    return new_keys, new_values


@njit(cache=True)
def _bits_for(count):  # pragma: no cover - compiled
    """Table bits for about ``count`` keys at half load, at least 16 slots."""
    bits = 4
    while (1 << bits) < 2 * count:
        bits += 1
    return bits


@njit(cache=True)
def _binomials(top):  # pragma: no cover - compiled
    binom = np.zeros((top + 1, top + 1))
    for a in range(top + 1):
        binom[a, 0] = 1.0
        for b in range(1, a + 1):
            binom[a, b] = binom[a - 1, b - 1] + binom[a - 1, b]
    return binom


@njit(cache=True)
def _find(keys, bits, key):  # pragma: no cover - compiled
    """The slot of ``key`` in the table, -1 if absent."""
    mask = keys.size - 1
    i = _slot(key, bits)
    while True:
        k = keys[i]
        if k == key:
            return i
        if k == EMPTY:
            return -1
        i = (i + 1) & mask


# The forward, backward, carrying and dealing passes each step a state through a layer's ways in their own loop
# (the fit check here, then the clause bits): written out in each, since a shared step function called in the
# inner loop, inlined by numba or not, made the sweep three to four times slower (measured; the thirteen arguments
# a call, most of them arrays, are the likely cost).
@njit(cache=True)
def _fits(caps, j, t, where, places_of, shift, field, comp_k, avail):  # pragma: no cover - compiled
    """Whether way ``j`` of dealing layer ``t``'s type fits the places' ``caps`` and leaves each place no more than
    the later types can fill."""
    for q in range(places_of[t]):
        v = where[t, q]
        left = (caps >> shift[v] & field[v]) - comp_k[j, q]
        if left < 0 or left > avail[t + 1, v]:
            return False
    return True


@njit(cache=True)
def _sweep(start, layers, width, shift, field, where, places_of, comp_start, comp_k, comp_weight, comp_delta,
           comp_set, close, avail, open_count, open_slot, open_caps,
           budget):  # pragma: no cover - compiled  # fmt: skip
    """The forward sweep: per layer (before each type, and after the last), the hash table of the states reached
    (a state's code is ``caps << width | clause bits``, the caps a bit field a place: ``shift``, ``field``) and
    the ways to reach each; a state with an at-least clause open (``open_*``: per layer, its bit and its place's
    caps) whose place takes no more cards is dropped. Returns the tables' keys, values and bits, and the work done
    (-1 past ``budget``)."""
    all_keys = [np.full(16, EMPTY, dtype=np.int64)]
    all_values = [np.zeros(16)]
    all_bits = [4]
    _add(all_keys[0], all_values[0], 4, start, 1.0)
    work = 0
    wmask = (np.int64(1) << width) - 1
    for t in range(layers):
        keys, values = all_keys[t], all_values[t]
        held = 0
        for i in range(keys.size):
            if keys[i] != EMPTY:
                held += 1
        nbits = _bits_for(max(held * min(comp_start[t + 1] - comp_start[t], 4), 8))
        nkeys = np.full(1 << nbits, EMPTY, dtype=np.int64)
        nvalues = np.zeros(1 << nbits)
        found = 0
        for i in range(keys.size):
            key = keys[i]
            if key == EMPTY:
                continue
            value = values[i]
            clause_bits = key & wmask
            caps = key >> width
            for j in range(comp_start[t], comp_start[t + 1]):
                work += 1
                if not _fits(caps, j, t, where, places_of, shift, field, comp_k, avail):
                    continue
                new_bits = clause_bits | comp_set[j]
                if new_bits & close[t] != close[t]:
                    continue
                new_bits &= ~close[t]
                new_caps = caps - comp_delta[j]
                starved = False  # an at-least clause still open whose place is full: no way to settle it
                for o in range(open_count[t]):
                    if new_bits >> open_slot[t, o] & 1 == 0 and new_caps & open_caps[t, o] == 0:
                        starved = True
                        break
                if starved:
                    continue
                new_key = (new_caps << width) | new_bits
                found += _add(nkeys, nvalues, nbits, new_key, value * comp_weight[j])
                if 2 * found > nkeys.size:
                    nkeys, nvalues = _grown(nkeys, nvalues, nbits)
                    nbits += 1
            if work > budget:
                return all_keys, all_values, all_bits, -1
        all_keys.append(nkeys)
        all_values.append(nvalues)
        all_bits.append(nbits)
    return all_keys, all_values, all_bits, work


@njit(cache=True)
def _carry(layers, readoff, codes, width, shift, field, where, places_of, comp_start, comp_k, comp_weight,
           comp_delta, comp_set, comp_code, comp_read, close, avail, keys, bits, finish, by_case,
           budget):  # pragma: no cover - compiled  # fmt: skip
    """The forward sweep again through the first ``layers`` layers, each state's ways split by what the case file
    has taken (a vector of ``codes`` entries a state; a way of dealing adds ``comp_code`` to the code). The states
    are the forward's own (``keys``); a state's vector moves whole, one fit check and one look-up a way. From layer
    ``readoff`` on, a way that deals the case file's last card (``comp_read``: its column) is not carried: its ways
    times the ways to finish from where it leads (``finish``) go to ``by_case[code, column]``; where nothing is
    read off, the vectors at the last layer times the ways to finish. Returns the work, -1 past ``budget``."""
    wmask = (np.int64(1) << width) - 1
    rows = np.full(keys[0].size, -1, dtype=np.int64)  # a row a slot of the layer's table
    rows[_first(keys[0])] = 0  # the start
    mass = np.zeros((1, codes))
    mass[0, 0] = 1.0
    work = 0
    for t in range(layers):
        nrows = np.full(keys[t + 1].size, -1, dtype=np.int64)
        found = 0
        for i in range(keys[t + 1].size):
            if keys[t + 1][i] != EMPTY:
                nrows[i] = found
                found += 1
        nmass = np.zeros((found, codes))
        for i in range(keys[t].size):
            r = rows[i]
            if r < 0:
                continue
            key = keys[t][i]
            vector = mass[r]
            clause_bits = key & wmask
            caps = key >> width
            for j in range(comp_start[t], comp_start[t + 1]):
                if not _fits(caps, j, t, where, places_of, shift, field, comp_k, avail):
                    continue
                new_bits = clause_bits | comp_set[j]
                if new_bits & close[t] != close[t]:
                    continue
                work += codes
                slot = _find(keys[t + 1], bits[t + 1], ((caps - comp_delta[j]) << width) | (new_bits & ~close[t]))
                if slot < 0:  # a state the forward dropped (it cannot finish)
                    continue
                weight = comp_weight[j]
                if t >= readoff and comp_read[j] > 0:
                    ways = weight * finish[t + 1][slot]
                    if ways > 0.0:
                        column = comp_read[j]
                        for code in range(codes):
                            by_case[code, column] += vector[code] * ways
                    continue
                target = nmass[nrows[slot]]
                shift_code = comp_code[j]
                for code in range(codes - shift_code):
                    target[code + shift_code] += vector[code] * weight
            if work > budget:
                return -1
        rows, mass = nrows, nmass
    if readoff >= layers:
        for i in range(keys[layers].size):
            r = rows[i]
            if r >= 0 and finish[layers][i] > 0.0:
                for code in range(codes):
                    by_case[code, 0] += mass[r, code] * finish[layers][i]
    return work


@njit(cache=True)
def _first(keys):  # pragma: no cover - compiled
    """The first occupied slot of a table."""
    for i in range(keys.size):
        if keys[i] != EMPTY:
            return i
    return -1


@njit(cache=True)
def _splitmix(state):  # pragma: no cover - compiled
    """SplitMix64: the next state and its 64-bit output."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True)
def _unrank(number, start, types, width, shift, field, where, places_of, comp_start, comp_k, comp_weight, comp_delta,
            comp_set, close, avail, keys, bits, finish, order, type_cards, type_count, real, binom,
            row):  # pragma: no cover - compiled  # fmt: skip
    """Write into ``row`` the free cards' places of deal ``number`` (below the count): at each layer, the way of
    dealing its type whose deals hold the number (the ways in order, each as many deals as its weight times the
    ways to finish after it), then which of the type's cards go to each place (the number's quotient by the ways
    to finish, in a mixed radix of each place's subsets, each subset in lexicographic order)."""
    key = start
    wmask = (np.int64(1) << width) - 1
    left = np.zeros(type_cards.shape[1], dtype=np.int64)
    for t in range(types):
        clause_bits = key & wmask
        caps = key >> width
        chosen, chosen_key, after_chosen = -1, np.int64(-1), np.int64(1)
        for j in range(comp_start[t], comp_start[t + 1]):
            if not _fits(caps, j, t, where, places_of, shift, field, comp_k, avail):
                continue
            new_bits = clause_bits | comp_set[j]
            if new_bits & close[t] != close[t]:
                continue
            new_key = ((caps - comp_delta[j]) << width) | (new_bits & ~close[t])
            slot = _find(keys[t + 1], bits[t + 1], new_key)
            if slot < 0:
                continue
            after = np.int64(finish[t + 1][slot])
            ways = np.int64(comp_weight[j]) * after
            if ways == 0:
                continue
            chosen, chosen_key, after_chosen = j, new_key, after
            if number < ways:
                break
            number -= ways
        assignment = number // after_chosen
        number -= assignment * after_chosen
        kind = order[t]
        remaining = type_count[kind]
        for i in range(remaining):
            left[i] = type_cards[kind, i]
        a = places_of[t]
        for q in range(a):
            k = comp_k[chosen, q]
            place = real[where[t, q]]
            if q == a - 1:  # the last place takes the rest
                for i in range(remaining):
                    row[left[i]] = place
                break
            subsets = np.int64(binom[remaining, k])
            index = assignment % subsets
            assignment //= subsets
            # The index-th k-subset of the remaining cards, in lexicographic order of positions.
            kept_cards = 0
            e = 0
            for taken in range(k):
                while True:
                    starting_here = np.int64(binom[remaining - e - 1, k - taken - 1])
                    if index < starting_here:
                        break
                    index -= starting_here
                    left[kept_cards] = left[e]
                    kept_cards += 1
                    e += 1
                row[left[e]] = place
                e += 1
            for i in range(e, remaining):
                left[kept_cards] = left[i]
                kept_cards += 1
            remaining = kept_cards
        key = chosen_key


@njit(cache=True)
def _draw(state, count, start, types, width, shift, field, where, places_of, comp_start, comp_k, comp_weight,
          comp_delta, comp_set, close, avail, keys, bits, finish, order, type_cards, type_count, real, deals,
          placed_row):  # pragma: no cover - compiled  # fmt: skip
    """Write into each row of ``deals`` a uniform deal drawn from the SplitMix64 stream ``state``: the facts'
    cards (``placed_row``), then the free cards' places: at each layer, a way of dealing its type drawn in
    proportion to its deals (its weight times the ways to finish after it, of the total from the state it leaves;
    ``count`` from the start), then the cards each place takes of the type, drawn uniformly (a partial shuffle).
    A deal's probability is the product of the draws', one over the count. (All the rows in one call: a call a
    deal, with its two dozen array arguments, cost more than the deal.) The ways on from a state are listed the
    first time a deal passes it (those that fit, with their deals and the state each leads to) and read from the
    list after: the deals pass the same few states again and again."""
    wmask = (np.int64(1) << width) - 1
    scale = 1.0 / 9007199254740992.0  # 2**-53
    left = np.zeros(type_cards.shape[1], dtype=np.int64)
    slots = 1
    for t in range(types):
        slots = max(slots, keys[t].size)
    listed = np.full((types, slots), -1, dtype=np.int64)  # per layer and state (its slot): its list's start
    listed_n = np.zeros((types, slots), dtype=np.int64)  # and length
    size = 64
    way = np.zeros(size, dtype=np.int64)  # the list of every state listed: the way, its deals, where it leads
    weight = np.zeros(size)
    after_of = np.zeros(size)
    key_of = np.zeros(size, dtype=np.int64)
    slot_of = np.zeros(size, dtype=np.int64)
    used = 0
    start_slot = _find(keys[0], bits[0], start)
    for row in range(deals.shape[0]):
        deals[row, :] = placed_row
        key, slot, total = start, start_slot, count
        for t in range(types):
            if listed[t, slot] < 0:
                clause_bits = key & wmask
                caps = key >> width
                next_keys, next_bits, next_finish = keys[t + 1], bits[t + 1], finish[t + 1]
                listed[t, slot] = used
                for j in range(comp_start[t], comp_start[t + 1]):
                    if not _fits(caps, j, t, where, places_of, shift, field, comp_k, avail):
                        continue
                    new_bits = clause_bits | comp_set[j]
                    if new_bits & close[t] != close[t]:
                        continue
                    new_key = ((caps - comp_delta[j]) << width) | (new_bits & ~close[t])
                    next_slot = _find(next_keys, next_bits, new_key)
                    if next_slot < 0:
                        continue
                    after = next_finish[next_slot]
                    ways = comp_weight[j] * after
                    if ways <= 0.0:
                        continue
                    if used == size:  # the list full: twice the room
                        size *= 2
                        way, weight, after_of = _longer(way, size), _longer(weight, size), _longer(after_of, size)
                        key_of, slot_of = _longer(key_of, size), _longer(slot_of, size)
                    way[used], weight[used], after_of[used] = j, ways, after
                    key_of[used], slot_of[used] = new_key, next_slot
                    used += 1
                listed_n[t, slot] = used - listed[t, slot]
            state, drawn = _splitmix(state)
            x = np.float64(drawn >> np.uint64(11)) * scale * total
            chosen = -1
            for e in range(listed[t, slot], listed[t, slot] + listed_n[t, slot]):
                chosen = e
                if x < weight[e]:
                    break
                x -= weight[e]
            j = way[chosen]
            total = after_of[chosen]
            kind = order[t]
            remaining = type_count[kind]
            for i in range(remaining):
                left[i] = type_cards[kind, i]
            a = places_of[t]
            for q in range(a):
                k = comp_k[j, q]
                place = real[where[t, q]]
                if q == a - 1:  # the last place takes the rest
                    for i in range(remaining):
                        deals[row, left[i]] = place
                    break
                for i in range(k):  # k of the remaining cards, each uniformly among those left
                    state, drawn = _splitmix(state)
                    pick_at = i + int(np.float64(drawn >> np.uint64(11)) * scale * (remaining - i))
                    left[i], left[pick_at] = left[pick_at], left[i]
                    deals[row, left[i]] = place
                for i in range(k, remaining):
                    left[i - k] = left[i]
                remaining -= k
            key, slot = key_of[chosen], slot_of[chosen]


@njit(cache=True)
def _longer(values, size):  # pragma: no cover - compiled
    """``values`` copied into a new array of ``size`` (zeros after)."""
    grown = np.zeros(size, dtype=values.dtype)
    grown[: values.size] = values
    return grown


@njit(cache=True)
def _spread(share, code, column, cases, prefix, readoff, order, group_of, group_stride, digit_base, group_rank,
            category_of, card_type, known, category_masks, cards):  # pragma: no cover - compiled  # fmt: skip
    """Add ``share`` to every combination (one card a category, in triple order) the case file's ``code`` and
    read-off ``column`` stand for: per category, each card of the type the code names, or the card known to be
    there (``known``: the case file's cards the facts place)."""
    categories = category_masks.size
    lists = np.zeros((categories, cards), dtype=np.int64)  # each category's candidate positions in it
    lengths = np.zeros(categories, dtype=np.int64)
    strides = np.ones(categories, dtype=np.int64)
    starts = np.zeros(categories, dtype=np.int64)
    for c in range(categories - 1, -1, -1):
        mask = category_masks[c]
        starts[c] = 0
        while not mask >> starts[c] & 1:
            starts[c] += 1
        if c < categories - 1:
            strides[c] = strides[c + 1] * popcount(category_masks[c + 1])
    for c in range(categories):
        held = known & category_masks[c]
        if held:
            for b in range(cards):
                if held >> b & 1:
                    lists[c, lengths[c]] = b - starts[c]
                    lengths[c] += 1
    # The types the code names: a carried category's digit, the read-off column.
    for position in range(prefix):
        v = group_of[order[position]]
        c = category_of[v]
        if position < readoff:
            if code // group_stride[v] % digit_base[position] != group_rank[position]:
                continue
        elif readoff + column - 1 != position:
            continue
        for b in range(cards):
            if card_type[b] == order[position]:
                lists[c, lengths[c]] = b - starts[c]
                lengths[c] += 1
    pick = np.zeros(categories, dtype=np.int64)  # an odometer over the lists
    while True:
        index = 0
        for c in range(categories):
            index += lists[c, pick[c]] * strides[c]
        cases[index] += share
        c = categories - 1
        while c >= 0:
            pick[c] += 1
            if pick[c] < lengths[c]:
                break
            pick[c] = 0
            c -= 1
        if c < 0:
            return


@njit(cache=True)
def count_seat(required, forbidden, clauses, sizes, category_masks, case_counts, full, budget, probabilities):
    # pragma: no cover - compiled
    """Count the deals consistent with one seat's propagated facts; write each card's probability at each place.

    Args:
        required / forbidden: ``(places,)`` int64 masks, the players then the case file (propagated).
        clauses: ``(c, 3)`` rows of (place, mask, kind) as :func:`~deduction_envs.reasoning.clue_facts.propagate_masks`
            leaves them (dead rows skipped).
        sizes: cards each place holds (the case file's is the sum of ``case_counts``).
        category_masks / case_counts: the deck's categories and how many of each the case file holds.
        full: the mask of every card.
        budget: work (states times ways to deal a type) allowed before giving up.
        probabilities: ``(cards, places)`` float64, written when exact.

    Returns:
        ``(status, deals, entropy)``: :data:`EXACT`, :data:`OVER_BUDGET` or :data:`CONTRADICTION`; the number of
        consistent deals and the entropy in bits of the case file's distribution (when exact).
    """
    none = np.zeros((0, probabilities.shape[0]), dtype=np.int64)
    status, total, entropy, _ = _solve(required, forbidden, clauses, sizes, category_masks, case_counts, full, budget,
                                       probabilities, True, none, 0, 0, np.zeros(0))  # fmt: skip
    return status, total, entropy


@njit(cache=True)
def solve_seat(required, forbidden, clauses, sizes, category_masks, case_counts, full, budget, probabilities,
               cases):  # pragma: no cover - compiled  # fmt: skip
    """:func:`count_seat`, and the case file's distribution where it holds one card of each category: ``cases``
    (float64, one entry a combination, every category's cards in order, the last category fastest: Clue's
    triple order) gets each combination's probability. Returns :func:`count_seat`'s ``(status, deals,
    entropy)``; ``cases`` is written when exact."""
    none = np.zeros((0, probabilities.shape[0]), dtype=np.int64)
    status, total, entropy, _ = _solve(required, forbidden, clauses, sizes, category_masks, case_counts, full, budget,
                                       probabilities, True, none, 0, 0, cases)  # fmt: skip
    return status, total, entropy


@njit(cache=True)
def deal_seat(required, forbidden, clauses, sizes, category_masks, case_counts, full, budget, seed, enumerate_limit,
              deals):  # pragma: no cover - compiled  # fmt: skip
    """Deals consistent with one seat's propagated facts: every one of them when there are at most
    ``enumerate_limit`` (in a fixed order), else ``deals.shape[0]`` drawn uniformly and independently from the
    stream ``seed`` names (SplitMix64: the same seed, the same deals).

    Listed, each deal is a number below the count, read back place by place through the sweep's counts (which way
    each type is dealt, then which of its cards go where); drawn, each layer's way is drawn in proportion to the
    deals through it and the type's cards then shuffled among its places, which gives each deal one over the count
    (to float64 rounding), without the number's divisions (most of a listed deal's time). The arguments are
    :func:`count_seat`'s; ``deals`` is ``(n, cards)`` int64, each row a deal as each card's place (the case file
    is the last place), at least as many rows as the count when enumerating.

    Returns:
        ``(status, count, dealt)``: :data:`EXACT`, :data:`OVER_BUDGET` (also when the count is too large to number
        its deals exactly, 2**53) or :data:`CONTRADICTION`; the number of consistent deals, and the rows written.
    """
    scratch = np.zeros((deals.shape[1], required.size))
    status, total, _, dealt = _solve(required, forbidden, clauses, sizes, category_masks, case_counts, full, budget,
                                     scratch, False, deals, seed, enumerate_limit, np.zeros(0))  # fmt: skip
    return status, total, dealt


@njit(cache=True)
def _solve(required, forbidden, clauses, sizes, category_masks, case_counts, full, budget, probabilities,
           want_entropy, deals, seed, enumerate_limit, cases):  # pragma: no cover - compiled  # fmt: skip
    """:func:`count_seat`, :func:`solve_seat` and :func:`deal_seat` in one: ``(status, count, entropy, deals
    written)``."""
    n_places = required.size
    case_file = n_places - 1
    placed = 0
    for p in range(n_places):
        placed |= required[p]
    free = full & ~placed
    # The places the sweep deals to: players still taking cards, and the case file by category.
    real = np.zeros(MAX_PLACES, dtype=np.int64)
    room = np.zeros(MAX_PLACES, dtype=np.int64)
    allowed = np.zeros(MAX_PLACES, dtype=np.int64)
    category_of = np.full(MAX_PLACES, -1, dtype=np.int64)  # a case-file place's category
    places = 0
    for p in range(case_file):
        left = sizes[p] - popcount(required[p])
        if left < 0:
            return CONTRADICTION, 0.0, 0.0, 0
        if left > 0:
            if places == MAX_PLACES:
                return OVER_BUDGET, 0.0, 0.0, 0
            real[places], room[places], allowed[places] = p, left, free & ~forbidden[p]
            places += 1
    for c in range(category_masks.size):
        left = case_counts[c] - popcount(required[case_file] & category_masks[c])
        if left < 0:
            return CONTRADICTION, 0.0, 0.0, 0
        if left > 0:
            if places == MAX_PLACES:
                return OVER_BUDGET, 0.0, 0.0, 0
            real[places], room[places], category_of[places] = case_file, left, c
            allowed[places] = free & ~forbidden[case_file] & category_masks[c]
            places += 1
    cards = probabilities.shape[0]
    probabilities[:, :] = 0.0
    cases[:] = 0.0
    for p in range(n_places):
        for b in range(cards):
            if required[p] >> b & 1:
                probabilities[b, p] = 1.0
    n_free = popcount(free)
    total_room = 0
    for v in range(places):
        total_room += room[v]
    if total_room != n_free:
        return CONTRADICTION, 0.0, 0.0, 0
    if n_free == 0:  # one deal: the facts place every card
        if cases.size:
            _spread(1.0, 0, 0, cases, 0, 0, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                    np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                    category_of, np.full(cards, -1, dtype=np.int64), required[case_file], category_masks,
                    cards)  # fmt: skip
        dealt = min(deals.shape[0], 1 if enumerate_limit >= 1 else deals.shape[0])
        for row in range(dealt):
            for b in range(cards):
                for p in range(n_places):
                    if required[p] >> b & 1:
                        deals[row, b] = p
        return EXACT, 1.0, 0.0, dealt
    # Live clauses over the free cards: at-least (a place holds one of them) and not-all (not every one of them).
    live = 0
    for c in range(clauses.shape[0]):
        if clauses[c, 2] != -1:
            live += 1
    if live > 62:
        return OVER_BUDGET, 0.0, 0.0, 0
    clause_place = np.zeros(live, dtype=np.int64)
    clause_mask = np.zeros(live, dtype=np.int64)
    clause_least = np.zeros(live, dtype=np.bool_)
    kept = 0
    for c in range(clauses.shape[0]):
        kind = clauses[c, 2]
        if kind == -1:
            continue
        mask = clauses[c, 1] & free
        if kind == 1:  # at least one: of the free cards the place may take
            group = 0
            for v in range(places):
                if real[v] == clauses[c, 0]:
                    group |= allowed[v]
            mask &= group
            if mask == 0:
                return CONTRADICTION, 0.0, 0.0, 0
        else:  # not all: a card the place cannot take settles it
            if mask == 0:
                return CONTRADICTION, 0.0, 0.0, 0
            group = 0
            for v in range(places):
                if real[v] == clauses[c, 0]:
                    group |= allowed[v]
            if mask & ~group:
                continue
        duplicate = False  # a clause twice (a twin's table may hold it twice, a seat's facts keep a set) counts once
        for k in range(kept):
            if clause_place[k] == clauses[c, 0] and clause_mask[k] == mask and clause_least[k] == (kind == 1):
                duplicate = True
                break
        if duplicate:
            continue
        clause_place[kept], clause_mask[kept], clause_least[kept] = clauses[c, 0], mask, kind == 1
        kept += 1
    # Types: the free cards alike in the places that may take them and the clauses that name them.
    card_type = np.full(cards, -1, dtype=np.int64)
    type_card = np.zeros(n_free, dtype=np.int64)  # a card of each type
    type_count = np.zeros(n_free, dtype=np.int64)
    types = 0
    for b in range(cards):
        if not free >> b & 1:
            continue
        for t in range(types):
            a = type_card[t]
            same = True
            for v in range(places):
                if (allowed[v] >> b & 1) != (allowed[v] >> a & 1):
                    same = False
                    break
            if same:
                for c in range(kept):
                    if (clause_mask[c] >> b & 1) != (clause_mask[c] >> a & 1):
                        same = False
                        break
            if same:
                card_type[b] = t
                type_count[t] += 1
                break
        if card_type[b] < 0:
            type_card[types], type_count[types], card_type[b] = b, 1, types
            types += 1
    type_places = np.zeros(types, dtype=np.int64)  # a bit a place
    for t in range(types):
        a = type_card[t]
        for v in range(places):
            if allowed[v] >> a & 1:
                type_places[t] |= np.int64(1) << v
        if type_places[t] == 0:
            return CONTRADICTION, 0.0, 0.0, 0
    type_clauses = np.zeros((types, kept), dtype=np.bool_)
    clause_types = np.zeros(kept, dtype=np.int64)
    for t in range(types):
        for c in range(kept):
            if clause_mask[c] >> type_card[t] & 1:
                type_clauses[t, c] = True
                clause_types[c] += 1
    # The order. The case file's distribution is carried through the first layers (the *prefix*): the types its
    # categories may take, category by category, fewest types first; the counts each type gives the case file
    # are carried as digits of the state's code, except for the last category when it takes one card, whose type
    # is read off the way that deals it. Then the other types. Within each group, greedily the type that leaves
    # the fewest clauses open.
    group_of = np.full(types, places, dtype=np.int64)  # the case file's place the type may go to (places: none)
    for t in range(types):
        for v in range(places):
            if type_places[t] >> v & 1 and real[v] == case_file:
                group_of[t] = v
    group_size = np.zeros(places + 1, dtype=np.int64)
    for t in range(types):
        group_size[group_of[t]] += 1
    rank = np.zeros(places + 1, dtype=np.int64)  # groups in order: case places by size, then the rest
    for v in range(places + 1):
        for u in range(places + 1):
            if u == v:
                continue
            earlier = (u < places and v == places) or (u < places and v < places and (
                group_size[u] < group_size[v] or (group_size[u] == group_size[v] and u < v)))  # fmt: skip
            if earlier:
                rank[v] += 1
    order = np.zeros(types, dtype=np.int64)
    done = np.zeros(types, dtype=np.bool_)
    seen = np.zeros(kept, dtype=np.int64)  # types of each clause dealt so far
    position = 0
    last_group = -1
    prefix = 0
    for r in range(places + 1):
        for v in range(places + 1):
            if rank[v] != r or group_size[v] == 0:
                continue
            if v < places:
                last_group = v
            for _ in range(group_size[v]):
                best, best_open, best_closed = -1, 1 << 30, -1
                for t in range(types):
                    if done[t] or group_of[t] != v:
                        continue
                    opened, closed = 0, 0
                    for c in range(kept):
                        after = seen[c] + (1 if type_clauses[t, c] else 0)
                        if 0 < after < clause_types[c]:
                            opened += 1
                        if type_clauses[t, c] and after == clause_types[c]:
                            closed += 1
                    if opened < best_open or (opened == best_open and closed > best_closed):
                        best, best_open, best_closed = t, opened, closed
                order[position] = best
                done[best] = True
                position += 1
                for c in range(kept):
                    if type_clauses[best, c]:
                        seen[c] += 1
            if v < places:
                prefix = position
    readoff = types  # the layer from which the last category is read off (none: types)
    if last_group >= 0 and room[last_group] == 1:
        readoff = prefix - group_size[last_group]
    # Frontier slots: a clause takes a bit from its first type dealt to its last.
    slot = np.full(kept, -1, dtype=np.int64)
    taken = np.zeros(MAX_WIDTH + 1, dtype=np.bool_)
    seen[:] = 0
    width = 0
    close = np.zeros(types, dtype=np.int64)
    layer_slots = np.full((types, kept), -1, dtype=np.int64)  # the slot of each clause the layer's type is in
    for position in range(types):
        t = order[position]
        for c in range(kept):
            if not type_clauses[t, c]:
                continue
            if slot[c] < 0:
                s = 0
                while taken[s]:
                    s += 1
                if s == MAX_WIDTH:
                    return OVER_BUDGET, 0.0, 0.0, 0
                taken[s], slot[c] = True, s
                width = max(width, s + 1)
            layer_slots[position, c] = slot[c]
            seen[c] += 1
            if seen[c] == clause_types[c]:
                close[position] |= np.int64(1) << slot[c]
        for c in range(kept):  # freed once the layer's clauses all have their bits
            if type_clauses[t, c] and seen[c] == clause_types[c]:
                taken[slot[c]] = False
    # What each place can still take after each layer (the sweep drops states that cannot finish).
    avail = np.zeros((types + 1, places), dtype=np.int64)
    for position in range(types - 1, -1, -1):
        t = order[position]
        for v in range(places):
            avail[position, v] = avail[position + 1, v] + (type_count[t] if type_places[t] >> v & 1 else 0)
    for v in range(places):
        if room[v] > avail[0, v]:
            return CONTRADICTION, 0.0, 0.0, 0
    # A bit field a place for the cards it still takes, then the case file's digits.
    shift = np.zeros(places + 1, dtype=np.int64)
    field = np.zeros(places, dtype=np.int64)
    for v in range(places):
        size = 1
        while (1 << size) <= room[v]:
            size += 1
        field[v] = (1 << size) - 1
        shift[v + 1] = shift[v] + size
    if shift[places] + width > 62:  # a state's code: the caps, then the clause bits
        return OVER_BUDGET, 0.0, 0.0, 0
    start_caps = 0
    for v in range(places):
        start_caps += room[v] << shift[v]
    # The case file's contents as a code: a digit a carried category that takes one card (which of its types,
    # from 1), a digit a carried type otherwise (how many of its cards); the category read off as a column.
    digit_stride = np.zeros(types, dtype=np.int64)  # per prefix layer: the code a card of its type to the case adds
    digit_base = np.ones(types, dtype=np.int64)  # and the digit's range, to read the code back
    group_rank = np.zeros(types, dtype=np.int64)  # the type's number in its category (from 1)
    codes = 1
    member = np.zeros(places + 1, dtype=np.int64)
    group_stride = np.zeros(places + 1, dtype=np.int64)
    for position in range(prefix):
        v = group_of[order[position]]
        member[v] += 1
        group_rank[position] = member[v]
    for position in range(min(prefix, readoff)):
        v = group_of[order[position]]
        if room[v] == 1:
            if group_rank[position] == 1:
                group_stride[v] = codes
                codes *= group_size[v] + 1
            digit_stride[position] = group_rank[position] * group_stride[v]
            digit_base[position] = group_size[v] + 1
        else:
            most = min(type_count[order[position]], room[v])
            digit_stride[position] = codes
            digit_base[position] = most + 1
            codes *= most + 1
        if codes > MAX_CASE_CODES:
            return OVER_BUDGET, 0.0, 0.0, 0
    columns = (group_size[last_group] + 1) if readoff < prefix else 1
    # Every way to deal each type: its cards' counts at each of its places, weight, change of code, clause bits
    # set and the case file's digit.
    top = 0
    for t in range(types):
        top = max(top, type_count[t])
    binom = _binomials(max(top, 1))
    where = np.zeros((types, places), dtype=np.int64)
    places_of = np.zeros(types, dtype=np.int64)
    comp_start = np.zeros(types + 1, dtype=np.int64)
    rows = 0
    for position in range(types):
        t = order[position]
        a = 0
        for v in range(places):
            if type_places[t] >> v & 1:
                where[position, a] = v
                a += 1
        places_of[position] = a
        count = 1.0
        for i in range(1, a):  # ways to split the count among a places: C(count + a - 1, a - 1), rows to allocate
            count = count * (type_count[t] + i) / i
        rows += int(count + 0.5)
        if rows > budget:
            return OVER_BUDGET, 0.0, 0.0, 0
    comp_k = np.zeros((rows, places), dtype=np.int64)
    comp_weight = np.zeros(rows)
    comp_delta = np.zeros(rows, dtype=np.int64)
    comp_set = np.zeros(rows, dtype=np.int64)
    comp_code = np.zeros(rows, dtype=np.int64)
    comp_read = np.zeros(rows, dtype=np.int64)
    k = np.zeros(places, dtype=np.int64)
    j = 0
    for position in range(types):
        t = order[position]
        a = places_of[position]
        count = type_count[t]
        comp_start[position] = j
        # An odometer over k[0 .. a-2], the last place taking the rest.
        k[:] = 0
        while True:
            used = 0
            for i in range(a - 1):
                used += k[i]
            if used <= count:
                k[a - 1] = count - used
                weight, rest = 1.0, count
                delta, case_here = 0, 0
                for i in range(a):
                    v = where[position, i]
                    weight *= binom[rest, k[i]]
                    rest -= k[i]
                    delta += k[i] << shift[v]
                    if real[v] == case_file:
                        case_here += k[i]
                setting = 0
                for c in range(kept):
                    s = layer_slots[position, c]
                    if s < 0:
                        continue
                    at_place = 0
                    for i in range(a):
                        if real[where[position, i]] == clause_place[c]:
                            at_place += k[i]
                    if (at_place > 0) if clause_least[c] else (at_place < count):
                        setting |= np.int64(1) << s
                comp_k[j, :a] = k[:a]
                comp_weight[j], comp_delta[j], comp_set[j] = weight, delta, setting
                if position < readoff and position < prefix:
                    if room[group_of[t]] == 1:
                        comp_code[j] = digit_stride[position] if case_here else 0
                    else:
                        comp_code[j] = case_here * digit_stride[position]
                elif position < prefix and case_here:
                    comp_read[j] = group_rank[position]  # read off: the case file's last card, of this type
                j += 1
            k[a - 1] = 0
            i = 0
            while i < a - 1:
                k[i] += 1
                if k[i] <= count:
                    break
                k[i] = 0
                i += 1
            if i >= a - 1:
                break
    comp_start[types] = j
    # After each layer, the at-least clauses still open: their bits, and the caps of their place.
    open_count = np.zeros(types, dtype=np.int64)
    open_slot = np.zeros((types, max(width, 1)), dtype=np.int64)
    open_caps = np.zeros((types, max(width, 1)), dtype=np.int64)
    first = np.full(kept, types, dtype=np.int64)
    final = np.full(kept, -1, dtype=np.int64)
    for position in range(types):
        for c in range(kept):
            if layer_slots[position, c] >= 0:
                first[c] = min(first[c], position)
                final[c] = position
    for position in range(types):
        for c in range(kept):
            if clause_least[c] and first[c] <= position < final[c]:
                mask = 0
                for v in range(places):
                    if real[v] == clause_place[c]:
                        mask |= field[v] << shift[v]
                open_slot[position, open_count[position]] = slot[c]
                open_caps[position, open_count[position]] = mask
                open_count[position] += 1
    start_key = start_caps << width
    keys, values, bits, work = _sweep(start_key, types, width, shift, field, where, places_of, comp_start, comp_k,
                                      comp_weight, comp_delta, comp_set, close, avail, open_count, open_slot,
                                      open_caps, budget)  # fmt: skip
    if work < 0:
        return OVER_BUDGET, 0.0, 0.0, 0
    deals_count = _get(keys[types], values[types], bits[types], 0)
    if deals_count == 0.0:
        return CONTRADICTION, 0.0, 0.0, 0
    # Backward: the ways to finish from each state, and the expected cards of each type at each place.
    expected = np.zeros((types, places))
    finish_keys = [np.zeros(0, dtype=np.int64)] * (types + 1)
    finish_values = [np.zeros(0)] * (types + 1)
    finish_bits = [0] * (types + 1)
    last = np.zeros(keys[types].size)
    for i in range(last.size):
        if keys[types][i] == 0:
            last[i] = 1.0
    finish_keys[types], finish_values[types], finish_bits[types] = keys[types], last, bits[types]
    wmask = (np.int64(1) << width) - 1
    for position in range(types - 1, -1, -1):
        layer_keys, layer_values = keys[position], values[position]
        after_keys, after_values, after_bits = finish_keys[position + 1], finish_values[position + 1], finish_bits[
            position + 1]
        a = places_of[position]
        finish = np.zeros(layer_keys.size)
        for i in range(layer_keys.size):
            key = layer_keys[i]
            if key == EMPTY:
                continue
            clause_bits = key & wmask
            caps = key >> width
            total = 0.0
            for j in range(comp_start[position], comp_start[position + 1]):
                if not _fits(caps, j, position, where, places_of, shift, field, comp_k, avail):
                    continue
                new_bits = clause_bits | comp_set[j]
                if new_bits & close[position] != close[position]:
                    continue
                new_key = ((caps - comp_delta[j]) << width) | (new_bits & ~close[position])
                ways = comp_weight[j] * _get(after_keys, after_values, after_bits, new_key)
                if ways > 0.0:
                    total += ways
                    mass = layer_values[i] * ways
                    for q in range(a):
                        expected[position, where[position, q]] += mass * comp_k[j, q]
            finish[i] = total
        finish_keys[position], finish_values[position], finish_bits[position] = layer_keys, finish, bits[position]
    for position in range(types):
        t = order[position]
        for b in range(cards):
            if card_type[b] != t:
                continue
            for v in range(places):
                probabilities[b, real[v]] += expected[position, v] / type_count[t] / deals_count
    # Deals asked for: listed (numbered below the count, each read back through the counts) or drawn.
    dealt = 0
    if deals.shape[0] > 0:
        if deals_count >= 2.0**53:
            return OVER_BUDGET, 0.0, 0.0, 0
        count = np.int64(deals_count)
        type_cards = np.zeros((types, n_free), dtype=np.int64)  # each type's cards, in order
        filled = np.zeros(types, dtype=np.int64)
        for b in range(cards):
            t = card_type[b]
            if t >= 0:
                type_cards[t, filled[t]] = b
                filled[t] += 1
        enumerate_all = count <= enumerate_limit
        dealt = min(count, deals.shape[0]) if enumerate_all else deals.shape[0]
        state = np.uint64(seed)
        placed_row = np.zeros(cards, dtype=np.int64)  # the facts' cards
        for b in range(cards):
            for p in range(n_places):
                if required[p] >> b & 1:
                    placed_row[b] = p
        if enumerate_all:
            for row in range(dealt):
                deals[row, :] = placed_row
                _unrank(np.int64(row), start_key, types, width, shift, field, where, places_of, comp_start, comp_k,
                        comp_weight, comp_delta, comp_set, close, avail, keys, bits, finish_values, order,
                        type_cards, type_count, real, binom, deals[row])  # fmt: skip
        else:
            _draw(state, deals_count, start_key, types, width, shift, field, where, places_of, comp_start, comp_k,
                  comp_weight, comp_delta, comp_set, close, avail, keys, bits, finish_values, order, type_cards,
                  type_count, real, deals[:dealt], placed_row)  # fmt: skip
    # The case file's distribution: the prefix swept again, carrying what the case file has taken.
    entropy = 0.0
    if want_entropy and prefix > 0:
        by_case = np.zeros((codes, columns))
        spent = _carry(prefix, readoff, codes, width, shift, field, where, places_of, comp_start, comp_k,
                       comp_weight, comp_delta, comp_set, comp_code, comp_read, close, avail, keys, bits,
                       finish_values, by_case, budget - work)  # fmt: skip
        if spent < 0:
            return OVER_BUDGET, 0.0, 0.0, 0
        for code in range(codes):
            subsets = 1.0  # the case files this code stands for: which cards of each type
            for position in range(min(prefix, readoff)):
                v = group_of[order[position]]
                digit = code // digit_stride[position] % digit_base[position] if room[v] != 1 else (
                    code // group_stride[v] % digit_base[position])  # fmt: skip
                if room[v] == 1:
                    if digit == group_rank[position]:
                        subsets *= type_count[order[position]]
                else:
                    subsets *= binom[type_count[order[position]], digit]
            for column in range(columns):
                share = by_case[code, column] / deals_count
                if share <= 0.0:
                    continue
                ways = subsets
                if readoff < prefix:
                    ways *= type_count[order[readoff + column - 1]]  # the read-off card: one of its type's
                entropy -= share * math.log2(share / ways)
                if cases.size:
                    _spread(share / ways, code, column, cases, prefix, readoff, order, group_of, group_stride,
                            digit_base, group_rank, category_of, card_type, required[case_file], category_masks,
                            cards)  # fmt: skip
    if cases.size and prefix == 0:  # every card of the case file known
        _spread(1.0, 0, 0, cases, 0, 0, order, group_of, group_stride, digit_base, group_rank, category_of,
                card_type, required[case_file], category_masks, cards)  # fmt: skip
    return EXACT, deals_count, max(entropy, 0.0), dealt
