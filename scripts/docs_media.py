"""Draw each env's picture and animated episode for its documentation page, from the env's own ``rgb_array``
renders: ``docs/_static/envs/<env id>.png`` (the board at the episode's end) and ``.gif`` (the episode).

The single-player episodes are played by sampled ISES (100 states, 100 queries, no time limit, so a seed gives
the same game), the multiplayer ones by reference agents in every seat. Every episode is seeded: the files are
the same on every run.

    python -m scripts.docs_media                 # every env, about a minute
    python -m scripts.docs_media --env algo_v0   # one
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from PIL import Image
from tqdm import tqdm

from deduction_envs import registry
from train import arguments

OUT = Path(__file__).resolve().parent.parent / "docs" / "_static" / "envs"


#: At most this many frames a GIF (a long game shows one frame every few turns), each shown FRAME_MS.
MAX_FRAMES = 40
FRAME_MS = 700


def single_player_frames(env_id: str, seed: int = 0) -> list[np.ndarray]:
    """The renders of one seeded episode of sampled ISES (the evaluation's loop): the empty board, then one a
    query."""
    from agents import ISES
    from agents.evaluation import play_episodes

    agent = ISES("sampled", state_samples=100, action_samples=100, time_limit=None)
    made: list[np.ndarray] = []
    play_episodes(
        agent, env_id, {"render_mode": "rgb_array"}, [({"seed": seed}, seed)], lambda env: made.append(env.render())
    )
    return made


def multiplayer_frames(env_id: str, seed: int = 0) -> Iterator[np.ndarray]:
    """The renders of one seeded game between the reference agents of the game's showcase (its registry entry),
    one a turn."""
    from agents.roster import seat_agent

    game = registry.game(env_id)
    if game.showcase is None:
        raise ValueError(f"{env_id} declares no showcase (registry.Game.showcase): its page has no episode")
    kwargs, names = game.showcase
    env = game.make_raw_env(render_mode="rgb_array", **kwargs)
    agents = [seat_agent(env_id, name) for name in names]
    for seat, agent in enumerate(agents):
        agent.reset(env.rules, seat, seed + 1 + seat)
    env.seat_listeners = {seat: agent.observe for seat, agent in enumerate(agents)}
    env.reset(seed=seed)
    yield env.render()
    while not env.table.over:
        mover = env.table.mover
        env.step(agents[mover].act(env.table.legal_mask()))
        if env.table.over or env.table.mover != mover:
            yield env.render()
    env.close()


def frames(env_id: str, seed: int = 0) -> list[np.ndarray]:
    """Every frame of ``env_id``'s documented episode (at most :data:`MAX_FRAMES`, the last always kept)."""
    multiplayer = registry.game(env_id).multiplayer
    made = list(multiplayer_frames(env_id, seed) if multiplayer else single_player_frames(env_id, seed))
    step = -(-len(made) // MAX_FRAMES)
    return [*made[:-1:step], made[-1]] if step > 1 else made


def _same_size(made: list[np.ndarray], width: int = 360) -> list[np.ndarray]:
    """The frames padded (white, bottom and right) to the largest, then scaled up by a whole factor (nearest
    pixel) to at least ``width`` pixels wide: a board that grows a row a query keeps its place."""
    height, wide = max(f.shape[0] for f in made), max(f.shape[1] for f in made)
    scale = max(1, -(-width // wide))
    padded = []
    for frame in made:
        canvas = np.full((height, wide, 3), 255, dtype=np.uint8)
        canvas[: frame.shape[0], : frame.shape[1]] = frame[..., :3]
        padded.append(canvas.repeat(scale, axis=0).repeat(scale, axis=1))
    return padded


def write(env_id: str, out: Path = OUT) -> tuple[Path, Path]:
    """Write ``env_id``'s picture and GIF into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    images = [Image.fromarray(frame) for frame in _same_size(frames(env_id))]
    picture, animation = out / f"{env_id}.png", out / f"{env_id}.gif"
    images[-1].save(picture, optimize=True)
    durations = [FRAME_MS] * (len(images) - 1) + [3 * FRAME_MS]  # the end stays on screen a while
    images[0].save(animation, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)
    return picture, animation


def env_ids() -> list[str]:
    return [game.env_id for game in registry.games()]


def main(argv: list[str] | None = None) -> None:
    parser = arguments.Parser(
        prog="python -m scripts.docs_media", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", choices=env_ids(), action="append", help="only this env (repeatable)")
    parser.add_argument("--output", type=Path, default=OUT, help="folder (default docs/_static/envs)")
    args = parser.parse_args(argv)
    for env_id in tqdm(args.env or env_ids(), desc="envs"):
        for path in write(env_id, args.output):
            tqdm.write(f"wrote {path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
