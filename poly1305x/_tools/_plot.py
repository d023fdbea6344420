"""The benchmark figures: one PNG per operation, drawn to be read on a page.

``plot(rows, path, env)`` takes the rows of ``_bench.run_bench`` (or of
``rows_from_table``) and writes, next to ``path``, one figure per operation:
``benchmark.png`` gives ``benchmark-poly1305.png``, ``benchmark-aead.png``,
and so on.  It returns the paths written, in the order of
``_bench.OPERATIONS``.

* An operation measured over the 64 B .. 1 MiB ladder is a line plot of
  throughput (GB/s, log) against message size (log); each line is labelled at
  its right end, in its colour, and the labels are moved apart where lines
  end close together.  No legend.
* An operation with sizes of its own (``_bench.FIXED_SIZES``: HPKE's 100-byte
  seal, an SSH packet) is a horizontal bar chart of time per call, each bar
  labelled with its time and poly1305x's ratio against it.

The figures are 7.35 x ~4 inches at 200 dpi: at a 735-pixel page column they
are shown at half size with 9-10 pt text, and a click opens them at full size.
A library keeps its colour in every figure.

The Performance page's figures are drawn from the committed table, so they
show the same run as the table::

    python -m poly1305x._tools._plot docs/_static/benchmark-table.md docs/_static/benchmark.png

Needs matplotlib (the ``bench`` extra).
"""
import os
import re
import sys

from . import _bench

WIDTH_IN = 7.35          # inches; a 735-pixel column at 100 dpi
DPI = 200
LINE_HEIGHT_IN = 4.3
LABEL_GAP_PT = 10.5      # the least distance between two end labels

# Colours (matplotlib's tab10 and tab20 entries): poly1305x's backends in
# blues, greens and purples, solid; the peers in warm or grey tones, dashed.
_COLOURS = {
    "poly1305x [avx512]": "#1f77b4",
    "poly1305x [avx512f]": "#aec7e8",
    "poly1305x [avx2]": "#2ca02c",
    "poly1305x [portable]": "#9467bd",
    "poly1305x [portable26]": "#17becf",
    "poly1305x [scalar]": "#8c564b",
    "cryptography": "#d62728",
    "pycryptodome": "#ff7f0e",
    "pynacl": "#7f7f7f",
    "pyhpke": "#e377c2",
    "asyncssh": "#bcbd22",
}
_SPARE = ["#98df8a", "#c5b0d5", "#c49c94", "#393b79", "#637939"]
# poly1305x with another library's block cipher (a variant): a mark of its own
_VARIANT_COLOURS = ["#393b79", "#637939", "#ad494a", "#7b4173"]


def _need_matplotlib():
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("--plot needs matplotlib (pip install matplotlib)") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def figure_path(path, operation):
    """``dir/benchmark.png`` -> ``dir/benchmark-<operation>.png``."""
    stem, ext = os.path.splitext(path)
    return f"{stem}-{operation}{ext or '.png'}"


def operations(rows):
    """The operations in the rows, in the order of ``_bench.OPERATIONS``."""
    present = {r["operation"] for r in rows}
    ops = [op for op in _bench.OPERATIONS if op in present]
    return ops + sorted(present - set(ops))


def _colour_for(label, taken):
    if label in _COLOURS:
        return _COLOURS[label]
    spare = _VARIANT_COLOURS if label.startswith("poly1305x") else _SPARE
    for c in spare:
        if c not in taken and c not in _COLOURS.values():
            return c
    return "#000000"


def _series(rows, op):
    """{label: [(size, gbps, seconds, row)]} for one operation, poly1305x first."""
    series = {}
    for r in rows:
        if r["operation"] == op:
            series.setdefault(_bench.series_label(r), []).append(
                (r["size"], r["size"] / r["seconds"] / 1e9, r["seconds"], r))
    mine = sorted(k for k in series if k.startswith("poly1305x"))
    peers = sorted(k for k in series if not k.startswith("poly1305x"))
    return {k: sorted(series[k], key=lambda p: p[0]) for k in mine + peers}


