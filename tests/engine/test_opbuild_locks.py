"""A DeepSpeed/torch JIT op build killed half way left torch's `lock` file in the op's
folder, and every later load of that op waited on it forever. opbuild_env.clear_stale_locks
(run by bench.py before any op loads) removes a lock no process holds and keeps one that a live
build holds open. Stdlib only: runs with any python3 (no torch)."""
import os
import subprocess
import sys
import time

import pytest

import opbuild_env

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc (Linux)")

# torch's FileBaton: O_CREAT|O_EXCL, the fd kept open for the whole build, then close + remove.
HOLDER = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_EXCL)
print("held", flush=True)
time.sleep(60)
"""


def test_a_lock_left_by_a_killed_build_is_removed_and_a_held_one_kept(tmp_path):
    ext = tmp_path / "torch_extensions"
    (ext / "cpu_adam").mkdir(parents=True)
    (ext / "deepspeed_shm_comm").mkdir()
    (ext / "fused_adam").mkdir()  # no lock: nothing to do
    held = ext / "deepspeed_shm_comm" / "lock"

    # A build SIGKILLed while holding its lock: the file stays, nobody has it open.
    killed = subprocess.Popen([sys.executable, "-c", HOLDER, str(ext / "cpu_adam" / "lock")], stdout=subprocess.PIPE, text=True)
    assert killed.stdout.readline().strip() == "held"
    killed.kill()
    killed.wait()
    assert (ext / "cpu_adam" / "lock").exists()

    # A build still running: it holds its lock open.
    live = subprocess.Popen([sys.executable, "-c", HOLDER, str(held)], stdout=subprocess.PIPE, text=True)
    try:
        assert live.stdout.readline().strip() == "held"
        removed = opbuild_env.clear_stale_locks(str(ext))
        assert removed == [os.path.realpath(ext / "cpu_adam" / "lock")]
        assert not (ext / "cpu_adam" / "lock").exists()
        assert held.exists()  # a live build's lock is never taken away
    finally:
        live.kill()
        live.wait()
    # Once that build is gone too, its lock is a leftover as well.
    assert opbuild_env.clear_stale_locks(str(ext)) == [os.path.realpath(held)]


def test_nothing_to_do(tmp_path):
    assert opbuild_env.clear_stale_locks(None) == []
    assert opbuild_env.clear_stale_locks(str(tmp_path / "missing")) == []
    assert opbuild_env.clear_stale_locks(str(tmp_path)) == []
