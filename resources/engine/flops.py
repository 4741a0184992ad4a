"""Model-TFLOPS formula of the DeepSpeedExamples SuperOffload scripts (docs/engine-facts.md).

Kept identical to finetune_zero3.py's estimate_transformer_tflops so figures compare with
the published ones. c = 4 with activation checkpointing counts the recomputed forward, so
this is "model TFLOPS with recomputation", not MFU.
"""

FORMULA_TEXT = "(2·c·N·s + 4·c·L·h·s²)/1e12 per sample, c=4 with activation checkpointing else 3"


def per_sample_tflop(params, layers, hidden, seq_len, activation_checkpointing):
    c = 4 if activation_checkpointing else 3
    return (2 * c * params * seq_len + 4 * c * layers * hidden * seq_len ** 2) / 1e12


def step_tflops(params, layers, hidden, seq_len, activation_checkpointing, global_batch,
                step_seconds, world_size):
    """Returns (aggregate, per_gpu) TFLOPS for one optimizer step.

    The examples print global_batch × per_sample / step_time, which is the aggregate over
    all GPUs; per GPU divides by the world size.
    """
    if step_seconds <= 0:
        return float("nan"), float("nan")
    aggregate = global_batch * per_sample_tflop(params, layers, hidden, seq_len,
                                                activation_checkpointing) / step_seconds
    return aggregate, aggregate / max(world_size, 1)


def summary(values):
    """median/min/max/mean of a list (median of an even count = mean of the middle two)."""
    if not values:
        return {"median": None, "min": None, "max": None, "mean": None}
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    median = ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return {"median": median, "min": ordered[0], "max": ordered[-1], "mean": sum(ordered) / n}
