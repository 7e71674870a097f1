"""``leirc-import``: a KernelBench-style PyTorch model file → a LEIR program (and its data)."""

from __future__ import annotations

import argparse
import pathlib
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="leirc-import",
        description="Import a PyTorch model (a KernelBench-style file: a Model class and "
                    "get_inputs(), with get_init_inputs() or get_model() when present) "
                    "as a LEIR program.")
    parser.add_argument("model", metavar="MODEL.py")
    parser.add_argument("--class", dest="cls", default="Model", metavar="NAME",
                        help="the nn.Module class (default Model)")
    parser.add_argument("--inputs", default="get_inputs", metavar="FUNC",
                        help="the function returning the example inputs (default get_inputs)")
    parser.add_argument("--dtype", choices=["f32", "f16", "bf16"], default=None,
                        help="convert the model and its inputs to this dtype first")
    parser.add_argument("--train", action="store_true",
                        help="import the model in training mode (batch-norm batch statistics)")
    parser.add_argument("--seed", type=int, default=0, help="torch.manual_seed before building")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.leir")
    parser.add_argument("--data-dir", metavar="DIR",
                        help="also write the inputs, parameters and PyTorch's outputs as .npy "
                             "files and manifest.json (the corpus's data layout)")
    args = parser.parse_args(argv)
    try:
        from . import TorchImportError, from_torch
        from .kernelbench import load_model_file
    except ImportError as exc:
        print(f"leirc-import: needs PyTorch and NumPy: {exc}", file=sys.stderr)
        return 1
    try:
        model, inputs = load_model_file(args.model, args.cls, args.inputs, args.seed, args.train)
        out = pathlib.Path(args.output)
        imported = from_torch(model, inputs, name=out.stem, dtype=args.dtype)
    except TorchImportError as exc:
        print(f"leirc-import: error: {exc}", file=sys.stderr)
        return 1
    try:
        out.write_text(imported.text, encoding="utf-8")
        if args.data_dir:
            imported.write(args.data_dir)
    except OSError as exc:
        print(f"leirc-import: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
