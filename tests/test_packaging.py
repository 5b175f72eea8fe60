"""guigym as pip installs it: the wheel (built from a copy of the source tree and from the sdist)
ships every file the code reads at run time and nothing else, its metadata agrees with the code,
the installed wheel works outside the repository, and a missing extra is named in the error."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import guigym

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("guigym", "agents", "sites")
#: Not copied for the build: local state, outputs and caches (the build never needs them).
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "runs", "out", "docs", "*.egg-info", "__pycache__", "*.py[cod]",
                                     ".hypothesis", ".pytest_cache", ".ruff_cache")


def _run(args: list[str], cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, **kw)  # type: ignore[call-overload]
    assert r.returncode == 0, f"{args} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def _wheel(src: Path, out: Path) -> Path:
    """pip's wheel of ``src`` (setuptools writes build/ and egg-info there, so ``src`` is a copy)."""
    _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)], src)
    (whl,) = out.glob("guigym-*.whl")
    return whl


def _source_files(folder: str) -> set[str]:
    """Files of ``folder`` in the source tree (no caches), as paths relative to the root."""
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheel and sdist of a copy of the tree, and the wheel built from the unpacked sdist."""
    tmp = tmp_path_factory.mktemp("pkg")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_NOT_SOURCE)
    whl = _wheel(src, tmp / "dist")
    code = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    name = _run([sys.executable, "-c", code, str(tmp / "dist")], src).stdout.strip().splitlines()[-1]
    sdist = tmp / "dist" / name
    with tarfile.open(sdist) as tar:
        kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # no warning on 3.12+
        tar.extractall(tmp / "unpacked", **kw)  # type: ignore[arg-type]
    (unpacked,) = (tmp / "unpacked").iterdir()
    return {"wheel": whl, "sdist": sdist, "sdist_wheel": _wheel(unpacked, tmp / "from_sdist"), "tmp": tmp}


def _names(whl: Path) -> set[str]:
    with zipfile.ZipFile(whl) as z:
        return set(z.namelist())


def _metadata(whl: Path) -> tuple[str, object]:
    with zipfile.ZipFile(whl) as z:
        (dist_info,) = {n.split("/")[0] for n in z.namelist() if n.split("/")[0].endswith(".dist-info")}
        return dist_info, Parser().parsestr(z.read(f"{dist_info}/METADATA").decode("utf-8"))


def test_wheel_ships_every_runtime_file(built: dict[str, Path]) -> None:
    """The browser runtime (sites/: index.html, runtime.js, runtime.css), the bundled fonts and
    their licence, ``guigym/py.typed`` and every module of the three packages are in the wheel."""
    names = _names(built["wheel"])
    data = _source_files("sites") | _source_files("guigym/fonts") | {"guigym/py.typed"}
    assert {"sites/index.html", "sites/runtime.js", "sites/runtime.css", "guigym/fonts/LICENSE-DejaVu.txt"} <= data
    modules = {f for pkg in PACKAGES for f in _source_files(pkg) if f.endswith(".py")}
    assert not (data | modules) - names, f"missing from the wheel: {sorted((data | modules) - names)}"


def test_wheel_ships_nothing_else(built: dict[str, Path]) -> None:
    """Only the three packages and the dist-info: no tests, scripts, runs or build-machine caches."""
    names = _names(built["wheel"])
    tops = {n.split("/")[0] for n in names}
    assert tops - set(PACKAGES) == {f"guigym-{guigym.__version__}.dist-info"}, sorted(tops)
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyo"))]


def test_wheel_metadata(built: dict[str, Path]) -> None:
    """The version is guigym.__version__; both licence files, Requires-Python and the console
    script are declared; every extra the README names exists."""
    dist_info, meta = _metadata(built["wheel"])
    assert meta["Version"] == guigym.__version__ and dist_info == f"guigym-{guigym.__version__}.dist-info"
    assert meta["Requires-Python"] == ">=3.10"
    names = _names(built["wheel"])
    assert {f"{dist_info}/licenses/LICENSE", f"{dist_info}/licenses/guigym/fonts/LICENSE-DejaVu.txt"} <= names
    with zipfile.ZipFile(built["wheel"]) as z:
        assert "guigym = guigym.cli:main" in z.read(f"{dist_info}/entry_points.txt").decode("utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"guigym\[([a-z0-9_-]+)\]", readme)) | set(re.findall(r"extras? `([a-z0-9_-]+)`", readme))
    assert named and named <= set(meta.get_all("Provides-Extra")), named - set(meta.get_all("Provides-Extra"))


def test_sdist_builds_the_same_wheel_and_carries_the_tests(built: dict[str, Path]) -> None:
    """The wheel built from the sdist has the same files as the one built from the tree; the sdist
    has what its tests need (both conftest.py files, the pins) and no caches."""
    assert _names(built["sdist_wheel"]) == _names(built["wheel"])
    with tarfile.open(built["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"conftest.py", "tests/conftest.py", "constraints.txt", "LICENSE", "examples/custom_reward.py"} <= names
    assert {f for f in _source_files("tests") if f.endswith(".py")} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or n.startswith(("runs/", ".venv/"))]


def test_installed_wheel_works_outside_the_repo(built: dict[str, Path]) -> None:
    """The wheel installed into a fresh venv (dependencies from this venv's site-packages: offline)
    runs from a folder outside the repository with no PYTHONPATH: envs, agents, the browser
    runtime page, the fonts and the ``guigym`` console script come from the install."""
    venv, run = built["tmp"] / "venv", built["tmp"] / "run"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], built["tmp"])
    (site,) = venv.glob("lib/python*/site-packages")
    deps = {p for p in sys.path if p.endswith("site-packages")}
    (site / "_repo_venv_deps.pth").write_text("\n".join(sorted(deps)) + "\n")  # appended after the venv's own
    _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps", "--no-index",
          str(built["wheel"])], built["tmp"])
    run.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    code = (
        "import os, gymnasium as gym, guigym, agents, sites\n"
        "from guigym.fonts import FONT_FILES, font_path\n"
        "from agents import OraclePlanner, PlanActAgent, run_episode\n"
        "for m in (guigym, agents, sites): assert m.__file__.startswith(os.environ['SITE']), m.__file__\n"
        "assert 'window.guigym' in sites.page_html() and all(os.path.isfile(font_path(n)) for n in FONT_FILES)\n"
        "rec = run_episode(gym.make('GuiGym-Login-v0'), PlanActAgent(OraclePlanner(horizon=8)), seed=0)\n"
        "assert rec.success, rec\n"
        "print('ok', guigym.__version__)\n"
    )
    assert _run([str(venv / "bin" / "python"), "-c", code], run, env=env | {"SITE": str(site)}).stdout.strip() == f"ok {guigym.__version__}"
    listed = _run([str(venv / "bin" / "guigym"), "list"], run, env=env).stdout
    assert "GuiGym-Login-v0" in listed and "GuiGym-Shop-v0" in listed


def test_torch_modules_name_their_extra() -> None:
    """Without torch, ``import agents.tiny_policy`` (and every module the root conftest's
    OPTIONAL_IMPORTS lists as needing torch) names the extra to install instead of a bare
    ``No module named 'torch'``; the error keeps its type and ``name``."""
    spec = importlib.util.spec_from_file_location("_root_conftest_pkg", ROOT / "conftest.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    want = {path.removesuffix(".py").replace("/", "."): extra
            for path, (module, extra) in mod.OPTIONAL_IMPORTS.items() if module == "torch" and path.startswith("agents/")}
    assert want, "the conftest lists no agents module that needs torch"
    code = (
        "import sys; sys.modules['torch'] = None\n"  # torch as if not installed
        f"for m in {sorted(want)!r}:\n"
        "    try:\n"
        "        __import__(m)\n"
        "    except ModuleNotFoundError as e:\n"
        "        print(m, e.name, e)\n"
    )
    out = _run([sys.executable, "-c", code], ROOT, env=os.environ | {"SDL_VIDEODRIVER": "dummy"}).stdout.splitlines()
    assert out == [f"{m} torch {m} needs torch: pip install 'guigym[{want[m]}]'" for m in sorted(want)]


def test_chromium_check_without_playwright(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m guigym.backends.chromium`` on the base install: exit status 1 and the extra
    to install on stderr, not a traceback."""
    from guigym.backends import chromium

    monkeypatch.setitem(sys.modules, "playwright", None)  # as if Playwright were not installed
    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)
    assert chromium.main() == 1
    err = capsys.readouterr().err
    assert "pip install 'guigym[browser]'" in err and "Traceback" not in err


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_install_takes_a_torch_index(tmp_path: Path) -> None:
    """``make install TORCH_INDEX=URL`` passes the URL to the pip install of the extras (PyPI's
    Linux torch wheel is a CUDA build; PyTorch's CPU index has the CPU one); without it, no index
    is added. Dry runs (``make -n``) in a fresh venv folder, so every install line is printed."""
    root = Path(__file__).resolve().parents[1]

    def lines(*extra: str) -> list[str]:
        out = subprocess.run(["make", "-n", "-C", str(root), "install", f"VENV={tmp_path / 'venv'}", *extra],
                             capture_output=True, text=True, check=True).stdout
        return [ln for ln in out.splitlines() if '-e ".[all]"' in ln]

    (plain,) = lines()
    (cpu,) = lines("TORCH_INDEX=https://download.pytorch.org/whl/cpu")
    assert "--extra-index-url" not in plain and "-c constraints.txt" in plain
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in cpu
