"""What goes into a command and what comes out: arguments the OS cannot take, output floods,
streams closed early, signal dispositions."""

import os
import resource
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like import ErrorCode
from autobyteus_like.tools import SandboxPolicy, ToolContext, ToolFailure, builtin_tools


@pytest.fixture
def file_size_limit():
    """Lower this process's RLIMIT_FSIZE (inherited by everything the call starts) for the test."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)

    def lower(limit: int) -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))

    yield lower
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_a_flood_is_capped_without_ever_reaching_the_disk(run, file_size_limit):
    # 50 MB of output under a 10 MB file-size limit: had any of it been written to a file
    # (the old temporary-file capture), the writer would have died of SIGXFSZ at 10 MB.
    file_size_limit(10_000_000)
    result = run("terminal.run", {"max_output_bytes": 1000},
                 cmd=["head", "-c", "50000000", "/dev/zero"])
    assert (result["exit_code"], len(result["stdout"]), result["truncated"]) == (0, 1000, True)


def test_both_streams_are_capped_separately(run):
    code = "import sys; sys.stdout.write('o' * 5000); sys.stderr.write('e' * 50)"
    result = run("python.exec", {"max_output_bytes": 100}, code=code)
    assert (result["stdout"], result["stderr"], result["truncated"]) == ("o" * 100, "e" * 50,
                                                                         True)


def test_closing_stdout_early_does_not_end_the_call(run):
    result = run("terminal.run", cmd=["sh", "-c", "exec >&-; sleep 0.2; echo late >&2; exit 4"])
    assert (result["stdout"], result["stderr"], result["exit_code"]) == ("", "late\n", 4)


def test_the_command_starts_with_default_signal_handling(run):
    # Python ignores SIGPIPE; a child that inherited that would see `yes` fail with EPIPE
    # instead of dying quietly when `head` stops reading.
    result = run("terminal.run", cmd=["sh", "-c", "yes | head -n 2; grep SigIgn /proc/self/status"])
    assert result["stderr"] == ""
    assert result["stdout"].startswith("y\ny\nSigIgn:")


def test_the_child_gets_stdin_from_dev_null(run):
    result = run("terminal.run", cmd=["sh", "-c", "cat; readlink /proc/self/fd/0"])
    assert result["stdout"] == f"{os.devnull}\n"


def test_the_command_inherits_no_descriptor_beyond_the_three_streams(run):
    # An inherited output file would let it write past the cap; the supervisor's report pipe
    # would let it forge its result.
    code = "import os; print(sorted(map(int, os.listdir('/proc/self/fd'))))"
    result = run("terminal.run", cmd=[sys.executable, "-c", code])
    assert result["stdout"] == "[0, 1, 2, 3]\n"  # 3: the directory listdir has open


def test_empty_arguments_are_arguments(run):
    assert run("terminal.run", cmd=["printf", "[%s][%s]", "", "x"])["stdout"] == "[][x]"


def test_a_signal_death_is_a_negative_exit_code(run):
    assert run("terminal.run", cmd=["sh", "-c", "kill -9 $$"])["exit_code"] == -9


@pytest.mark.parametrize("cmd", [["printf", "a\x00b"], ["\x00"], ["echo", "\ud800"]])
def test_arguments_the_os_cannot_take_are_invalid_args(run, cmd):
    with pytest.raises(ToolFailure) as caught:
        run("terminal.run", cmd=cmd)
    assert caught.value.code is ErrorCode.INVALID_ARGS
    assert "cmd[" in caught.value.message


def test_code_the_os_cannot_take_is_invalid_args(run):
    with pytest.raises(ToolFailure) as caught:
        run("python.exec", code="print('a\x00b')")
    assert caught.value.code is ErrorCode.INVALID_ARGS
    assert "code contains a NUL byte" in caught.value.message


def test_programs_that_cannot_run_are_not_found(run, tmp_path):
    (tmp_path / "plain.txt").write_text("not a program")
    for cmd in (["no-such-program-x"], ["./plain.txt"], ["./missing"], ["/"]):
        with pytest.raises(ToolFailure) as caught:
            run("terminal.run", cmd=cmd)
        assert caught.value.code is ErrorCode.NOT_FOUND, cmd
        assert repr(cmd[0]) in caught.value.message


def test_the_call_env_can_choose_where_programs_are_found(run, tmp_path):
    (tmp_path / "bin").mkdir()
    tool = tmp_path / "bin" / "only-here"
    tool.write_text("#!/bin/sh\necho found\n")
    tool.chmod(0o755)
    result = run("terminal.run", cmd=["only-here"], env={"PATH": str(tmp_path / "bin")})
    assert result["stdout"] == "found\n"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=st.lists(st.text(st.characters(codec=None), max_size=20), max_size=4),
       value=st.text(st.characters(codec=None), max_size=20))
def test_any_text_round_trips_exactly_or_is_refused(tmp_path_factory, args, value):
    # A hostile LLM writes the argv and env: whatever text it sends reaches the program
    # unchanged, or the call is refused as INVALID_ARGS (NUL bytes, lone surrogates).
    sandbox = SandboxPolicy(roots=[tmp_path_factory.getbasetemp()])
    context = ToolContext(agent="t", sandbox=sandbox)
    script = ("import os, sys; sys.stdout.buffer.write("
              "'\\x1f'.join([*sys.argv[1:], os.environ['V']]).encode('utf-8', 'surrogatepass'))")
    try:
        result = builtin_tools().get("terminal.run").run(
            {"cmd": [sys.executable, "-c", script, *args], "env": {"V": value}}, context)
    except ToolFailure as failure:
        assert failure.code is ErrorCode.INVALID_ARGS
        assert any("\x00" in text or any("\ud800" <= c <= "\udfff" for c in text)
                   for text in [*args, value])
        return
    assert result["stdout"] == "\x1f".join([*args, value])
