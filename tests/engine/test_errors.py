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


# ---- the shared table (error-signatures.json; classify.ts reads the same file) ----

def test_every_signature_example_classifies_to_its_class():
    for sig in errors.table()["signatures"]:
        assert sig["examples"], sig["pattern"]
        for text in sig["examples"]:
            found = errors.match_signature(text)
            assert found and found[0] == sig["class"], (text, found)
            # Through the whole classifier too (exception text decides).
            if sig["class"] != "missing_package":  # an ImportError is named by its type, not its text
                assert errors.classify(_raise(RuntimeError(text)))[0] == sig["class"], text


def test_log_scope_leaves_out_words_of_healthy_logs():
    healthy = "[2026-12-03 07:40:01] [INFO] Initializing TorchBackend in DeepSpeed with backend gloo"
    assert errors.match_signature(healthy, scopes=("any",)) is None
    assert errors.match_signature(healthy)[0] == "distributed"  # inside an exception it is evidence


def test_templates_fill_the_group_and_the_pip_name():
    cls, msg, fix = errors.match_signature("ModuleNotFoundError: No module named 'cpuinfo'")
    assert cls == "missing_package" and "'cpuinfo'" in msg and "pip install py-cpuinfo" in fix
    _cls, msg, _fix = errors.match_signature("ninja: build stopped: subcommand failed.")
    assert msg == errors.message_for("op_build")  # no op name captured: the class's own message


def test_every_class_the_runner_reports_has_texts_and_an_exit_code():
    classes = errors.table()["classes"]
    runner = {c for c, v in classes.items() if not v.get("orchestratorOnly")}
    assert runner == {"cuda_oom", "host_oom", "op_build", "distributed", "missing_package", "bad_config",
                      "diverged", "timeout", "cancelled", "unsupported", "internal"}
    for cls in runner:
        assert errors.message_for(cls) != cls
        assert (classes[cls]["fix"] is None) == (cls == "cancelled")
    assert errors.exit_code("diverged") == errors.RUNTIME_EXIT
    assert {s["class"] for s in errors.table()["signatures"]} <= runner


def test_patterns_avoid_syntax_only_one_language_has():
    import re
    for sig in errors.table()["signatures"]:
        p = sig["pattern"]
        assert not re.search(r"\(\?[aiLmsux]|\(\?P<|\(\?<[=!]|\(\?<\w", p), p
        assert sig.get("scope", "any") in ("any", "exception")
