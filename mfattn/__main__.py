"""Command line: ``python -m mfattn {reproduce,refresh-outputs,strip,figures}``."""

from __future__ import annotations

import argparse
import sys

from .companion.profiles import CHAPTERS, DEVICE_NAMES, PROFILE_NAMES


def _parser() -> argparse.ArgumentParser:
    names = [c.name for c in CHAPTERS]
    parser = argparse.ArgumentParser(prog="python -m mfattn", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("reproduce", help="execute chapters through papermill and write their figures + manifest")
    rep.add_argument("--profile", default="quick", choices=PROFILE_NAMES,
                     help="quick: CPU sizes, minutes for the whole book; full: the papers' scale (GPU)")
    rep.add_argument("--device", default="auto", choices=DEVICE_NAMES)
    rep.add_argument("--chapter", action="append", choices=names, metavar="NAME",
                     help=f"chapter to run (repeatable; default: all): {', '.join(names)}")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument("--no-progress", action="store_true", help="hide the per-cell progress bar")

    ref = sub.add_parser("refresh-outputs", help="re-execute notebooks in place and keep only NBVAL_CHECK_OUTPUT outputs")
    ref.add_argument("--chapter", action="append", choices=names, metavar="NAME")

    stp = sub.add_parser("strip", help="strip notebooks (all but NBVAL_CHECK_OUTPUT outputs) without executing")
    stp.add_argument("--chapter", action="append", choices=names, metavar="NAME")

    fig = sub.add_parser("figures", help="list the figures of a profile's manifest")
    fig.add_argument("--profile", default="quick", choices=PROFILE_NAMES)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .companion import reproduce as rep

    if args.command == "reproduce":
        outcomes = rep.reproduce(profile=args.profile, device=args.device, chapters=args.chapter,
                                 seed=args.seed, progress=not args.no_progress)
        from .companion.chapter import figures_dir, read_manifest

        manifest = read_manifest(args.profile)
        print(f"\n{'chapter':<12} {'status':<7} {'seconds':>8}  figures", file=sys.stderr)
        for o in outcomes:
            figs = sorted(label for label, e in manifest.items() if e.get("chapter") == o.chapter)
            print(f"{o.chapter:<12} {'ok' if o.ok else 'FAILED':<7} {o.seconds:8.1f}  {len(figs)}", file=sys.stderr)
        print(f"figures and manifest: {figures_dir(args.profile)}", file=sys.stderr)
        failed = [o for o in outcomes if not o.ok]
        for o in failed:
            print(f"FAILED {o.chapter}: {o.error}", file=sys.stderr)
        return 1 if failed else 0
    if args.command == "refresh-outputs":
        outcomes = rep.refresh_outputs(args.chapter)
        for o in outcomes:
            print(f"{o.chapter:<12} {'ok' if o.ok else 'FAILED ' + o.error} ({o.seconds:.0f} s)")
        return 0 if all(o.ok for o in outcomes) else 1
    if args.command == "strip":
        for path in rep.strip(args.chapter):
            print(f"stripped {path}")
        return 0
    if args.command == "figures":
        from .companion.chapter import figures_dir, read_manifest

        manifest = read_manifest(args.profile)
        for label, entry in sorted(manifest.items()):
            print(f"{label:<40} {entry['paper_figure']:<40} {entry['sha256'][:12]} {entry['git_commit'][:12]}")
        print(f"({len(manifest)} figures in {figures_dir(args.profile)})")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
