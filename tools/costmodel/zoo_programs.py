"""Write the model zoo's programs as LEIR files for the cost model's measurements.

Usage: zoo_programs.py OUTDIR [ZOO_DIR ...]

Every KernelBench-style or Step-TP file ``NAME.py`` of the zoo folders (default: the
source tree's testsuite/python/zoo and zoo_steptp) is imported with ``leir.from_torch``
and written as ``OUTDIR/zoo/NAME.leir`` (``OUTDIR/zoo_steptp/NAME.leir``; the text
carries its own ``%`` declarations).  A model that does not import is reported on
stderr and skipped.  Run with PYTHONPATH pointing at the source tree's python/ and
LEIR_LIBDIR at a built libleir (tools/costmodel/measure.sh does).
"""

from __future__ import annotations

import pathlib
import sys

from leir.torch_import import TorchImportError, from_torch, load_model_file

HERE = pathlib.Path(__file__).resolve().parent
ZOOS = [HERE.parent.parent / "testsuite" / "python" / "zoo",
        HERE.parent.parent / "testsuite" / "python" / "zoo_steptp"]


def export(zoo: pathlib.Path, out: pathlib.Path) -> int:
    """Write every model of ``zoo`` under ``out/<zoo name>/``; returns how many."""
    dest = out / zoo.name
    dest.mkdir(parents=True, exist_ok=True)
    n = 0
    for path in sorted(zoo.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            model, inputs = load_model_file(path)
            imp = from_torch(model, inputs, name=path.stem)
        except (TorchImportError, RuntimeError, ValueError, TypeError) as err:
            print(f"{path.name}: skipped: {err}", file=sys.stderr)
            continue
        (dest / f"{path.stem}.leir").write_text(imp.text, encoding="utf-8")
        n += 1
    return n


def main(argv: list[str]) -> int:
    """Entry point: OUTDIR then optional zoo folders."""
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out = pathlib.Path(argv[0])
    zoos = [pathlib.Path(a) for a in argv[1:]] or ZOOS
    for zoo in zoos:
        print(f"{zoo.name}: {export(zoo, out)} programs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
