"""The runner's parent-death watchdog (resources/engine/parent_watch.py). An "app"
process starts the runner with its stdout on a pipe, as the engine service does; the app is then
SIGKILLed mid-step: no runner may be left. The stdlib cases run anywhere; the bench.py case needs
torch + DeepSpeed (the engine venv) and uses the tiny model on CPU."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import ENGINE, ROOT, bench_env, ds_config, tiny_spec

# The app: starts CHILD_ARGV with stdout on a pipe (stderr to a file), prints the child's pid, then
# relays the child's lines to its own stdout until killed. MODE=close-pipe closes its read end
# instead (the app alive but not listening); MODE=file gives the child a file as stdout.
APP = textwrap.dedent("""
    import json, os, subprocess, sys, time
    argv, mode, errfile = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    out = open(errfile + ".out", "w") if mode == "file" else subprocess.PIPE
    env = dict(os.environ, OFFLOAD_STUDIO_APP_PID=str(os.getpid()))  # as runner-process.ts sets it
    child = subprocess.Popen(argv, stdout=out, stderr=open(errfile, "w"), cwd=os.environ.get("APP_CWD"), env=env)
    print(child.pid, flush=True)
    if mode == "close-pipe":
        time.sleep(1.5)
        child.stdout.close()
        time.sleep(600)
    elif mode == "file":
        time.sleep(600)
    for line in child.stdout:
        sys.stdout.write(line.decode("utf-8", "replace"))
        sys.stdout.flush()
""")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes (its memory is freed); init reaps it.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def start_app(tmp_path, child_argv, mode="pipe", env=None):
    err = str(tmp_path / "child.err")
    app = subprocess.Popen([sys.executable, "-c", APP, json.dumps(child_argv), mode, err], stdout=subprocess.PIPE,
                           text=True, env={**(env or os.environ), "APP_CWD": ROOT})
    child_pid = int(app.stdout.readline())
    return app, child_pid, err


SLEEPER = [sys.executable, "-u", "-c",
           f"import sys, time; sys.path.insert(0, {ENGINE!r}); import parent_watch; "
           "parent_watch.start(sys.stdout.fileno(), interval=0.1); print('ready', flush=True); time.sleep(600)"]


@pytest.mark.parametrize("mode", ["pipe", "close-pipe", "file"])
def test_runner_ends_when_its_app_goes(tmp_path, mode):
    app, child, err = start_app(tmp_path, SLEEPER, mode)
    try:
        assert alive(child)
        if mode == "pipe":
            assert app.stdout.readline().strip() == "ready"
        if mode != "close-pipe":
            app.kill()  # SIGKILL: no chance to stop its child
            app.wait(5)
        # close-pipe: the app stays alive, only its read end closes (the pipe check alone);
        # file: no pipe to watch (the app-pid / parent-pid checks alone; the app may die before the
        # runner's watchdog has even started: the app pid from the environment still catches it).
        assert wait_gone(child, 10), f"runner {child} outlived its app ({mode})"
        if mode == "close-pipe":
            assert "protocol pipe closed" in open(err).read()
        if mode == "file":
            assert "is gone" in open(err).read()
    finally:
        if app.poll() is None:
            app.kill()
        if alive(child):
            os.kill(child, signal.SIGKILL)


def test_no_false_alarm_while_the_app_listens(tmp_path):
    app, child, _err = start_app(tmp_path, SLEEPER, "pipe")
    try:
        assert app.stdout.readline().strip() == "ready"
        time.sleep(1.5)  # 15 checks at interval 0.1
        assert alive(child)
    finally:
        app.kill()
        app.wait(5)
        assert wait_gone(child, 10)


def test_bench_py_ends_mid_step_when_its_app_is_sigkilled(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("deepspeed")
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(tiny_spec(dsConfig=ds_config(3), steps=100_000, warmup=1)))
    app, child, err = start_app(tmp_path, [sys.executable, "-u", os.path.join(ENGINE, "bench.py"), "--spec", str(path)],
                                env=bench_env())
    try:
        deadline = time.time() + 300
        for line in app.stdout:  # wait until training is under way (a step went through the app)
            if json.loads(line)["type"] == "step" or time.time() > deadline:
                break
        assert json.loads(line)["type"] == "step", open(err).read()[-3000:]
        grandchildren = [int(p) for p in os.listdir("/proc") if p.isdigit() and _ppid(int(p)) == child]
        app.kill()
        app.wait(5)
        t0 = time.time()
        assert wait_gone(child, 20), f"bench.py {child} outlived its app; log:\n{open(err).read()[-3000:]}"
        print(f"bench.py gone {time.time() - t0:.2f} s after its app was SIGKILLed")
        for pid in grandchildren:
            assert wait_gone(pid, 10), f"the runner's child {pid} was left"
    finally:
        if app.poll() is None:
            app.kill()
        if alive(child):
            os.kill(child, signal.SIGKILL)


def _ppid(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None
