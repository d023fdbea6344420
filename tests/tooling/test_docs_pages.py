"""What the rendered documentation shows: checks on the sources of docs/ for
what went wrong in a browser.  Fast: no Sphinx build here (CI runs
``sphinx-build -W``); the pages' Markdown and reST are read as text.

* the API page has no ``.. contents::`` (Furo draws the page's table of
  contents itself and shows the directive as an error box) and documents no
  private name;
* every image a page references exists; the Performance page has one figure
  per benchmarked operation, each a link to itself, none a tall multi-panel
  sheet;
* the Performance page opens with the README's summary table, and the landing
  page carries headline ratios from it;
* no code line is wider than the page column (it would be cut off).
"""
import importlib
import re
import struct
from pathlib import Path

from tests.tooling.test_docs import DOCTEST_MODULES, code_blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

MD_PAGES = sorted(DOCS.glob("*.md"))
RST_PAGES = sorted(DOCS.glob("*.rst"))

# Furo's content column is 46em (736 px); with Chromium's default monospace
# at Furo's code size, a line of 91 characters already scrolls (measured
# with headless Chromium at 1280 px, the code block's scrollWidth).
MAX_CODE_LINE = 90

_DIRECTIVE = re.compile(r"^\.\. (auto\w+|data|class|function|method|attribute|module)::\s+(\S+)",
                        re.M)


def _api_targets():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    return [(kind, re.sub(r"\(.*", "", name)) for kind, name in _DIRECTIVE.findall(text)]


def test_no_page_uses_the_contents_directive():
    for page in RST_PAGES:
        assert not re.search(r"^\s*\.\. contents::", page.read_text(encoding="utf-8"), re.M), page.name
    for page in MD_PAGES:
        assert not re.search(r"^[`:~]{3,}\s*\{contents\}", page.read_text(encoding="utf-8"), re.M), (
            page.name)


def test_api_page_documents_no_private_name():
    private = [name for _, name in _api_targets()
               if any(part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
                      for part in name.split("."))]
    assert not private, f"docs/api.rst documents private names: {private}"


def test_api_page_targets_exist():
    """Each documented name resolves in the installed package."""
    for kind, name in _api_targets():
        if "." not in name:
            continue                # .. data:: __version__ under .. module::
        if kind in ("automodule", "module"):
            importlib.import_module(name)
            continue
        modname, _, attr = name.rpartition(".")
        mod = importlib.import_module(modname)
        assert hasattr(mod, attr) or kind in ("data", "class"), name


def test_doctest_modules_are_the_ones_the_api_page_shows():
    """test_docs runs the docstring examples of DOCTEST_MODULES because the API
    page renders them: every one must own a name the page documents."""
    shown = set()
    for kind, name in _api_targets():
        if kind in ("automodule", "module"):
            shown.add(name)
            continue
        if "." not in name:
            continue
        modname, _, attr = name.rpartition(".")
        try:
            obj = getattr(importlib.import_module(modname), attr)
        except (ImportError, AttributeError):
            continue
        shown.add(getattr(obj, "__module__", None) or modname)
    missing = [m for m in DOCTEST_MODULES if m not in shown]
    assert not missing, f"DOCTEST_MODULES not rendered by docs/api.rst: {missing}"


# --------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------

_MD_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")
_MD_DIRECTIVE_IMAGE = re.compile(r"^[`:]{3,}\s*\{(?:image|figure)\}\s+(\S+)", re.M)
_TARGET = re.compile(r"^:target:\s+(\S+)", re.M)
_RST_IMAGE = re.compile(r"^\s*\.\. (?:image|figure)::\s+(\S+)", re.M)


def _images(text):
    return _MD_IMAGE.findall(text) + _MD_DIRECTIVE_IMAGE.findall(text) + _RST_IMAGE.findall(text)


def _png_size(path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_every_referenced_image_exists():
    seen = 0
    for page in MD_PAGES + RST_PAGES:
        text = page.read_text(encoding="utf-8")
        for ref in _images(text) + _TARGET.findall(text):
            if re.match(r"[a-z]+://", ref):
                continue
            seen += 1
            assert (page.parent / ref).is_file(), f"{page.name} shows {ref}, which does not exist"
    assert seen


def _benchmark_operations():
    table = (DOCS / "_static" / "benchmark-table.md").read_text(encoding="utf-8")
    ops = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and len(cells) > 3 and cells[0] not in ops \
                and cells[0] != "operation" and not set(cells[0]) <= set("-:"):
            ops.append(cells[0])
    return ops


def test_performance_page_has_one_readable_figure_per_operation():
    text = (DOCS / "performance.md").read_text(encoding="utf-8")
    images = _MD_DIRECTIVE_IMAGE.findall(text)
    ops = _benchmark_operations()
    assert len(ops) >= 8
    for op in ops:
        ref = f"_static/benchmark-{op}.png"
        assert ref in images, f"performance.md has no figure {ref}"
        # the figure's directive links to the image itself (click to enlarge)
        block = text[text.index(ref):].split("```", 1)[0]
        assert f":target: {ref}" in block, f"{ref} is not a link to itself"
        width, height = _png_size(DOCS / ref)
        # drawn for a 735-pixel column at 2x, not a sheet of panels
        assert 1000 <= width <= 1600 and height <= 0.75 * width, (ref, width, height)
    # and nothing else: no leftover figure of all panels
    assert set(images) == {f"_static/benchmark-{op}.png" for op in ops}
    assert not _MD_IMAGE.findall(text)


# --------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------

def _tables(text):
    """The Markdown tables of a text, each as a list of its lines."""
    tables, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cur.append(line.rstrip())
        elif cur:
            tables.append(cur)
            cur = []
    return tables


def _sections(text):
    """{heading: body} of the ## sections, in order, plus '' for the text before."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    out = {"": parts[0]}
    for heading, body in zip(parts[1::2], parts[2::2]):
        out[heading.strip()] = body
    return out


def _summary_table():
    readme = _sections((ROOT / "README.md").read_text(encoding="utf-8"))["Benchmarks"]
    tables = _tables(readme)
    assert tables, "README.md's Benchmarks section has no table"
    return tables[0]


def test_performance_page_opens_with_the_readme_summary():
    sections = _sections((DOCS / "performance.md").read_text(encoding="utf-8"))
    first = list(sections.values())[1]
    tables = _tables(first)
    assert tables and tables[0] == _summary_table(), (
        "the first section of docs/performance.md must be README.md's summary table")


def test_landing_page_carries_headline_numbers():
    top = _sections((DOCS / "index.md").read_text(encoding="utf-8"))[""]
    ratios = re.findall(r"\b(\d+(?:\.\d+)?)×", top)
    assert len(ratios) >= 4, "docs/index.md shows no speed-ups before its first section"
    summary = "\n".join(_summary_table())
    for r in ratios:
        assert f"{r}×" in summary, f"index.md's {r}× is not in the summary table of the same run"
    assert "(performance.md)" in top


def test_code_lines_fit_the_page_column():
    long = []
    for page in MD_PAGES:
        for block in code_blocks(page):
            if block["lang"].startswith("{") and not block["lang"].startswith("{code"):
                continue            # a directive ({image}, {toctree}), not code
            for i, line in enumerate(block["source"].splitlines()):
                if len(line) > MAX_CODE_LINE:
                    long.append(f"{page.name}:{block['line'] + i} ({len(line)} characters)")
    assert not long, f"code lines wider than the page column (cut off): {long}"
