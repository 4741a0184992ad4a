"""The engine environment's install sequence, read from install-steps.json (stdlib only).

    python3 install_steps.py plan [--requirements FILE]             -> the steps as JSON (argv per step)
    python3 install_steps.py run --python VENV_PY [--requirements FILE] [-- PIP_ARGS...]

scripts/setup-engine-venv.sh runs `run` with the new venv's interpreter; the app's install
(electron/services/environment/install-steps.ts) expands the same file itself, and a test checks
that both expansions give the same argument vectors. Progress and pip's output go to stderr.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_requirements(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
            if line:
                out.append(line)
    return out


def is_torch(req):
    name = req.split("==")[0].split(">")[0].split("<")[0].split("[")[0].strip().lower()
    return name == "torch"


def load_steps_file():
    with open(os.path.join(HERE, "install-steps.json"), encoding="utf-8") as f:
        return json.load(f)


def plan(requirements):
    """Each step: {name, label, args (after `pip install`), env}. Steps with nothing to install are left out."""
    data = load_steps_file()
    steps = []
    for step in data["steps"]:
        args = list(step.get("args", []))
        reqs = []
        for name in step.get("files", []):
            reqs += ["-r", os.path.join(HERE, name)]
        pick = step.get("requirements")
        if pick == "torch":
            reqs += [r for r in requirements if is_torch(r)]
        elif pick == "rest":
            reqs += [r for r in requirements if not is_torch(r)]
        if not reqs:
            continue
        steps.append({"name": step["name"], "label": step["label"], "args": args + reqs, "env": step.get("env", {})})
    return {"bootstrapVersion": data["bootstrapVersion"], "steps": steps}


def main(argv):
    if not argv or argv[0] not in ("plan", "run"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd, rest = argv[0], argv[1:]
    pip_extra = []
    if "--" in rest:
        i = rest.index("--")
        rest, pip_extra = rest[:i], rest[i + 1:]
    opts = dict(zip(rest[::2], rest[1::2]))
    req_file = opts.get("--requirements", os.path.join(HERE, "requirements.txt"))
    planned = plan(read_requirements(req_file))
    if cmd == "plan":
        print(json.dumps(planned))
        return 0
    python = opts.get("--python")
    if not python:
        print("install_steps.py run needs --python VENV_PYTHON", file=sys.stderr)
        return 2
    for step in planned["steps"]:
        print(f"[install-steps] {step['name']}: {step['label']}", file=sys.stderr, flush=True)
        argv_ = [python, "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", *pip_extra, *step["args"]]
        env = {**os.environ, **step["env"], "PIP_NO_INPUT": "1"}
        code = subprocess.call(argv_, env=env, stdout=sys.stderr)
        if code != 0:
            print(f"[install-steps] step {step['name']} failed (pip exited {code})", file=sys.stderr)
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
