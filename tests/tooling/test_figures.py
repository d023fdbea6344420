"""The figures the README and the docs quote: each page's figures blocks hold
what poly1305x._tools._figures writes from the committed run
(docs/_static/benchmark.json), so they all name one machine, one way, and one
commit; and that commit is at most MAX_BEHIND commits of poly1305x/ behind
HEAD, so the figures are regenerated while they still describe the code."""
import json
import re
import subprocess
from pathlib import Path

import pytest

from poly1305x._tools import _bench, _figures

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "docs" / "_static" / "benchmark.json"
CLASSES = ROOT / "docs" / "_static" / "cpu-classes.json"     # bench --cpu-class ... --json
MAX_BEHIND = 30


def _doc():
    return json.loads(RUN.read_text())


@pytest.mark.parametrize("page", _figures.PAGES)
def test_page_quotes_the_committed_run(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "<!-- figures:" in text, f"{page} has no figures block"
    made = _figures.blocks(_doc(), json.loads(CLASSES.read_text()))
    assert _figures.render(text, made) == text, (
        f"{page}: its figures differ from {RUN.name} and {CLASSES.name}; run python -m "
        "poly1305x._tools._figures docs/_static/benchmark.json --classes "
        "docs/_static/cpu-classes.json")


def test_the_full_table_is_the_committed_run():
    text = (ROOT / _figures.TABLE).read_text(encoding="utf-8")
    assert text == _figures.table_text(_doc()), f"{_figures.TABLE} differs from {RUN.name}"


def test_the_machine_is_named_one_way():
    """The pages that quote runs name no other CPU generation than the run's."""
    gen = _doc()["environment"].get("cpu_generation")
    for page in _figures.PAGES + ("docs/batch.md",):
        text = (ROOT / page).read_text(encoding="utf-8")
        named = set(re.findall(r"Zen \d", text))
        assert named <= {gen}, f"{page} names {sorted(named)}; the run's machine is {gen}"


def test_the_cpu_classes_were_measured_with_the_same_code():
    commits = {d["environment"]["commit"] for d in json.loads(CLASSES.read_text())["classes"].values()}
    assert commits == {_doc()["environment"]["commit"]}, commits


def test_the_commit_measured_is_recent():
    commit = _doc()["environment"]["commit"]
    assert commit and "+" not in commit, f"the run measured uncommitted code: {commit}"
    git = ["git", "-C", str(ROOT)]
    assert subprocess.run(git + ["merge-base", "--is-ancestor", commit, "HEAD"]).returncode == 0, \
        f"{commit} is not an ancestor of HEAD"
    behind = int(subprocess.run(git + ["rev-list", "--count", f"{commit}..HEAD", "--",
                                       "poly1305x"], capture_output=True, text=True,
                                check=True).stdout)
    assert behind <= MAX_BEHIND, (f"the figures measure {commit}, {behind} commits of "
                                  f"poly1305x/ ago: measure again (docs/performance.md)")


def test_render_fills_each_block_and_refuses_an_unknown_one():
    made = {"intro": "A", "summary": "| x |"}
    text = ("x\n<!-- figures:intro begin -->\nold\n<!-- figures:intro end -->\n"
            "<!-- figures:summary begin -->\n<!-- figures:summary end -->\n")
    assert _figures.render(text, made) == (
        "x\n<!-- figures:intro begin -->\nA\n<!-- figures:intro end -->\n"
        "<!-- figures:summary begin -->\n| x |\n<!-- figures:summary end -->\n")
    with pytest.raises(KeyError):
        _figures.render("<!-- figures:nope begin -->\n<!-- figures:nope end -->", made)


def test_summary_ratios_come_from_the_rows():
    env = {"cpu": "AMD EPYC", "cpu_generation": "Zen 4", "virtual": True, "cpu_count": 2,
           "cpu_features": ["avx2"], "python": "3.11.7", "default_backend": "avx2",
           "versions": {"cryptography": "48.0.0"}, "commit": "abc1234"}
    rows = [{"operation": "poly1305", "size": 64, "library": "poly1305x", "variant": None,
             "backend": "avx2", "seconds": 1e-7},
            {"operation": "poly1305", "size": 64, "library": "cryptography", "variant": None,
             "backend": None, "seconds": 5e-7}]
    table = _figures.summary({"environment": env, "results": rows}, (0,))
    assert "| 5.0× (64 B) | – |" in table
    assert _figures.machine(env) == ("an AMD EPYC (Zen 4) virtual machine with 2 CPUs (AVX2), "
                                     "CPython 3.11.7")


def test_zen_generation_from_family_and_model():
    amd = {"vendor_id": "AuthenticAMD"}
    assert _bench.cpu_generation({**amd, "cpu family": "25", "model": "17"}) == "Zen 4"
    assert _bench.cpu_generation({**amd, "cpu family": "25", "model": "1"}) == "Zen 3"
    assert _bench.cpu_generation({**amd, "cpu family": "26", "model": "2"}) == "Zen 5"
    assert _bench.cpu_generation({"vendor_id": "GenuineIntel", "cpu family": "6",
                                  "model": "85"}) is None
