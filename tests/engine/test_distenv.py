"""distenv: the ranks of a job started by srun (DeepSpeed's --launcher slurm sets no RANK) come from
Slurm's variables; the deepspeed launcher's own values and a plain single process are unchanged."""
import distenv


def test_ranks_from_slurm_when_the_launcher_set_none():
    env = {"SLURM_PROCID": "3", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1", "SLURM_NTASKS_PER_NODE": "4(x2)",
           "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
    assert distenv.ensure_single_process_env(env) == (3, 1, 8)
    assert env["LOCAL_WORLD_SIZE"] == "4"
    assert env["MASTER_ADDR"] == "10.0.0.1"


def test_the_launchers_own_ranks_win_over_slurms():
    env = {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "1",
           "SLURM_PROCID": "5", "SLURM_NTASKS": "1"}
    assert distenv.ensure_single_process_env(env) == (0, 0, 2)


def test_a_single_process_outside_slurm():
    env = {}
    assert distenv.ensure_single_process_env(env) == (0, 0, 1)
    assert env["MASTER_ADDR"] == "127.0.0.1" and env["MASTER_PORT"].isdigit()