def spread(ys, heights):
    """Move the values ``ys`` (any order) apart so that two neighbours are at
    least the mean of their ``heights`` apart, keeping their order and, as far
    as possible, their mean.  Returns the new values in the order given."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [ys[i] for i in order]
    size = [heights[i] for i in order]
    for _ in range(100):
        moved = False
        for k in range(1, len(placed)):
            short = (size[k] + size[k - 1]) / 2 - (placed[k] - placed[k - 1])
            if short > 1e-9:
                placed[k - 1] -= short / 2
                placed[k] += short / 2
                moved = True
        if not moved:
            break
    out = [0.0] * len(ys)
    for k, i in enumerate(order):
        out[i] = placed[k]
    return out


def _footer(env):
    if not env:
        return ""
    if env.get("summary"):
        return env["summary"]
    versions = ", ".join(f"{k} {v}" for k, v in env.get("versions", {}).items() if v)
    return (f"{env.get('cpu', '?')}, {env.get('cpu_count', '?')} CPUs, "
            f"Python {env.get('python', '?')}, {env.get('date', '')[:10]}"
            + (f"\n{versions}" if versions else ""))


def end_label(label):
    """The text at a line's end: a variant (``cipher=...``) on a second line."""
    lib, sep, variant = label.partition("] ")
    return f"{lib}]\n  {variant}" if sep and variant else label


def _size_ticks(sizes):
    return [s for s in sorted(set(sizes))], [_pretty_size(s) for s in sorted(set(sizes))]


def _pretty_size(size):
    label = _bench.size_label(size)
    return re.sub(r"^(\d+)(\D+)$", r"\1 \2", label)


def _line_figure(plt, op, series, colours, env):
    from matplotlib.ticker import FuncFormatter
    fig = plt.figure(figsize=(WIDTH_IN, LINE_HEIGHT_IN), dpi=DPI)
    # fixed margins: the right one holds the end labels
    ax = fig.add_axes([0.11, 0.19, 0.57, 0.72])
    sizes = []
    for label, points in series.items():
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        sizes += xs
        mine = label.startswith("poly1305x")
        style = ("-^" if "] " in label else "-o") if mine else "--s"
        ax.plot(xs, ys, style, color=colours[label], lw=1.8 if mine else 1.4,
                markersize=4.5 if mine else 4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks, tick_labels = _size_ticks(sizes)
    ax.set_xticks(ticks, tick_labels)
    ax.minorticks_off()
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: f"{y:g}"))
    ax.set_xlim(min(ticks) / 1.25, max(ticks) * 1.25)
    ax.set_xlabel("message size", fontsize=10)
    ax.set_ylabel("GB/s (log scale; higher is faster)", fontsize=10)
    ax.tick_params(labelsize=9)
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(op, fontsize=12, loc="left", fontweight="bold")
    fig.canvas.draw()                       # fixes the axis limits for the transforms
    ends = [(label, pts[-1][0], pts[-1][1]) for label, pts in series.items()]
    to_px = ax.transData.transform
    ys_px = [to_px((x, y))[1] for _, x, y in ends]
    line_px = LABEL_GAP_PT * fig.dpi / 72
    new_px = spread(ys_px, [line_px * (1 + end_label(lb).count("\n")) for lb, _, _ in ends])
    for (label, x, y), old, new in zip(ends, ys_px, new_px):
        dy = (new - old) * 72 / fig.dpi
        ax.annotate(end_label(label), (x, y), xytext=(10, dy), textcoords="offset points",
                    va="center", ha="left", fontsize=8.5, color=colours[label],
                    fontweight="bold" if label.startswith("poly1305x") and "] " not in label
                    else "normal",
                    annotation_clip=False,
                    arrowprops=dict(arrowstyle="-", lw=0.6, color=colours[label],
                                    shrinkA=0, shrinkB=3) if abs(dy) > 2 else None)
    text = _footer(env)
    if text:
        fig.text(0.01, 0.01, text, fontsize=6.5, color="#555555", va="bottom")
    return fig


