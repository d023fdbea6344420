"""Readers of the backend registry that run outside the package: a made-up
backend entry in a scratch copy of the registry is picked up with no other
file edited."""
import pathlib
import re
import runpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "poly1305x" / "_kernels" / "_registry.py"
MADE_UP = '''    {"name": "madeup", "features": (),
     "module": "poly1305x._kernels._madeup_isa", "table": "madeup", "target": "aarch64",
     "cflags": ("-mmadeup",), "msvc": (), "isa": "baseline", "probe": "int main(void){return 0;}",
     "switch": None, "opt_in": None, "emulated": False, "int128_twin": None},
'''


def _scratch(tmp_path):
    text = REGISTRY.read_text(encoding="utf-8")
    assert "\nBACKENDS = (\n" in text
    path = tmp_path / "poly1305x" / "_kernels" / "_registry.py"
    path.parent.mkdir(parents=True)
    path.write_text(text.replace("\nBACKENDS = (\n", "\nBACKENDS = (\n" + MADE_UP, 1), encoding="utf-8")
    return tmp_path


def test_constant_time_report_knows_every_compiled_module(tmp_path):
    report = runpy.run_path(str(ROOT / "tests" / "ct" / "check_report.py"))
    ours = report["our_modules"](str(ROOT))
    registry = runpy.run_path(str(REGISTRY))
    assert ours == {m.rsplit(".", 1)[1] for m in
                    [b["module"] for b in registry["BACKENDS"]] + list(registry["ENGINE_MODULES"])}
    assert {"_engine", "_dispatch", "_ssh", "_portable"} <= ours
    assert report["our_modules"](str(_scratch(tmp_path))) == ours | {"_madeup_isa"}


def test_no_reader_outside_the_registry_names_a_kernel_module():
    """No string literal of theirs names a module (a comment may give one as
    an example)."""
    for name in ("tests/ct/check_report.py", ".ci/wheel_audit.py", "setup.py"):
        text = (ROOT / name).read_text(encoding="utf-8")
        for b in runpy.run_path(str(REGISTRY))["BACKENDS"]:
            mod = re.escape(b["module"].rsplit(".", 1)[1])
            assert not re.search(rf"[\"']([\w.]*\.)?{mod}[\"']", text), (name, b["module"])


def test_each_entry_has_a_table_of_its_own():
    """The dispatcher writes an entry's name into its table when it loads it
    (the name objects report): two entries on one (module, table) pair would
    rename each other's objects."""
    pairs = [(b["module"], b["table"]) for b in runpy.run_path(str(REGISTRY))["BACKENDS"]]
    assert len(pairs) == len(set(pairs)), pairs
