"""The Python the cluster service sends over ssh on stdin (electron/services/cluster/snippets.ts
reads these files): run here exactly as there, `<python> - <args>` with the file on stdin."""
import json
import os
import shutil
import subprocess
import sys

from conftest import ENGINE

import cluster_versions
import probe_fallback


def run_stdin(name, *args):
    with open(os.path.join(ENGINE, name), encoding="utf-8") as fh:
        text = fh.read()
    proc = subprocess.run([sys.executable, "-", *args], input=text, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout  # one JSON line, nothing else on stdout
    return json.loads(lines[0])


def test_versions_over_stdin_hash_the_runner_modules_and_data(tmp_path):
    out = run_stdin("cluster_versions.py", ENGINE, sys.executable)
    assert out["executable"] and out["headPythonExists"] is True and out["engineDirExists"] is True
    assert out["torch"] or out["torchError"]
    assert {"bench.py", "errors.py", "error-signatures.json", "model-families.json"} <= set(out["runnerFiles"])
    assert out["runnerMissing"] == [] and len(out["runnerHash"]) == 64
    # A staged copy with the same files hashes the same; a changed data file does not.
    staged = tmp_path / "engine"
    staged.mkdir()
    for name in out["runnerFiles"]:
        shutil.copy(os.path.join(ENGINE, name), staged / name)
    same = run_stdin("cluster_versions.py", str(staged), sys.executable, *out["runnerFiles"])
    assert same["runnerHash"] == out["runnerHash"]
    (staged / "error-signatures.json").write_text("{}")
    (staged / "bench.py").unlink()
    changed = run_stdin("cluster_versions.py", str(staged), sys.executable, *out["runnerFiles"])
    assert changed["runnerHash"] != out["runnerHash"] and changed["runnerMissing"] == ["bench.py"]


def test_versions_of_a_host_without_a_runner(tmp_path):
    out = cluster_versions.versions(str(tmp_path / "nowhere"), "/no/such/python", [])
    assert out["runnerHash"] is None and out["engineDirExists"] is False and out["headPythonExists"] is False
    assert cluster_versions.runner_hash(str(tmp_path), ["a.py"]) == (None, [], ["a.py"])


def test_fallback_probe_over_stdin():
    out = run_stdin("probe_fallback.py")
    assert out["type"] == "probe" and out["source"] == "fallback" and out["cpuCount"] >= 1
    assert isinstance(out["gpus"], list) and ("torch" in out or "torchError" in out)


def test_fallback_probe_reads_meminfo(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemFree: 5 kB\nMemTotal:       16384 kB\n")
    assert probe_fallback.mem_total_bytes(str(meminfo)) == 16384 * 1024
    assert probe_fallback.mem_total_bytes(str(tmp_path / "missing")) is None
