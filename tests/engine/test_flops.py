import math

import flops


def test_per_sample_matches_examples_formula_with_checkpointing():
    # Llama-3.2-3B numbers at seq 2048, c = 4: (2·4·N·s + 4·4·L·h·s²)/1e12.
    n, layers, h, s = 3_212_749_824, 28, 3072, 2048
    want = (8 * n * s + 16 * layers * h * s * s) / 1e12
    assert math.isclose(flops.per_sample_tflop(n, layers, h, s, True), want)


def test_c_is_three_without_checkpointing():
    assert math.isclose(flops.per_sample_tflop(10, 1, 2, 3, False) / flops.per_sample_tflop(10, 1, 2, 3, True), 0.75)


def test_step_figures_are_aggregate_and_per_gpu():
    per = flops.per_sample_tflop(1e9, 10, 1000, 1000, True)
    agg, per_gpu = flops.step_tflops(1e9, 10, 1000, 1000, True, global_batch=8, step_seconds=2.0, world_size=4)
    assert math.isclose(agg, 8 * per / 2.0)
    assert math.isclose(per_gpu, agg / 4)


def test_summary_even_and_odd():
    assert flops.summary([3, 1, 2]) == {"median": 2, "min": 1, "max": 3, "mean": 2}
    assert flops.summary([4, 1, 2, 3])["median"] == 2.5
    assert flops.summary([])["median"] is None
