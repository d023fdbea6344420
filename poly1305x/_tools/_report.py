"""What ``python -m poly1305x`` and ``bench`` print for a person at a
terminal: a table sized to the terminal, a legend of the operations shown,
and a closing verdict (the range of speed ratios against each peer).

The Markdown table (``_bench.format_table``) and the JSON file stay the forms
for files (``--format markdown|json``)."""
import shutil

from poly1305x._tools._cases import BATCH_OPERATIONS, OPERATIONS
from poly1305x._tools._units import size_text, time_text  # noqa: F401 (size_text: re-exported)

#: One line each for the legend (the full sentences: ``bench --help``).
SHORT_NAMES = {
    "poly1305": "one-shot Poly1305 tag (generate_tag)",
    "poly1305-chacha20": "Poly1305.new(key=, cipher=ChaCha20, nonce=, data=).digest()",
    "poly1305-aes": "Poly1305-AES through Poly1305.new(cipher=AES, ...)",
    "aead": "ChaCha20-Poly1305 encrypt, one call, key object reused",
    "aead-new": "pycryptodome style: ChaCha20_Poly1305.new() + encrypt_and_digest",
    "aead-stream": "ChaCha20_Poly1305.new(), encrypt() in 4 KiB pieces, digest()",
    "xchacha20-poly1305": "XChaCha20-Poly1305 encrypt (24-byte nonce), one call",
    "chacha20": "ChaCha20 encrypt, a new cipher object per message",
    "hpke-seal": "HPKE-style seal of 100 B with a fresh key object",
    "hpke-key-seal": "an HPKE AEAD key object's seal() of 100 B",
    "ssh-packet-seal": "one chacha20-poly1305@openssh.com packet sealed",
    "floor": "one short encrypt against the floor: a C call with no cryptography",
    "hap-frame": "a HAP frame through cryptography's class, install('cryptography') on/off",
    "esphome-frame": "an ESPHome Noise frame through cryptography's class, installed or not",
    "aioquic-packet": "an aioquic 1,200-byte packet protected, use_with_aioquic() on/off",
}

#: The peers, always in this order (a column each, when measured).
PEERS = ("cryptography", "pycryptodome", "pynacl")
#: The mark of a ratio whose rounds disagree on which library is faster.
NOISY = "†"




def round_ratios(mine, peer):
    """The speed ratio of each round (the same round of both rows)."""
    return [p / m for m, p in zip(mine.get("rounds", ()), peer.get("rounds", ())) if m > 0]


def is_noisy(mine, peer):
    """True when some rounds had poly1305x faster and others slower."""
    ratios = round_ratios(mine, peer)
    return len(ratios) > 1 and min(ratios) < 1.0 < max(ratios)


def comparisons(rows):
    """One entry per poly1305x row that has peers: (operation, size, mine,
    {peer: (ratio, noisy)}), in the order the operations are listed."""
    order = {op: i for i, op in enumerate(OPERATIONS)}
    groups = {}
    for r in rows:
        groups.setdefault((r["operation"], r["size"]), []).append(r)
    out = []
    for (op, size), group in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 99),
                                                                       kv[0][0], kv[0][1])):
        peers = {r["library"]: r for r in group if r["library"] != "poly1305x"}
        for mine in sorted((r for r in group if r["library"] == "poly1305x"),
                           key=lambda r: r["seconds"]):
            ratios = {p: (peers[p]["seconds"] / mine["seconds"], is_noisy(mine, peers[p]))
                      for p in PEERS + tuple(sorted(set(peers) - set(PEERS))) if p in peers}
            out.append((op, size, mine, ratios))
    return out


def _label(mine, with_backend):
    text = mine.get("variant") or ""
    if with_backend and mine.get("backend"):
        text = f"[{mine['backend']}] {text}".strip()
    return text


def format_terminal(rows, width=None):
    """The comparison as aligned columns no wider than ``width`` (default: the
    terminal's): one line per poly1305x result with its time, GB/s and its
    speed ratio against each peer ("3.7×": poly1305x takes 1/3.7 of that
    peer's time).  Under the width needed, each result folds onto two lines."""
    width = width or shutil.get_terminal_size((80, 24)).columns
    comps = comparisons(rows)
    if not comps:
        return "(nothing measured)"
    peers = [p for p in PEERS if any(p in c[3] for c in comps)]
    peers += sorted({p for c in comps for p in c[3]} - set(peers))
    backends = {c[2].get("backend") for c in comps}
    variants = any(c[2].get("variant") for c in comps)
    with_label = len(backends) > 1 or variants
    head = ["operation", "size"] + (["poly1305x"] if with_label else []) + ["time", "GB/s"]
    body = []
    for op, size, mine, ratios in comps:
        cells = [op, size_text(size)] + ([_label(mine, len(backends) > 1)] if with_label else [])
        cells += [time_text(mine["seconds"]), f"{size / mine['seconds'] / 1e9:.2f}"]
        tail = [(f"{ratios[p][0]:.1f}×" + (NOISY if ratios[p][1] else "")) if p in ratios
                else "" for p in peers]
        body.append((cells, tail))
    heads = head + [f"vs {p}" for p in peers]
    widths = [max(len(h), *(len((c + t)[i]) for c, t in body)) for i, h in enumerate(heads)]
    right = {i for i, h in enumerate(heads) if h not in ("operation", "poly1305x")}

    def line(cells, ws, first=0):
        parts = [c.rjust(w) if first + i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(cells, ws))]
        return "  ".join(parts).rstrip()

    if sum(widths) + 2 * (len(widths) - 1) <= width:
        lines = [line(heads, widths), line(["-" * w for w in widths], widths)]
        lines += [line(c + t, widths) for c, t in body]
        return "\n".join(lines)
    # Folded: the result on one line, its ratios indented on the next.
    n = len(head)
    lines = [line(head, widths[:n]), "-" * min(width, sum(widths[:n]) + 2 * (n - 1))]
    for cells, tail in body:
        lines.append(line(cells, widths[:n]))
        lines.append("    " + ", ".join(f"{t} {p}" for t, p in zip(tail, peers) if t))
    return "\n".join(lines)


