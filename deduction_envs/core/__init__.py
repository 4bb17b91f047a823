"""The game-agnostic framework: the rules protocol, information sets and entropy."""

from deduction_envs.core.entropy import entropy_bits, sampled_entropy_bits, uniform_entropy_bits
from deduction_envs.core.information_set import (
    EnumeratedInformationSet,
    InformationSet,
    TabularInformationSet,
    make_information_set,
)
from deduction_envs.core.rules import MAX_ENUMERABLE_SECRETS, DeductionRules, Step, check_int

__all__ = [
    "MAX_ENUMERABLE_SECRETS",
    "DeductionRules",
    "EnumeratedInformationSet",
    "InformationSet",
    "Step",
    "TabularInformationSet",
    "check_int",
    "entropy_bits",
    "make_information_set",
    "sampled_entropy_bits",
    "uniform_entropy_bits",
]
