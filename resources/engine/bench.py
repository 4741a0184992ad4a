"""Offload Studio benchmark runner.

    python -u bench.py --spec spec.json          (one process; sets RANK/WORLD_SIZE/... itself)
    deepspeed --num_gpus N bench.py --spec spec.json

Speaks JSON lines on stdout (protocol.py: hello, preflight, config, step, memory, result,
error); everything else goes to stderr, the run's log. Exit codes: 0 ok, 2 bad_config,
3 runtime error, 130 cancelled.
"""
import argparse
import math
import os
import platform
import signal
import socket
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import errors  # noqa: E402  (stdlib-only modules: safe before the stdout take-over)
import protocol  # noqa: E402

RUNNER_VERSION = "0.1.0"


def log(msg):
    print(f"[offload-studio] {msg}", file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--spec", required=True, help="path to spec.json, or - for stdin")
    # The deepspeed launcher appends --local_rank=N; LOCAL_RANK in the environment wins.
    p.add_argument("--local_rank", "--local-rank", type=int, default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def install_signal_handlers():
    def handler(signum, _frame):
        raise errors.Cancelled(signal.Signals(signum).name)
    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def start_watchdog(writer, max_seconds, grace=60.0):
    """Last resort for a run stuck inside C code (a hung collective, a wedged op build),
    where the per-step maxSeconds check never gets control back: report and hard-exit."""
    def fire():
        writer.emit("error", **{"class": "timeout",
                                "message": f"The run exceeded maxSeconds ({max_seconds:g} s) and did not return.",
                                "fix": "Raise maxSeconds, or look in the log for a hung collective or op build.",
                                "detail": ""})
        os._exit(errors.RUNTIME_EXIT)
    t = threading.Timer(max_seconds + grace, fire)
    t.daemon = True
    t.start()
    return t


def hello_fields(torch, accelerator, rank, world_size):
    try:
        import deepspeed
        ds_version = deepspeed.__version__
    except ImportError:
        ds_version = None
    devices = []
    if accelerator == "cuda":
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            devices.append({"index": i, "name": props.name, "memoryBytes": int(props.total_memory)})
    return {"runnerVersion": RUNNER_VERSION, "python": platform.python_version(), "torch": torch.__version__.split("+")[0],
            "deepspeed": ds_version, "cuda": torch.version.cuda if accelerator == "cuda" else None,
            "accelerator": accelerator, "devices": devices, "rank": rank, "worldSize": world_size,
            "hostname": socket.gethostname(), "pid": os.getpid()}


def seq_len_over(spec, limit):
    return spec["seqLen"] > limit


def run(spec, writer, rank, local_rank, world_size, started):
    import torch

    import flops
    import memory
    import preflight
    from families import expected_param_count
    from synthetic import synthetic_batches

    accelerator = "cuda" if torch.cuda.is_available() else "cpu"
    writer.emit("hello", **hello_fields(torch, accelerator, rank, world_size))
    if accelerator == "cuda":
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cpu")
    torch.manual_seed(spec["seed"] + rank)

    m = spec["model"]
    import hf_model
    # The count the model must have: the family formula for a spec of architecture numbers (it
    # checks config_from_arch), else the model itself on the meta device (the same probe the
    # tuner's count comes from).
    params_expected = hf_model.probe(hf_model.config_dict(m))["params"] if hf_model.has_config(m) else expected_param_count(m)
    # Pre-flight: FSDP2 CPU offload holds the same host states as DeepSpeed's optimizer +
    # parameter offload, so it is checked through the same estimate.
    if spec["engine"] == "deepspeed":
        pf_config = spec["dsConfig"]
    elif spec["fsdp"]["cpuOffload"]:
        pf_config = {"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": True},
                                           "offload_param": {"device": "cpu", "pin_memory": True}}}
    else:
        pf_config = {}
    ranks_per_host = int(os.environ.get("LOCAL_WORLD_SIZE", world_size))
    # The host memory figure: the app's estimate for this run on this host (preflightMemory, set by
    # runs/start), else the plan's (the spec's prediction, per node), else the runner's own.
    predicted_host = (spec.get("prediction") or {}).get("hostPeakBytes")
    gpu_free_total = torch.cuda.mem_get_info() if accelerator == "cuda" else None
    checks = preflight.run_all(params_expected // max(world_size, 1) * ranks_per_host, pf_config, accelerator,
                               predicted_host_bytes=predicted_host, sized=spec.get("preflightMemory"),
                               gpu_free_total=gpu_free_total)
    if spec["engine"] == "fsdp2":
        checks = [c for c in checks if not c["name"].startswith("op_")]
    writer.emit("preflight", checks=checks, mode=spec["preflight"])
    failed = preflight.first_failure(checks)
    if failed and (spec["preflight"] == "strict" or failed.get("cls") in ("unsupported", "bad_config", "op_build")):
        raise errors.RunnerError(failed.get("cls", "bad_config"), f"Pre-flight: {failed['detail']}.", failed.get("fix", ""))

    log(f"model: built from {hf_model.config_source(m)[1]}")
    t_init = time.perf_counter()
    if spec["engine"] == "deepspeed":
        from ds_engine import DeepSpeedRun
        runner = DeepSpeedRun(spec, device, world_size, log)
    else:
        from fsdp_engine import FsdpRun
        runner = FsdpRun(spec, device, world_size, log)
    init_seconds = time.perf_counter() - t_init
    device = runner.device

    params, trainable = hf_model.count_params(runner.model_for_count)
    if params != params_expected:
        raise errors.RunnerError("internal", f"Model has {params} parameters, the architecture says {params_expected}.")
    limit = hf_model.position_limit(runner.model_for_count)
    if limit is not None and seq_len_over(spec, limit):
        raise errors.RunnerError("bad_config", f"{m.get('id')} learns {limit} positions; a sequence of {spec['seqLen']} tokens "
                                 f"has no position embedding past {limit}.", f"Lower the sequence length to {limit} or less.")
    # The prediction shown to the user was made with the tuner's count (services/tuner/params.ts);
    # measured TFLOPS use this build's. They agree for every preset family (tests on both sides);
    # a difference is stored (config.paramsPredicted) and said in the log, never hidden.
    params_predicted = (spec.get("prediction") or {}).get("params")
    if params_predicted is not None and params_predicted != params:
        log(f"warning: the prediction counted {params_predicted} parameters, this {m.get('family')} build has {params}: "
            "measured and predicted TFLOPS describe different parameter counts")
    micro, accum, seq = spec["microBatch"], spec["gradAccum"], spec["seqLen"]
    global_batch = micro * accum * world_size
    opt_basic, opt_wrapper = runner.optimizer_names()
    opt_impl = runner.optimizer_implementation() if hasattr(runner, "optimizer_implementation") else None
    writer.emit("config", engine=runner.engine_name, params=params, trainableParams=trainable,
                layers=m["numLayers"], hidden=m["hiddenSize"], seqLen=seq, globalBatch=global_batch,
                microBatch=micro, gradAccum=accum, worldSize=world_size,
                activationCheckpointing=spec["activationCheckpointing"], precision=spec["precision"],
                effectiveConfig=runner.effective_config(), formula=flops.FORMULA_TEXT,
                optimizer=opt_basic, optimizerWrapper=opt_wrapper, optimizerImpl=opt_impl, initSeconds=init_seconds,
                modelId=m.get("id"), modelFamily=m.get("family"), paramsPredicted=params_predicted,
                modelClass=hf_model.model_class_name(runner.model_for_count),
                runId=spec["runId"], strategy=spec["strategy"], configHash=spec["configHash"])

    # Distinct synthetic batches per micro-batch slot, reused across steps (generation is
    # outside the timed region either way).
    batches = synthetic_batches(m["vocabSize"], micro, seq, accum * min(spec["steps"], 4), spec["seed"] + rank, device)
    dev_mem = memory.DeviceMemory(torch, accelerator)
    # A Mixture-of-Experts token computes only its routed experts: TFLOPS count those parameters
    # (the tuner's time model does the same; memory holds them all).
    inner = getattr(runner.model_for_count, "model", runner.model_for_count)
    moe = hf_model.moe_counts(inner, inner.config) if hf_model.has_config(m) else None
    if moe:
        log(f"model: Mixture-of-Experts, {moe['experts']} experts, {moe['expertsPerToken']} per token: "
            f"{moe['activeParams']} of {params} parameters active per token (TFLOPS count those); router auxiliary "
            f"loss in the loss; ZeRO-3 leaf modules: {getattr(inner, 'moe_leaf_classes', None) if spec['engine'] == 'deepspeed' else 'n/a'}")
    per_sample = flops.per_sample_tflop(moe["activeParams"] if moe else params, m["numLayers"], m["hiddenSize"], seq,
                                        spec["activationCheckpointing"])
    measured = {"step": [], "tpg": [], "agg": [], "tps": []}
    losses, peak_gpu, peak_host = [], None, 0
    overhead_measured, step_time_measured = 0.0, 0.0

    retries_before = None  # the allocator's retries when the measured steps begin
    for step in range(1, spec["steps"] + 1):
        warm = step <= spec["warmup"]
        if not warm and retries_before is None:
            retries_before = dev_mem.alloc_retries()
        slot = (step - 1) % max(1, len(batches) // accum)
        micro_batches = batches[slot * accum:(slot + 1) * accum]
        dev_mem.synchronize()
        t0 = time.perf_counter()
        loss = runner.train_step(micro_batches)
        dev_mem.synchronize()
        t1 = time.perf_counter()
        step_seconds = t1 - t0

        # Everything from here to the emit is the runner's own per-step cost.
        loss_value = float(loss.item())
        aggregate = global_batch * per_sample / step_seconds
        per_gpu = aggregate / world_size
        tokens = global_batch * seq / step_seconds
        allocated, reserved, peak = dev_mem.sample()
        rss, _kids = memory.host_rss_bytes()
        peak_host = max(peak_host, rss)
        if peak is not None:
            peak_gpu = max(peak_gpu or 0, peak)
        losses.append(loss_value)
        if not warm:
            measured["step"].append(step_seconds)
            measured["tpg"].append(per_gpu)
            measured["agg"].append(aggregate)
            measured["tps"].append(tokens)
        writer.emit("step", step=step, warmup=warm, stepSeconds=step_seconds, tokensPerSecond=tokens,
                    tflopsPerGpu=per_gpu, tflopsAggregate=aggregate, loss=loss_value,
                    gpuAllocatedBytes=allocated, gpuReservedBytes=reserved, gpuPeakBytes=peak,
                    hostRssBytes=rss, hostRssChildrenBytes=_kids)
        overhead = time.perf_counter() - t1
        if not math.isfinite(loss_value):
            # The step line above carries the loss (NaN/inf → null on the app's side); the run
            # must not end `completed` with figures of a model that no longer trains.
            raise errors.RunnerError(
                "diverged", f"The loss became {loss_value} at step {step}{' (warm-up)' if warm else ''}.",
                errors.fix_for("diverged"))
        if not warm:
            overhead_measured += overhead
            step_time_measured += step_seconds
        if time.time() - started > spec["maxSeconds"]:
            raise TimeoutError(f"The run exceeded maxSeconds ({spec['maxSeconds']:g} s) at step {step}.")

    peak_host = max(peak_host, memory.host_peak_self_bytes())
    retries_after = dev_mem.alloc_retries()
    alloc_retries = retries_after - retries_before if retries_before is not None and retries_after is not None else None
    writer.emit("result", status="completed", measuredSteps=len(measured["step"]),
                stepSeconds=flops.summary(measured["step"]), tflopsPerGpu=flops.summary(measured["tpg"]),
                tflopsAggregate=flops.summary(measured["agg"]), tokensPerSecond=flops.summary(measured["tps"]),
                peakGpuBytes=peak_gpu, peakGpuReservedBytes=dev_mem.peak_reserved(), peakHostBytes=peak_host, lossFirst=losses[0], lossLast=losses[-1],
                overheadFraction=overhead_measured / step_time_measured if step_time_measured else None,
                overheadSecondsPerStep=overhead_measured / max(1, len(measured["step"])),
                gpuAllocRetries=alloc_retries, wallSeconds=time.time() - started)


def main(argv=None):
    started = time.time()
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import distenv
    rank, local_rank, world_size = distenv.ensure_single_process_env()
    if args.local_rank is not None and "LOCAL_RANK" not in os.environ:
        local_rank = args.local_rank
    import opbuild_env
    old_arch = opbuild_env.sanitize_cuda_arch_list()
    opbuild_env.prefer_interpreter_ninja()
    ext_dir = opbuild_env.default_extensions_dir()
    stale = opbuild_env.clear_stale_locks(ext_dir)
    stream = protocol.take_over_stdout()
    if old_arch is not None:
        log(f"TORCH_CUDA_ARCH_LIST {old_arch!r} -> {os.environ['TORCH_CUDA_ARCH_LIST']!r} (DeepSpeed cannot parse arch suffixes)")
    for lock in stale:
        log(f"removed {lock}: left by an op build that was killed half way (no process held it); the op is rebuilt")
    writer = protocol.ProtocolWriter(stream, enabled=rank == 0)
    install_signal_handlers()
    # The app SIGKILLed or crashed: end now (and free GPU/pinned memory), not at the next write.
    import parent_watch
    parent_watch.start(stream.fileno(), on_orphan=stop_children)
    code = 0
    try:
        import spec as spec_mod
        try:
            spec = spec_mod.load(args.spec)
        except spec_mod.SpecError as exc:
            raise errors.RunnerError("bad_config", f"The run spec is invalid: {exc}.", "Fix the named field.") from exc
        import families
        import hf_model
        try:
            numbers_only = not hf_model.has_config(spec["model"])
            refused = hf_model.refusal(spec) or (families.refusal(spec["model"], spec["seqLen"]) if numbers_only else None)
        except hf_model.ConfigRefused as exc:
            refused = exc.as_tuple()
        if refused:
            raise errors.RunnerError(*refused)
        start_watchdog(writer, float(spec["maxSeconds"]))
        run(spec, writer, rank, local_rank, world_size, started)
    except BaseException as exc:  # noqa: BLE001 - every failure must become an error line
        if isinstance(exc, SystemExit) and exc.code in (0, None):
            raise
        # A second Ctrl-C / SIGTERM while reporting must not cut the error line short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        cls, message, fix, detail = errors.classify(exc)
        log(f"{cls}: {message}\n{detail}")
        # Other ranks stay silent on stdout but still say why in their log.
        reached = {}
        if cls in ("cuda_oom", "host_oom"):
            import memory
            reached = {"reached": memory.reached_at_failure()}
        writer.emit("error", **{"class": cls, "message": message, "fix": fix, "detail": detail, "rank": rank, **reached})
        code = errors.exit_code(cls)
    finally:
        stream.flush()
    # os._exit: DeepSpeed/SuperOffload worker processes and atexit hooks of a failed
    # collective can block a normal interpreter exit.
    stop_children()
    sys.stderr.flush()
    os._exit(code)


def stop_children():
    """End the worker processes this run started (SuperOffload's CPU Adam worker, compile
    workers) by pid, since os._exit skips multiprocessing's own cleanup."""
    try:
        import psutil
    except ImportError:
        return
    kids = psutil.Process().children(recursive=True)
    for child in kids:
        try:
            child.terminate()
        except psutil.NoSuchProcess:
            pass
    _gone, alive = psutil.wait_procs(kids, timeout=5)
    for child in alive:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass


if __name__ == "__main__":
    main()
