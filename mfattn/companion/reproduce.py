"""Run the book's chapters through papermill, and keep notebooks clean for version control.

``python -m mfattn reproduce --profile quick --device auto [--chapter NAME ...]`` executes
each chapter notebook with its parameters into ``<output>/reproduce/<profile>/``; the
notebooks' :class:`~mfattn.companion.chapter.ChapterRun` writes the figures and their manifest.
A chapter that fails is reported with the cell that failed and its error; its executed
copy is kept as ``<name>.failed.ipynb`` and nothing written by earlier chapters is touched.

``python -m mfattn refresh-outputs [--chapter NAME ...]`` re-executes notebooks in place
and keeps only the outputs of cells tagged ``nbval-check-output`` (the numbers nbval compares
with a rerun; the tag is cell metadata, so readers never see it); ``python -m mfattn strip`` does
the stripping alone.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from . import store
from .profiles import CHAPTERS, DEVICE_NAMES, PROFILES, check_override, check_profile, check_run_work, chapter_info

__all__ = ["ChapterOutcome", "reproduce", "strip_notebook", "refresh_outputs", "CHECK_TAG", "is_check_cell",
           "notebook_parameters", "DirtyTreeError"]

#: nbval's cell tag: under ``--nbval-lax`` only these cells' outputs are compared with the stored ones.
CHECK_TAG = "nbval-check-output"
_LEGACY_MARK = "NBVAL_CHECK_OUTPUT"  # nbval's comment form; the book uses the tag (readers never see it)


def is_check_cell(cell) -> bool:
    """True for a code cell whose outputs nbval compares (tag ``nbval-check-output``)."""
    if not (hasattr(cell, "cell_type") and hasattr(cell, "get") and isinstance(getattr(cell, "source", None), str)):
        raise TypeError(f"cell must be a notebook cell (nbformat's NotebookNode); got {type(cell).__name__}")
    return cell.cell_type == "code" and (CHECK_TAG in cell.get("metadata", {}).get("tags", [])
                                         or _LEGACY_MARK in cell.source.split("\n", 1)[0])


@dataclass
class ChapterOutcome:
    """How one chapter's run ended: its name, whether it ran through, the seconds it took (>= 0), the notebook it
    wrote and, when it did not run through, why. Each field is checked (a chapter the book lacks, ``ok='no'``, a
    negative or NaN time, an error beside ``ok=True``: a TypeError or ValueError naming the field)."""
    chapter: str
    ok: bool
    seconds: float
    output: Path
    error: str = ""

    def __post_init__(self):
        from .checks import check_bool, check_path, check_real

        if not isinstance(self.chapter, str):
            raise TypeError(f"chapter must be a chapter's name (a string); got {type(self.chapter).__name__}")
        chapter_info(self.chapter)
        check_bool("ok", self.ok)
        check_real("seconds", self.seconds, minimum=0.0)
        check_path("output", self.output)
        if not isinstance(self.error, str):
            raise TypeError(f"error must be a string (why the run failed); got {type(self.error).__name__}")
        if self.ok and self.error:
            raise ValueError(f"error must be '' for a chapter that ran through (ok=True); got {self.error!r:.80}")


def _root() -> Path:
    root = store.project_root()
    if root is None:
        raise FileNotFoundError("run this from inside an mfattn checkout (no _toc.yml found above "
                                f"{Path.cwd()}); the chapters are notebooks of the checkout")
    return root


def _selected(chapters: Sequence[str] | None):
    if not chapters:
        return list(CHAPTERS)
    return [chapter_info(name) for name in chapters]


def _describe_failure(err: BaseException, nb_path: Path) -> str:
    """Name the failing cell (index and first source line) and the error."""
    import nbformat

    ename = getattr(err, "ename", type(err).__name__)
    evalue = getattr(err, "evalue", str(err))
    where = ""
    try:
        nb = nbformat.read(nb_path, as_version=4)
        for index, cell in enumerate(nb.cells):
            outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
            if any(o.get("output_type") == "error" for o in outputs):
                first = next((line for line in cell.source.splitlines() if line.strip()), "")
                where = f"cell {index} ({first[:70]!r})"
                break
    except Exception:  # the description is best-effort; the error itself is what matters
        pass
    return f"{where or 'a cell'} raised {ename}: {str(evalue).strip().splitlines()[-1] if evalue else ''}"


def notebook_parameters(path: Path) -> dict[str, dict[str, Any]]:
    """The parameters a notebook declares in its ``parameters`` cell (papermill's own inspection):
    ``{name: {"default", "inferred_type_name", "help"}}``."""
    import papermill as pm

    from .checks import check_path
    from .store_read import read_text_file

    if not check_path("path", path).exists():     # a FIFO or a device is refused by read_text_file, naming it
        raise ValueError(f"path must be a notebook file; {os.fspath(path)!r} does not exist"[:200])
    text = read_text_file(path, "notebook")   # a FIFO, a device or an oversized file is refused before it is read
    try:
        import nbformat

        nbformat.reads(text, as_version=4)
        return pm.inspect_notebook(str(path))
    except Exception as err:   # nbformat and papermill raise many kinds (JSON, validation, recursion) naming no path
        raise ValueError(f"{path} is not a readable Jupyter notebook ({type(err).__name__}: {str(err)[:200]})") from None


def _check_parameters(source: Path, parameters: dict[str, Any]) -> None:
    declared = notebook_parameters(source)
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise ValueError(f"{source.name} takes the parameters {', '.join(sorted(declared))}; unknown: {unknown}")


def _check_clean_tree(root: Path) -> None:
    import subprocess

    from .manifest import tracked_changes

    try:
        dirty = tracked_changes(root)
    except (OSError, subprocess.SubprocessError):
        return  # not a git checkout: nothing to compare with; results record commit "unknown"
    if dirty:
        raise DirtyTreeError("the checkout has uncommitted changes to tracked files, so full-profile results "
                             "could not be traced to a commit:\n" + dirty + "\nCommit them first, or pass "
                             "--allow-dirty (the results are then marked '+dirty' in the manifest)")


#: The largest seed a run takes (seeds plus their offsets must stay within torch's 64-bit seeds).
MAX_SEED = 2**62
#: Seconds a kernel's output may lag behind its execution. nbclient waits 4 s and papermill then fails the chapter:
#: a 30-minute chapter-1 run failed so on two cores shared by five jobs (a full run's kernel is busy, not hung).
IOPUB_TIMEOUT = 600


class DirtyTreeError(RuntimeError):
    """A full-profile run was asked for from a checkout with uncommitted changes."""


def reproduce(profile: str = "quick", device: str = "auto", chapters: Sequence[str] | None = None,
              seed: int = 0, out: Path | None = None, progress: bool = True,
              overrides: dict[str, Any] | None = None, allow_dirty: bool = False) -> list[ChapterOutcome]:
    """Execute the chosen chapters with papermill; return one :class:`ChapterOutcome` per chapter.

    ``overrides`` replace profile sizes (each chapter rejects names it does not know). A full-profile
    run refuses a checkout with uncommitted changes unless ``allow_dirty``. With ``progress``, each
    cell's output (progress bars of long loops) is streamed to the terminal. Ctrl-C stops after the
    running chapter's cell, and the outcomes so far are returned with the interrupted one last.
    Temporary files left by an earlier killed run (in the output, figures and cache folders) are removed
    first; those of a run still going are kept (their names carry its PID and host). The budget variables every
    chapter's cells read (``$MFATTN_MAX_WORK``, ``$MFATTN_MAX_BYTES``, ``$MFATTN_WORK_FACTOR``) are read here first:
    a malformed one (``MFATTN_MAX_WORK=0``) is a ValueError naming it before any chapter starts.
    """
    import papermill as pm

    from .checks import check_int
    from .manifest import figures_dir

    check_profile(profile)
    if device not in DEVICE_NAMES:
        raise ValueError(f"device must be one of {', '.join(map(repr, DEVICE_NAMES))}; got {device!r}")
    seed = check_int("seed", seed, 0)
    if seed > MAX_SEED:
        raise ValueError(f"seed must be at most 2**62 (seeds and their offsets are 64-bit); got {seed}")
    if overrides is not None and not isinstance(overrides, dict):
        raise TypeError(f"overrides must be a dict of profile sizes; got {type(overrides).__name__}")
    from .checks_budgets import max_bytes, max_work
    from .profiles import work_factor

    max_work(), max_bytes(), work_factor()   # a malformed budget fails here, not in a chapter's cell
    from . import store
    from .manifest import figures_dir

    # where the figures go ($MFATTN_FIGURES/<profile>): a system folder is refused here, not at the first figure
    store.check_target_folder(figures_dir(profile, seed), "MFATTN_FIGURES" if os.environ.get("MFATTN_FIGURES")
                              else "the figures folder")
    root = _root()
    if profile == "full" and not allow_dirty:
        _check_clean_tree(root)
    selected = _selected(chapters)
    for chapter in selected if overrides else ():  # before any chapter runs: one clear error, no partial run
        known = PROFILES[chapter.name][profile]
        if not all(isinstance(key, str) for key in overrides):
            raise TypeError(f"overrides: size names must be strings; got {sorted(map(repr, overrides))}")
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise ValueError(f"unknown size(s) {unknown} for chapter {chapter.name!r} (--set / overrides); "
                             f"known: {sorted(known)}")
        for key, value in overrides.items():
            try:
                check_override(chapter.name, key, value)
            except ValueError as err:
                raise ValueError(f"--set {key}: {err}") from None
        try:  # the whole run's estimated work, before the first cell of any chapter
            check_run_work(chapter.name, profile, overrides)
        except ValueError as err:
            raise ValueError(f"--set: {err}") from None
    out_given = bool(out)
    out = Path(out) if out else store.output_dir() / "reproduce" / profile / (f"seed-{seed}" if seed else "")
    store.make_folder(out, "out" if out_given else "MFATTN_OUTPUT")
    started = time.time()
    # temporary files of runs that no longer run (their PID is gone); a run still going keeps its own
    for folder in {out, figures_dir(profile, seed), store.cache_dir()}:
        for path in store.clean_stale_temporaries(folder, older_than=started - 1):
            print(f"removed a temporary file left by a killed run: {path}", file=sys.stderr)
    params = {"profile": profile, "device": device, "seed": seed}
    if overrides:
        params["overrides"] = dict(overrides)
    outcomes = []
    for k, chapter in enumerate(selected, 1):
        source = root / chapter.notebook
        if not source.exists():
            outcomes.append(ChapterOutcome(chapter.name, False, 0.0, source, f"notebook {source} is missing"))
            print(f"[{k}/{len(selected)}] {chapter.name}: notebook {source} is missing", file=sys.stderr)
            continue
        _check_parameters(source, params)
        target = out / source.name
        print(f"[{k}/{len(selected)}] {chapter.name}: {chapter.title} ({profile}, device={device}, seed={seed})",
              file=sys.stderr)
        tmp = store.temporary_path(out, source.stem, ".ipynb")
        start = time.perf_counter()
        try:
            pm.execute_notebook(str(source), str(tmp), parameters=params, cwd=str(source.parent),
                                kernel_name="python3", progress_bar=progress, log_output=progress,
                                stdout_file=sys.stderr if progress else None,
                                stderr_file=sys.stderr if progress else None,
                                request_save_on_cell_execute=False, iopub_timeout=IOPUB_TIMEOUT)
        except KeyboardInterrupt:
            seconds = time.perf_counter() - start
            outcomes.append(ChapterOutcome(chapter.name, False, seconds, target, "interrupted (Ctrl-C)"))
            print(f"    interrupted after {seconds:.0f} s", file=sys.stderr)
            break
        except Exception as err:  # papermill wraps cell errors; anything else (no kernel...) is reported too
            seconds = time.perf_counter() - start
            failed = out / f"{source.stem}.failed.ipynb"
            if tmp.exists() and tmp.stat().st_size:
                os.replace(tmp, failed)
            message = _describe_failure(err, failed) if failed.exists() else f"{type(err).__name__}: {err}"
            outcomes.append(ChapterOutcome(chapter.name, False, seconds, failed, message))
            print(f"    FAILED after {seconds:.0f} s: {message}\n    executed copy: {failed}", file=sys.stderr)
        else:
            seconds = time.perf_counter() - start
            os.replace(tmp, target)
            outcomes.append(ChapterOutcome(chapter.name, True, seconds, target))
            print(f"    done in {seconds:.0f} s -> {target}", file=sys.stderr)
        finally:
            if tmp.exists():
                tmp.unlink()
    return outcomes


def strip_notebook(nb) -> bool:
    """Keep only the outputs of ``nbval-check-output`` cells and drop run metadata. Returns True if changed."""
    if not (hasattr(nb, "metadata") and isinstance(getattr(nb, "cells", None), list)):
        raise TypeError(f"nb must be a notebook (nbformat's NotebookNode); got {type(nb).__name__}")
    for i, cell in enumerate(nb.cells):
        if not (hasattr(cell, "metadata") and hasattr(cell.metadata, "pop") and isinstance(
                getattr(cell, "cell_type", None), str)):
            raise TypeError(f"nb.cells[{i}] must be a notebook cell (with metadata and a cell_type); got "
                            f"{type(cell).__name__} {cell!r:.60}")
    before = repr(nb)
    for key in ("papermill",):
        nb.metadata.pop(key, None)
    for cell in nb.cells:
        for key in ("papermill", "execution", "ExecuteTime"):
            cell.metadata.pop(key, None)
        if cell.cell_type != "code":
            continue
        if not is_check_cell(cell):
            cell.outputs = []
            cell.execution_count = None
        # check cells keep their execution count: nbval treats a reference cell without one as unrun
    return repr(nb) != before


def _write_notebook(nb, path: Path) -> None:
    import nbformat

    store.atomic_write_text(path, nbformat.writes(nb) + "\n")


def strip(chapters: Sequence[str] | None = None, paths: Iterable[Path] = ()) -> list[Path]:
    """Strip the chosen notebooks in place (all chapters by default); return the changed paths."""
    import nbformat

    root = _root()
    targets = [root / c.notebook for c in _selected(chapters)] + [Path(p) for p in paths]
    changed = []
    from .store_read import read_text_file

    for path in targets:
        if not path.exists():
            continue
        # a FIFO, a device (a link to /dev/zero filled memory inside nbformat) or an oversized file is refused first
        text = read_text_file(path, "notebook")
        try:
            nb = nbformat.reads(text, as_version=4)
        except (nbformat.reader.NotJSONError, nbformat.ValidationError, ValueError, KeyError, TypeError) as err:
            raise ValueError(f"{path} is not a notebook nbformat can read: {err}"[:300]) from None
        if strip_notebook(nb):
            _write_notebook(nb, path)
            changed.append(path)
    return changed


def refresh_outputs(chapters: Sequence[str] | None = None, progress: bool = True) -> list[ChapterOutcome]:
    """Execute notebooks (quick profile, defaults of their parameters cell) and store their check outputs."""
    import nbformat
    import papermill as pm

    root = _root()
    outcomes = []
    for chapter in _selected(chapters):
        source = root / chapter.notebook
        tmp = store.temporary_path(source.parent, source.stem, ".ipynb")
        start = time.perf_counter()
        try:
            pm.execute_notebook(str(source), str(tmp), parameters={}, cwd=str(source.parent), kernel_name="python3",
                                progress_bar=progress, log_output=False, request_save_on_cell_execute=False,
                                iopub_timeout=IOPUB_TIMEOUT)
            nb = nbformat.read(tmp, as_version=4)
            strip_notebook(nb)
            _write_notebook(nb, source)
            outcomes.append(ChapterOutcome(chapter.name, True, time.perf_counter() - start, source))
        except Exception as err:
            message = _describe_failure(err, tmp) if tmp.exists() else str(err)
            outcomes.append(ChapterOutcome(chapter.name, False, time.perf_counter() - start, source, message))
            print(f"{chapter.name}: FAILED: {message}", file=sys.stderr)
        finally:
            if tmp.exists():
                tmp.unlink()
    return outcomes
