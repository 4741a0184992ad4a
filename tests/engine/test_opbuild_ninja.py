"""One ninja for every op build of an environment.

torch runs the `ninja` that PATH finds first, and ninja rebuilds everything when its build log was
written by another version. The pre-build (scripts/setup-engine-venv.sh) and the app's runner ran
with the venv not activated (the system's ninja 1.11 here), a reproduction bundle's run.sh in the
activated venv as its README says (the venv's pip ninja 1.13): that run sat for minutes rebuilding
CPU Adam and the shm op with nothing on screen, and the app's next run rebuilt them again (5 min for
a 4-step tiny run). opbuild_env.prefer_interpreter_ninja puts the interpreter's own ninja first.
Stdlib only, except the last test (bench.py's imports)."""
import os
import subprocess
import sys

import pytest

import opbuild_env

ENGINE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "resources", "engine"))


def fake_env(tmp_path, with_ninja=True):
    """A folder laid out like a venv's bin: this python (a symlink) and, optionally, a ninja."""
    bindir = tmp_path / "env" / "bin"
    bindir.mkdir(parents=True)
    (bindir / "python").symlink_to(sys.executable)
    if with_ninja:
        ninja = bindir / "ninja"
        ninja.write_text("#!/bin/sh\necho 1.13.0-env\n")
        ninja.chmod(0o755)
    return bindir


def which_ninja(bindir, path):
    """What torch's `ninja` lookup finds in a runner started as <bindir>/python with PATH=path."""
    code = ("import sys, shutil; sys.path.insert(0, %r); import opbuild_env; "
            "opbuild_env.prefer_interpreter_ninja(); print(shutil.which('ninja') or '')") % ENGINE
    out = subprocess.run([str(bindir / "python"), "-c", code], env={"PATH": path}, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_the_interpreters_own_ninja_wins_over_the_systems_whether_or_not_activated(tmp_path):
    bindir = fake_env(tmp_path)
    system = tmp_path / "usr-bin"
    system.mkdir()
    (system / "ninja").write_text("#!/bin/sh\necho 1.11.1\n")
    (system / "ninja").chmod(0o755)
    expected = str(bindir / "ninja")
    # Not activated (the pre-build, the app's runner): the system's ninja is first on PATH.
    assert which_ninja(bindir, f"{system}{os.pathsep}/usr/bin{os.pathsep}/bin") == expected
    # Activated (a bundle's run.sh): the env's bin is already first — it stays first, once.
    assert which_ninja(bindir, f"{bindir}{os.pathsep}{system}{os.pathsep}/bin") == expected
    # No ninja on PATH at all: the pre-build used to fail ('ninja is required'); now it has one.
    assert which_ninja(bindir, "/nonexistent") == expected


def test_path_is_left_alone_when_the_interpreter_has_no_ninja(tmp_path):
    bindir = fake_env(tmp_path, with_ninja=False)
    env = {"PATH": "/usr/bin:/bin"}
    assert opbuild_env.prefer_interpreter_ninja(env, str(bindir / "python")) is None
    assert env["PATH"] == "/usr/bin:/bin"


def test_the_folder_appears_once(tmp_path):
    bindir = fake_env(tmp_path)
    env = {"PATH": f"/usr/bin{os.pathsep}{bindir}{os.pathsep}/bin"}
    assert opbuild_env.prefer_interpreter_ninja(env, str(bindir / "python")) == str(bindir)
    assert env["PATH"].split(os.pathsep) == [str(bindir), "/usr/bin", "/bin"]


def test_bench_chooses_the_ninja_before_any_op_can_load(monkeypatch):
    """bench.main calls it before the engine starts (and so before CPU Adam or the shm op load)."""
    pytest.importorskip("torch")
    import bench

    class Chosen(Exception):
        pass

    def stop(*_args, **_kwargs):
        raise Chosen()

    for key in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.setenv(key, os.environ.get(key, "0" if key != "MASTER_ADDR" else "127.0.0.1"))
    monkeypatch.setattr(opbuild_env, "prefer_interpreter_ninja", stop)
    with pytest.raises(Chosen):
        bench.main(["--spec", "-"])
