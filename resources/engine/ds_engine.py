"""DeepSpeed adapter: builds the model (under zero.Init for ZeRO-3), initialises the
engine from the spec's dsConfig, and runs one optimizer step per call. The model is the
transformers class of the spec's config.json (hf_model.py)."""
import copy

import torch

import hf_model
from spec import offload_settings, reconcile_batch

# Used only when dsConfig has no "optimizer" block: with offload, DeepSpeed must create
# DeepSpeedCPUAdam itself (zero_force_ds_cpu_optimizer refuses a torch optimizer).
DEFAULT_OPTIMIZER = {"type": "AdamW", "params": {"lr": 1e-5, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.0}}


class DeepSpeedRun:
    engine_name = "deepspeed"

    def __init__(self, spec, device, world_size, log):
        import deepspeed

        self.spec = spec
        self.log = log
        ds = reconcile_batch(spec["dsConfig"], spec, world_size)
        if "optimizer" not in ds:
            ds["optimizer"] = copy.deepcopy(DEFAULT_OPTIMIZER)
            log("dsConfig has no optimizer block; using AdamW lr 1e-5 (DeepSpeed builds it)")
        self.requested_config = ds
        settings = offload_settings(ds)
        deepspeed.init_distributed()
        m, ac = spec["model"], spec["activationCheckpointing"]
        if settings["stage"] == 3:
            # transformers' own zero.Init path: parameters partitioned (and offloaded if
            # offload_param says so) as each module is constructed, initialised gathered, so the
            # whole model never materialises on one device.
            model = hf_model.build(m, ac, ds_config=ds, zero3=True)
        else:
            with torch.device(device):
                model = hf_model.build(m, ac)
        self.model_for_count = model
        self.engine, self.optimizer, _, _ = deepspeed.initialize(
            model=model, model_parameters=[p for p in model.parameters() if p.requires_grad], config=ds)
        self.device = self.engine.device

    def effective_config(self):
        """The configuration as DeepSpeed resolved it: batch keys computed, ZeRO block with
        its defaults, the clipping actually applied and the optimizer class it built."""
        cfg = self.engine._config
        out = copy.deepcopy(cfg._param_dict)
        out["train_batch_size"] = self.engine.train_batch_size()
        out["train_micro_batch_size_per_gpu"] = self.engine.train_micro_batch_size_per_gpu()
        out["gradient_accumulation_steps"] = self.engine.gradient_accumulation_steps()
        out["gradient_clipping"] = self.engine.gradient_clipping()
        out["zero_optimization"] = cfg.zero_config.model_dump(mode="json")
        return out

    def optimizer_names(self):
        basic = getattr(self.engine, "basic_optimizer", None)
        wrapper = self.engine.optimizer
        return (type(basic).__name__ if basic is not None else None,
                type(wrapper).__name__ if wrapper is not None else None)

    def optimizer_implementation(self):
        """For a torch optimizer DeepSpeed built (no offload): 'fused' | 'foreach' | 'default'
        (torch picks per step); None for DeepSpeed's own (DeepSpeedCPUAdam, FusedAdam)."""
        opt = getattr(self.engine, "basic_optimizer", None)
        if not isinstance(opt, torch.optim.Optimizer) or type(opt).__module__.split(".")[0] != "torch":
            return None
        d = opt.defaults
        return "fused" if d.get("fused") else "foreach" if d.get("foreach") else "default"

    def train_step(self, micro_batches):
        """gradAccum micro-batches; DeepSpeed applies the optimizer at the boundary."""
        loss_sum = None
        for ids in micro_batches:
            loss = self.engine(ids)
            self.engine.backward(loss)
            self.engine.step()
            loss_sum = loss.detach() if loss_sum is None else loss_sum + loss.detach()
        return loss_sum / len(micro_batches)
