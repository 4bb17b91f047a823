"""Reading a model that stable-baselines3 saved, without running code hidden in the file.

SB3's ``model.save`` writes a zip: the weights (``policy.pth``, ``pytorch_variables.pth``, which SB3 reads with
``torch.load(weights_only=True)``) and the model's settings (``data``, JSON), where every value JSON cannot hold
(the spaces, the policy's class, a schedule, the last observation) is a cloudpickle pickle. SB3's own ``load``
unpickles those, and a pickle can call any function: a planted one runs the moment the file is read.

:func:`load_model` never hands a pickle to :mod:`pickle`'s full loader. It reads each pickled value itself with
an unpickler that knows a short list of data types (numpy arrays and scalars, Gymnasium spaces, deques, the
schedules, the policy, extractor, buffer, activation and optimizer classes of SB3, sb3-contrib and
:mod:`train.policies`), the same idea as torch's ``weights_only``: such a pickle can only rebuild those, never
call anything else, and a value that asks for anything else is refused with the key and the name it asked for.
The values are then handed to SB3 as ``custom_objects`` (every pickled key), so SB3 unpickles nothing. A file
from a source you trust that needs more (a policy class of your own) loads with ``trust_model=True``
(``--trust-model``): SB3's own load, which runs whatever the file holds.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import importlib
import io
import json
import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ALGORITHMS",
    "LinearSchedule",
    "UnsafeModelError",
    "algorithm_class",
    "check_saved_model",
    "file_sha256",
    "load_model",
    "pickled_values",
]

ALGORITHMS = ("maskable_ppo", "ppo", "a2c", "dqn")

#: What pickled values may rebuild: these exact names, ...
_ALLOWED_NAMES = {
    ("collections", "deque"),
    ("collections", "OrderedDict"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    *(
        (f"numpy.{core}.{module}", name)
        for core in ("core", "_core")
        for module, name in (("numeric", "_frombuffer"), ("multiarray", "_reconstruct"), ("multiarray", "scalar"))
    ),
    ("numpy.random._pickle", "__generator_ctor"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pcg64", "PCG64"),
    ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("stable_baselines3.common.utils", "FloatSchedule"),
    ("stable_baselines3.common.utils", "ConstantSchedule"),
    ("stable_baselines3.common.utils", "LinearSchedule"),
    ("stable_baselines3.common.type_aliases", "TrainFreq"),
    ("stable_baselines3.common.type_aliases", "TrainFrequencyUnit"),
    ("agents.model_files", "LinearSchedule"),
    ("train.config", "LinearSchedule"),  # where LinearSchedule was defined when the kept models were saved
}
#: Settings that are a process's scratch, never read from a file: self-play's rollout store (train.self_play),
#: which models saved before it was left out of their files hold.
_SCRATCH = ("_transitions",)
#: ... and classes of these modules (or their submodules) that subclass one of the bases of :func:`_class_bases`.
_CLASS_MODULES = (
    "stable_baselines3",
    "sb3_contrib",
    "train.policies",
    "gymnasium.spaces",
    "torch.nn.modules.activation",
    "torch.optim",
)


@dataclass(frozen=True)
class LinearSchedule:
    """``start`` times the share of training still to come (SB3 calls it with ``progress_remaining``, 1 to 0):
    a learning rate or clip range written ``"lin_<start>"`` in a hyperparameters file."""

    start: float

    def __call__(self, progress_remaining: float) -> float:
        return self.start * progress_remaining


class UnsafeModelError(ValueError):
    """A saved model holds a pickled value that would need code beyond plain data to load."""


def _class_bases() -> tuple[type, ...]:
    import gymnasium
    import torch
    from stable_baselines3.common.buffers import BaseBuffer
    from stable_baselines3.common.policies import BasePolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    return BasePolicy, BaseFeaturesExtractor, BaseBuffer, gymnasium.spaces.Space, torch.nn.Module, torch.optim.Optimizer


class _DataUnpickler(pickle.Unpickler):
    """An unpickler that rebuilds only the allowed data types and classes (see the module docstring)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED_NAMES:
            return super().find_class(module, name)
        if any(module == top or module.startswith(top + ".") for top in _CLASS_MODULES) and "." not in name:
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and issubclass(found, _class_bases()):
                return found
        raise pickle.UnpicklingError(f"it asks for {module}.{name}, which is not plain data")


def pickled_values(data: dict[str, Any]) -> dict[str, Any]:
    """Every pickled value of a saved model's settings (``data``, as JSON), read with the data-only unpickler.

    Raises:
        UnsafeModelError: a value asks for anything else, or is no pickle at all; the message names the key.
    """
    found: dict[str, Any] = {}
    for key, value in data.items():
        if not (isinstance(value, dict) and ":serialized:" in value):
            continue
        if key in _SCRATCH:
            found[key] = None
            continue
        try:
            found[key] = _DataUnpickler(io.BytesIO(base64.b64decode(value[":serialized:"]))).load()
        except (pickle.UnpicklingError, binascii.Error, EOFError, ValueError, TypeError, AttributeError,
                IndexError, KeyError, ImportError) as error:  # fmt: skip
            raise UnsafeModelError(f"its setting {key!r} cannot be read as plain data ({error})") from None
    return found


