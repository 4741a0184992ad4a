"""Turns an exception (plus any log text) into the protocol's error classes.

The classes, their texts and the signatures are data: error-signatures.json, which the app's
classify.ts reads too (one table, no second copy to drift). Order matters: an OOM raised while
building an op is still an OOM, and a RuntimeError wrapping "Error building extension" is an op
build failure, not an internal error.
"""
import json
import os
import re
import sys
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


_SIGNATURES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "error-signatures.json")
_TABLE = None


def table():
    """error-signatures.json (shared with the app's classify.ts), patterns compiled. A missing
    or broken file leaves the classes' generic texts and no signatures: every failure is still
    reported, as 'internal', with the reason in the log."""
    global _TABLE
    if _TABLE is None:
        try:
            with open(_SIGNATURES_PATH, encoding="utf-8") as fh:
                raw = json.load(fh)
            sigs = [dict(s, regex=re.compile(s["pattern"], re.IGNORECASE if s.get("ignoreCase") else 0))
                    for s in raw["signatures"]]
            _TABLE = {"classes": raw["classes"], "pipNames": raw.get("pipNames", {}), "signatures": sigs}
        except (OSError, ValueError, KeyError, re.error) as exc:
            print(f"[offload-studio] cannot read {_SIGNATURES_PATH}: {exc}", file=sys.stderr, flush=True)
            _TABLE = {"classes": {}, "pipNames": {}, "signatures": []}
    return _TABLE


def message_for(cls):
    return (table()["classes"].get(cls) or {}).get("message") or cls


def fix_for(cls):
    return (table()["classes"].get(cls) or {}).get("fix") or ""


def pip_name(module):
    return table()["pipNames"].get(module, module)


def _fill(template, match):
    """{1}: capture group 1; {package}: its pip name. None when the group did not match."""
    if template is None:
        return None
    group = match.group(1) if match.re.groups >= 1 else None
    if ("{1}" in template or "{package}" in template) and not group:
        return None
    return template.replace("{package}", pip_name(group or "")).replace("{1}", group or "")


def match_signature(text, scopes=("any", "exception")):
    """(cls, message, fix) of the first signature in the table matching `text`, else None."""
    for sig in table()["signatures"]:
        if sig.get("scope", "any") not in scopes:
            continue
        m = sig["regex"].search(text)
        if m:
            cls = sig["class"]
            return (cls, _fill(sig.get("message"), m) or message_for(cls),
                    _fill(sig.get("fix"), m) or fix_for(cls))
    return None


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
        return "cancelled", message_for("cancelled"), "", ""
    if isinstance(exc, TimeoutError):
        return "timeout", str(exc) or message_for("timeout"), "Raise maxSeconds or run fewer steps.", detail
    if isinstance(exc, (ImportError, ModuleNotFoundError)) and not _looks_like_op_build(exc, detail):
        name = (getattr(exc, "name", None) or "").split(".")[0]
        return ("missing_package", f"A Python package is missing: {name or exc}.",
                f"python -m pip install {pip_name(name) if name else 'the missing package'}", detail)
    if type(exc).__name__ == "OutOfMemoryError":
        return "cuda_oom", message_for("cuda_oom"), fix_for("cuda_oom"), detail
    if isinstance(exc, MemoryError):
        return "host_oom", message_for("host_oom"), fix_for("host_oom"), detail
    head = f"{type(exc).__name__}: {exc}"
    text = f"{head}\n{detail}\n{log_text[-8000:]}"
    # The exception's own text decides first; the traceback/log only as a fallback.
    for candidate in (head, text):
        found = match_signature(candidate)
        if found:
            cls, message, fix = found
            return cls, _with_field(cls, message, candidate), fix, detail
    return "internal", f"The runner failed: {head[:300]}", fix_for("internal"), detail


def _with_field(cls, message, text):
    if cls != "bad_config":
        return message
    field = _config_field(text)
    return f"{message} Field: {field}." if field else message


def _looks_like_op_build(exc, detail):
    """An ImportError raised while building or loading a DeepSpeed op (the table's op_build
    signatures match its text) is an op build failure, not a missing package."""
    text = f"{exc}\n{detail}"
    return any(sig["class"] == "op_build" and sig["regex"].search(text) for sig in table()["signatures"])
