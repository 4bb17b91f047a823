"""Learning curves from the episode logs of SB3's monitors: episode lengths, or a seat's wins and ranks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = [
    "curve_table",
    "plot_learning_curve",
    "plot_seat_curve",
    "read_curve",
    "read_monitors",
    "smoothed",
    "write_curve",
]


def read_monitors(monitor_dir: Path, column: str = "l") -> np.ndarray:
    """One column of every monitor log in ``monitor_dir`` (default ``l``, the episode lengths), by episode in the
    order they were played.

    Each log is a JSON comment line, then the columns r (return), l (length)
    and t (seconds since its monitor started). A resumed run appends to a log
    with its clock restarted, so the episodes sort by (segment, t), a segment
    starting wherever t goes back.
    """
    keys, lengths = [], []
    for file in sorted(monitor_dir.glob("*.monitor.csv")):
        table = np.genfromtxt(file, delimiter=",", skip_header=1, names=True, ndmin=1)
        if table.size:
            t = table["t"].astype(float)
            keys.append(np.stack([np.concatenate([[0], np.cumsum(np.diff(t) < 0)]), t], axis=1))
            lengths.append(table[column].astype(float))
    if not lengths:
        return np.zeros(0)
    key = np.concatenate(keys)
    return np.concatenate(lengths)[np.lexsort((key[:, 1], key[:, 0]))]


def curve_table(monitor_dir: Path, bins: int = 100) -> dict[str, np.ndarray]:
    """A run's learning curve in ``bins`` equal spans of its timesteps, small enough to keep beside its model:
    per span, ``steps`` (the timesteps at its end), ``episodes`` (those that ended in it) and the mean of each
    monitor column (``r``, ``l``; a seat's ``won`` and ``rank``); spans without an episode are left out. Empty
    if the monitors hold no episode."""
    lengths = read_monitors(monitor_dir)
    if not lengths.size:
        return {}
    first = next(iter(sorted(monitor_dir.glob("*.monitor.csv"))))
    with open(first) as file:
        file.readline()  # the JSON comment
        columns = [c for c in file.readline().strip().split(",") if c != "t"]
    steps = np.cumsum(lengths)
    span = np.minimum((steps * bins - 1) // steps[-1], bins - 1).astype(np.int64)
    counts = np.bincount(span, minlength=bins)
    kept = counts > 0
    table = {"steps": np.ceil((np.arange(bins) + 1) * steps[-1] / bins)[kept], "episodes": counts[kept]}
    for column in columns:
        values = lengths if column == "l" else read_monitors(monitor_dir, column)
        table[column] = np.bincount(span, weights=values, minlength=bins)[kept] / counts[kept]
    return table


def write_curve(monitor_dir: Path, path: Path, bins: int = 100) -> bool:
    """:func:`curve_table` of ``monitor_dir`` as a CSV file at ``path``; False (nothing written) if the monitors
    hold no episode."""
    table = curve_table(monitor_dir, bins)
    if not table:
        return False
    np.savetxt(path, np.column_stack(list(table.values())), delimiter=",", header=",".join(table), comments="",
               fmt="%.6g")  # fmt: skip
    return True


def read_curve(path: Path) -> dict[str, np.ndarray]:
    """A curve written by :func:`write_curve`, column by column."""
    table = np.genfromtxt(path, delimiter=",", names=True, ndmin=1)
    return {name: np.asarray(table[name], dtype=float) for name in table.dtype.names}


def smoothed(
    values: np.ndarray, most: int, share: int, lengths: np.ndarray | None = None
) -> tuple[int, np.ndarray, np.ndarray]:
    """A moving mean of per-episode ``values`` over ``min(most, episodes // share)`` episodes (at least 1).

    Returns the window, the timesteps at which each mean ends (by the
    episodes' ``lengths``, default the values themselves) and the means.
    """
    window = max(1, min(most, values.size // share))
    smooth = np.convolve(values, np.ones(window) / window, mode="valid")
    steps = np.cumsum(values if lengths is None else lengths)
    return window, steps[window - 1 :], smooth


def plot_learning_curve(monitor_dir: Path, path: Path, title: str) -> bool:
    """Episode length (queries) against timesteps from the monitor logs; False if there are no episodes yet."""
    from train.plotting import fitted_title, panel_grid, save

    lengths = read_monitors(monitor_dir)
    if not lengths.size:
        return False
    window, steps, smooth = smoothed(lengths, most=100, share=10)
    figure, (ax,) = panel_grid(1, width=6, height=3.6)
    ax.plot(np.cumsum(lengths), lengths, color="grey", alpha=0.3, linewidth=0.6, label="episode")
    ax.plot(steps, smooth, color="tab:red", label=f"mean of {window}")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("queries per episode")
    ax.set_title(fitted_title(figure, title))
    ax.grid(alpha=0.3)
    ax.legend()
    save(figure, path)
    return True


def plot_seat_curve(monitor_dir: Path, path: Path, title: str, players: int) -> bool:
    """A multiplayer learner's win rate and mean rank against timesteps (moving means over games, parity
    marked); False if there are no games yet."""
    from train.plotting import fitted_title, panel_grid, save

    lengths = read_monitors(monitor_dir)
    if not lengths.size:
        return False
    figure, axes = panel_grid(2, width=5, height=3.4)
    for ax, column, label, parity in zip(
        np.ravel(axes),
        ("won", "rank"),
        ("win rate", "mean rank (1 = first)"),
        (1 / players, (players + 1) / 2),
        strict=True,
    ):
        window, steps, smooth = smoothed(read_monitors(monitor_dir, column), most=500, share=10, lengths=lengths)
        ax.plot(steps, smooth, color="tab:red", label=f"mean of {window} games")
        ax.axhline(parity, color="grey", linestyle="--", linewidth=1, label="parity")
        ax.set_xlabel("timesteps")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend()
    figure.suptitle(fitted_title(figure, title))
    save(figure, path)
    return True
