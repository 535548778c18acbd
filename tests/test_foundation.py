"""The book machinery: profiles, devices, atomic storage, figures and their manifest, notebooks."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402

from mfattn import ChapterRun
from mfattn.companion import store  # noqa: E402
from mfattn.companion.chapter import read_manifest  # noqa: E402
from mfattn.companion.profiles import CHAPTERS, PROFILES, get_profile, resolve_device  # noqa: E402
from mfattn.companion.reproduce import CHECK_TAG, is_check_cell, strip_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------
# profiles and devices
# ---------------------------------------------------------------------------------------
def test_every_chapter_has_both_profiles():
    assert set(PROFILES) == {c.name for c in CHAPTERS}
    for name, profiles in PROFILES.items():
        assert set(profiles) == {"quick", "full"}, name


def test_unknown_profile_chapter_or_size_is_a_clear_error():
    with pytest.raises(ValueError, match=r"profile must be one of 'quick', 'full'; got 'fast'"):
        get_profile("ising", "fast")
    with pytest.raises(ValueError, match="chapter must be one of"):
        get_profile("magnets", "quick")
    with pytest.raises(ValueError, match=r"unknown size\(s\) \['spins'\]"):
        get_profile("ising", "quick", spins=3)
    assert get_profile("ising", "quick", n=10)["n"] == 10
    assert PROFILES["ising"]["quick"]["n"] != 10  # overrides never leak into the table


def test_devices():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type in ("cpu", "cuda")
    with pytest.raises(ValueError, match="device must be one of"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            resolve_device("cuda")


# ---------------------------------------------------------------------------------------
# atomic storage
# ---------------------------------------------------------------------------------------
def test_atomic_write_survives_an_interrupted_write(tmp_path, monkeypatch):
    target = tmp_path / "result.json"
    store.atomic_write_json(target, {"value": 1})

    def broken_replace(src, dst):
        raise KeyboardInterrupt("interrupted between write and rename")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(KeyboardInterrupt):
        store.atomic_write_json(target, {"value": 2})
    monkeypatch.undo()
    assert json.loads(target.read_text()) == {"value": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temporary file left behind


def test_npz_round_trip_and_config_hash(tmp_path):
    arrays = {"a": np.arange(6.0).reshape(2, 3), "b": np.array([True, False])}
    store.atomic_save_npz(tmp_path / "x.npz", **arrays)
    back = store.load_npz(tmp_path / "x.npz")
    for k, v in arrays.items():
        np.testing.assert_array_equal(back[k], v)
    h1 = store.config_hash({"n": 3, "betas": np.array([0.1, 0.2]), "name": "x"})
    assert h1 != store.config_hash({"n": 4, "betas": [0.1, 0.2], "name": "x"})
    assert len(h1) == 16 and h1 == store.config_hash({"name": "x", "betas": np.array([0.1, 0.2]), "n": 3})


# ---------------------------------------------------------------------------------------
# figures and manifest
# ---------------------------------------------------------------------------------------
def _plot():
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [0, 1, 4])
    return fig


def test_figure_manifest_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path))
    run = ChapterRun("ising", profile="quick", device="cpu", seed=3, instances=2)
    run.figure(_plot(), "fig-test-line", paper_figure="new")
    path = tmp_path / "quick" / "seed-3" / "fig-test-line.png"  # seeds other than 0 never overwrite seed 0
    assert read_manifest("quick") == {}
    entry = read_manifest("quick", seed=3)["fig-test-line"]
    required = {"label", "file", "sha256", "paper_figure", "profile", "parameters", "seed", "device",
                "versions", "git_commit", "wall_time_s", "code_digest", "code_modules"}
    assert required <= set(entry)
    assert entry["sha256"] == store.sha256_file(path)
    assert entry["parameters"]["instances"] == 2 and entry["seed"] == 3 and entry["device"] == "cpu"
    assert {"torch", "numpy", "python"} <= set(entry["versions"])
    # the same figure gives the same bytes: hashes in the manifest are meaningful
    run.figure(_plot(), "fig-test-line-again", paper_figure="new")
    assert read_manifest("quick", seed=3)["fig-test-line-again"]["sha256"] == entry["sha256"]


def test_figure_label_and_seed_validation(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path))
    run = ChapterRun("ising", device="cpu")
    with pytest.raises(ValueError, match="figure label must look like 'fig-"):
        run.figure(_plot(), "Figure 3", paper_figure="new")
    with pytest.raises(ValueError, match="paper_figure"):
        run.figure(_plot(), "fig-ok", paper_figure="")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        ChapterRun("ising", seed=-1)
    with pytest.raises(ValueError, match="profile must be one of"):
        ChapterRun("ising", profile="paper")


def test_strip_notebook_keeps_only_check_outputs():
    nb = nbformat.v4.new_notebook()
    keep = nbformat.v4.new_code_cell("print(1)", metadata={"tags": [CHECK_TAG]})
    keep.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    drop = nbformat.v4.new_code_cell("print(2)")
    drop.outputs = [nbformat.v4.new_output("stream", name="stdout", text="2\n")]
    drop.execution_count = 7
    nb.cells = [keep, drop]
    assert strip_notebook(nb)
    assert keep.outputs and not drop.outputs and drop.execution_count is None
    assert not strip_notebook(nb)  # idempotent


def test_cli_rejects_unknown_profile():
    proc = subprocess.run([sys.executable, "-m", "mfattn", "reproduce", "--profile", "huge"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "invalid choice: 'huge'" in proc.stderr


# ---------------------------------------------------------------------------------------
# the book: table of contents, notebooks, citation metadata
# ---------------------------------------------------------------------------------------
def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [c["file"] for c in part["chapters"]]
    return files


def _chapter_notebooks():
    return [ROOT / c.notebook for c in CHAPTERS if (ROOT / c.notebook).exists()]


def test_toc_entries_exist():
    for entry in _toc_files():
        assert any((ROOT / f"{entry}{ext}").exists() for ext in (".md", ".ipynb")), entry


@pytest.mark.parametrize("path", _chapter_notebooks(), ids=lambda p: p.name)
def test_chapter_notebook_conventions(path):
    nb = nbformat.read(path, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "exactly one papermill `parameters` cell"
    for name in ("profile", "device", "seed"):
        assert re.search(rf"^{name}\s*(:[^=\n]*)?=", params[0].source, re.M), f"parameters cell lacks `{name}`"
    assert re.search(r'^profile\s*(:\s*str\s*)?=\s*"quick"', params[0].source, re.M), "default profile must be quick"
    # committed stripped: only cells tagged nbval-check-output carry outputs
    for cell in nb.cells:
        if cell.cell_type == "code" and not is_check_cell(cell):
            assert not cell.outputs, f"unstripped outputs in cell {cell.source[:40]!r}"
    # every figure shown is produced, and every produced figure is shown
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    # the first label after each run.figure( (the call may nest others: run.figure(figures.x(...), "fig-..."))
    made = set(re.findall(r"""run\.figure\(.*?["'](fig-[a-z0-9-]+)["']""", code, re.S))
    shown = set(re.findall(r"\{glue:figure\}\s+(fig-[a-z0-9-]+)", text)) - {
        s for s in re.findall(r"\{glue:figure\}\s+(fig-[a-z0-9-]+-full)", text)}
    assert made, "a chapter reproduces at least one figure"
    assert made == shown, f"figures made but not shown: {made - shown}; shown but not made: {shown - made}"



HIDDEN_TAGS = {"remove-input", "hide-input", "remove-cell", "hide-cell"}


@pytest.mark.parametrize("path", _chapter_notebooks(), ids=lambda p: p.name)
def test_chapter_cells_are_thin_and_typed(path):
    """Readers see short cells; papermill lists typed parameters; Colab installs; the chapter ends with its verdicts."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines = len(cell.source.strip("\n").splitlines())
        hidden = bool(HIDDEN_TAGS & set(cell.metadata.get("tags", [])))
        assert lines <= (30 if hidden else 15), f"cell {i} has {lines} lines ({'hidden' if hidden else 'visible'})"
        assert "NBVAL_CHECK_OUTPUT" not in cell.source, f"cell {i}: use the tag nbval-check-output"
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    for line in ('profile: str = "quick"', 'device: str = "auto"', "seed: int = 0", "overrides: dict = {}"):
        assert line in params.source, f"parameters cell lacks `{line}`"
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert re.search(r"ChapterRun\([^)]*\*\*overrides\)", code), "ChapterRun must receive **overrides"
    colab = [c for c in nb.cells if 'find_spec("mfattn")' in c.source]
    assert len(colab) == 1 and "remove-cell" in colab[0].metadata.get("tags", []), "one hidden Colab install cell"
    assert nb.cells.index(colab[0]) < nb.cells.index(params)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    name = re.search(r'ChapterRun\(\s*"([a-z]+)"', code).group(1)
    assert "## Verdicts" in text and re.search(rf"\{{glue:md\}}\s+verdicts-{name}\s*\n:format: myst", text)
    last_code = [c for c in nb.cells if c.cell_type == "code"][-1]
    assert "run.verdicts()" in last_code.source, "the chapter's last code cell closes the run: run.verdicts()"
    assert re.search(r"run\.verdict\(|verdict", code), "a chapter records verdicts"


@pytest.mark.parametrize("path", _chapter_notebooks(), ids=lambda p: p.name)
def test_stored_full_figures_are_numbered_figures_with_provenance(path):
    """Each stored full-profile figure a chapter uses is shown as a numbered figure of the stored file,
    with its provenance note glued, and the file is in the full manifest."""
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    full = read_manifest("full")
    shown = re.findall(r"```\{figure\} \.\./data/full/figures/(\S+)\n:name: (fig-[a-z0-9-]+)-full\n", text)
    for file, label in shown:
        assert label in full and full[label]["file"] == file, (label, file)
        assert f"{{glue:text}}`{label}-full-note`" in text, f"{label}: caption lacks its provenance note"
        assert re.search(rf"""stored_figure\(\s*["']{label}["']""", code) or label in code, label
    for label in re.findall(r"\{glue:(?:text|md)\}`(fig-[a-z0-9-]+)-full-note`", text):
        assert label in [lab for _, lab in shown], f"{label}: provenance note without its figure"


def test_citation_cff_is_valid():
    """CITATION.cff validates against the CFF 1.2.0 schema (offline copy in tests/data)."""
    import jsonschema

    schema = json.loads((ROOT / "tests" / "data" / "cff-schema-1.2.0.json").read_text())
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    jsonschema.validate(cff, schema)
    import mfattn

    assert str(cff["version"]) == mfattn.__version__ == str(cff["preferred-citation"]["version"])
    # the newest CHANGELOG entry is this version, released on the CFF's date
    entries = re.findall(r"^## (\S+) \((\d{4}-\d{2}-\d{2})\)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert entries, "CHANGELOG.md has no '## X.Y.Z (YYYY-MM-DD)' entry"
    assert entries[0] == (mfattn.__version__, str(cff["date-released"])), entries[0]


def test_changelog_names_every_verdict_that_changed_since_0_2_0():
    """0.3.0's "Verdicts that changed since 0.2.0" names every claim whose verdict in the stored ledger differs from
    0.2.0's (tests/data/ledger-0.2.0-verdicts.json, that release's data/full/ledger.json), new and removed claims too:
    the ledger as 0.3.0 released it (tests/data/ledger-0.3.0-verdicts.json; later changes are the next entry's)."""
    released = json.loads((ROOT / "tests" / "data" / "ledger-0.2.0-verdicts.json").read_text())["verdicts"]
    at_release = json.loads((ROOT / "tests" / "data" / "ledger-0.3.0-verdicts.json").read_text())["verdicts"]
    ledger = {k: {"verdict": v} for k, v in at_release.items()}
    entry = re.split(r"^## ", (ROOT / "CHANGELOG.md").read_text(), flags=re.MULTILINE)
    entry = next(e for e in entry if e.startswith("0.3.0 ("))
    section = entry.split("### Verdicts that changed since 0.2.0", 1)[1].split("\n### ", 1)[0]
    changed = sorted({k for k, v in ledger.items() if released.get(k) != v["verdict"]} | (set(released) - set(ledger)))
    assert len(changed) >= 30, changed  # 0.3.0 re-decided most claims; an empty list would mean a broken snapshot
    missing = [k for k in changed if f"`{k}`" not in section]
    assert not missing, f"CHANGELOG 0.3.0 does not name these changed verdicts: {missing}"


def test_repository_url_agrees_everywhere():
    import tomllib

    url = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert config["repository"]["url"] == url
    assert cff["repository-code"] == url == cff["preferred-citation"]["repository-code"]
    assert url.startswith("https://")
    for path in _chapter_notebooks():  # the Colab install cells clone the same repository
        cells = [c.source for c in nbformat.read(path, as_version=4).cells if 'find_spec("mfattn")' in c.source]
        assert cells and all(f'"{url}"' in src for src in cells), path.name


def test_lock_file_matches_the_versions_the_stored_results_record():
    """.ci/requirements-cpu.lock pins the numpy/torch/matplotlib that made the stored full-profile results."""
    lock = dict(line.split("==", 1) for line in (ROOT / ".ci" / "requirements-cpu.lock").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    recorded = {json.dumps(e["versions"], sort_keys=True) for e in read_manifest("full").values()}
    assert recorded, "no stored full-profile figure"
    for versions in map(json.loads, recorded):
        for name in ("numpy", "torch", "matplotlib"):
            assert lock[name] == versions[name], (name, lock[name], versions[name])


def test_no_pickle_is_ever_loaded_from_a_file():
    """torch.load only with weights_only=True (tensors and plain types), np.load never with allow_pickle=True."""
    for path in [*ROOT.joinpath("mfattn").rglob("*.py"), *ROOT.joinpath("benchmarks").rglob("*.py")]:
        text = path.read_text()
        calls = re.findall(r"torch\.load\((?:[^()]|\([^()]*\))*\)", text)  # arguments may hold one call
        assert len(calls) == text.count("torch.load("), f"{path.relative_to(ROOT)}: a torch.load call not read"
        for call in calls:
            assert "weights_only=True" in call, f"{path.relative_to(ROOT)}: {call}"
        assert "allow_pickle=True" not in text and "pickle.load" not in text, path.relative_to(ROOT)