def check_saved_model(path: str | Path) -> Path:
    """``path`` (or ``path.zip``, as ``model.save`` names it) if it holds a model as stable-baselines3 saves one:
    a zip with its settings (``data``, JSON) and its weights (``policy.pth``).

    Raises:
        FileNotFoundError: no such file. ValueError: anything else; the message names the file and what is wrong.
    """
    path = Path(path)
    if not path.is_file() and path.with_suffix(".zip").is_file():
        path = path.with_suffix(".zip")
    if not path.is_file():
        raise FileNotFoundError(f"no saved model at {path}")
    _read_settings(path)
    return path


def _read_settings(path: Path) -> dict[str, Any]:
    """The ``data`` member of the model zip at ``path``, parsed as JSON (not unpickled)."""
    what = "a model as stable-baselines3's model.save() writes it"
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.namelist()
            missing = [name for name in ("data", "policy.pth") if name not in members]
            if missing:
                raise ValueError(f"{path} is not {what}: it has no {' or '.join(map(repr, missing))} member "
                                 f"(it holds {', '.join(members[:8]) or 'nothing'})")  # fmt: skip
            broken = archive.testzip()  # each member against the CRC-32 the zip records for it
            if broken is not None:
                raise ValueError(f"{path} is damaged: its member {broken!r} is not what was written (its CRC-32 "
                                 "differs)")  # fmt: skip
            data = json.loads(archive.read("data").decode("utf-8"))
    except zipfile.BadZipFile:
        raise ValueError(f"{path} is not {what}: it is not a zip file") from None
    except (UnicodeDecodeError, json.JSONDecodeError, zipfile.LargeZipFile, OSError, RuntimeError) as error:
        raise ValueError(f"{path} is damaged: its settings ('data', JSON) do not parse: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is damaged: its settings ('data') are not a JSON object")
    return data


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of the file at ``path``, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_model(
    path: str | Path,
    algo: str = "maskable_ppo",
    algorithm: Any = None,
    *,
    trust_model: bool = False,
    sha256: str | None = None,
    **kwargs: Any,
) -> Any:
    """The model saved at ``path`` by algorithm ``algo`` (see :data:`ALGORITHMS`), on the CPU unless ``kwargs``
    (passed to the algorithm's ``load``: ``env``, ``device``, ...) say otherwise; ``algorithm``: the class to
    load it as (a subclass of ``algo``'s, such as self-play's collector), if not ``algo``'s own.

    Nothing in the file runs: its pickled settings are read as plain data only (the module docstring); a file
    that needs more is refused unless ``trust_model`` (dangerous: SB3's own load runs whatever the file holds;
    only for a file from a source you trust). ``sha256``: the file's expected digest (a kept model's), checked
    before anything is read from it.

    Raises:
        FileNotFoundError: no such file. ValueError: the file is no such model, or is damaged, or holds code
            (:class:`UnsafeModelError`), or does not match ``sha256``, or was saved by another algorithm; the
            message names the file.
    """
    algorithm = algorithm or algorithm_class(algo)
    path = check_saved_model(path)
    if sha256 is not None and file_sha256(path) != sha256:
        raise ValueError(f"{path} has changed since it was kept: its SHA-256 is not the one recorded for it "
                         "(a damaged or replaced file; python -m train.kept_models check says which)")  # fmt: skip
    objects = {}
    if not trust_model:
        try:
            objects = pickled_values(_read_settings(path))
        except UnsafeModelError as error:
            raise UnsafeModelError(
                f"{path} was not loaded: {error}. Loading it would run code stored in the file. If you trust its "
                "source, load it with trust_model=True (--trust-model)"
            ) from None
    try:
        return algorithm.load(path, **{"device": "cpu", "custom_objects": objects, **kwargs})
    except (AssertionError, ValueError, RuntimeError, KeyError, TypeError, EOFError, zipfile.BadZipFile,
            pickle.UnpicklingError) as error:  # SB3 checks a file against the algorithm with asserts  # fmt: skip
        raise ValueError(f"{path} could not be loaded as a {algo} model: {type(error).__name__}: {error}") from None


def algorithm_class(name: str) -> Any:
    """The SB3 / sb3-contrib class of an algorithm name in :data:`ALGORITHMS`."""
    if name == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    if name in ("ppo", "a2c", "dqn"):
        import stable_baselines3

        return getattr(stable_baselines3, name.upper())
    raise ValueError(f"algo must be one of {ALGORITHMS}, got {name!r}")
