import os

import preflight
from conftest import ds_config

GiB = 1024 ** 3


def test_host_memory_counts_offloaded_states_and_pinned_buffers():
    ds = ds_config(2)
    need = preflight.host_bytes_needed(1_000_000_000, ds)
    base = 16 * 1_000_000_000 + preflight.PROCESS_OVERHEAD_BYTES
    assert need == base + 4 * int(1e6)  # pinned reduce bucket (4 B/element)
    ds["zero_optimization"]["offload_optimizer"]["pin_memory"] = False
    assert preflight.host_bytes_needed(1_000_000_000, ds) == base
    assert preflight.host_bytes_needed(10, ds_config(2, offload=False)) == preflight.PROCESS_OVERHEAD_BYTES


def test_host_memory_fails_when_not_available():
    check = preflight.check_host_memory(3_000_000_000, ds_config(3), available=8 * GiB)
    assert not check["ok"] and check["cls"] == "host_oom" and "GiB" in check["detail"]
    assert preflight.first_failure([check]) is check
    assert preflight.check_host_memory(1000, ds_config(3), available=64 * GiB)["ok"]


def test_mem_available_parses_meminfo(tmp_path):
    p = tmp_path / "meminfo"
    p.write_text("MemTotal: 100 kB\nMemAvailable:  2048 kB\n")
    assert preflight.mem_available_bytes(str(p)) == 2048 * 1024
    assert preflight.mem_available_bytes(str(tmp_path / "missing")) is None


def test_nvme_path_must_exist_and_be_writable(tmp_path):
    ds = ds_config(3)
    ds["zero_optimization"]["offload_optimizer"] = {"device": "nvme", "nvme_path": str(tmp_path)}
    assert preflight.check_nvme_paths(ds)[0]["ok"]
    ds["zero_optimization"]["offload_optimizer"]["nvme_path"] = str(tmp_path / "nope")
    bad = preflight.check_nvme_paths(ds)[0]
    assert not bad["ok"] and "does not exist" in bad["detail"] and bad["cls"] == "bad_config"
    if os.geteuid() != 0:  # root can write anywhere
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        ds["zero_optimization"]["offload_optimizer"]["nvme_path"] = str(ro)
        assert not preflight.check_nvme_paths(ds)[0]["ok"]


def test_memlock_is_a_warning_only():
    check = preflight.check_memlock(ds_config(2), "cuda")
    assert check["severity"] == "warning" and "ulimit -l" in check["detail"]
    assert preflight.check_memlock(ds_config(2, offload=False), "cuda") is None


def test_ops_checked_with_the_real_builders():
    # The real DeepSpeed CPUAdamBuilder on this host: a compiler and ninja are present in CI.
    checks = preflight.check_ops(ds_config(3), "cpu")
    assert [c["name"] for c in checks] == ["op_cpu_adam"] and checks[0]["ok"]
    ds = ds_config(3)
    ds["zero_optimization"]["offload_optimizer"]["super_offload"] = True
    names = {c["name"]: c for c in preflight.check_ops(ds, "cpu")}
    assert not names["super_offload"]["ok"] and names["super_offload"]["cls"] == "unsupported"


def test_host_memory_uses_the_plans_prediction_when_the_spec_has_one():
    # One host-memory figure per plan. The spec's prediction.hostPeakBytes (what the Plan
    # page showed) is what the pre-flight checks; the runner's own estimate only without one.
    own = preflight.host_bytes_needed(1_000_000_000, ds_config(3))
    predicted = 7 * GiB
    check = preflight.check_host_memory(1_000_000_000, ds_config(3), available=64 * GiB, predicted=predicted)
    assert check["ok"] and check["needBytes"] == predicted != own
    assert "the plan's prediction" in check["detail"] and "~7.0 GiB" in check["detail"]
    tight = preflight.check_host_memory(1_000_000_000, ds_config(3), available=6 * GiB, predicted=predicted)
    assert not tight["ok"] and tight["cls"] == "host_oom"
    for missing in (None, 0):
        assert preflight.check_host_memory(1_000_000_000, ds_config(3), available=64 * GiB, predicted=missing)["needBytes"] == own
    checks = preflight.run_all(1_000_000_000, ds_config(3), "cpu", predicted_host_bytes=predicted)
    assert next(c for c in checks if c["name"] == "host_memory")["needBytes"] == predicted


def test_host_memory_fallback_counts_only_the_offloaded_share_at_zero3_ratio():
    # Llama-3.1-8B at ratio 0.5 on the 125 GiB H200 host: the fallback used to count the whole
    # optimizer on the host (~125.6 GiB) and refused a run whose states are half on the GPU.
    params = 8_030_261_248
    full = ds_config(3)
    full["zero_optimization"]["offload_optimizer"]["pin_memory"] = False
    half = ds_config(3)
    half["zero_optimization"]["offload_optimizer"].update({"pin_memory": False, "ratio": 0.5})
    overhead = preflight.PROCESS_OVERHEAD_BYTES
    assert preflight.host_bytes_needed(params, full) == 16 * params + overhead
    assert preflight.host_bytes_needed(params, half) == 8 * params + overhead
    assert preflight.check_host_memory(params, half, available=122 * GiB)["ok"]
    assert not preflight.check_host_memory(params, full, available=122 * GiB)["ok"]
    # ZeRO-2 has no ratio: the key is ignored there, as DeepSpeed ignores it
    z2 = ds_config(2)
    z2["zero_optimization"]["offload_optimizer"].update({"pin_memory": False, "ratio": 0.5})
    assert preflight.host_bytes_needed(params, z2) == 16 * params + overhead


