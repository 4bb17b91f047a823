"""``python -m train``: train a policy and compare it with the reference agents (see train.cli)."""

from train.cli import main

if __name__ == "__main__":
    main()
