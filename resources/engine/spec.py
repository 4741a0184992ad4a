"""Reads and checks the run spec (spec.json or stdin) before anything heavy is imported.

Every problem raises SpecError naming the field, so the orchestrator can show
"bad_config: <field>: <why>" without a traceback.
"""
import copy
import json
import sys


class SpecError(ValueError):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field


_MODEL_INT_FIELDS = ("hiddenSize", "numLayers", "numHeads", "intermediateSize", "vocabSize")


def load(path):
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as exc:
        raise SpecError("--spec", f"cannot read {path}: {exc.strerror}") from exc
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError("--spec", f"not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    return validate(raw)


def _int(obj, key, where, minimum=1, default=None):
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SpecError(f"{where}{key}", f"must be an integer >= {minimum}, got {value!r}")
    return value


def validate(raw):
    """Returns a normalised copy of the spec (defaults filled in)."""
    if not isinstance(raw, dict):
        raise SpecError("spec", "must be a JSON object")
    spec = copy.deepcopy(raw)
    spec.setdefault("runId", "run")
    engine = spec.get("engine", "deepspeed")
    if engine not in ("deepspeed", "fsdp2"):
        raise SpecError("engine", f"must be 'deepspeed' or 'fsdp2', got {engine!r}")
    spec["engine"] = engine

    model = spec.get("model")
    if not isinstance(model, dict):
        raise SpecError("model", "must be an object")
    for key in _MODEL_INT_FIELDS:
        _int(model, key, "model.")
    model.setdefault("numKvHeads", model["numHeads"])
    _int(model, "numKvHeads", "model.")
    if model["numHeads"] % model["numKvHeads"]:
        raise SpecError("model.numKvHeads", "must divide model.numHeads (grouped-query attention)")
    if model.get("headDim") is None:
        if model["hiddenSize"] % model["numHeads"]:
            raise SpecError("model.hiddenSize", "must be a multiple of numHeads when headDim is null")
        model["headDim"] = model["hiddenSize"] // model["numHeads"]
    _int(model, "headDim", "model.")
    model.setdefault("tieEmbeddings", False)
    model.setdefault("ropeTheta", 10000.0)
    model.setdefault("rmsNormEps", 1e-5)
    model.setdefault("family", "llama")
    model.setdefault("id", "custom")

    for key, default in (("seqLen", None), ("microBatch", 1), ("gradAccum", 1), ("steps", None)):
        spec[key] = _int(spec, key, "", default=default)
    spec["warmup"] = _int(spec, "warmup", "", minimum=0, default=0)
    if spec["warmup"] >= spec["steps"]:
        raise SpecError("warmup", f"must be smaller than steps ({spec['steps']}) so some steps are measured")
    spec["seed"] = _int(spec, "seed", "", minimum=0, default=1234)
    precision = spec.setdefault("precision", "bf16")
    if precision not in ("bf16", "fp16", "fp32"):
        raise SpecError("precision", f"must be bf16, fp16 or fp32, got {precision!r}")
    spec["activationCheckpointing"] = bool(spec.get("activationCheckpointing", False))
    max_seconds = spec.setdefault("maxSeconds", 3600)
    if not isinstance(max_seconds, (int, float)) or max_seconds <= 0:
        raise SpecError("maxSeconds", "must be a positive number")
    # "strict" fails on a pre-flight problem; "warn" reports it and goes on (for hosts whose
    # MemAvailable under-reads, such as VMs whose memory balloons up on use).
    if spec.setdefault("preflight", "strict") not in ("strict", "warn"):
        raise SpecError("preflight", "must be 'strict' or 'warn'")

    if engine == "deepspeed":
        ds = spec.get("dsConfig")
        if not isinstance(ds, dict):
            raise SpecError("dsConfig", "must be an object when engine is deepspeed")
        spec["dsConfig"] = reconcile_batch(ds, spec)
    else:
        fsdp = spec.get("fsdp") or {}
        if not isinstance(fsdp, dict):
            raise SpecError("fsdp", "must be an object or null")
        fsdp.setdefault("cpuOffload", False)
        fsdp.setdefault("reshardAfterForward", True)
        spec["fsdp"] = fsdp
    return spec


def reconcile_batch(ds, spec, world_size=None):
    """Fills DeepSpeed's batch keys from the spec, refusing contradictions.

    DeepSpeed checks train_batch_size = micro × accum × world itself, but only after
    initialising the process group; checking here names the field before any cost.
    """
    ds = copy.deepcopy(ds)
    micro, accum = spec["microBatch"], spec["gradAccum"]
    for key, want in (("train_micro_batch_size_per_gpu", micro), ("gradient_accumulation_steps", accum)):
        have = ds.get(key, want)
        if have != want:
            raise SpecError(f"dsConfig.{key}", f"is {have} but the spec asks for {want}")
        ds[key] = want
    if world_size is not None:
        want = micro * accum * world_size
        have = ds.get("train_batch_size", want)
        if have != want:
            raise SpecError("dsConfig.train_batch_size",
                            f"is {have} but micro {micro} × accum {accum} × world {world_size} = {want}")
        ds["train_batch_size"] = want
    precision = spec["precision"]
    for key in ("bf16", "fp16"):
        block = ds.get(key)
        enabled = bool(block.get("enabled", False)) if isinstance(block, dict) else False
        if enabled and key != precision:
            raise SpecError(f"dsConfig.{key}.enabled", f"is true but the spec's precision is {precision}")
    if precision in ("bf16", "fp16"):
        ds.setdefault(precision, {})
        ds[precision]["enabled"] = True
    return ds


def offload_settings(ds):
    """(stage, offload_optimizer device, offload_param device, super_offload, pin_memory, nvme paths)."""
    zero = ds.get("zero_optimization") or {}
    oo = zero.get("offload_optimizer") or {}
    op = zero.get("offload_param") or {}
    nvme = [p for p in (oo.get("nvme_path") if oo.get("device") == "nvme" else None,
                        op.get("nvme_path") if op.get("device") == "nvme" else None) if p]
    return {
        "stage": int(zero.get("stage", 0)),
        "optimizerDevice": oo.get("device", "none") or "none",
        "paramDevice": op.get("device", "none") or "none",
        "superOffload": bool(oo.get("super_offload", False)),
        # DeepSpeed >= 0.19.5 defaults offload pin_memory to true.
        "pinMemory": any(bool(block.get("pin_memory", True)) for block in (oo, op)
                         if (block.get("device") or "none") != "none"),
        "nvmePaths": nvme,
    }
