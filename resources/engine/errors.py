"""Turns an exception (plus any log text) into the protocol's error classes.

Order matters: an OOM raised while building an op is still an OOM, and a RuntimeError
wrapping "Error building extension" is an op build failure, not an internal error.
"""
import re
import traceback


class RunnerError(Exception):
    """A failure the runner itself detected, already classified."""

    def __init__(self, cls, message, fix="", detail=""):
        super().__init__(message)
        self.cls, self.message, self.fix, self.detail = cls, message, fix, detail


class Cancelled(BaseException):
    """Raised from the SIGINT/SIGTERM handler. BaseException so `except Exception` in
    libraries does not swallow it."""


EXIT_CODES = {"ok": 0, "bad_config": 2, "cancelled": 130}
RUNTIME_EXIT = 3


def exit_code(cls):
    return EXIT_CODES.get(cls, RUNTIME_EXIT)


_PIP_NAMES = {"cpuinfo": "py-cpuinfo", "yaml": "pyyaml", "google": "protobuf"}

_RULES = [
    # (class, regex over "Type: message\ntraceback", message, fix)
    ("cuda_oom", r"OutOfMemoryError|CUDA out of memory|CUBLAS_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation",
     "The GPU ran out of memory.",
     "Lower the micro batch or sequence length, turn activation checkpointing on, or offload more (optimizer, then parameters)."),
    ("host_oom", r"\bMemoryError\b|Cannot allocate memory|std::bad_alloc|DefaultCPUAllocator: can't allocate|ENOMEM",
     "The host ran out of memory.",
     "Offload less to the CPU, turn pin_memory off, close other programs, or use a host with more RAM."),
    ("op_build", r"Error building extension|ninja: build stopped|ninja: error|CalledProcessError.*ninja|"
                 r"fatal error: .*\.h: No such file|cannot find -l|is not compatible with the current|OpBuilder|"
                 r"Unable to JIT load|deepspeed/ops/op_builder/",
     "A DeepSpeed C++/CUDA op failed to build.",
     "Install a C++ compiler and ninja (pip install ninja), and for NVMe libaio-dev; see the log for the compiler error."),
    ("distributed", r"NCCL|ProcessGroup|\bgloo\b|Gloo|c10d|init_process_group|DistNetworkError|"
                    r"address already in use|Connection refused|MASTER_ADDR|\bMPI\b",
     "The distributed backend failed.",
     "Check that no other run holds the GPUs or port, that RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT are sane, and NCCL_DEBUG=INFO in the log."),
    ("bad_config", r"ValidationError|DeepSpeedConfigError|extra_forbidden|Extra inputs are not permitted|"
                   r"train_batch_size|Check batch related parameters",
     "DeepSpeed refused the configuration.",
     "Fix the named field in ds_config.json."),
]


def _config_field(text):
    """Pull the offending field name out of a pydantic ValidationError text."""
    m = re.search(r"validation error[s]? for (\w+)\s*\n\s*([\w.\[\]]+)", text)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    m = re.search(r"'(\w+)'.*(?:Extra inputs|not permitted)", text)
    return m.group(1) if m else None


def classify(exc, log_text=""):
    """Returns (cls, message, fix, detail) for an exception."""
    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]
    if isinstance(exc, RunnerError):
        return exc.cls, exc.message, exc.fix, exc.detail or detail
    if isinstance(exc, Cancelled):
        return "cancelled", "The run was cancelled.", "", ""
    if isinstance(exc, TimeoutError):
        return "timeout", str(exc) or "The run took longer than maxSeconds.", \
            "Raise maxSeconds or run fewer steps.", detail
    if isinstance(exc, (ImportError, ModuleNotFoundError)) and not _looks_like_op_build(exc, detail):
        name = (getattr(exc, "name", None) or "").split(".")[0]
        pkg = _PIP_NAMES.get(name, name) or "the missing package"
        return ("missing_package", f"A Python package is missing: {name or exc}.",
                f"python -m pip install {pkg}", detail)
    text = f"{type(exc).__name__}: {exc}\n{detail}\n{log_text[-8000:]}"
    if type(exc).__name__ == "OutOfMemoryError":
        return "cuda_oom", _RULES[0][2], _RULES[0][3], detail
    if isinstance(exc, MemoryError):
        return "host_oom", _RULES[1][2], _RULES[1][3], detail
    if "SuperOffload" in text and "cuda" in text.lower() and "assert" in text.lower():
        return ("unsupported", "SuperOffload asserts a CUDA device; it cannot run on this accelerator.",
                "Pick ZeRO-3 with CPU optimizer offload instead, or run on a CUDA GPU.", detail)
    head = f"{type(exc).__name__}: {exc}"
    for cls, pattern, message, fix in _RULES:
        # The exception's own text decides first; the traceback/log only as a fallback.
        if re.search(pattern, head):
            return cls, _with_field(cls, message, head), fix, detail
    for cls, pattern, message, fix in _RULES:
        if re.search(pattern, text):
            return cls, _with_field(cls, message, text), fix, detail
    return "internal", f"The runner failed: {head[:300]}", "Report this with the run's log.", detail


def _with_field(cls, message, text):
    if cls != "bad_config":
        return message
    field = _config_field(text)
    return f"{message} Field: {field}." if field else message


def _looks_like_op_build(exc, detail):
    return bool(re.search(r"Error building extension|cpp_extension|op_builder", f"{exc}\n{detail}"))
