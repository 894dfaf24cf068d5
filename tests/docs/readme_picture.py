"""The README's picture: the context package of the demo task on the demo fixture,
drawn by the core (``ContextPackage.to_svg``), written to ``docs/package.svg``.

    python tests/docs/readme_picture.py [OUT]          # make readme-picture
    python tests/docs/readme_picture.py --check [OUT]  # exit 1 when OUT is stale

History and the on-disk cache are off, so the picture depends on the fixture and the
library alone (the fixture lies inside this repository's git work tree, whose commits
would otherwise count as its history). ``tests/python/test_docs_snippets.py`` runs the
check.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "locate_app"
OUT = ROOT / "docs" / "package.svg"
#: The task of `make demo` (the Makefile's DEMO_TASK).
TASK = (
    "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP "
    "in `convert_currency`"
)
BUDGET_TOKENS = 4000


def picture() -> str:
    """The SVG of the demo task's package, as the library draws it now."""
    import deepdiscovery

    config = deepdiscovery.Config(history=False, cache=False, watch=False)
    package = deepdiscovery.discover(str(FIXTURE), TASK, config=config, budget_tokens=BUDGET_TOKENS)
    return package.to_svg()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    svg = picture()
    if args.check:
        if not args.out.is_file() or args.out.read_text(encoding="utf-8") != svg:
            print(f"{args.out} is stale: run `make readme-picture`", file=sys.stderr)
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
