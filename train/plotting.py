"""The panel grids of the result figures: one panel per game, four to a row, saved as PNG."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


def panel_grid(panels: int, width: float = 4.2, height: float = 3.4) -> tuple[Any, Any]:
    """A figure with ``panels`` axes, four to a row (headless backend); returns (figure, flat axes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(4, panels)
    rows = math.ceil(panels / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False)
    for ax in axes.flat[panels:]:
        ax.set_visible(False)
    return figure, axes.flat[:panels]


def fitted_title(figure: Any, text: str, fontsize: float = 12.0) -> str:
    """``text`` broken into lines that fit the figure's width (a title longer than the figure is cut off)."""
    import textwrap

    return textwrap.fill(text, width=max(20, int(figure.get_figwidth() * 72 / (0.55 * fontsize))))


def save(figure: Any, path: Path, bottom: float = 0.0) -> None:
    """Lay out (leaving ``bottom`` of the height for a legend), write the PNG and free the figure."""
    import matplotlib.pyplot as plt

    figure.tight_layout(rect=(0, bottom, 1, 1))
    figure.savefig(path, dpi=120)
    plt.close(figure)
