"""Single-process defaults for torch.distributed / DeepSpeed.

Without RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT DeepSpeed falls back to
MPI discovery (mpi4py) and fails on a plain `python bench.py`. The `deepspeed` launcher
sets them all, so existing values are kept. Under srun (DeepSpeed's `--launcher slurm` starts
every rank with srun, which sets none of them) the ranks come from Slurm's SLURM_PROCID,
SLURM_LOCALID and SLURM_NTASKS; MASTER_ADDR and MASTER_PORT come from the job script.
"""
import os
import socket


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def from_slurm(environ):
    if "RANK" in environ or "SLURM_PROCID" not in environ or "SLURM_NTASKS" not in environ:
        return
    environ["RANK"] = environ["SLURM_PROCID"]
    environ["WORLD_SIZE"] = environ["SLURM_NTASKS"]
    environ["LOCAL_RANK"] = environ.get("SLURM_LOCALID", "0")
    tasks_here = environ.get("SLURM_NTASKS_PER_NODE", "").split("(")[0]
    if tasks_here.isdigit():
        environ.setdefault("LOCAL_WORLD_SIZE", tasks_here)


def ensure_single_process_env(environ=os.environ):
    from_slurm(environ)
    defaults = {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1"}
    for key, value in defaults.items():
        environ.setdefault(key, value)
    if "MASTER_PORT" not in environ:
        environ["MASTER_PORT"] = str(free_port())
    return int(environ["RANK"]), int(environ["LOCAL_RANK"]), int(environ["WORLD_SIZE"])