def test_host_memory_checks_this_hosts_estimate_first_and_quotes_its_basis():
    # runs/start sizes the run on the host it starts on (spec.preflightMemory); the plan's
    # figure for another machine (2 GiB for a 3B ZeRO-1 planned for an H200) is not this host's need.
    sized = {"hostBytes": 52 * GiB, "gpuBytes": None, "basis": "this host's estimate for ZeRO-1 of Llama-3.2-3B"}
    check = preflight.check_host_memory(3_000_000_000, ds_config(2, offload=False), available=22 * GiB,
                                        predicted=2 * GiB, sized=sized, accelerator="cpu")
    assert not check["ok"] and check["cls"] == "host_oom" and check["needBytes"] == 52 * GiB
    assert check["detail"] == ("need ~52.0 GiB of host memory (this host's estimate for ZeRO-1 of Llama-3.2-3B), "
                               "MemAvailable is 22.0 GiB")
    assert "smaller model" in check["fix"]
    checks = preflight.run_all(1_000, ds_config(2, offload=False), "cpu", predicted_host_bytes=2 * GiB, sized=sized)
    assert next(c for c in checks if c["name"] == "host_memory")["needBytes"] == 52 * GiB


def test_host_memory_fallback_on_the_cpu_accelerator_counts_the_states_a_gpu_would_hold():
    # ZeRO-1 without offload on the CPU accelerator: weights, master copy, Adam and gradients are all
    # in host memory (18 B/param here), not only the process overhead.
    params = 3_000_000_000
    no_offload = ds_config(2, offload=False)
    assert preflight.host_bytes_needed(params, no_offload) == preflight.PROCESS_OVERHEAD_BYTES
    on_cpu = preflight.host_bytes_needed(params, no_offload, accelerator="cpu")
    assert on_cpu == 18 * params + preflight.PROCESS_OVERHEAD_BYTES
    check = preflight.check_host_memory(params, no_offload, available=22 * GiB, accelerator="cpu")
    assert not check["ok"] and "no GPU, so all of it is in host memory" in check["detail"]
    # Optimizer offload already counts its 16 B/param on the host; the CPU adds only the weights.
    offload = ds_config(2)
    offload["zero_optimization"]["offload_optimizer"]["pin_memory"] = False
    assert preflight.host_bytes_needed(params, offload, accelerator="cpu") == 18 * params + preflight.PROCESS_OVERHEAD_BYTES


def test_gpu_memory_is_checked_against_this_gpus_free_memory_as_a_warning():
    sized = {"hostBytes": 10 * GiB, "gpuBytes": 70 * GiB, "basis": "this host's estimate"}
    check = preflight.check_gpu_memory(sized, (60 * GiB, 80 * GiB))
    assert not check["ok"] and check["severity"] == "warning" and check["needBytes"] == 70 * GiB
    assert check["detail"] == "this host's estimate is ~70.0 GiB per GPU; this GPU has 60.0 GiB free of 80.0 GiB"
    assert preflight.first_failure([check]) is None  # a warning: the run goes on, the line says why it may not
    assert preflight.check_gpu_memory(sized, (75 * GiB, 80 * GiB))["ok"]
    # No GPU (the CPU accelerator), or no figure: no check.
    assert preflight.check_gpu_memory({"hostBytes": 1, "gpuBytes": None, "basis": "x"}, (1, 2)) is None
    names = [c["name"] for c in preflight.run_all(1000, ds_config(2), "cpu", sized=sized, gpu_free_total=(1, 2))]
    assert "gpu_memory" not in names
    names = [c["name"] for c in preflight.run_all(1000, ds_config(2), "cuda", sized=sized, gpu_free_total=(1, 2))]
    assert "gpu_memory" in names


def test_a_sub_group_buffer_is_never_larger_than_the_model():
    # transformers' tests/deepspeed/ds_config_zero3.json sets sub_group_size 1e14: the pinned
    # sub-group buffer was counted at 4 × 1e14 bytes (364 TiB) and a tiny-llama run was refused
    params = 1_000_000
    ds = ds_config(3)
    ds["zero_optimization"]["sub_group_size"] = 1e14
    need = preflight.host_bytes_needed(params, ds, accelerator="cpu")
    assert need < 1 * GiB + preflight.PROCESS_OVERHEAD_BYTES
    assert preflight.check_host_memory(params, ds, available=8 * GiB, accelerator="cpu")["ok"]


def test_an_enabled_monitor_whose_package_is_missing_is_named_before_initialize():
    # DeepSpeed's monitor tutorial enables tensorboard; without the package initialize stops with
    # ModuleNotFoundError, which read as an internal error
    import importlib.util

    ds = ds_config(1, offload=False)
    ds["tensorboard"] = {"enabled": True, "output_path": "logs/", "job_name": "x"}
    ds["wandb"] = {"enabled": False}
    checks = preflight.check_monitors(ds)
    assert [c["name"] for c in checks] == ["monitor_tensorboard"]
    assert checks[0]["ok"] == (importlib.util.find_spec("tensorboard") is not None)
    if not checks[0]["ok"]:
        assert checks[0]["cls"] == "bad_config" and "tensorboard.enabled" in checks[0]["fix"]
        assert preflight.first_failure(preflight.run_all(1000, ds, "cpu")) is checks[0] or \
            preflight.first_failure(preflight.run_all(1000, ds, "cpu"))["name"] == "monitor_tensorboard"
