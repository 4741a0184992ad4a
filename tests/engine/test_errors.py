import errors


def _raise(exc):
    try:
        raise exc
    except BaseException as caught:  # noqa: BLE001
        return caught


class OutOfMemoryError(RuntimeError):
    """Same name as torch.OutOfMemoryError (the classifier matches by name, so torch need
    not be imported for this unit test)."""


def test_cuda_oom_by_type_and_text():
    assert errors.classify(_raise(OutOfMemoryError("x")))[0] == "cuda_oom"
    assert errors.classify(_raise(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")))[0] == "cuda_oom"


def test_host_oom():
    assert errors.classify(_raise(MemoryError()))[0] == "host_oom"
    assert errors.classify(_raise(RuntimeError("DefaultCPUAllocator: can't allocate memory")))[0] == "host_oom"


def test_op_build_failures():
    exc = RuntimeError("Error building extension 'cpu_adam': ninja: build stopped: subcommand failed.")
    assert errors.classify(exc)[0] == "op_build"
    # An ImportError raised while loading a built op is a build problem, not a missing package.
    assert errors.classify(_raise(ImportError("cpu_adam.so: undefined symbol; Error building extension")))[0] == "op_build"


def test_distributed():
    assert errors.classify(_raise(RuntimeError("NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error")))[0] == "distributed"
    assert errors.classify(_raise(RuntimeError("[Gloo] connect: Connection refused")))[0] == "distributed"


def test_missing_package_gives_pip_command():
    cls, _msg, fix, _ = errors.classify(_raise(ModuleNotFoundError("No module named 'cpuinfo'", name="cpuinfo")))
    assert cls == "missing_package" and fix == "python -m pip install py-cpuinfo"


def test_bad_config_names_the_field():
    text = ("1 validation error for DeepSpeedZeroOffloadOptimizerConfig\nsuper_offlaod\n"
            "  Extra inputs are not permitted [type=extra_forbidden]")
    cls, msg, _fix, _ = errors.classify(_raise(ValueError(text)))
    assert cls == "bad_config" and "super_offlaod" in msg


def test_superoffload_on_cpu_is_unsupported():
    exc = _raise(AssertionError("SuperOffload only supports NVIDIA CUDA GPUs, but found accelerator 'cpu'."))
    assert errors.classify(exc)[0] == "unsupported"


def test_runner_errors_keep_their_class_and_exit_codes():
    exc = errors.RunnerError("bad_config", "nope", "fix it")
    assert errors.classify(exc)[:3] == ("bad_config", "nope", "fix it")
    assert errors.exit_code("bad_config") == 2 and errors.exit_code("cancelled") == 130
    assert errors.exit_code("cuda_oom") == 3 and errors.exit_code("internal") == 3


def test_unknown_is_internal_and_timeout():
    assert errors.classify(_raise(KeyError("zzz")))[0] == "internal"
    assert errors.classify(_raise(TimeoutError("slow")))[0] == "timeout"
    assert errors.classify(_raise(errors.Cancelled()))[0] == "cancelled"
