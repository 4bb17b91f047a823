"""Learning curves from the episode logs of SB3's monitors: episode lengths, or a seat's wins and ranks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = [
    "curve_table",
    "plot_learning_curve",
    "plot_seat_curve",
    "plot_curves",
    "read_curve",
    "read_monitor_columns",
    "read_monitors",
    "save_curve",
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
    return read_monitor_columns(monitor_dir)[column]


def read_monitor_columns(monitor_dir: Path) -> dict[str, np.ndarray]:
    """Every column but t of every monitor log in ``monitor_dir``, each by episode in the order they were played
    (as :func:`read_monitors` orders them; ``l`` is empty if there is no episode), the logs read once."""
    keys, tables = [], []
    for file in sorted(monitor_dir.glob("*.monitor.csv")):
        table = np.genfromtxt(file, delimiter=",", skip_header=1, names=True, ndmin=1)
        if table.size:
            t = table["t"].astype(float)
            keys.append(np.stack([np.concatenate([[0], np.cumsum(np.diff(t) < 0)]), t], axis=1))
            tables.append(table)
    if not tables:
        return {"l": np.zeros(0)}
    key = np.concatenate(keys)
    order = np.lexsort((key[:, 1], key[:, 0]))
    names = [name for name in tables[0].dtype.names if name != "t"]
    return {name: np.concatenate([table[name].astype(float) for table in tables])[order] for name in names}


def curve_table(monitor_dir: Path, bins: int = 100) -> dict[str, np.ndarray]:
    """A run's learning curve in ``bins`` equal spans of its timesteps, small enough to keep beside its model:
    per span, ``steps`` (the timesteps at its end), ``episodes`` (those that ended in it) and the mean of each
    monitor column (``r``, ``l``; a seat's ``won`` and ``rank``); spans without an episode are left out. Empty
    if the monitors hold no episode."""
    columns = read_monitor_columns(monitor_dir)
    lengths = columns["l"]
    if not lengths.size:
        return {}
    steps = np.cumsum(lengths)
    span = np.minimum((steps * bins - 1) // steps[-1], bins - 1).astype(np.int64)
    counts = np.bincount(span, minlength=bins)
    kept = counts > 0
    table = {"steps": np.ceil((np.arange(bins) + 1) * steps[-1] / bins)[kept], "episodes": counts[kept]}
    for name, values in columns.items():
        table[name] = np.bincount(span, weights=values, minlength=bins)[kept] / counts[kept]
    return table


def write_curve(monitor_dir: Path, path: Path, bins: int = 100) -> bool:
    """:func:`curve_table` of ``monitor_dir`` as a CSV file at ``path``; False (nothing written) if the monitors
    hold no episode."""
    return save_curve(curve_table(monitor_dir, bins), path)


def save_curve(table: dict[str, np.ndarray], path: Path) -> bool:
    """A :func:`curve_table` as a CSV file at ``path``; False (nothing written) if it is empty."""
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


def plot_curves(curves: dict[str, dict[str, np.ndarray]], path: Path, title: str, players: int | None = None) -> bool:
    """Several runs' :func:`curve_table` s on one figure against timesteps: a seat's win rate and mean rank where
    the tables have them (``players``: the fair share and parity marked, for runs of one player count), else
    queries per episode; False if there is no curve."""
    from train.plotting import fitted_title, panel_grid, save

    curves = {label: table for label, table in curves.items() if table}
    if not curves:
        return False
    fair, parity = (None, None) if players is None else (1 / players, (players + 1) / 2)
    seat = all("won" in table for table in curves.values())
    panels = [("won", "win rate", fair), ("rank", "mean rank (1 = first)", parity)] if seat else [
        ("l", "queries per episode", None)]  # fmt: skip
    figure, axes = panel_grid(len(panels), width=5.2, height=3.6)
    for ax, (column, label, level) in zip(np.ravel(axes), panels, strict=True):
        for name, table in curves.items():
            ax.plot(table["steps"], table[column], linewidth=1.2, label=name)
        if level is not None:
            ax.axhline(
                level, color="grey", linestyle="--", linewidth=1, label="fair share" if column == "won" else "parity"
            )
        ax.set_xlabel("timesteps (training episodes, sampled actions)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    figure.suptitle(fitted_title(figure, title))
    save(figure, path)
    return True


def main(argv: list[str] | None = None) -> None:
    """``python -m train.curves RUN [RUN ...] --output FOLDER``: each run's learning curve in 100 spans of its
    steps (``FOLDER/<label>.csv``, :func:`write_curve`) and all of them on one figure (``FOLDER/curves.png``)."""

    from train import arguments
    from train.multiplayer import is_multiplayer, raw_env
    from train.run_files import run_settings

    parser = arguments.Parser(prog="python -m train.curves", description=main.__doc__)
    parser.add_argument("runs", nargs="+", type=Path, help="output folders of python -m train")
    parser.add_argument("--labels", nargs="+", default=None, help="a label per run (default the folders' names)")
    parser.add_argument("--title", default="learning curves", help="the figure's title")
    parser.add_argument("--output", type=arguments.output_folder, required=True, help="folder for the files")
    args = parser.parse_args(argv)
    labels = args.labels or [run.name for run in args.runs]
    if len(labels) != len(args.runs):
        parser.error(f"--labels: one per run ({len(args.runs)}), got {len(labels)}")
    if len(set(labels)) != len(labels) or any(not label or "/" in label or label.startswith(".") for label in labels):
        parser.error(f"--labels: distinct file names (a file label.csv each), got {labels}")
    settings = [run_settings(run / "model.zip") for run in args.runs]
    for run, found in zip(args.runs, settings, strict=True):
        if found is None or not (run / "monitor").is_dir():
            parser.error(f"{run} holds no run of python -m train (run.json and monitor/)")
    counts = {raw_env(s["env"], **s["sizes"]).rules.players for s in settings if is_multiplayer(s["env"])}  # type: ignore[index]
    players = counts.pop() if len(counts) == 1 else None  # the fair share is marked for one player count
    args.output.mkdir(parents=True, exist_ok=True)
    tables = {}
    for run, label in zip(args.runs, labels, strict=True):
        tables[label] = curve_table(run / "monitor")
        save_curve(tables[label], args.output / f"{label}.csv")
    plot_curves(tables, args.output / "curves.png", args.title, players)
    print(f"wrote {len(tables)} curves and curves.png to {args.output}")


if __name__ == "__main__":
    main()
