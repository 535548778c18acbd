"""The notebook side of a chapter: profile sizes, seeds, figures, numbers and the figure manifest.

A chapter notebook starts with a papermill ``parameters`` cell and then opens a run::

    profile = "quick"   # papermill parameters
    device = "auto"
    seed = 0

    run = ChapterRun("ising", profile=profile, device=device, seed=seed)
    sizes = run.sizes                                  # this chapter's sizes in this profile
    ...
    run.figure(fig, "fig-ising-rmse", paper_figure="new (no figure in the paper)")
    run.number("rmse_tap", value, "{:.1e}")         # glued into the prose

Figures go to ``<output>/figures/<profile>/<label>.png`` (``_build/figures/quick`` for the
quick profile; ``data/full/figures`` for the full profile, which is kept in the repository)
together with ``manifest.json``: label, file, sha256, the paper figure it reproduces,
profile, parameters, seed, device, package versions, git commit and wall time. Every
write is atomic, and the manifest is updated under a file lock so chapters executed in
parallel (nbval with xdist) cannot lose each other's entries.
"""

from __future__ import annotations

import ast
import io
import random
import re
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from . import manifest, store
from .checks import check_device, check_int
from .checks_scalars import is_integer
from .manifest import figures_dir, git_commit, package_versions, read_manifest
from .profiles import chapter_info, check_profile, get_profile, resolve_device

__all__ = ["ChapterRun", "figures_dir", "read_manifest", "package_versions", "git_commit", "STYLE",
           "NOTEBOOK_PARAMETERS"]

#: The parameters every chapter notebook declares in its papermill ``parameters`` cell.
NOTEBOOK_PARAMETERS = ("profile", "device", "seed", "overrides")
#: Vector copies of full-profile figures larger than this are not kept (scatter plots of millions of
#: points; the PNG is the figure then).
MAX_VECTOR_BYTES = 1 << 20

LABEL_RE = re.compile(r"^fig-[a-z0-9][a-z0-9-]*$")

#: The largest seed (seeds plus their offsets stay within torch's 64-bit seeds) and thread count a run takes.
MAX_SEED, MAX_THREADS = 2**62, 4096

#: The book's matplotlib style sheet; ``plt.style.use(STYLE)`` gives readers the same look.
STYLE = Path(__file__).with_name("mfattn.mplstyle")


def _glue(name: str, value: Any) -> None:
    """Hand a value to the book (myst-nb glue); a no-op where myst-nb is not installed."""
    try:
        from myst_nb import glue
    except ImportError:  # plain papermill/nbval runs without the book extras
        return
    glue(name, value, display=False)


def _verdict_words(entry: dict[str, Any]) -> str:
    """``"reproduced with differences (fragile)"``: a ledger entry's verdict and, where it was tried under its
    alternatives, its robustness, for prose (glued as ``verdict-<claim id>`` by :meth:`ChapterRun.verdicts`)."""
    robustness = entry.get("robustness")
    return f"{entry['verdict']} ({robustness})" if robustness else str(entry["verdict"])


