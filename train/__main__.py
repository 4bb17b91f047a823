"""``python -m train``: train a policy and compare it with the reference agents (see train.training)."""

from train.training import main

if __name__ == "__main__":
    main()
