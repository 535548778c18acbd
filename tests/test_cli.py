"""The command line and papermill runs: clear messages, no tracebacks, nothing silently ignored."""

import argparse
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import mfattn
from mfattn.__main__ import main
from mfattn.companion import reproduce as rep
from mfattn.companion import store

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "mfattn", *args], capture_output=True, text=True, cwd=ROOT,
                          **kwargs)


def test_version_and_one_entry_point():
    proc = _cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"mfattn {mfattn.__version__}"
    proc = _cli("--help")
    for command in ("reproduce", "figures", "data", "train", "variants", "refresh-outputs", "strip"):
        assert command in proc.stdout


# Bad command lines: the CLI rows of tests/test_bad_inputs.py.


def test_a_notebook_without_a_parameter_is_named_before_it_runs(monkeypatch, capsys):
    monkeypatch.setattr(rep, "_root", lambda: ROOT)
    monkeypatch.setattr(rep, "_check_parameters", lambda source, params: (_ for _ in ()).throw(
        ValueError(f"{source.name} takes the parameters device, profile, seed; unknown: ['overrides']")))
    assert main(["reproduce", "--chapter", "ising", "--set", "n=3", "--no-progress"]) == 2
    assert "unknown: ['overrides']" in capsys.readouterr().err


def test_every_chapter_takes_the_parameters_reproduce_passes():
    for chapter in rep.CHAPTERS:
        rep._check_parameters(ROOT / chapter.notebook, {"profile": "quick", "device": "cpu", "seed": 0,
                                                         "overrides": {"x": 1}})


def test_full_profile_refuses_a_dirty_tree(monkeypatch, capsys):
    monkeypatch.setattr(rep, "_check_clean_tree", lambda root: (_ for _ in ()).throw(
        rep.DirtyTreeError("the checkout has uncommitted changes ... pass --allow-dirty")))
    assert main(["reproduce", "--profile", "full", "--chapter", "ising"]) == 2
    assert "--allow-dirty" in capsys.readouterr().err


def test_ctrl_c_prints_a_summary_of_what_finished(monkeypatch, tmp_path, capsys):
    import papermill

    calls = []

    def fake_execute(source, target, **kwargs):
        calls.append(Path(source).name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        Path(target).write_text("{}")

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(rep, "_check_parameters", lambda source, params: None)
    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path))
    monkeypatch.delenv("MFATTN_CACHE", raising=False)  # the cache follows it (conftest sets one)
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    code = main(["reproduce", "--chapter", "ising", "--chapter", "deq", "--chapter", "dmft", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 130 and calls == ["01_ising_tap.ipynb", "02_deep_implicit_attention.ipynb"]
    assert "ising        ok" in err and "deq          interrupted" in err and "Traceback" not in err
    assert not [p for p in (tmp_path / "reproduce").rglob(".*.ipynb")]  # no temporary notebook left


def test_outside_a_checkout_figures_says_so(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(store, "project_root", lambda start=None: None)
    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path))
    monkeypatch.delenv("MFATTN_CACHE", raising=False)  # the cache follows it (conftest sets one)
    monkeypatch.delenv("MFATTN_FIGURES", raising=False)
    assert main(["figures"]) == 2
    assert "data/full/ of a checkout" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError, match="inside an mfattn checkout"):
        rep._root()


def test_a_papermill_parameter_typo_is_an_error(tmp_path):
    """``papermill -p profil full`` must not silently run the quick profile."""
    import papermill as pm

    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('profile = "quick"\ndevice = "auto"\nseed = 0\noverrides = {}')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(
        'import os\nos.environ["MFATTN_FIGURES"] = ' + repr(str(tmp_path)) + '\n'
        'from mfattn import ChapterRun\nrun = ChapterRun("ising", profile=profile, device=device, seed=seed, '
        '**overrides)\nprint("profile", run.profile)')]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    source = tmp_path / "chapter.ipynb"
    nbformat.write(nb, source)
    with pytest.raises(pm.PapermillExecutionError, match=r"unknown notebook parameter\(s\) \['profil'\]"):
        pm.execute_notebook(str(source), str(tmp_path / "out.ipynb"), parameters={"profil": "full"},
                            progress_bar=False, kernel_name="python3")
    out = pm.execute_notebook(str(source), str(tmp_path / "ok.ipynb"), parameters={"profile": "full"},
                              progress_bar=False, kernel_name="python3")
    printed = "".join(o.get("text", "") for o in out.cells[-1].outputs if o.get("name") == "stdout")
    assert "profile full" in printed
    assert set(rep.notebook_parameters(source)) == {"profile", "device", "seed", "overrides"}


