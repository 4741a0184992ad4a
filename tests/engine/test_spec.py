import pytest

import spec as spec_mod
from conftest import ds_config, tiny_spec


def test_defaults_filled_and_batch_keys_set():
    raw = tiny_spec(dsConfig=ds_config(3), gradAccum=2)
    for key in ("runId", "seed", "maxSeconds", "preflight"):
        raw.pop(key, None)
    s = spec_mod.validate(raw)
    assert (s["runId"], s["seed"], s["maxSeconds"], s["preflight"]) == ("run", 1234, 3600, "strict")
    ds = s["dsConfig"]
    assert ds["train_micro_batch_size_per_gpu"] == 2 and ds["gradient_accumulation_steps"] == 2
    assert ds["bf16"]["enabled"] is True


@pytest.mark.parametrize("over,field", [
    ({"engine": "jax"}, "engine"),
    ({"steps": 3, "warmup": 3}, "warmup"),
    ({"precision": "int8"}, "precision"),
    ({"seqLen": 0}, "seqLen"),
    ({"seqLen": 2.5}, "seqLen"),
    ({"microBatch": True}, "microBatch"),
    ({"dsConfig": None}, "dsConfig"),
    ({"dsConfig": []}, "dsConfig"),
    ({"knobs": {"ratio": 1.5}}, "knobs.ratio"),
    ({"knobs": {"cpuadam_cores_perc": 0.5}}, "knobs.cpuadam_cores_perc"),
    ({"prediction": {"stepSeconds": 1}}, "prediction.tflopsPerGpu"),
    ({"specVersion": 2}, "specVersion"),
    ({"typo": 1}, "typo"),
    ({"preflight": "maybe"}, "preflight"),
    ({"engine": "fsdp2", "fsdp": {"cpuOffload": "yes", "reshardAfterForward": True}}, "fsdp.cpuOffload"),
    ({"engine": "fsdp2", "fsdp": None}, "fsdp"),
])
def test_bad_fields_are_named(over, field):
    base = tiny_spec(dsConfig=ds_config(2))
    base.update(over)
    with pytest.raises(spec_mod.SpecError) as info:
        spec_mod.validate(base)
    assert info.value.field == field


def test_missing_and_nested_fields_are_named():
    s = tiny_spec(dsConfig=ds_config(2))
    del s["configHash"]
    with pytest.raises(spec_mod.SpecError) as info:
        spec_mod.validate(s)
    assert info.value.field == "configHash" and "required" in str(info.value)
    s = tiny_spec(dsConfig=ds_config(2))
    s["model"]["hiddenSize"] = 0
    with pytest.raises(spec_mod.SpecError, match=r"model\.hiddenSize: must be > 0"):
        spec_mod.validate(s)


def test_kv_heads_must_divide_heads():
    s = tiny_spec(dsConfig=ds_config(2))
    s["model"]["numKvHeads"] = 3
    with pytest.raises(spec_mod.SpecError, match="numKvHeads"):
        spec_mod.validate(s)


def test_contradicting_batch_and_precision_refused():
    ds = ds_config(2)
    ds["train_micro_batch_size_per_gpu"] = 8
    with pytest.raises(spec_mod.SpecError, match="train_micro_batch_size_per_gpu"):
        spec_mod.validate(tiny_spec(dsConfig=ds))
    ds = ds_config(2)
    ds["fp16"] = {"enabled": True}
    with pytest.raises(spec_mod.SpecError, match="fp16"):
        spec_mod.validate(tiny_spec(dsConfig=ds))
    ok = spec_mod.validate(tiny_spec(dsConfig=ds_config(2)))
    with pytest.raises(spec_mod.SpecError, match="train_batch_size"):
        spec_mod.reconcile_batch(dict(ok["dsConfig"], train_batch_size=99), ok, world_size=2)


def test_offload_settings():
    ds = ds_config(3)
    ds["zero_optimization"]["offload_param"] = {"device": "nvme", "nvme_path": "/nvme"}
    s = spec_mod.offload_settings(ds)
    assert (s["stage"], s["optimizerDevice"], s["paramDevice"], s["nvmePaths"]) == (3, "cpu", "nvme", ["/nvme"])
