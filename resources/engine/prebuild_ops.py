"""Pre-builds the DeepSpeed ops the runner needs on this host into TORCH_EXTENSIONS_DIR.

    TORCH_EXTENSIONS_DIR=<venv>/torch_extensions <venv>/bin/python prebuild_ops.py

CPU Adam (every CPU-offload strategy) and, on the CPU accelerator, the shared-memory comm op
DeepSpeed loads at init. bench.py uses <venv>/torch_extensions when TORCH_EXTENSIONS_DIR is
unset, so a first benchmark does not pay the JIT build. Exit 0 even when an op is not
compatible here (the runner's pre-flight names op_build problems itself); exit 1 when a
compatible op fails to build.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def main():
    import opbuild_env
    opbuild_env.sanitize_cuda_arch_list()
    opbuild_env.prefer_interpreter_ninja()  # the ninja the runner uses too, activated or not
    from deepspeed.accelerator import get_accelerator
    acc = get_accelerator()
    names = ["CPUAdamBuilder"] + (["ShareMemCommBuilder"] if acc.device_name() == "cpu" else [])
    for name in names:
        builder = acc.create_op_builder(name)
        if builder is not None and builder.is_compatible():
            builder.load()
            print(f"built {name}", file=sys.stderr)
        else:
            print(f"skipped {name}: not compatible with this host", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
