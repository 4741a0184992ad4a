"""resources/engine/probe.py: one JSON line on stdout, facts that match the interpreter running it."""

import json
import os
import subprocess
import sys

import pytest

PROBE = os.path.join(os.path.dirname(__file__), "..", "..", "resources", "engine", "probe.py")


def run_probe(python=sys.executable, env=None):
    out = subprocess.run([python, PROBE], capture_output=True, text=True, timeout=180, env=env)
    assert out.returncode == 0, out.stderr
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    assert len(lines) == 1, "probe must print exactly one line on stdout, got: %r" % out.stdout[:2000]
    return json.loads(lines[0])


def test_one_json_line_describing_this_interpreter():
    facts = run_probe()
    assert facts["probeVersion"] == 1
    assert facts["pythonVersion"] == "%d.%d.%d" % sys.version_info[:3]
    assert os.path.realpath(facts["executable"]) == os.path.realpath(sys.executable)
    assert set(facts["build"]) == {"ninja", "cxx", "libaio"}
    assert facts["probeSeconds"] >= 0


def test_torch_and_deepspeed_facts_when_installed():
    torch = pytest.importorskip("torch")
    facts = run_probe()
    assert facts["torch"]["version"] == torch.__version__
    assert facts["torch"]["cuda"] == torch.version.cuda
    assert facts["torch"]["cudaAvailable"] == torch.cuda.is_available()
    assert len(facts["torch"]["devices"]) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    try:
        import deepspeed  # noqa: F401
    except ImportError:
        assert facts["deepspeed"] is None
        return
    ds = facts["deepspeed"]
    assert ds["version"] == deepspeed.__version__
    from deepspeed.ops.op_builder import CPUAdamBuilder

    assert ds["cpuAdam"]["compatible"] == bool(CPUAdamBuilder().is_compatible(verbose=False))
    assert isinstance(ds["asyncIo"]["compatible"], bool)


def test_missing_packages_are_null_not_errors(tmp_path):
    # An isolated interpreter (-I ignores PYTHONPATH and user site) with a site dir holding
    # nothing: torch/deepspeed/transformers come back null and the probe still exits 0.
    env = dict(os.environ, PYTHONNOUSERSITE="1")
    out = subprocess.run([sys.executable, "-I", "-S", PROBE], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["torch"] is None and facts["deepspeed"] is None and facts["transformers"] is None
