"""The old name of :mod:`train.kept_models`: ``python -m train.models ...`` still runs it, with a warning, for one
version (the commands recorded in ``results/`` use it)."""

import sys
import warnings

from train.kept_models import main

if __name__ == "__main__":
    warnings.warn(
        "python -m train.models is deprecated: it is now python -m train.kept_models (the old name goes in the next "
        "version)",
        DeprecationWarning,
        stacklevel=1,
    )
    main(sys.argv[1:])
