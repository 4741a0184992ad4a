"""Single-process defaults for torch.distributed / DeepSpeed.

Without RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT DeepSpeed falls back to
MPI discovery (mpi4py) and fails on a plain `python bench.py`. The `deepspeed` launcher
sets them all, so existing values are kept.
"""
import os
import socket


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_single_process_env(environ=os.environ):
    defaults = {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1"}
    for key, value in defaults.items():
        environ.setdefault(key, value)
    if "MASTER_PORT" not in environ:
        environ["MASTER_PORT"] = str(free_port())
    return int(environ["RANK"]), int(environ["LOCAL_RANK"]), int(environ["WORLD_SIZE"])
