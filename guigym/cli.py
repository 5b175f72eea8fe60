"""The ``guigym`` command: ``list``, ``demo``, ``export``, ``play``, ``bench`` (each takes ``--help``)."""

from __future__ import annotations

import argparse
import os
import sys


def _list(argv: list[str]) -> int:
    from guigym.registration import ENVS, family_of

    # its own parser: `guigym list --help` prints this, and a stray argument is a usage error
    argparse.ArgumentParser(prog="guigym list", description="The registered guigym env ids, their levels and "
                            "step limits.").parse_args(argv)
    try:
        print(f"{'id':24} {'levels':20} {'max steps':>9}  summary")
        for e in ENVS:  # an entry naming an unknown family raises (family_of)
            print(f"{e.id:24} {' '.join(family_of(e).levels):20} {e.max_episode_steps:>9}  {e.summary}")
        sys.stdout.flush()
    except BrokenPipeError:  # `guigym list | head -1` stopped reading: not an error (it was a traceback)
        _quiet_stdout()
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="guigym", description="guigym: procedurally generated GUI apps for GUI agents")
    p.add_argument("command", choices=["list", "demo", "export", "play", "bench"],
                   help="list: the registered envs; demo: run the oracle and save a GIF; export: write reference "
                        "episodes as a dataset; play: play an env yourself; bench: measure steps/s")
    # everything after the command (its --help included) goes to the command's own parser: with parse_known_args
    # the top parser's -h took `guigym demo --help` and printed this parser's help instead
    rest_arg = p.add_argument("rest", nargs=argparse.REMAINDER, default=[],
                              help="the command's arguments (guigym COMMAND --help)")
    rest_arg.required = False  # a missing command is reported alone, as before ("required: command")
    args = p.parse_args(argv)
    from guigym.backends.chromium import ChromiumNotFound, PlaywrightMissing

    try:
        status = _run(args.command, args.rest)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit ("Exception ignored ... BrokenPipeError")
        return status
    # --backend browser on the base install, or with no Chromium anywhere (nor a usable
    # $GUIGYM_CHROMIUM): what to install, not a traceback from the browser's thread
    except (PlaywrightMissing, ChromiumNotFound) as e:
        print(f"guigym {args.command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # as export's and train_small.py's: one line and status 130, not a traceback
        print(f"\nguigym {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `guigym demo | head -1`: the reader left; stop quietly (it was a traceback)
        _quiet_stdout()
        return 1


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: its reader is gone, and the exit's flush of what is left would
    print "Exception ignored ... BrokenPipeError"."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _run(command: str, rest: list[str]) -> int:
    if command == "list":
        return _list(rest)
    if command == "export":
        from guigym.export import main as export

        return export(rest)
    if command == "play":
        from guigym.play import main as play

        return play(rest)
    if command == "bench":
        from guigym.bench import main as bench

        return bench(rest)
    from guigym.demo import main as demo

    return demo(rest)


if __name__ == "__main__":
    raise SystemExit(main())