def _papermill_parameters() -> tuple[set[str], set[str]] | None:
    """``(declared, injected)`` parameter names when this kernel runs a notebook under papermill:
    ``declared`` assigned in the notebook's ``parameters`` cell, ``injected`` in the cell papermill
    adds after it (``# Parameters``). None outside papermill."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    history = list(shell.user_ns.get("In", [])) if shell is not None else []
    # papermill's injected cell starts with the line "# Parameters" (its default header)
    injected_at = [i for i, src in enumerate(history) if src.strip().split("\n", 1)[0].strip() == "# Parameters"]
    if not injected_at:
        return None

    def names(source: str) -> set[str]:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return set()
        return {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(t, ast.Name)}

    i = injected_at[-1]
    declared = next((names(src) for src in reversed(history[:i]) if "profile" in names(src)), None)
    return (declared, names(history[i])) if declared else None


class ChapterRun:
    """One execution of a chapter notebook in a profile.

    Parameters
    ----------
    chapter : str
        Short chapter name (see :data:`mfattn.companion.profiles.CHAPTERS`).
    profile : {"quick", "full"}
    device : {"auto", "cpu", "cuda"}
    seed : int
        Seeds Python, numpy and torch; chapter code should still pass explicit
        generators derived from it (:meth:`generator`). Seeds other than 0 write their figures and
        results into a ``seed-<n>/`` folder, so they never overwrite seed 0's.
    threads : int or None
        Torch intra-op threads. The default (1 on CPU) is fastest for the book's small models.
    **overrides
        Replace profile sizes (unknown names are an error); notebooks pass their ``overrides``
        parameter here (``papermill -p overrides '{"steps": 100}'``, ``mfattn reproduce --set steps=100``).

    Under papermill, a parameter the notebook does not declare (a typo such as ``-p profil full``)
    is an error rather than a silently ignored setting.
    """

    def __init__(self, chapter: str, profile: str = "quick", device: str = "auto", seed: int = 0,
                 threads: int | None = None, **overrides: Any) -> None:
        import torch

        self.chapter = chapter_info(chapter)
        params = _papermill_parameters()
        if params is not None:
            declared, injected = params
            unknown = sorted(injected - declared)
            if unknown:
                raise ValueError(f"unknown notebook parameter(s) {unknown} for chapter {chapter!r}; it takes "
                                 f"{', '.join(sorted(declared))} (sizes go in overrides, e.g. "
                                 f"-p overrides '{{\"steps\": 100}}')")
        self.profile = check_profile(profile)
        self.device = resolve_device(device)
        if not is_integer(seed) or not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be a non-negative integer (at most 2**62); got {seed!r}")
        self.seed = int(seed)
        if threads is not None:  # checked with the rest, before the sizes' work and any state is touched
            threads = check_int("threads", threads, 1, MAX_THREADS)
        # every size checked against its kind and the whole run's work against the budget (get_profile)
        self.sizes = get_profile(chapter, profile, **overrides)
        from .checks_budgets import admit_chapter_work

        admit_chapter_work()   # a chapter's run: its calls may do a chapter's work (the run's was bounded just above)
        self.overrides = dict(overrides)
        if threads is None and self.device.type == "cpu":
            threads = 1
        if threads is not None:
            torch.set_num_threads(int(threads))
        random.seed(self.seed)
        np.random.seed(self.seed % 2**32)
        torch.manual_seed(self.seed)
        self._start = time.perf_counter()
        self._started = time.strftime("%Y-%m-%dT%H:%M:%S")
        # The commit (and tree state) the run starts from: its code is loaded now, so a commit or merge
        # made while a long run goes on must not relabel the figures it saves later.
        self._git_commit = git_commit()
        self._figures: list[str] = []
        self._verdicts: dict[str, dict[str, Any]] = {}
        self._style()
        manifest.mark_run(self.profile, self.seed, self.chapter.name, "started", started=self._started,
                          device=str(self.device), overrides=self.overrides, git_commit=self._git_commit)
        _glue("profile", self.profile)
        _glue("device", str(self.device))

    # -- reproducibility ---------------------------------------------------------------
    def _offset(self, offset: Any) -> int:
        """``offset`` if ``seed + offset`` is a seed torch and numpy take (an integer in [0, 2**63 - 1])."""
        return check_int("offset", offset, -self.seed, 2**63 - 1 - self.seed)

    def generator(self, offset: int = 0, device: Any = None):
        """A fresh ``torch.Generator`` seeded with ``seed + offset`` (on ``device``, default CPU: ``"cpu"``,
        ``"cuda"``, ``"cuda:N"`` or a torch.device); ``seed + offset`` must be in [0, 2**63 - 1]."""
        import torch

        offset = self._offset(offset)
        if device is not None:
            check_device("device", device)
        gen = torch.Generator(device=device or "cpu")
        gen.manual_seed(self.seed + offset)
        return gen

    def rng(self, offset: int = 0) -> np.random.Generator:
        """A fresh numpy ``Generator`` seeded with ``seed + offset`` (in [0, 2**63 - 1])."""
        return np.random.default_rng(self.seed + self._offset(offset))

    @property
    def wall_time(self) -> float:
        """Seconds since the run started."""
        return time.perf_counter() - self._start

    @property
    def folder(self):
        """Where this run's figures, manifest and results go (:func:`~mfattn.companion.manifest.figures_dir`)."""
        return figures_dir(self.profile, self.seed)

    def _provenance(self) -> dict[str, Any]:
        modules, digest = manifest.code_fingerprint(self.chapter.notebook)
        return {"chapter": self.chapter.name, "notebook": self.chapter.notebook, "profile": self.profile,
                "seed": self.seed, "device": str(self.device), "device_name": _device_name(self.device),
                "versions": package_versions(), "git_commit": self._git_commit, "code_digest": digest,
                "code_modules": modules, "wall_time_s": round(self.wall_time, 2)}

    # -- output to the book ---------------------------------------------------------------
    @staticmethod
    def _style() -> None:
        import matplotlib.pyplot as plt

        plt.style.use(STYLE)

    def figure(self, fig, label: str, *, paper_figure: str, params: dict[str, Any] | None = None,
               caption: str | None = None) -> None:
        """Save ``fig`` as ``<label>.png``, record it in the manifest and glue it for the book.

        ``paper_figure`` names what it reproduces (e.g. ``"Bal 2021, fig. 3"``, or ``"new"``).
        The markdown cell that shows it uses ``{glue:figure} <label>`` with ``:name: <label>``; the
        page shows the very bytes whose SHA-256 the manifest records. Full-profile figures also get a
        vector copy ``<label>.pdf`` for papers (unless it would exceed 1 MB). Returns None (so a notebook cell ending with it
        displays nothing); the file is ``self.folder / f"{label}.png"``.
        """
        import matplotlib.pyplot as plt

        if not isinstance(label, str) or not LABEL_RE.match(label):
            raise ValueError(f"figure label must look like 'fig-some-name' (lowercase, digits, '-'); got {label!r}")
        if not paper_figure:
            raise ValueError("paper_figure must name the paper figure this reproduces (or say 'new')")
        if not isinstance(paper_figure, str):
            raise TypeError(f"paper_figure must be text naming the paper figure this reproduces (or 'new'); got "
                            f"{type(paper_figure).__name__} {paper_figure!r:.60}")
        if caption is not None and not isinstance(caption, str):
            raise TypeError(f"caption must be None or text; got {type(caption).__name__} {caption!r:.60}")
        if params is not None and not isinstance(params, Mapping):
            raise TypeError(f"params must be None or a mapping of the figure's parameters; got {type(params).__name__}")
        path = self.folder / f"{label}.png"
        buf = io.BytesIO()
        # Fixed metadata so the same figure gives the same bytes (and sha256) run after run.
        fig.savefig(buf, format="png", metadata={"Software": None})
        png = buf.getvalue()
        store.atomic_write_bytes(path, png)
        vector = None
        if self.profile == "full":
            pdf = io.BytesIO()
            fig.savefig(pdf, format="pdf", metadata={"CreationDate": None, "Creator": None, "Producer": None})
            if len(pdf.getvalue()) <= MAX_VECTOR_BYTES:
                vector = store.atomic_write_bytes(path.with_suffix(".pdf"), pdf.getvalue()).name
        entry = {"label": label, "file": path.name, "sha256": store.sha256_file(path), "vector": vector,
                 "paper_figure": paper_figure, "parameters": {**self.sizes, **(params or {})},
                 "caption": caption, **self._provenance()}
        manifest.update(self.profile, self.seed, "manifest", label, entry)
        self._figures.append(label)
        _glue(label, _png_image(png, fig.get_dpi()))
        plt.close(fig)

    def has_data(self, name: str) -> bool:
        """True when every file of data set ``name`` (:mod:`mfattn.companion.datasets`) is here, or was
        just downloaded and verified. Otherwise (offline, no copy) show a warning saying which file is
        missing, where it was looked for and how to get it, and return False: the chapter skips the
        sections that need the data and renders the rest."""
        from . import datasets

        try:
            for file in datasets.dataset_files(name):
                datasets.fetch(name, file)
        except datasets.MissingDataError as err:
            from IPython.display import Markdown, display

            display(Markdown(f"```{{warning}}\nThis section needs the data set `{name}`, which is not here: "
                             f"{err}\nThe sections that need it are skipped.\n```"))
            return False
        return True

    def result(self, path: Any, description: str) -> None:
        """Record a stored result file other than a figure (a summary, arrays behind a figure) that this
        run wrote, with its SHA-256 and the digest of the code that made it (``figures --check``)."""
        path = store._resolved(store.check_path("path", path), "path", expand=False)   # a symlink loop: by name
        root = store.project_root()
        if not path.is_file():
            raise FileNotFoundError(f"result {path} does not exist; write it before recording it")
        # the key is where `figures --check` reads it: a path inside the root, or inside this run's folder
        if root is not None and path.is_relative_to(root):
            key = path.relative_to(root).as_posix()
        elif path.is_relative_to(self.folder.resolve()):
            key = str(path)
        else:
            raise ValueError(f"result {path} is outside the project root ({root}) and this run's folder "
                             f"({self.folder}); store results inside one of them")
        entry = {"file": key, "sha256": store.sha256_file(path), "description": description, **self._provenance()}
        manifest.update(self.profile, self.seed, "results", key, entry)

    def number(self, name: str, value: Any, fmt: str = "{}") -> None:
        """Glue ``fmt.format(value)`` into the prose, where ``{glue:text}`name``` shows it.

        ``name`` is a glue name (a non-empty string) and ``fmt`` a format string that takes ``value``; a format that
        does not (``{:d}`` of a float) is a ValueError naming ``fmt`` and ``value``. Returns None, so a cell ending
        with it displays nothing.
        """
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"name must be a glue name (a non-empty string); got {type(name).__name__} {name!r:.60}")
        if not isinstance(fmt, str):
            raise TypeError(f"fmt must be a format string such as '{{:.3g}}'; got {type(fmt).__name__} {fmt!r:.60}")
        import string

        if not any(field is not None for _, field, _, _ in string.Formatter().parse(fmt)):
            # 'no braces' glues its own words and drops the value
            raise ValueError(f"fmt must be a format string with a field for the value, such as '{{:.3g}}'; got "
                             f"{fmt!r:.60}")
        try:
            text = fmt.format(value)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
            raise ValueError(f"fmt {fmt!r:.60} cannot format value {value!r:.60} ({type(err).__name__}: {err})") from None
        _glue(name, text)

    # -- verdicts on the papers' claims ------------------------------------------------------
    def verdict(self, claim_id: str, source: str, claim: str, verdict: str, evidence: str | Sequence[str],
                numbers: Mapping[str, Any] | None = None, note: str = "", *, how: str, measured: str = "",
                origin: str = "paper", premises: Mapping[str, Any] | None = None) -> None:
        """Record what this run says about a claim of a paper in the profile's ledger.

        ``source`` names the paper and place ("Poc-López & Aguilera 2024, Fig. 4"); ``verdict`` is one
        of :data:`mfattn.companion.ledger.VERDICTS`; ``evidence`` names figure labels of this chapter
        (or stored full-profile ones) and/or test ids (``tests/test_x.py::test_name``); ``numbers``
        are the values behind the verdict; ``how`` is the sentence of the rule that decided it, ``origin``
        whose claim it is ("paper" or "ours"), ``premises`` what the verdict stands on (quote, thresholds,
        spread, alternatives, robust / fragile: :data:`mfattn.companion.ledger.PREMISE_FIELDS`). Chapters call it through
        :func:`mfattn.companion.verdicts.record`, which decides each declared claim by its rule. A claim id
        may be given once per run and belongs to one chapter. Returns None. :meth:`verdicts` shows the
        chapter's table.
        """
        from . import ledger

        entry = ledger.make_entry(claim_id, source, claim, verdict, evidence, numbers, note, how=how,
                                   measured=measured, origin=origin, premises=premises)
        if claim_id in self._verdicts:
            raise ledger.LedgerError(f"claim_id {claim_id!r} was already given a verdict in this run of "
                                     f"chapter {self.chapter.name!r}; each claim gets one verdict")
        stored = set(read_manifest("full"))
        info = {"seed": self.seed, "git_commit": self._git_commit, "run_started": self._started}
        self._verdicts[claim_id] = ledger.record(self.profile, entry, chapter=self.chapter.name,
                                                 run_info=info, figure_labels=set(self._figures) | stored,
                                                 shown=self._figures, seed=self.seed, stored_full=stored)

    def verdicts(self) -> None:
        """Close the run: glue its verdicts as a table (``{glue:md}`verdicts-<chapter>``` with
        ``:format: myst``), drop the chapter's ledger entries that this run no longer makes, and record
        the chapter's run as finished. Call it at the chapter's end."""
        from IPython.display import Markdown

        from . import ledger

        ledger.prune(self.profile, self.chapter.name, self._verdicts, seed=self.seed)
        if self._verdicts:
            text = ledger.verdict_table(self._verdicts.values())
        else:
            text = "*This chapter records no verdict yet.*"
        _glue(f"verdicts-{self.chapter.name}", Markdown(text))
        for claim_id, entry in self._verdicts.items():   # prose names a verdict by glue, never by a copied word
            _glue(f"verdict-{claim_id}", _verdict_words(entry))
        manifest.mark_run(self.profile, self.seed, self.chapter.name, "finished", started=self._started,
                          device=str(self.device), overrides=self.overrides, wall_time_s=round(self.wall_time, 1),
                          git_commit=self._git_commit)

    def stored_figure(self, label: str, title: str | None = None) -> dict[str, Any]:
        """The manifest entry of the full-profile figure ``label`` stored in ``data/full/figures``, and
        glue ``<label>-full-note``: a sentence with the device, the wall time, the commit and the first
        8 characters of its SHA-256, and the command that remakes it. The chapter shows the stored file
        as a numbered figure (Sphinx copies its very bytes into the HTML)::

            ```{figure} ../data/full/figures/fig-x.png
            :name: fig-x-full

            Full profile (paper scale) of ...; {glue:text}`fig-x-full-note`
            ```

        ``title`` (optional) starts the note. A missing entry or file is an error: a page must not cite a
        figure that is not stored.
        """
        entry = read_manifest("full").get(label)
        if entry is None:
            raise FileNotFoundError(f"no full-profile result of {label!r} is stored in {figures_dir('full')}; "
                                    f"`python -m mfattn reproduce --profile full --chapter {self.chapter.name}` "
                                    f"makes it")
        path = store.inside(figures_dir("full"), entry["file"], "file", nested=False)
        if not path.exists():
            raise FileNotFoundError(f"the full-profile manifest names {path}, which is missing")
        device = entry.get("device_name") or entry["device"]
        dirty = " (from a tree with uncommitted changes)" if entry["git_commit"].endswith("+dirty") else ""
        command = f"python -m mfattn reproduce --profile full --chapter {self.chapter.name}"  # plain text: no backticks
        _glue(f"{label}-full-note", (f"{title}: " if title else "") + f"data/full/figures/{entry['file']}, sha256 {entry['sha256'][:8]}, computed "
                                    f"on {device} in {entry['wall_time_s']:.0f} s at commit "
                                    f"{entry['git_commit'][:8]}{dirty}; remade by {command}")
        return entry


def _device_name(device) -> str:
    """The GPU's name, or the CPU's model name where the system tells it."""
    import torch

    from .machine import cpu_model

    return torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_model()


def _png_image(png: bytes, display_dpi: float | None = None):
    """An IPython image of these exact PNG bytes, shown at the size the figure has on screen."""
    import struct

    import matplotlib as mpl
    from IPython.display import Image

    width = struct.unpack(">I", png[16:20])[0]  # the PNG header's IHDR width
    display_dpi = display_dpi or float(mpl.rcParams["figure.dpi"])
    return Image(data=png, format="png", width=int(round(width * display_dpi / float(mpl.rcParams["savefig.dpi"]))))
