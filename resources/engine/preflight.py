"""Host-side checks run before the engine starts, so a run that cannot work fails in
seconds with a named reason instead of minutes later inside DeepSpeed.

Each check returns a dict {name, ok, severity, detail}; severity "error" fails the run
(class given by "cls"), "warning" is reported and the run goes on.
"""
import os
import resource
import tempfile

from spec import offload_settings

GiB = 1024 ** 3
# fp32 master weights + Adam m and v (12 B) + fp32 gradients (4 B) held on the host for
# optimizer offload; parameter offload adds the bf16/fp16 weights (2 B).
OPTIMIZER_OFFLOAD_BYTES_PER_PARAM = 16
PARAM_OFFLOAD_BYTES_PER_PARAM = 2
# Python, torch, CUDA context and DeepSpeed's own host buffers.
PROCESS_OVERHEAD_BYTES = 3 * GiB


def mem_available_bytes(meminfo_path="/proc/meminfo"):
    try:
        with open(meminfo_path, encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def host_bytes_needed(params, ds_config, ranks_per_host=1, accelerator="cuda"):
    """Host bytes for offloaded model states on this host, plus pinned staging buffers. On the CPU
    accelerator (no GPU) the states a GPU would hold live in host memory too: a ZeRO-1 run of a 3B
    model is ~50 GB there, not the 3 GiB of process overhead this once said."""
    s = offload_settings(ds_config)
    zero = ds_config.get("zero_optimization") or {}
    need = 0
    if accelerator == "cpu":
        if s["optimizerDevice"] == "none":
            need += OPTIMIZER_OFFLOAD_BYTES_PER_PARAM * params
        if s["paramDevice"] == "none":
            need += PARAM_OFFLOAD_BYTES_PER_PARAM * params
    if s["optimizerDevice"] == "cpu":
        # partial offload (ZeRO-3 ratio < 1) keeps the other sub-groups' states on the GPU
        need += int(OPTIMIZER_OFFLOAD_BYTES_PER_PARAM * params * min(1.0, max(0.0, s["ratio"])))
    if s["paramDevice"] == "cpu":
        need += PARAM_OFFLOAD_BYTES_PER_PARAM * params
    if need and s["pinMemory"]:
        # Pinned bucket buffers (reduce bucket, sub-group swap buffers): 4 bytes per element.
        need += 4 * int(float(zero.get("reduce_bucket_size", 5e8)))
        if s["stage"] == 3:
            # one sub-group's buffer, and a sub-group never holds more than the model: the HF docs'
            # ZeRO-3 config's sub_group_size 1e14 asked for 364 TiB here, and a tiny run was refused
            need += 4 * min(int(float(zero.get("sub_group_size", 1e9))), int(params))
    return need + PROCESS_OVERHEAD_BYTES * ranks_per_host


def check_host_memory(params, ds_config, ranks_per_host=1, available=None, predicted=None, sized=None,
                      accelerator="cuda"):
    """The host memory a run needs against MemAvailable. `sized` is the app's estimate for this run on
    this host (the spec's preflightMemory, set by runs/start where the run starts): used first, its
    basis quoted. `predicted` is the plan's own figure (the spec's prediction.hostPeakBytes, per
    node), for a spec run by hand; the runner's own estimate only without either."""
    available = mem_available_bytes() if available is None else available
    if sized and sized.get("hostBytes", 0) > 0:
        need, source = int(sized["hostBytes"]), sized.get("basis") or "this host's estimate for this run"
    elif predicted and predicted > 0:
        need, source = int(predicted), "the plan's prediction for this run"
    else:
        need = host_bytes_needed(params, ds_config, ranks_per_host, accelerator)
        source = ("model states, offloaded or not, and buffers: no GPU, so all of it is in host memory"
                  if accelerator == "cpu" else "offloaded states and buffers")
    if available is None:
        return _check("host_memory", True, "warning", "MemAvailable unknown (no /proc/meminfo)")
    ok = need <= available
    fix = ("Pick a smaller model, sequence or micro batch for this machine (plan it here: Plan page, or "
           "`npm run cli -- plan`), or run it on a host with more RAM." if accelerator == "cpu" else
           "Offload less to the CPU, turn pin_memory off, or use a host with more RAM.")
    return _check("host_memory", ok, "error", f"need ~{need / GiB:.1f} GiB of host memory ({source}), "
                  f"MemAvailable is {available / GiB:.1f} GiB", cls="host_oom", fix=fix,
                  needBytes=need, availableBytes=available)


def check_gpu_memory(sized, gpu_free_total):
    """This host's per-GPU estimate for the run (the spec's preflightMemory.gpuBytes) against the GPU's
    free memory now: a warning only — the estimate carries a band and the allocator's own slack, and a
    run at the edge is the trial that decides — but one that says both numbers before the run starts
    (a plan for another machine's GPU once said nothing about this one's)."""
    need = (sized or {}).get("gpuBytes")
    if not need or not gpu_free_total:
        return None
    free, total = gpu_free_total
    ok = need <= free
    return _check("gpu_memory", ok, "warning",
                  f"this host's estimate is ~{need / GiB:.1f} GiB per GPU; this GPU has {free / GiB:.1f} GiB free of "
                  f"{total / GiB:.1f} GiB",
                  fix="Free the GPU (another process holds memory: nvidia-smi), or plan this workload for this "
                      "machine and run a configuration that fits.", needBytes=int(need), availableBytes=int(free))


def check_memlock(ds_config, accelerator):
    """Pinned host memory is allocated by the CUDA driver, which does not count it against
    RLIMIT_MEMLOCK, but a low limit still breaks other pinning paths (io_uring/libaio for
    NVMe): report it as a warning only."""
    s = offload_settings(ds_config)
    if not (s["pinMemory"] and (s["optimizerDevice"] != "none" or s["paramDevice"] != "none")):
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    unlimited = soft == resource.RLIM_INFINITY
    detail = "ulimit -l is unlimited" if unlimited else f"ulimit -l is {soft // 1024} KiB"
    ok = unlimited or soft >= GiB or accelerator != "cuda"
    return _check("memlock", ok, "warning", detail, fix="Raise it with `ulimit -l unlimited` "
                  "(or memlock in /etc/security/limits.conf) if pinned buffers fail.")


def check_nvme_paths(ds_config):
    results = []
    for path in offload_settings(ds_config)["nvmePaths"]:
        ok, why = True, "exists and is writable"
        if not os.path.isdir(path):
            ok, why = False, "does not exist"
        else:
            try:
                with tempfile.NamedTemporaryFile(dir=path):
                    pass
            except OSError as exc:
                ok, why = False, f"is not writable ({exc.strerror})"
        results.append(_check("nvme_path", ok, "error", f"nvme_path {path} {why}", cls="bad_config",
                              fix="Point zero_optimization.offload_*.nvme_path at a writable folder on a fast NVMe drive."))
    return results


# A monitor block DeepSpeed starts at initialize, and the package it imports there: an enabled one
# whose package the engine lacks stops initialize with ModuleNotFoundError (DeepSpeed's monitor
# tutorial enables tensorboard; the engine's requirements install none of these).
MONITOR_PACKAGES = {"tensorboard": "tensorboard", "wandb": "wandb", "comet": "comet_ml"}


def check_monitors(ds_config):
    import importlib.util

    results = []
    for block, package in MONITOR_PACKAGES.items():
        cfg = ds_config.get(block)
        if not isinstance(cfg, dict) or cfg.get("enabled") is not True:
            continue
        ok = importlib.util.find_spec(package) is not None
        results.append(_check(f"monitor_{block}", ok, "error",
                              f"{block}.enabled is true: DeepSpeed imports {package} at initialize, "
                              f"which this engine {'has' if ok else 'does not have'}", cls="bad_config",
                              fix=f"Set {block}.enabled to false for the benchmark (your own training keeps it), "
                                  f"or install {package} into the engine's Python."))
    return results


def check_ops(ds_config, accelerator):
    """The ops the config needs must be buildable here (CPU Adam for offload, async_io for NVMe)."""
    s = offload_settings(ds_config)
    results = []
    if s["superOffload"] and accelerator != "cuda":
        results.append(_check("super_offload", False, "error",
                              "SuperOffload asserts a CUDA device; this accelerator is " + accelerator,
                              cls="unsupported", fix="Use ZeRO-3 with CPU optimizer offload here."))
    wants = []
    if s["optimizerDevice"] in ("cpu", "nvme"):
        wants.append(("cpu_adam", "CPUAdamBuilder", "Install a C++ compiler (g++) and ninja."))
    if "nvme" in (s["optimizerDevice"], s["paramDevice"]):
        wants.append(("async_io", "AsyncIOBuilder", "Install libaio (apt install libaio-dev) and a C++ compiler."))
    for name, builder_name, fix in wants:
        try:
            from deepspeed.ops import op_builder
            builder = getattr(op_builder, builder_name)()
            ok = bool(builder.is_compatible(verbose=False))
        except Exception as exc:  # a broken install must not hide behind the check itself
            results.append(_check(f"op_{name}", False, "error", f"cannot check the {name} op: {exc}",
                                  cls="op_build", fix=fix))
            continue
        results.append(_check(f"op_{name}", ok, "error",
                              f"DeepSpeed op {name} is {'buildable' if ok else 'not buildable'} here",
                              cls="op_build", fix=fix))
    return results


def run_all(params, ds_config, accelerator, ranks_per_host=1, predicted_host_bytes=None, sized=None,
            gpu_free_total=None):
    """`gpu_free_total`: (free, total) bytes of this rank's GPU (torch.cuda.mem_get_info), None on the CPU."""
    checks = [check_host_memory(params, ds_config, ranks_per_host, predicted=predicted_host_bytes, sized=sized,
                                accelerator=accelerator),
              check_gpu_memory(sized, gpu_free_total if accelerator == "cuda" else None),
              check_memlock(ds_config, accelerator)]
    checks += check_nvme_paths(ds_config) + check_monitors(ds_config) + check_ops(ds_config, accelerator)
    return [c for c in checks if c is not None]


def first_failure(checks):
    for c in checks:
        if not c["ok"] and c["severity"] == "error":
            return c
    return None


def _check(name, ok, severity, detail, cls=None, fix="", **extra):
    out = {"name": name, "ok": bool(ok), "severity": severity, "detail": detail}
    if cls:
        out["cls"] = cls
    if fix:
        out["fix"] = fix
    out.update(extra)
    return out
