import io
import json
import os
import subprocess
import sys
import textwrap

import protocol
from conftest import ENGINE


def test_every_line_has_version_type_and_time():
    buf = io.StringIO()
    w = protocol.ProtocolWriter(buf)
    w.emit("step", step=1, loss=2.5)
    obj = json.loads(buf.getvalue())
    assert obj["v"] == 1 and obj["type"] == "step" and isinstance(obj["t"], float)
    assert obj["step"] == 1 and obj["loss"] == 2.5
    assert w.overhead_seconds > 0


def test_non_finite_numbers_become_null():
    buf = io.StringIO()
    protocol.ProtocolWriter(buf).emit("step", loss=float("nan"), nested={"x": [float("inf"), 1.0]})
    obj = json.loads(buf.getvalue())  # strict JSON: no NaN token
    assert obj["loss"] is None and obj["nested"]["x"] == [None, 1.0]


def test_disabled_writer_on_other_ranks_writes_nothing():
    buf = io.StringIO()
    assert protocol.ProtocolWriter(buf, enabled=False).emit("hello") is None
    assert buf.getvalue() == ""


def test_take_over_stdout_sends_library_output_to_stderr():
    # Python prints, C-level writes to fd 1 and child processes must all land on stderr.
    code = textwrap.dedent(f"""
        import os, subprocess, sys
        sys.path.insert(0, {ENGINE!r})
        import protocol
        w = protocol.ProtocolWriter(protocol.take_over_stdout())
        print("library print")
        os.write(1, b"raw fd write\\n")
        subprocess.run(["echo", "child output"])
        w.emit("hello", x=1)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["type"] == "hello"
    for text in ("library print", "raw fd write", "child output"):
        assert text in proc.stderr
