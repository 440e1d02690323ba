"""`python -m sandbox.runtime --target tpu [--chip v5e] script.py args...` (or `-m module`)."""

import argparse
import os
import runpy
import sys
from pathlib import Path

from sandbox.runtime import env as runtime_env
from sandbox.runtime.activate import activate


def main(argv: list[str] | None = None) -> None:
    """Activate the runtime, then run the script or module as `__main__`."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.runtime", allow_abbrev=False)
    parser.add_argument("--target", required=True, choices=runtime_env.TARGETS)
    parser.add_argument("--chip", default=None)
    parser.add_argument("-m", dest="module", default=None, help="run a module instead of a script")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="script.py and its arguments")
    args = parser.parse_args(argv)
    if not args.module and not args.program:
        parser.error("give a script to run (or -m MODULE)")
    # Children (torchrun workers, multiprocessing spawn) activate through sitecustomize.
    os.environ[runtime_env.TARGET] = args.target
    if args.chip:
        os.environ[runtime_env.CHIP] = args.chip
    activate(args.target, chip=args.chip, results_dir=os.environ.get(runtime_env.RESULTS_DIR))
    if args.module:
        sys.argv = [args.module, *args.program]
        runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        return
    script, *rest = args.program
    sys.argv = [script, *rest]
    sys.path.insert(0, str(Path(script).resolve().parent))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
