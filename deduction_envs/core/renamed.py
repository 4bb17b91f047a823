"""Old names kept for one version: a module's ``__getattr__`` that answers a renamed attribute with a warning."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["renamed"]


def renamed(module: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``module`` (its ``__name__``): each old name in ``names`` gives the attribute
    of its new name, with a :class:`DeprecationWarning` that says the new one; any other name is an AttributeError.

    Example, at the end of a module that renamed ``GCEvent``::

        from deduction_envs.core.renamed import renamed

        __getattr__ = renamed(__name__, {"GCEvent": "GeneralizedClueEvent"})
    """

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module}.{name} is deprecated: it is now {names[name]} (the old name goes in the next version)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(sys.modules[module], names[name])

    return __getattr__
