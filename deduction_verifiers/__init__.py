"""The deduction games as a verifiers environment, under the top-level name verifiers looks environments up by
(``vf-eval deduction-verifiers ...``, ``--env.taskset.id deduction-verifiers``): :mod:`train.llm.verifiers_env`."""

from train.llm.verifiers_env import DeductionEnv, DeductionTaskset

__all__ = ["DeductionEnv", "DeductionTaskset"]
