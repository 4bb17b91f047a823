"""deduction-envs: reinforcement-learning environments for deduction games.

Importing the package registers every env with Gymnasium; ``gym.register_envs`` says so to a linter::

    import gymnasium as gym
    import deduction_envs

    gym.register_envs(deduction_envs)
    env = gym.make("Mastermind-v0", pegs=5, colors=8)

``gym.make("deduction_envs:Mastermind-v0")`` imports and registers in one go.
"""

from deduction_envs.envs import ENV_IDS, DeductionEnv, register_envs

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "DeductionEnv", "__version__", "register_envs"]

register_envs()
