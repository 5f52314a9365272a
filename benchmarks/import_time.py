"""Import cost of mechdesign: ``import mechdesign``, ``mechdesign --help`` and the first use of
the design layer, each in a fresh interpreter, median of ``--repeat`` runs.

With ``--baseline DIR`` (a checkout of another commit, e.g. made with
``git worktree add /tmp/old <commit>``) the same measurements run side by side with
``PYTHONPATH=DIR`` and the ratios are printed.

    python benchmarks/import_time.py --repeat 7 --baseline /tmp/old

Each measurement is taken inside the child with ``time.perf_counter`` around the statement
(interpreter start-up excluded) and reports which heavy libraries the statement loaded;
"python startup" is the wall time of ``python -c pass`` for scale.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HEAVY = ("cvxpy", "networkx", "scipy.stats", "matplotlib", "scipy")

PROBE = """
import json, sys, time
t = time.perf_counter()
{statement}
elapsed = time.perf_counter() - t
print(json.dumps({{"seconds": elapsed,
                   "loaded": [m for m in {heavy!r} if m in sys.modules]}}))
"""

STATEMENTS = {
    "import mechdesign": "import mechdesign",
    "mechdesign --help": (
        "import contextlib, io\n"
        "from mechdesign.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass"),
    "first DesignProblem": "import mechdesign as md\nmd.DesignProblem",
    "first epsilon_ldp": "import mechdesign as md\nmd.epsilon_ldp(md.warner(0.75))",
}


def _probe(statement: str, pythonpath: str | None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    code = PROBE.format(statement=statement, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, cwd=pythonpath or None)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _startup(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(pythonpath: str | None, repeat: int) -> dict[str, tuple[float, list[str]]]:
    """Median seconds and the heavy modules loaded, per statement."""
    out = {}
    for name, statement in STATEMENTS.items():
        runs = [_probe(statement, pythonpath) for _ in range(repeat)]
        out[name] = (statistics.median(r["seconds"] for r in runs), runs[0]["loaded"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="checkout of another commit to compare")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent.parent)
    print(f"python startup (python -c pass): {_startup(args.repeat) * 1e3:.0f} ms")
    ours = measure(here, args.repeat)
    base = measure(str(args.baseline.resolve()), args.repeat) if args.baseline else None
    head = f"{'statement':<22} {'this checkout':>14}  loaded"
    if base:
        head += f"{'':<30} {'baseline':>10} {'ratio':>7}  loaded"
    print(head)
    for name, (sec, loaded) in ours.items():
        line = f"{name:<22} {sec * 1e3:>11.1f} ms  {', '.join(loaded) or '-':<30}"
        if base:
            bsec, bloaded = base[name]
            line += f" {bsec * 1e3:>7.1f} ms {bsec / sec:>6.1f}x  {', '.join(bloaded) or '-'}"
        print(line)


if __name__ == "__main__":
    main()
