#!/usr/bin/env python
"""Turn a pytest-benchmark JSON file into a Markdown comparison table, and
optionally the throughput figures (one PNG per operation).

    python -m pytest benchmarks/ --benchmark-json=out.json
    python benchmarks/report.py out.json [--plot out.png] [--stat min]

Per group ("<operation>-<size>"): each library's time per call (the median by
default), GB/s, and for poly1305x its speed ratio against each peer.
"""
import argparse
import json
import re
import sys

from poly1305x._tools import _bench, _plot

_SIZE = re.compile(r"-(\d+)(B|KiB|MiB)$")
_UNIT = {"B": 1, "KiB": _bench.KiB, "MiB": _bench.MiB}


def rows_from_json(doc, stat="median"):
    """Rows in the shape of ``poly1305x._tools._bench.format_table``, one per benchmark."""
    rows = []
    for b in doc.get("benchmarks", []):
        info = b.get("extra_info") or {}
        group = b.get("group") or ""
        size = info.get("size")
        operation = info.get("operation")
        if size is None or operation is None:  # not written by our conftest: use the group
            m = _SIZE.search(group)
            if not m:
                continue
            size = int(m.group(1)) * _UNIT[m.group(2)]
            operation = group[:m.start()]
        rows.append({
            "operation": operation,
            "library": info.get("library") or b.get("name", "?"),
            "backend": info.get("backend"),
            "variant": info.get("variant"),
            "size": int(size),
            "seconds": b["stats"][stat] / info.get("messages", 1),   # batch rows: per message
        })
    return rows


def environment_from_json(doc):
    env = dict(doc.get("poly1305x_environment") or {})
    if not env:  # a file from elsewhere: what pytest-benchmark itself recorded
        mi = doc.get("machine_info", {})
        cpu = mi.get("cpu", {})
        env = {"cpu": cpu.get("brand_raw") or mi.get("processor") or "?",
               "cpu_count": cpu.get("count", "?"), "python": mi.get("python_version", "?"),
               "versions": {}}
    if doc.get("datetime"):
        env["date"] = doc["datetime"]
    return env


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json_file", help="output of pytest --benchmark-json")
    p.add_argument("--plot", metavar="FILE.png", help="draw throughput vs size (needs matplotlib)")
    p.add_argument("--stat", default="median", choices=["median", "min", "mean"],
                   help="which statistic of the rounds to report (default: median)")
    args = p.parse_args(argv)

    with open(args.json_file) as f:
        doc = json.load(f)
    rows = rows_from_json(doc, args.stat)
    if not rows:
        print(f"{args.json_file}: no benchmarks found", file=sys.stderr)
        return 1
    env = environment_from_json(doc)
    versions = ", ".join(f"{k} {v}" for k, v in env.get("versions", {}).items() if v)
    print(f"{env.get('cpu', '?')} ({env.get('cpu_count', '?')} CPUs), {env.get('date', '')}")
    if versions:
        print(f"{versions}; Python {env.get('python', '?')}")
    print(f"\nTime per call is the {args.stat} of the rounds. \"2.5× cryptography\": "
          "poly1305x does the call 2.5 times as fast as cryptography (below 1: slower).\n")
    print(_bench.format_table(rows, time_label=f"{args.stat} time/call"))
    if args.plot:
        try:
            written = _plot.plot(rows, args.plot, env)
        except RuntimeError as exc:
            print(f"no plot: {exc}", file=sys.stderr)
            return 1
        print(f"\nwrote {', '.join(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