def short_name(op):
    """What an operation measures, in a few words."""
    if op in SHORT_NAMES:
        return SHORT_NAMES[op]
    if op.startswith("aead-batch-N"):
        n = op[len("aead-batch-N"):]
        return f"{n} message{'s' if n != '1' else ''} a call: encrypt_many vs loops of encrypt"
    if op.startswith("noise-transport-N"):
        return (f"{op[len('noise-transport-N'):]} Noise transport messages a call: "
                "noise.encrypt_many vs loops")
    return OPERATIONS.get(op) or BATCH_OPERATIONS.get(op, "")


def legend(rows, width=None):
    """One line per operation shown: what it measures."""
    width = width or shutil.get_terminal_size((80, 24)).columns
    ops = []
    for r in rows:
        if r["operation"] not in ops:
            ops.append(r["operation"])
    pad = max(map(len, ops), default=0)
    out = []
    for op in ops:
        text = f"{op.ljust(pad)}  {short_name(op)}"
        out.append(text if len(text) <= width else text[:width - 1] + "…")
    return "\n".join(out)


def verdict(rows, passed, total, width=None):
    """The closing lines: how many backends passed the self-test, and per
    operation the range of poly1305x's speed ratios against each peer."""
    width = width or shutil.get_terminal_size((80, 24)).columns
    lines = [f"Verdict: {passed} of {total} backends passed the self-test."]
    spans = {}
    for op, size, mine, ratios in comparisons(rows):
        for p, (x, _) in ratios.items():
            lo, hi = spans.setdefault((op, p), (x, x))
            spans[(op, p)] = (min(lo, x), max(hi, x))
    if not spans:
        return lines[0]
    lines.append("poly1305x against each peer, slowest to fastest over the sizes")
    lines.append("measured (N× = N times as fast):")
    ops = []
    for op, _ in spans:
        if op not in ops:
            ops.append(op)
    pad = max(map(len, ops))
    for op in ops:
        parts = []
        for p in [q for q in PEERS if (op, q) in spans] + sorted(
                q for o, q in spans if o == op and q not in PEERS):
            lo, hi = spans[(op, p)]
            span = f"{lo:.1f}×" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}–{hi:.1f}×"
            parts.append(f"{span} {p}")
        text = f"  {op.ljust(pad)}  " + ", ".join(parts)
        if len(text) > width:
            text = f"  {op}\n" + "\n".join(f"      {p}" for p in parts)
        lines.append(text)
    return "\n".join(lines)


def _rate(seconds):
    """Messages per second: M (millions), or k below 0.01 M (the long rows)."""
    if not seconds:
        return "-"
    if seconds > 1e-4:
        return f"{1 / seconds / 1e3:.2f} k"
    return f"{1 / seconds / 1e6:.2f} M"


def batch_summary(rows):
    """Messages per second of each batch row, and encrypt_many's ratio to
    the two loops of the same run ("" when there are no batch rows)."""
    got = {}
    for r in rows:
        if r["operation"].startswith("aead-batch-N"):
            who = "batch" if r["variant"] == "encrypt_many" else r["library"]
            got[(int(r["operation"][12:]), r["size"], r.get("backend"), who)] = r["seconds"]
    keys = sorted({k[:3] for k in got if k[3] == "batch"}, key=lambda k: (k[2] or "", k[1], k[0]))
    if not keys:
        return ""
    lines = ["", "", "Batch rows (messages per second; encrypt_many against the loops):", "",
             "| backend | size | N | encrypt_many | loop of encrypt | loop of cryptography "
             "| vs our loop | vs cryptography |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for count, size, backend in keys:
        mine = got[(count, size, backend, "batch")]
        ours = got.get((count, size, backend, "poly1305x"))
        peer = got.get((count, size, None, "cryptography"))
        cells = [_rate(t) for t in (mine, ours, peer)]
        ratios = [f"{t / mine:.2f}×" if t else "-" for t in (ours, peer)]
        lines.append(f"| {backend} | {size_text(size)} | {count} | " + " | ".join(cells + ratios) + " |")
    return "\n".join(lines)
