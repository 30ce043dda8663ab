"""The command line: list, show, check, demo, and play driven through its standard input."""

from __future__ import annotations

import re
import subprocess

import pexpect
import pytest
from typer.testing import CliRunner

import palaestra
from palaestra.cli import _typed_action, app

runner = CliRunner()


def _play(script, subprocess_env, *args):
    """`palaestra play ...` in a wide, plain terminal (no line wrapping in what we expect).

    Rich sizes a dumb terminal at 80 columns whatever the pty says unless both COLUMNS and
    LINES are set; at 80 the header wraps at a point that moves with the seed's digits.
    """
    return pexpect.spawn(
        script,
        ["play", *args],
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
        env=subprocess_env(TERM="dumb", COLUMNS="200", LINES="50"),
    )


def flat(text: str) -> str:
    """The output with line wrapping undone."""
    return " ".join(text.split())


def test_list_and_filter():
    result = runner.invoke(app, ["list", "--tag", "tools"])
    assert result.exit_code == 0
    assert "Calculator-v0" in result.output and "GuessNumber-v0" not in result.output


def test_show_prints_spec_arguments_and_an_oracle_episode():
    result = runner.invoke(app, ["show", "Calculator-v0", "--seed", "1"])
    assert result.exit_code == 0, result.output
    output = flat(result.output)
    assert "max_turns: 10" in output and "level: int = 3" in output and "'int'" not in output
    assert "tools: calculator" in output and "return 1.000" in output


def test_unknown_id_and_argument_are_clear_errors():
    result = runner.invoke(app, ["show", "GuesNumber-v0"])
    assert result.exit_code == 2 and "Did you mean 'GuessNumber-v0'" in flat(result.output)
    result = runner.invoke(app, ["play", "Arithmetic-v0", "--arg", "levl=2"])
    assert result.exit_code == 2 and "did you mean 'level'" in flat(result.output)
    result = runner.invoke(app, ["play", "Arithmetic-v0", "--arg", "nonsense"])
    assert result.exit_code != 0 and "name=value" in flat(result.output)


def test_a_bad_argument_value_names_the_env():
    result = runner.invoke(app, ["play", "TicTacToe-v0", "--arg", "level=99"])
    assert result.exit_code == 2
    assert "error: TicTacToe-v0: level must be an integer from 1 to 10, got 99" in flat(
        result.output
    )
    with pytest.raises(ValueError, match=r"^TicTacToe-v0: level must be"):
        palaestra.make("TicTacToe-v0", level=99)


def test_check_one_id():
    result = runner.invoke(app, ["check", "GuessNumber-v0", "--no-cross-process"])
    assert result.exit_code == 0, result.output
    assert "ok" in result.output and "30/30" in result.output


def test_check_needs_an_id_or_all():
    assert runner.invoke(app, ["check"]).exit_code == 2


def test_demo_plays_every_env_with_its_oracle():
    result = runner.invoke(app, ["demo", "--tag", "exemplar"])
    assert result.exit_code == 0, result.output
    assert "3/3 environments solved by their oracle" in flat(result.output)


@pytest.mark.timeout(120)
def test_play_in_a_terminal(palaestra_script, subprocess_env):
    child = _play(palaestra_script, subprocess_env, "GuessNumber-v0", "--seed", "3")
    child.expect("from 1 to 64")
    child.expect("you> ")
    child.sendline("no idea")
    child.expect("Invalid action")
    child.expect("reward -0.100")
    child.expect("you> ")
    for _ in range(8):
        child.sendline(":hint")
        child.expect(r"oracle: (<guess>\d+</guess>)")
        guess = child.match.group(1)
        child.expect("you> ")
        child.sendline(guess)
        child.expect(r"turn \d+: reward")
        if child.expect([r"Episode ended: solved", "you> "]) == 0:
            break
    else:
        pytest.fail("the oracle's hints did not solve the game")
    child.expect(r"Return (\d\.\d+) in (\d+) turns")
    assert float(child.match.group(1)) == pytest.approx(0.9)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.timeout(60)
def test_play_shows_the_board_and_quits(palaestra_script, subprocess_env):
    child = _play(palaestra_script, subprocess_env, "GuessNumber-v0", "--seed", "1")
    child.expect("you> ")
    child.sendline(":board")
    child.expect(re.escape("Secret in [1, 64]; 0/7 guesses used."))
    child.expect("you> ")
    child.sendline(":quit")
    child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.timeout(60)
def test_play_ends_cleanly_at_end_of_input(palaestra_script, subprocess_env):
    child = _play(palaestra_script, subprocess_env, "Arithmetic-v0", "--seed", "1")
    child.expect("you> ")
    child.sendeof()
    child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("command", ["list", "show", "play", "check", "demo"])
def test_help_shows_no_type_beside_flags_and_no_raw_markup(command):
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output and "``" not in result.output
    assert "<list[str]>" not in result.output


