"""The moving average's share (issue 17's ablation): a run's last training state as two models, its raw
weights and the average of them it kept (`--ema-decay`), to be scored alike.

    python benchmarks/average_ablation.py runs/r1c          # writes runs/r1c-raw and runs/r1c-ema
    mtcli evaluate -m runs/r1c-raw --split selection --limit 5000
    mtcli evaluate -m runs/r1c-ema --split selection --limit 5000
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from mtcli import checkpoint
from mtcli.model import Model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run directory with a training state kept with --ema-decay")
    run = parser.parse_args().run
    model, _, loop, _, average = checkpoint.load_state(run)
    if average is None:
        raise SystemExit(f"{run}: the run kept no moving average (--ema-decay 0)")
    _, meta = checkpoint.load_tensors(run / checkpoint.WEIGHTS)
    meta = {k: v for k, v in meta.items() if k not in ("model", "tokenizers")}  # (save_model writes them anew)
    for name, flat in (("raw", model.flat), ("ema", average)):
        out = run.with_name(f"{run.name}-{name}")
        out.mkdir(exist_ok=True)
        for tokenizer in (checkpoint.SRC_TOK, checkpoint.TGT_TOK):
            shutil.copy(run / tokenizer, out / tokenizer)
        checkpoint.save_model(out, Model(model.cfg, flat.copy()), meta)
        print(f"wrote {out} (epoch {len(loop.history)}, {name} weights)")


if __name__ == "__main__":
    main()
