"""minigrad.distributed under real MPI: 2 processes on this machine, started with mpiexec.

Skips where the [distributed] extra (mpi4py + mpich) is not installed.
"""
import os
import subprocess
import sys

import pytest

pytest.importorskip("mpi4py")
from minigrad.distributed.run import command  # noqa: E402

HERE = os.path.dirname(__file__)


def launch(script, *args, timeout=60):
    """Run ``script`` on 2 ranks; returns (exit code, output).

    The timeout only tells a hung job (the failure these tests look for: a rank waiting
    forever for a dead peer) from a finished one; it is generous, so a slow, shared
    machine does not fail them.
    """
    done = subprocess.run(command(2, os.path.join(HERE, script), list(args)), capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": os.getcwd()})
    return done.returncode, done.stdout + done.stderr


def test_every_collective_gives_pytorchs_result():
    code, out = launch("collectives_worker.py")
    assert code == 0, out
    assert "rank 0: OK" in out and "rank 1: OK" in out


@pytest.mark.parametrize("mode", ["raise", "die"])
def test_a_failing_rank_ends_the_job_with_an_error(mode):
    code, out = launch("fault_worker.py", mode)
    assert code != 0, out
    assert "all_reduce returned without its peer" not in out
    if mode == "raise":
        assert "rank 1 failed on purpose" in out


def test_a_rank_that_never_arrives_times_out_with_a_clear_error():
    code, out = launch("fault_worker.py", "late")
    assert code != 0, out
    assert "rank 0 caught: all_reduce timed out after 3 s" in out


def test_launcher_passes_script_arguments(tmp_path):
    script = tmp_path / "echo_args.py"
    script.write_text("import pathlib, sys\nfrom mpi4py import MPI\n"
                      "rank, size = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()\n"
                      "out = pathlib.Path(sys.argv[0]).with_name(f'rank{rank}.txt')\n"
                      "out.write_text(f'{rank} {size} {sys.argv[1:]}')\n")
    done = subprocess.run([sys.executable, "-m", "minigrad.distributed.run", "-n", "2", str(script),
                           "--lr", "0.1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "rank0.txt").read_text() == "0 2 ['--lr', '0.1']"
    assert (tmp_path / "rank1.txt").read_text() == "1 2 ['--lr', '0.1']"


@pytest.mark.parametrize("check", ["train", "no_sync", "unused", "unused_without_flag", "mismatch"])
def test_distributed_data_parallel_matches_one_process_on_the_whole_batch(check):
    code, out = launch("ddp_worker.py", check)
    assert code == 0, out
    assert f"rank 0: OK {check}" in out and f"rank 1: OK {check}" in out


def test_digits_example_trains_data_parallel(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    script = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "train_digits.py")
    done = subprocess.run(command(2, script, ["--distributed", "--model", "mlp", "--epochs", "3",
                                              "--quiet", "--out", str(tmp_path)]),
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(l for l in done.stdout.splitlines() if l.startswith("mlp: best test accuracy"))
    assert float(line.split()[4]) > 0.8, line  # 3 short epochs; the full run reaches ~0.97
    assert (tmp_path / "digits_mlp_best.pt").exists() and (tmp_path / "digits_curves.png").exists()
