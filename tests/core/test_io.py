"""Atomic output files: complete or untouched, temporary files cleaned up, bad paths refused."""

import os

import pytest

from gamelp.errors import OutputError
from gamelp.io import atomic_path, atomic_write


def test_atomic_write_replaces_the_file_only_on_success(tmp_path):
    target = tmp_path / "payoffs.csv"
    target.write_text("old\n")
    with atomic_write(target) as handle:
        handle.write("new\n")
        assert target.read_text() == "old\n"  # readers still see the old file mid-write
    assert target.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["payoffs.csv"]


def test_an_exception_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "payoffs.csv"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_write(target) as handle:
        handle.write("partial")
        raise RuntimeError("killed mid-write")
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["payoffs.csv"]


def test_binary_mode_and_new_files_get_the_umask_mode(tmp_path):
    target = tmp_path / "blob.bin"
    with atomic_write(target, "wb") as handle:
        handle.write(b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_atomic_path_keeps_the_extension_for_writers_that_choose_by_it(tmp_path):
    with atomic_path(tmp_path / "model.mps") as temporary:
        assert temporary.suffix == ".mps" and temporary.parent == tmp_path
        temporary.write_text("NAME\n")
    assert (tmp_path / "model.mps").read_text() == "NAME\n"


@pytest.mark.parametrize("make_bad", ["missing_dir", "directory", "read_only_dir"])
def test_bad_targets_are_refused_naming_the_path(tmp_path, make_bad):
    if make_bad == "missing_dir":
        target = tmp_path / "nowhere" / "x.csv"
    elif make_bad == "directory":
        target = tmp_path / "sub"
        target.mkdir()
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked / "x.csv"
        if os.access(locked, os.W_OK):  # running as root: permissions do not bind
            pytest.skip("permissions are not enforced for this user")
    with pytest.raises(OutputError, match=str(target)), atomic_write(target) as handle:
        handle.write("x")


def test_a_writer_killed_mid_write_leaves_the_old_file(tmp_path):
    import signal
    import subprocess
    import sys

    target = tmp_path / "payoffs.csv"
    target.write_text("old\n")
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time\n"
                "from gamelp.io import atomic_write\n"
                "with atomic_write(sys.argv[1]) as handle:\n"
                "    handle.write('half a matrix'); handle.flush()\n"
                "    print('writing', flush=True); time.sleep(60)\n"
            ),
            str(target),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout.readline() == "writing\n"
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=10)
    assert target.read_text() == "old\n"
    leftovers = [p.name for p in tmp_path.iterdir() if p != target]
    assert len(leftovers) == 1 and leftovers[0].startswith(".payoffs.tmp-")  # a dot-file, never read as output


def test_a_device_or_pipe_is_never_replaced_by_an_atomic_write(tmp_path, capsys):
    """``export -o`` onto a special file is refused before any work (an atomic rename would replace the node)."""
    from gamelp.cli import main

    fifo = tmp_path / "model.lp"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="not a regular file"), atomic_write(fifo) as handle:
        handle.write("x")
    assert main(["export", "kuhn", "--model", "nash", "-o", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file" in err
    assert fifo.is_fifo()  # still the pipe it was


@pytest.mark.parametrize("target", ["missing/curve.png", "a_directory.png"])
def test_a_plot_target_is_checked_before_the_work(tmp_path, capsys, target):
    """--plot refuses a missing directory (as every output file) or a directory, in one line, before solving."""
    from gamelp.cli import main

    (tmp_path / "a_directory.png").mkdir()
    with pytest.raises(SystemExit) as stopped:
        main(["kdet", "kuhn", "--player", "1", "--sweep", "--plot", str(tmp_path / target)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err
    assert not (tmp_path / "missing").exists()


# ----------------------------------------------------------------------------- text inputs


def _sparse_file(path, size: int) -> None:
    with open(path, "wb") as handle:  # a hole: no disk space used
        handle.truncate(size)


@pytest.mark.parametrize("suffix", [".json", ".nfg", ".efg"])
def test_a_text_input_past_the_size_cap_is_refused_before_it_is_read(tmp_path, suffix, capsys):
    from gamelp.cli import main
    from gamelp.io import MAX_TEXT_BYTES

    path = tmp_path / f"huge{suffix}"
    _sparse_file(path, MAX_TEXT_BYTES + 1)
    command = ["solve", str(path)] if suffix != ".nfg" else ["matrix", "solve", str(path)]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "256 MiB" in err


def test_read_text_reads_up_to_the_cap_and_refuses_one_byte_more(tmp_path):
    from gamelp.errors import GameFileError
    from gamelp.io import read_text

    path = tmp_path / "text.txt"
    path.write_text("é" * 10)  # 20 bytes of UTF-8
    assert read_text(path, GameFileError, max_bytes=20) == "é" * 10
    with pytest.raises(GameFileError, match=r"text.txt: larger than the"):
        read_text(path, GameFileError, max_bytes=19)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_card_list_that_is_a_pipe_is_refused_not_waited_on(tmp_path):
    from gamelp.games.errors import LocmError
    from gamelp.games.locm.cards import load_cards

    pipe = tmp_path / "cards.txt"
    os.mkfifo(pipe)
    with pytest.raises(LocmError, match="named pipe"):
        load_cards(pipe)