def test_a_killed_chapter_run_resumes_cleanly(tmp_path):
    """SIGKILL a chapter run mid-way: the rerun finishes, leaves no temporary file, marks the chapter
    finished, and gives the same figures as an uninterrupted run."""
    import json
    import os
    import signal
    import time

    def run(out, kill=False):
        env = {**os.environ, "MFATTN_OUTPUT": str(out),
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        env.pop("MFATTN_FIGURES", None)
        env.pop("MFATTN_CACHE", None)  # the cache follows it (conftest sets one)
        command = [sys.executable, "-m", "mfattn", "reproduce", "--chapter", "ising", "--no-progress"]
        if not kill:
            return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline = time.time() + 120
        while not (out / "figures" / "quick" / "manifest.json").exists() and time.time() < deadline \
                and proc.poll() is None:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its notebook kernel
        proc.wait()

    def read(out, name):
        return json.loads((out / "figures" / "quick" / f"{name}.json").read_text())

    out = tmp_path / "killed"
    run(out, kill=True)
    assert read(out, "runs")["ising"]["status"] == "started"  # the kill left the chapter incomplete
    # what a kill inside an atomic write or a papermill run leaves behind, made to look old
    for path in (out / "figures" / "quick" / ".manifest.json.k2j4h5g6.tmp",
                 out / "reproduce" / "quick" / ".01_ising_tap.abcd1234.ipynb"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        os.utime(path, (time.time() - 600, time.time() - 600))
    proc = run(out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not [p for p in out.rglob(".*") if p.is_file()], "temporary or lock files left behind"
    assert read(out, "runs")["ising"]["status"] == "finished"
    clean = tmp_path / "clean"
    assert run(clean).returncode == 0
    resumed = {k: v["sha256"] for k, v in read(out, "manifest").items()}
    assert resumed == {k: v["sha256"] for k, v in read(clean, "manifest").items()} and len(resumed) >= 3


# ---------------------------------------------------------------------------------------------
# the CLI never reports success on nothing; --set sizes are typed before any chapter runs
# ---------------------------------------------------------------------------------------------


def test_figures_check_of_a_seed_with_no_run_is_not_success(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    assert main(["figures", "--check", "--profile", "full", "--seed", "7"]) == 1
    err = capsys.readouterr().err
    assert "nothing to check" in err and "seed 7" in err and "no such folder" in err


def test_figures_check_where_the_figures_variable_is_a_file(monkeypatch, tmp_path, capsys):
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "a-file"))
    assert main(["figures", "--check"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MFATTN_FIGURES" in err and "is not a folder" in err, err


def test_a_malformed_manifest_entry_is_named_by_figures_check(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "figures" / "full"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text('{"fig-x": {"file": "fig-x.png"}}')
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    assert main(["figures", "--check"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "manifest.json: manifest entry 'fig-x' has no sha256" in err, err


@pytest.mark.parametrize("file", ["../../../etc/hostname", "/etc/hostname"])
def test_a_manifest_entry_pointing_outside_is_named_by_figures_check(file, monkeypatch, tmp_path, capsys):
    folder = tmp_path / "figures" / "full"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text('{"fig-x": {"file": "%s", "sha256": "%s"}}' % (file, "0" * 64))
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    assert main(["figures", "--check"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "manifest entry 'fig-x': file" in err and "inside" in err, err


def test_an_unwritable_output_folder_is_one_line(monkeypatch, tmp_path, capsys):
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path / "a-file"))
    assert main(["reproduce", "--chapter", "ising", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MFATTN_OUTPUT" in err and "Traceback" not in err, err


_DMFT_KEYS = sorted(__import__("mfattn.companion.profiles", fromlist=["PROFILES"]).PROFILES["dmft"]["quick"])
_VALUES = st.one_of(st.integers(-10, 10**6).map(str), st.floats(allow_nan=False).map(repr),
                    st.sampled_from(["abc", "NaN", "Infinity", "-1", "0", "true", "null", "short", "paper-code",
                                     "unknown", "[1.2, 1.4, 11]", "[1, 2]", "[]", '"x"', "[1.0, 2.0, 3.5]",
                                     "{}", "1e3", "1.5"]),
                    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))
_KEYS = st.one_of(st.sampled_from(_DMFT_KEYS), st.text(alphabet="abcdefgh_ =", min_size=1, max_size=10))


def _same_kind(value, default, name) -> bool:
    """``value`` has the kind of the profile's ``default`` (an int size a positive int, or >= 0 for a
    transient; a word one of the protocols; a list a list of the same kind of numbers, a grid's count an int)."""
    import math

    real = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)  # noqa: E731
    if isinstance(default, bool) or default is None:
        return value is None or type(value) is type(default)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool) and value >= (0 if "transient" in name else 1)
    if isinstance(default, float):
        return real(value) and value >= 0
    if isinstance(default, str):
        return value in ("short", "paper-code", "seed-text")
    if isinstance(default, list):
        if not isinstance(value, list) or not value or not all(real(v) for v in value):
            return False
        if len(default) == 3 and isinstance(default[2], int) and not isinstance(default[0], int):  # a grid
            return len(value) == 3 and isinstance(value[2], int) and value[2] >= 1
        return all(isinstance(v, int) for v in value) if all(isinstance(d, int) for d in default) else True
    return False


@given(key=_KEYS, value=_VALUES)
@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_set_values_are_checked_before_any_chapter_runs(key, value, monkeypatch, tmp_path, capsys):
    """Any ``--set key=value``: either the size takes the value and the chapter runs with it, or the
    answer is exit 2 with one line naming the key, and no chapter started."""
    import papermill

    from mfattn.__main__ import _size
    from mfattn.companion.profiles import get_profile

    calls = []

    def fake_execute(source, target, parameters, **kwargs):
        calls.append(parameters)
        Path(target).write_text("{}")

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(rep, "_check_parameters", lambda source, params: None)
    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path))
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    text = f"{key}={value}"
    capsys.readouterr()
    try:
        code = main(["reproduce", "--chapter", "dmft", f"--set={text}", "--no-progress"])
    except SystemExit as stop:  # argparse: a malformed key=value
        code = stop.code
    err = capsys.readouterr().err
    try:
        name, parsed = _size(text)
    except argparse.ArgumentTypeError:  # no key before the first '='
        name, parsed = None, None
    event("ran" if code == 0 else "refused")
    if code == 0:  # the chapter ran: with a size of the kind the profiles give it
        assert len(calls) == 1 and calls[0]["overrides"] == {name: parsed}, err
        assert _same_kind(parsed, get_profile("dmft", "quick")[name], name), (name, parsed)
    else:
        assert code == 2 and not calls, err
        assert "Traceback" not in err
        lines = [line for line in err.splitlines() if line.startswith("mfattn reproduce: error:")]
        assert len(lines) == 1, err
        assert name is None or repr(name) in lines[0] or f"--set {name}:" in lines[0], lines[0]


def test_the_protocol_words_of_the_size_check_are_the_models():
    from mfattn.companion.profiles import CHOICES
    from mfattn.dynamics.model import PROTOCOLS

    assert set(PROTOCOLS) <= set(CHOICES[("dmft", "protocol")])


# ---------------------------------------------------------------------------------------------
# wrong paths given to the command line: one line on stderr, a non-zero exit, never a traceback
# ---------------------------------------------------------------------------------------------

_WRONG_PATHS = [  # (arguments, environment, what the line names); FILE is a file, DIR a folder
    (["train", "--progress", "{DIR}"], {}, "--progress: {DIR} is a folder"),
    (["train", "--progress", "{FILE}/progress.json"], {}, "--progress: {FILE} is a file"),
    (["train", "--progress", "-", "--seed", "0", "--folder", "{FILE}"], {}, "--folder: {FILE} is not a folder"),
    (["train", "--progress"], {"MFATTN_OUTPUT": "{FILE}/out"}, "MFATTN_OUTPUT={FILE}/out: {FILE} is a file"),
    (["train", "--progress"], {"MFATTN_CACHE": "{FILE}"}, "MFATTN_CACHE={FILE} is not a folder"),
    (["variants", "--out", "{DIR}"], {}, "--out: {DIR} is a folder"),
    (["variants"], {"MFATTN_OUTPUT": "{FILE}"}, "MFATTN_OUTPUT={FILE} is not a folder"),
    (["reproduce", "--chapter", "ising"], {"MFATTN_OUTPUT": "{FILE}/out"}, "MFATTN_OUTPUT={FILE}/out: {FILE} is a file"),
    (["reproduce", "--chapter", "ising"], {"MFATTN_OUTPUT": "/proc/mfattn-cannot-be-made"},
     "MFATTN_OUTPUT: cannot create the folder /proc/mfattn-cannot-be-made"),
    (["figures"], {"MFATTN_FIGURES": "{FILE}/figures"}, "MFATTN_FIGURES={FILE}/figures: {FILE} is a file"),
    (["figures", "--check", "--seed", "-1"], {}, "seed must be an integer >= 0"),
]


@pytest.mark.parametrize("args, env, names", _WRONG_PATHS, ids=[" ".join(a) + str(sorted(e)) for a, e, _ in _WRONG_PATHS])
def test_a_wrong_path_is_one_line_and_a_non_zero_exit(args, env, names, tmp_path):
    import os

    if any("/proc/" in v for v in env.values()) and not Path("/proc/self").is_dir():
        pytest.skip("needs Linux's /proc (a folder nobody can create anything in, root included)")
    file, folder = tmp_path / "a-file", tmp_path / "a-folder"
    file.write_text("x")
    folder.mkdir()
    fill = lambda text: text.replace("{FILE}", str(file)).replace("{DIR}", str(folder))  # noqa: E731
    environment = {**os.environ, "MFATTN_OUTPUT": str(tmp_path / "out"), "MFATTN_CACHE": str(tmp_path / "cache"),
                   "MFATTN_FIGURES": str(tmp_path / "figures"), **{k: fill(v) for k, v in env.items()}}
    if "MFATTN_OUTPUT" in env:
        environment.pop("MFATTN_CACHE")  # the cache follows the output folder
    proc = _cli(*map(fill, args), env=environment, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode != 0 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert fill(names) in lines[0] and "error:" in lines[0], lines[0]


def test_export_refuses_a_wrong_out_before_it_reads_the_cache(tmp_path):
    (tmp_path / "a-file").write_text("x")
    proc = subprocess.run([sys.executable, "-m", "mfattn.implicit.export", "--profile", "quick",
                           "--out", str(tmp_path / "a-file" / "run.npz")], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert f"--out: {tmp_path / 'a-file'} is a file" in lines[0]
