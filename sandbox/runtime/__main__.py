"""`python -m sandbox.runtime --target tpu [--chip v5e] script.py args...` (or `-m module`)."""

import argparse
import os
import runpy
import sys
from pathlib import Path

from sandbox.runtime import env as runtime_env
from sandbox.runtime.activate import activate, exit_on_activation_error

_VALUED_OPTIONS = ("--target", "--chip")


def _split_program(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split the command line into the runtime's options and the program's command line, which
    starts at the script (the first positional) or right after `-m MODULE` (or `-mMODULE`);
    everything from there on belongs to the program, options included (`-m pytest -q tests`)."""
    for index, arg in enumerate(argv):
        if arg == "-m":
            return argv[: index + 2], argv[index + 2 :]
        if arg.startswith("-m") and not arg.startswith("--"):  # `-mpytest`, as python takes it
            return [*argv[:index], "-m", arg[2:]], argv[index + 1 :]
        follows_option = index > 0 and argv[index - 1] in _VALUED_OPTIONS
        if not arg.startswith("-") and not follows_option:
            return argv[:index], argv[index:]
    return argv, []


def main(argv: list[str] | None = None) -> None:
    """Activate the runtime, then run the script or module as `__main__`."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.runtime", allow_abbrev=False)
    parser.add_argument("--target", required=True, choices=runtime_env.TARGETS)
    parser.add_argument("--chip", default=None)
    parser.add_argument("-m", dest="module", default=None, help="run a module instead of a script")
    runtime_args, program = _split_program(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(runtime_args)
    args.program = program
    if not args.module and not args.program:
        parser.error("give a script to run (or -m MODULE)")
    # Children (torchrun workers, multiprocessing spawn) activate through sitecustomize.
    os.environ[runtime_env.TARGET] = args.target
    if args.chip:
        os.environ[runtime_env.CHIP] = args.chip
    chip = args.chip or os.environ.get(runtime_env.CHIP) or None
    with exit_on_activation_error():
        activate(args.target, chip=chip, results_dir=os.environ.get(runtime_env.RESULTS_DIR))
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
