"""Print this machine's attainable memory bandwidth and dense matmul FLOP/s (what ``genreport calibrate`` writes).

    .venv/bin/python bench/calibrate_bench.py [--seconds S]

Nothing is written.  The numbers are attainable values of numpy on this CPU (see
``generator/calibrate.py`` for how bytes and FLOPs are counted), not datasheet peaks;
on a shared or busy machine they vary from run to run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genreport.commands.calibrate import DEFAULT_SECONDS, measure_cpu, summary  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="time budget (default: %(default)s)")
    args = p.parse_args(argv)
    print(summary(measure_cpu(args.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