def _bar_figure(plt, op, series, colours, env):
    bars = []                                # (size, label, seconds, row)
    for label, points in series.items():
        for size, _gbps, seconds, row in points:
            bars.append((size, label, seconds, row))
    bars.sort(key=lambda b: (b[0], not b[1].startswith("poly1305x"), b[2]))
    sizes = sorted({b[0] for b in bars})
    height = 1.0 + 0.42 * len(bars) + 0.25 * len(sizes)
    fig, axes = plt.subplots(len(sizes), 1, figsize=(WIDTH_IN, height), dpi=DPI, squeeze=False,
                             gridspec_kw={"height_ratios": [sum(b[0] == s for b in bars)
                                                            for s in sizes]})
    for ax, size in zip(axes.flat, sizes):
        group = [b for b in bars if b[0] == size]
        best = min((b for b in group if b[1].startswith("poly1305x")), default=None,
                   key=lambda b: b[2])
        mine = best[2] if best else None
        top = max(b[2] for b in group) * 1e6
        for i, (_, label, seconds, row) in enumerate(group):
            us = seconds * 1e6
            ax.barh(i, us, color=colours[label], height=0.6)
            note = _bench._fmt_time(seconds)
            if mine and not label.startswith("poly1305x"):
                # the table's own ratio when the rows came from it (its times are rounded)
                ratio = best[3].get("ratios", {}).get(row["library"], seconds / mine)
                note += f"  (poly1305x {ratio:.1f}× as fast)"
            ax.text(us + top * 0.01, i, note, va="center", fontsize=9)
        ax.set_yticks(range(len(group)), [b[1] for b in group], fontsize=9)
        ax.invert_yaxis()
        ax.set_xlim(0, top * 1.75)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_title(f"{op}, {_pretty_size(size)} per call", fontsize=10, loc="left")
        ax.spines[["top", "right"]].set_visible(False)
    axes.flat[-1].set_xlabel("time per call, µs (shorter is faster)", fontsize=9)
    fig.tight_layout(rect=(0, 0.06 if _footer(env) else 0, 1, 1))
    text = _footer(env)
    if text:
        fig.text(0.01, 0.005, text, fontsize=6.5, color="#555555", va="bottom")
    return fig


def plot(rows, path, env=None):
    """One PNG per operation next to ``path`` (see the module docstring);
    returns the paths written.  Needs matplotlib (RuntimeError without)."""
    plt = _need_matplotlib()
    colours = {}
    labels = sorted({_bench.series_label(r) for r in rows},
                    key=lambda s: (not s.startswith("poly1305x"), s))
    for label in labels:
        colours[label] = _colour_for(label, set(colours.values()))
    written = []
    for op in operations(rows):
        series = _series(rows, op)
        sizes = {p[0] for pts in series.values() for p in pts}
        if op in _bench.FIXED_SIZES or len(sizes) < 3:
            fig = _bar_figure(plt, op, series, colours, env)
        else:
            fig = _line_figure(plt, op, series, colours, env)
        out = figure_path(path, op)
        fig.savefig(out, dpi=DPI)
        plt.close(fig)
        written.append(out)
    return written


# --------------------------------------------------------------------------
# Rows back from a table written by _bench.format_table
# --------------------------------------------------------------------------

_UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_SIZE_UNITS = {"B": 1, "KiB": _bench.KiB, "MiB": _bench.MiB}


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+)\s*(B|KiB|MiB)\s*", text)
    if not m:
        raise ValueError(f"not a size: {text!r}")
    return int(m.group(1)) * _SIZE_UNITS[m.group(2)]


def parse_time(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ns|µs|us|ms|s)\s*", text)
    if not m:
        raise ValueError(f"not a time: {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def parse_library(text):
    """``poly1305x [avx512] cipher=X`` -> (library, backend, variant)."""
    m = re.fullmatch(r"\s*(\S+)(?:\s+\[([^\]]+)\])?(?:\s+(.+?))?\s*", text)
    return m.group(1), m.group(2), m.group(3)


def rows_from_table(text):
    """The rows (operation, library, backend, variant, size, seconds) of a
    Markdown table written by ``_bench.format_table``, and the lines above
    it as ``env["summary"]``."""
    rows, head = [], []
    summary = False      # inside the batch rows' summary (``| backend | size | N |``)
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|"):
            summary = False
            if not rows and line.strip() and not line.startswith("Best of"):
                head.append(line.strip().replace("`", ""))
            continue
        summary = summary or cells[0] == "backend"
        if summary or len(cells) < 4 or cells[0] == "operation" or set(cells[0]) <= set("-:"):
            continue
        library, backend, variant = parse_library(cells[2])
        ratios = dict((peer, float(x)) for x, peer in
                      re.findall(r"([0-9.]+)× (\S+?)(?:,|$)", cells[5] if len(cells) > 5 else ""))
        rows.append({"operation": cells[0], "library": library, "backend": backend,
                     "variant": variant, "size": parse_size(cells[1]),
                     "seconds": parse_time(cells[3]), "ratios": ratios})
    if not rows:
        raise ValueError("no table rows found")
    return rows, {"summary": "\n".join(head)}


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(prog="python -m poly1305x._tools._plot",
                                description="Draw the benchmark figures from a table "
                                            "written by python -m poly1305x bench.")
    p.add_argument("table", help="the Markdown table (docs/_static/benchmark-table.md)")
    p.add_argument("out", help="FILE.png: writes FILE-<operation>.png for each operation")
    args = p.parse_args(argv)
    with open(args.table, encoding="utf-8") as f:
        rows, env = rows_from_table(f.read())
    try:
        written = plot(rows, args.out, env)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    for out in written:
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
