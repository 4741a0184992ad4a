"""Model probe: the tuner's model table from the model itself.

    python model_probe.py --config path/to/config.json     (or --config - for stdin)

Builds the config.json's model with transformers on the meta device (no memory, no weights,
no remote code: hf_model.check_config refuses what cannot be built) and prints one JSON line:
{"ok": true, "params": …, "layers": …, "perLayerParams": …, "largestLayer": {…}, "headDim": …, …}
or {"ok": false, "class": …, "message": …, "fix": …} with exit code 2. The app caches the answer
per config hash (electron/services/tuner/model-probe.ts).
"""
import argparse
import json
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True, help="config.json path, or - for stdin")
    args = ap.parse_args(argv)
    try:
        text = sys.stdin.read() if args.config == "-" else open(args.config, encoding="utf-8").read()
        raw = json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        print(json.dumps({"ok": False, "class": "bad_config", "message": f"cannot read the config.json: {exc}",
                          "fix": "Pass a readable config.json."}))
        return 2
    import hf_model
    import transformers

    def one(cfg):
        try:
            return {"ok": True, "transformers": transformers.__version__, **hf_model.probe(cfg)}
        except hf_model.ConfigRefused as exc:
            return {"ok": False, "class": exc.cls, "message": exc.message, "fix": exc.fix}

    # A list of configs (the tuner's test of every preset) is answered by a list, in one process.
    out = [one(c) for c in raw] if isinstance(raw, list) else one(raw)
    print(json.dumps(out))
    return 0 if all(o["ok"] for o in (out if isinstance(out, list) else [out])) else 2


if __name__ == "__main__":
    sys.exit(main())
