"""The command line: ``mfattn <command>`` (or ``python -m mfattn <command>``).

Commands: ``reproduce`` (execute chapters through papermill; figures, manifest, ledger), ``figures``
(list or ``--check`` the stored figures and results), ``data`` (fetch or check the data sets),
``train`` (the MNIST model of chapter 2), ``variants`` (chapter 2's variant table), ``verdicts`` (re-decide
every declared claim from the stored full-profile numbers, check or write the ledger),
``refresh-outputs`` and ``strip`` (keep notebooks clean for version control).
"""

from __future__ import annotations

import argparse
import json
import sys

from .companion.checks_scalars import _plain_text
from .companion.profiles import CHAPTERS, DEVICE_NAMES, PROFILE_NAMES


def _size(text: str) -> tuple[str, object]:
    """``key=value`` of ``--set``: the value is read as JSON (numbers, lists, true/null), else as a string."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--set takes key=value (a profile size), got {text!r}")
    key, value = text.split("=", 1)
    if not key.strip():
        raise argparse.ArgumentTypeError(f"--set takes key=value with a size's name as key, got {text!r}")
    try:
        return key.strip(), json.loads(value, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError):
        return key.strip(), value


def _no_constant(name: str):
    """NaN and Infinity are not JSON: ``--set x=NaN`` stays the string 'NaN' (and is refused by the size check)."""
    raise ValueError(name)


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    names = [c.name for c in CHAPTERS]
    parser = argparse.ArgumentParser(prog="mfattn", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"mfattn {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("reproduce", help="execute chapters through papermill and write their figures, manifest and verdicts")
    rep.add_argument("--profile", default="quick", choices=PROFILE_NAMES,
                     help="quick: CPU sizes, minutes for the whole book; full: the papers' scale")
    rep.add_argument("--device", default="auto", choices=DEVICE_NAMES)
    rep.add_argument("--chapter", action="append", choices=names, metavar="NAME",
                     help=f"chapter to run (repeatable; default: all): {', '.join(names)}")
    rep.add_argument("--seed", type=int, default=0, help="seed (results of seeds other than 0 go to seed-N/ folders)")
    rep.add_argument("--set", action="append", type=_size, default=[], metavar="KEY=VALUE",
                     help="override a profile size, e.g. --set steps=1000 (value read as JSON); repeatable")
    rep.add_argument("--allow-dirty", action="store_true",
                     help="run the full profile from a checkout with uncommitted changes (results marked +dirty)")
    rep.add_argument("--no-progress", action="store_true", help="hide the per-cell progress and the cells' output")

    fig = sub.add_parser("figures", help="list the figures of a profile's manifest, or check they are current")
    fig.add_argument("--profile", default="full", choices=PROFILE_NAMES)
    fig.add_argument("--seed", type=int, default=0)
    fig.add_argument("--check", action="store_true",
                     help="list stored results whose code changed since (stale), made from a dirty tree, "
                          "missing, or of chapters whose run did not finish; exit 1 if any")

    ver = sub.add_parser("verdicts", help="re-decide every declared claim from the stored full-profile numbers")
    ver.add_argument("--check", action="store_true", help="exit 1 if the stored ledger differs from the rules' decisions")
    ver.add_argument("--write", action="store_true", help="write the re-decided verdicts into data/full/ledger.json")
    ver.add_argument("--allow-dirty", action="store_true", help="write from a checkout with uncommitted changes")

    for name, helptext in (("data", "fetch or check the data sets (MNIST, the papers' stored results)"),
                           ("train", "train the MNIST model of chapter 2 (see mfattn train --help)"),
                           ("variants", "chapter 2's variant table from finished runs")):
        p = sub.add_parser(name, help=helptext, add_help=False)
        p.add_argument("args", nargs=argparse.REMAINDER)

    ref = sub.add_parser("refresh-outputs", help="re-execute notebooks in place and keep only the checked outputs")
    ref.add_argument("--chapter", action="append", choices=names, metavar="NAME")
    stp = sub.add_parser("strip", help="strip notebooks (all but the checked outputs) without executing")
    stp.add_argument("--chapter", action="append", choices=names, metavar="NAME")
    return parser


def _reproduce(args) -> int:
    from .companion import reproduce as rep
    from .companion.manifest import figures_dir, read_manifest

    keys = [key for key, _ in args.set]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:   # dict() would keep the last one silently
        raise ValueError(f"--set names each size once; {', '.join(map(repr, twice))} given more than once")
    outcomes = rep.reproduce(profile=args.profile, device=args.device, chapters=args.chapter, seed=args.seed,
                             progress=not args.no_progress, overrides=dict(args.set) or None,
                             allow_dirty=args.allow_dirty)
    manifest = read_manifest(args.profile, args.seed)
    print(f"\n{'chapter':<12} {'status':<12} {'seconds':>8}  figures", file=sys.stderr)
    for o in outcomes:
        figs = [label for label, e in manifest.items() if e.get("chapter") == o.chapter]
        status = "ok" if o.ok else ("interrupted" if "interrupted" in o.error else "FAILED")
        print(f"{o.chapter:<12} {status:<12} {o.seconds:8.1f}  {len(figs)}", file=sys.stderr)
    print(f"figures and manifest: {figures_dir(args.profile, args.seed)}", file=sys.stderr)
    for o in outcomes:
        if not o.ok:
            print(f"{'INTERRUPTED' if 'interrupted' in o.error else 'FAILED'} {o.chapter}: {o.error}", file=sys.stderr)
    if any("interrupted" in o.error for o in outcomes):
        return 130
    return 1 if any(not o.ok for o in outcomes) else 0


def _figures(args) -> int:
    from .companion import store
    from .companion.manifest import check, figures_dir, read_manifest

    folder = figures_dir(args.profile, args.seed)
    if store.project_root() is None and args.profile == "full" and not folder.exists():
        print("mfattn figures: stored full-profile results live in data/full/ of a checkout of the repository; "
              "none here (run it inside a clone, or set MFATTN_FIGURES)", file=sys.stderr)
        return 2
    if args.check:
        rows = check(args.profile, args.seed)
        if not rows:  # nothing stored is not "all current"
            where = folder if folder.is_dir() else f"{folder} (no such folder)"
            print(f"mfattn figures: nothing to check: no stored figures, results or runs of the {args.profile} "
                  f"profile{f' with seed {args.seed}' if args.seed else ''} in {where}", file=sys.stderr)
            return 1
        bad = [r for r in rows if r["status"] != "current"]
        for r in bad:
            print(f"{r['status']:<10} {r['kind']:<7} {r['key']}  (chapter {r['chapter']})")
        print(f"{len(rows) - len(bad)} of {len(rows)} stored results current in {folder}")
        return 1 if bad else 0
    manifest = read_manifest(args.profile, args.seed)
    for label, entry in sorted(manifest.items()):
        print(f"{label:<40} {str(entry.get('paper_figure', '?'))[:40]:<40} {entry['sha256'][:12]} "
              f"{str(entry.get('git_commit', '?'))[:12]}")
    print(f"({len(manifest)} figures in {folder})")
    return 0


def _verdicts(args) -> int:
    from .companion import ledger, store, verdicts
    from .companion.manifest import git_commit

    if args.write and args.check:   # --check compares with the ledger --write would replace: one or the other
        print("mfattn verdicts: --write and --check exclude each other (write, then check)", file=sys.stderr)
        return 2
    root = store.project_root()
    if root is None:
        raise FileNotFoundError("the stored full-profile numbers live in data/full/ of a checkout; none here")
    decided = verdicts.redecide(root)
    stored = ledger.read_ledger("full")
    differ = []
    for cid, d in decided.items():
        e = stored.get(cid, {})
        keys = [k for k in ("verdict", "how", "note", "numbers", "origin", "evidence", "claim", "source") if e.get(k) != d[k]]
        premises = ledger.clean_premises(cid, d["premises"])
        keys += [k for k in ledger.PREMISE_FIELDS if e.get(k) != premises.get(k)]
        print(f"{d['verdict']:<28} {cid}" + (f"  (stored differs: {', '.join(keys)})" if keys else ""))
        if keys:
            differ.append(cid)
    extra = sorted(set(stored) - set(decided))
    print(f"{len(decided)} claims decided; {len(differ)} differ from the stored ledger"
          + (f"; {len(extra)} stored but no longer declared: {', '.join(extra)}" if extra else ""))
    if args.write:
        commit = git_commit()
        if commit.endswith("+dirty") and not args.allow_dirty:
            raise RuntimeError("the checkout has uncommitted changes: commit the rules first (or --allow-dirty)")
        changes = ledger.apply_decisions(decided, commit)
        for cid in changes["changed"]:
            print(f"verdict changed: {cid}")
        print(f"wrote {ledger.ledger_path('full')} at commit {commit[:12]}")
        return 0
    return 1 if args.check and (differ or extra) else 0


_FORWARDED = ("data", "train", "variants")


def main(argv: list[str] | None = None) -> int:
    if argv is not None:
        if isinstance(argv, (str, bytes)) or not hasattr(argv, "__iter__"):
            raise TypeError(f"argv must be a list of strings (the command line's words); got {type(argv).__name__}")
        argv = list(argv)
        bad = [a for a in argv if not isinstance(a, str)]
        if bad:   # argparse would fail deep inside on a Path or a number
            raise TypeError(f"argv must be a list of strings (the command line's words); got {type(bad[0]).__name__} "
                            f"{bad[0]!r:.60}")
        argv = [_plain_text(a) for a in argv]   # a str subclass as its plain text (argparse compares it)
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in _FORWARDED:
        # their own parsers take every option: argparse's REMAINDER would drop a leading one (--progress)
        args = argparse.Namespace(command=argv[0], args=argv[1:])
    else:
        args = _parser().parse_args(argv)
    try:
        if args.command == "reproduce":
            return _reproduce(args)
        if args.command == "figures":
            return _figures(args)
        if args.command == "verdicts":
            return _verdicts(args)
        if args.command in _FORWARDED:
            if args.command == "data":
                from .companion.datasets import main as run
            elif args.command == "train":
                from .implicit.train import main as run
            else:
                from .implicit.variants import main as run
            return run(args.args)
        from .companion import reproduce as rep

        if args.command == "refresh-outputs":
            outcomes = rep.refresh_outputs(args.chapter)
            for o in outcomes:
                print(f"{o.chapter:<12} {'ok' if o.ok else 'FAILED ' + o.error} ({o.seconds:.0f} s)")
            return 0 if all(o.ok for o in outcomes) else 1
        for path in rep.strip(args.chapter):
            print(f"stripped {path}")
        return 0
    except KeyboardInterrupt:
        print("mfattn: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, RuntimeError) as err:
        # user errors (bad sizes, a dirty tree, no checkout, missing data, a path that cannot be written or is
        # a file where a folder is needed): one line, no traceback
        print(f"mfattn {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
