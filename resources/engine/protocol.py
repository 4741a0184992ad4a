"""JSON-lines protocol writer: the only thing that may write to the runner's real stdout.

Libraries (DeepSpeed, torch, ninja output from op builds) print freely to stdout. The
orchestrator parses stdout as JSON lines, so at start-up the runner saves the real stdout
in a private fd, points fd 1 at stderr, and writes protocol lines only through this module.
"""
import json
import math
import os
import sys
import time

PROTOCOL_VERSION = 1


def _clean(value):
    """JSON has no NaN/Infinity; the orchestrator's schema would reject them. Map to null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class ProtocolWriter:
    """Writes one JSON object per line with "v", "type" and "t" first.

    `enabled` is False on ranks other than 0 (rank 0 reports for the whole run).
    `overhead_seconds` accumulates the time spent encoding and writing, so the runner can
    report its own cost against step time.
    """

    def __init__(self, stream, enabled=True):
        self._stream = stream
        self.enabled = enabled
        self.overhead_seconds = 0.0

    def emit(self, type_, **fields):
        if not self.enabled:
            return None
        start = time.perf_counter()
        obj = {"v": PROTOCOL_VERSION, "type": type_, "t": time.time()}
        obj.update(fields)
        line = json.dumps(_clean(obj), separators=(",", ":"), default=str)
        self._stream.write(line + "\n")
        self._stream.flush()
        self.overhead_seconds += time.perf_counter() - start
        return obj


def take_over_stdout():
    """Detach the real stdout for protocol use and send everything else on fd 1 to stderr.

    Done at the fd level (os.dup2) rather than by swapping sys.stdout, because C++ extensions
    and subprocesses (ninja during the CPU Adam JIT build) write to fd 1 directly.
    Returns a line-buffered text stream on the saved fd.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(saved, "w", buffering=1, encoding="utf-8")
