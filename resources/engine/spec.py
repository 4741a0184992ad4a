"""Reads the run spec (spec.json or stdin) and checks it before anything heavy is imported.

The spec's shape is the app's RunSpec schema (electron/contract/run-spec.ts), exported as JSON
Schema to run-spec.schema.json next to this file and checked by schema_check.py; here come only
the checks a schema cannot say (relations between fields). Every problem raises SpecError naming
the field, so the orchestrator can show "bad_config: <field>: <why>" without a traceback.
"""
import copy
import json
import os
import sys

import schema_check

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-spec.schema.json")
_schema = None


class SpecError(ValueError):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field


def schema():
    global _schema
    if _schema is None:
        with open(SCHEMA_PATH, encoding="utf-8") as fh:
            _schema = json.load(fh)
    return _schema


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


# Fields specs once carried that no longer mean anything: accepted and dropped (with a line in the
# log), so a spec stored in history or a reproduction bundle before they went still runs. Keep in
# step with RETIRED_SPEC_KEYS in electron/contract/run-spec.ts.
RETIRED_KEYS = {
    "modelImpl": "modelImpl is retired: the model is always built with transformers' own classes "
                 "(the runner's former modules measured the same within 2 %, docs/models.md); the field is ignored",
}


def drop_retired(raw):
    """Removes the retired fields from a spec object; returns the notes to log."""
    if not isinstance(raw, dict):
        return []
    return [RETIRED_KEYS[k] + f" (it said {raw.pop(k)!r})" for k in list(raw) if k in RETIRED_KEYS]


def validate(raw):
    """Returns a checked copy of the spec, the schema's defaults filled in."""
    if isinstance(raw, dict):
        raw = dict(raw)
    for note in drop_retired(raw):
        print(f"[offload-studio] {note}", file=sys.stderr, flush=True)
    try:
        spec = schema_check.validate(raw, schema())
    except schema_check.SchemaError as exc:
        raise SpecError(exc.field, exc.message) from exc
    model = spec["model"]
    if model["numHeads"] % model["numKvHeads"]:
        raise SpecError("model.numKvHeads", "must divide model.numHeads (grouped-query attention)")
    if spec["warmup"] >= spec["steps"]:
        raise SpecError("warmup", f"must be smaller than steps ({spec['steps']}) so some steps are measured")
    if spec["engine"] == "deepspeed":
        if spec["dsConfig"] is None:
            raise SpecError("dsConfig", "must be an object when engine is deepspeed")
        spec["dsConfig"] = reconcile_batch(spec["dsConfig"], spec)
    elif spec["fsdp"] is None:
        raise SpecError("fsdp", "must be an object when engine is fsdp2")
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
        # ZeRO-3 partial optimizer offload: the share of the optimizer's sub-groups stepped on the CPU
        # (the rest stay on the GPU); 1.0 = all of it, as without the key.
        "ratio": float(oo.get("ratio", 1.0)) if int(zero.get("stage", 0)) == 3 else 1.0,
        # DeepSpeed >= 0.19.5 defaults offload pin_memory to true.
        "pinMemory": any(bool(block.get("pin_memory", True)) for block in (oo, op)
                         if (block.get("device") or "none") != "none"),
        "nvmePaths": nvme,
    }