def test_show_gives_the_default_make_uses():
    output = flat(runner.invoke(app, ["show", "TicTacToe-v0"]).output)
    assert "kwargs: {'level': 3}" in output and "level: int = 3," in output


def test_list_with_an_unknown_tag_names_the_tags_there_are():
    result = runner.invoke(app, ["list", "--tag", "nosuchtag"])
    assert result.exit_code == 2
    output = flat(result.output)
    assert "no environment is tagged 'nosuchtag'" in output and "two-player" in output
    assert runner.invoke(app, ["demo", "--tag", "nosuchtag"]).exit_code == 2


def test_demo_never_shows_a_return_above_its_best_column():
    result = runner.invoke(app, ["demo", "--tag", "two-player"])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "return" in line)
    columns = [c.strip() for c in header.strip("┃│ ").split("┃")]
    assert "best" not in columns and "guaranteed" in columns
    assert "whatever chance or the opponent does" in flat(result.output)
    row = next(line for line in result.output.splitlines() if "TicTacToe-v0" in line)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    assert float(cells[columns.index("return")]) >= float(cells[columns.index("guaranteed")])


class _WrongOracleEnv(palaestra.Env):
    def _reset(self, options):
        return [palaestra.user("Say yes.")], {}

    def _step(self, action):
        verdict = palaestra.Verdict(0.0, palaestra.Status.INCORRECT, reason="it said no")
        return self.finish(verdict)

    def oracle_action(self):
        return "no"


def _missing_extra(**kwargs):
    message = 'needs math-verify: pip install "palaestra[math]"'
    raise palaestra.errors.MissingDependencyError(message)


def test_demo_says_why_an_env_failed_and_goes_on(registered):
    registered("CliWrongOracle-v0", _WrongOracleEnv, tags=("cli-broken",))
    registered("CliMissingExtra-v0", _missing_extra, tags=("cli-broken",))
    result = runner.invoke(app, ["demo", "--tag", "cli-broken"])
    assert result.exit_code == 1
    output = flat(result.output)
    assert "CliWrongOracle-v0: it said no" in output
    assert "CliMissingExtra-v0: MissingDependencyError: needs math-verify" in output
    assert "palaestra[math]" in output and "0/2 environments solved" in output


@pytest.mark.timeout(60)
def test_play_names_its_seed_and_wraps_a_bare_move(palaestra_script, subprocess_env):
    child = _play(palaestra_script, subprocess_env, "GuessNumber-v0", "--arg", "level=1")
    child.expect(r"\(seed (\S+)\)")
    seed = child.match.group(1)
    assert seed.isdigit(), f"the seed shown is {seed!r}"
    child.expect("sent as <guess>")
    child.expect("you> ")
    child.sendline(":hint")
    child.expect(r"oracle: <guess>(\d+)</guess>")
    guess = child.match.group(1)
    child.expect("you> ")
    child.sendline(guess)  # bare: the CLI wraps it
    child.expect(r"turn 1: reward ([-+.\d]+)")
    assert "Invalid action" not in child.before
    child.sendline(":quit")
    child.expect(pexpect.EOF)
    child.close()


def test_train_help_shows_no_type_beside_flags_and_no_raw_markup(palaestra_script, subprocess_env):
    result = subprocess.run(
        [palaestra_script, "train", "--help"],
        capture_output=True,
        text=True,
        env=subprocess_env(COLUMNS="100"),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "grpo (group baselines" in flat(result.stdout)
    assert "<bool>" not in result.stdout and "``" not in result.stdout


@pytest.mark.parametrize(
    "env_id",
    [
        s.id
        for s in palaestra.list_envs()
        if ("single-turn" in s.tags or "game" in s.tags) and "code" not in s.tags
    ],
)
def test_a_bare_reply_is_wrapped_in_the_tag_the_env_reads(env_id):
    with palaestra.make(env_id) as env:
        env.reset(seed=0)
        oracle = env.oracle_action()
        tag = env.reply_tag
        assert tag is not None and isinstance(oracle, str), f"{env_id} takes no bare reply"
        match = re.fullmatch(rf"(?s)\s*<{tag}>(.*)</{tag}>\s*", oracle)
        assert match, f"{env_id}: the oracle's {oracle!r} is not one <{tag}> reply"
        assert _typed_action(match.group(1), tag) == f"<{tag}>{match.group(1).strip()}</{tag}>"
        _, _, _, _, info = env.step(_typed_action(match.group(1), tag))
        assert not info.get("invalid_action"), info.get("invalid_reason")


@pytest.mark.timeout(60)
def test_play_a_single_turn_task_with_a_bare_answer(palaestra_script, subprocess_env):
    child = _play(palaestra_script, subprocess_env, "Arithmetic-v0", "--seed", "2")
    child.expect("you> ")
    child.sendline(":hint")
    child.expect(r"oracle: <answer>(-?\d+)</answer>")
    answer = child.match.group(1)
    child.expect("you> ")
    child.sendline(answer)
    child.expect(r"Episode ended: solved.*Return 1\.000 in 1 turn\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
