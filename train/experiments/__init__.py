"""The experiments: the paper's Figure 5, the entropy analysis of the games, the training report, and the Algo,
Clue and Generalized Clue tournaments. Each is a command (``python -m train.experiments.paper_figure5``) whose
tables and figures go to ``results/`` (a quick mode to ``runs/quick/``), with the command that wrote them."""
