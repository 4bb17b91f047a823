import pytest

from train.tools import demo


def test_demo_plays_mastermind_to_the_end_and_prints_the_board(capsys):
    steps = demo.play("Mastermind-v0", {}, seed=1)
    out = capsys.readouterr().out
    assert out.startswith("Mastermind-v0: 1296 possible secrets, 10.34 bits to find")
    assert out.count("Mastermind(pegs=4, colors=6)  step") == steps
    assert "black 4, white 0" in out
    assert out.rstrip().endswith(f"Solved in {steps} queries.")


def test_demo_is_reproducible_and_takes_sizes(capsys):
    demo.main(["--env", "BullsAndCows-v0", "--size", "digits=3", "--seed", "4"])
    first = capsys.readouterr().out
    demo.main(["--env", "BullsAndCows-v0", "--size", "digits=3", "--seed", "4"])
    assert capsys.readouterr().out == first
    assert "720 possible secrets" in first


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "pegs"], "a size is NAME=INTEGER or NAME=true/false"),
        (["--size", "pegs=maybe"], "a size is NAME=INTEGER or NAME=true/false"),
        (["--size", "pegs=true"], "pegs must be an integer in [1, 22], got True"),
        (["--size", "pegs=0"], "pegs must be an integer in [1, 22], got 0"),
        (["--env", "Chess-v0"], "invalid choice"),
    ],
)
def test_demo_reports_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        demo.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
