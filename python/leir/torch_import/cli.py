"""``leirc-import``: a PyTorch model file (KernelBench's convention or the Step-TP authors')
→ a LEIR program (and its data)."""

from __future__ import annotations

import argparse
import pathlib
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="leirc-import",
        description="Import a PyTorch model as a LEIR program.  MODEL.py follows "
                    "KernelBench's convention (a Model class and get_inputs(), with "
                    "get_init_inputs() or get_model() when present) or the Step-TP "
                    "authors' (get_default_input_shapes() and "
                    "get_default_model_params_shapes() feeding get_model(*params, dtype=) "
                    "and get_real_inputs(*shapes, dtype=), built in float32).")
    parser.add_argument("model", metavar="MODEL.py")
    parser.add_argument("--class", dest="cls", default="Model", metavar="NAME",
                        help="the nn.Module class (default Model)")
    parser.add_argument("--inputs", default=None, metavar="FUNC",
                        help="the function returning the example inputs (default "
                             "get_real_inputs in a Step-TP file that has it, else get_inputs)")
    parser.add_argument("--dtype", choices=["f32", "f16", "bf16"], default=None,
                        help="convert the model and its inputs to this dtype first")
    parser.add_argument("--train", action=argparse.BooleanOptionalAction, default=None,
                        help="import the model in training mode (batch-norm batch statistics) "
                             "or, --no-train, in eval mode (default: eval mode for a "
                             "KernelBench file, the mode the file builds for a Step-TP file)")
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
