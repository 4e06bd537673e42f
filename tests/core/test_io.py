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


# ----------------------------------------------------------------------------- a full disk (issue 45, item 3)


def _listing(directory):
    return sorted(p.name for p in directory.iterdir())


@pytest.mark.parametrize("mode", ["w", "wb"])
def test_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path, disk_full, mode):
    target = tmp_path / "payoffs.csv"
    old = os.urandom(64_000)
    target.write_bytes(old)
    with (
        pytest.raises(OutputError) as refused,
        disk_full(4096),
        atomic_write(target, mode) as handle,
    ):
        handle.write("x" * 10_000 if mode == "w" else b"x" * 10_000)
    assert str(refused.value) == f"{target}: cannot write (File too large); the old file is unchanged"
    assert target.read_bytes() == old
    assert _listing(tmp_path) == ["payoffs.csv"]


def test_a_short_file_on_disk_is_refused(tmp_path):
    """The size on disk must be the bytes written: a file that lost some (here cut by hand) never replaces the old."""
    target = tmp_path / "payoffs.csv"
    target.write_text("old\n")
    cut = r"cannot write \(10 of the 100 bytes written reached the disk\)"
    with pytest.raises(OutputError, match=cut), atomic_write(target) as handle:
        handle.write("x" * 100)
        handle.flush()
        os.truncate(handle.buffer.raw.name, 10)
    assert target.read_text() == "old\n"
    assert _listing(tmp_path) == ["payoffs.csv"]


def test_a_writer_by_name_that_leaves_an_empty_or_cut_file_is_refused(tmp_path):
    target = tmp_path / "model.lp"
    target.write_text("old\n")
    with pytest.raises(OutputError, match="left the file empty"), atomic_path(target):
        pass  # the writer "succeeded" and wrote nothing
    with (
        pytest.raises(OutputError, match="before the file's last line"),
        atomic_path(target, ends_with=b"\nend\n") as temporary,
    ):
        temporary.write_text("minimize\n obj: x\nsubject to\n")
    assert target.read_text() == "old\n"
    assert _listing(tmp_path) == ["model.lp"]


def test_an_input_error_in_the_block_is_not_reported_as_a_write_error(tmp_path):
    with pytest.raises(FileNotFoundError), atomic_write(tmp_path / "out.csv"):
        open(tmp_path / "missing.csv").close()
    assert _listing(tmp_path) == []


@pytest.mark.parametrize("fmt", ["lp", "mps"])
@pytest.mark.parametrize("existing", [True, False])
def test_export_on_a_full_disk_keeps_the_old_file_and_says_so_in_one_line(tmp_path, disk_full, capsys, fmt, existing):
    """Leduc's LP (81 kB) and MPS (149 kB) files past a 4 kB limit: HiGHS says "ok", gamelp refuses in one line."""
    from gamelp.cli import main

    target = tmp_path / f"leduc.{fmt}"
    old = os.urandom(64_000)
    if existing:
        target.write_bytes(old)
    with disk_full(4096):
        status = main(["export", "leduc", "-o", str(target)])
    out, err = capsys.readouterr()
    assert status == 2 and "wrote" not in out
    assert err.count("\n") == 1 and err.startswith(f"gamelp: error: {target}: cannot write (")
    assert err.endswith("the old file is unchanged\n" if existing else "nothing was written\n")
    assert _listing(tmp_path) == ([target.name] if existing else [])
    if existing:
        assert target.read_bytes() == old
    assert main(["export", "leduc", "-o", str(target)]) == 0  # with room, the same command writes the whole file
    assert target.read_bytes().endswith(b"\nend\n" if fmt == "lp" else b"\nENDATA\n")


def test_export_on_a_real_full_tmpfs_keeps_the_old_file(small_tmpfs, capsys):
    """The same on a real 64 KiB file system (ENOSPC, where mounting is allowed): the old 64,000 bytes stay."""
    from gamelp.cli import main

    target = small_tmpfs / "leduc.lp"
    old = os.urandom(64_000)
    target.write_bytes(old)
    assert main(["export", "leduc", "-o", str(target)]) == 2
    out, err = capsys.readouterr()
    assert "wrote" not in out and err.count("\n") == 1 and str(target) in err and "the old file is unchanged" in err
    assert target.read_bytes() == old
    assert _listing(small_tmpfs) == ["leduc.lp"]
