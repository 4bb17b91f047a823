"""A tiny numpy raster for ``rgb_array`` rendering, so no game needs pygame."""

from __future__ import annotations

import colorsys

import numpy as np

__all__ = ["Canvas", "palette"]

Color = tuple[int, int, int]

# Distinct, colour-blind-friendlier first colours (Okabe-Ito plus extras).
_BASE_PALETTE: tuple[Color, ...] = (
    (213, 94, 0),
    (0, 114, 178),
    (0, 158, 115),
    (240, 228, 66),
    (204, 121, 167),
    (86, 180, 233),
    (230, 159, 0),
    (120, 120, 120),
)


def palette(n: int) -> list[Color]:
    """``n`` distinguishable RGB colours; the first eight are fixed."""
    colors = list(_BASE_PALETTE[:n])
    extra = n - len(colors)
    for i in range(extra):
        r, g, b = colorsys.hsv_to_rgb((i + 0.5) / extra, 0.65, 0.9)
        colors.append((int(r * 255), int(g * 255), int(b * 255)))
    return colors


class Canvas:
    """An RGB image of ``height`` x ``width`` pixels that shapes are painted onto."""

    def __init__(self, height: int, width: int, background: Color = (255, 255, 255)) -> None:
        self.pixels = np.empty((height, width, 3), dtype=np.uint8)
        self.pixels[:] = background
        self._rows, self._cols = np.ogrid[:height, :width]

    def rect(self, top: int, left: int, height: int, width: int, color: Color) -> None:
        """Fill an axis-aligned rectangle (clipped to the canvas)."""
        self.pixels[max(top, 0) : top + height, max(left, 0) : left + width] = color

    def frame(self, top: int, left: int, height: int, width: int, color: Color, thickness: int = 3) -> None:
        """Outline an axis-aligned rectangle with lines ``thickness`` pixels wide, drawn inside it."""
        self.rect(top, left, thickness, width, color)
        self.rect(top + height - thickness, left, thickness, width, color)
        self.rect(top, left, height, thickness, color)
        self.rect(top, left + width - thickness, height, thickness, color)

    def disc(self, cy: float, cx: float, radius: float, color: Color, outline: Color | None = None) -> None:
        """Fill a disc centred at (cy, cx), with an optional one-pixel outline."""
        d2 = (self._rows - cy) ** 2 + (self._cols - cx) ** 2
        if outline is not None:
            self.pixels[d2 <= radius**2] = outline
            radius -= 1
        self.pixels[d2 <= radius**2] = color
