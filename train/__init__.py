"""Command-line entry points: training, evaluation, experiments, plots and play."""
