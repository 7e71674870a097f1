"""``python3 -m leir.torch_import MODEL.py -o OUT.leir``: the same as ``leirc-import``."""

import sys

from .cli import main

sys.exit(main())
