"""`docqa models list | pull | import | default | verify | remove`."""
from __future__ import annotations

import json
import sys
import time

from ..service import NO_VISION_MODEL, Service
from .common import cancel_on_sigint, local_path


def add_parsers(sub, common) -> None:
    models = sub.add_parser("models", parents=[common], help="language and vision models: list, pull, import…")
    models.set_defaults(run=run)
    verbs = models.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("list", parents=[common], help="catalog, installed models, hardware, roles")
    p.add_argument("--json", action="store_true")
    p = verbs.add_parser("pull", parents=[common], help="download a catalog model (resumable, checksum-verified)")
    p.add_argument("name")
    p.add_argument("--variant", help="quantization, e.g. Q4_K_M (default: the catalog's choice)")
    p = verbs.add_parser("import", parents=[common],
                         help="install a GGUF file already on disk (copied into the model folder), or register a "
                              "ColQwen2.5 folder (page embedder) where it is")
    p.add_argument("path", type=local_path)
    p.add_argument("--projector", "--base", dest="projector", type=local_path,
                   help="the vision projector (mmproj GGUF) of a vision model; for a page-embedder adapter "
                        "folder, its base model folder")
    p.add_argument("--name", help="name to use (default: from the file name)")
    p.add_argument("--link", action="store_true",
                   help="use the file where it lies instead of copying it (the model is missing while it is away)")
    p = verbs.add_parser("default", parents=[common],
                         help="choose the model that serves a role (saved in the settings; 'auto': the most capable)")
    p.add_argument("role", choices=("text", "vision"))
    p.add_argument("name", help="an installed model's name, or auto")
    p = verbs.add_parser("verify", parents=[common], help="check installed model files are intact")
    p.add_argument("name", nargs="?")
    p = verbs.add_parser("remove", parents=[common],
                         help="forget a model (its downloaded or copied files are deleted; a linked file never is)")
    p.add_argument("name")
    p.add_argument("--keep-files", action="store_true",
                   help="keep its files (a download in the Hugging Face cache, an import's copy)")


def run(service: Service, args) -> int:
    return _VERBS[args.verb](service, args)


def _list(service: Service, args) -> int:
    rows = service.models.overview()
    hardware = service.models.hardware
    choice = service.models.recommendation()
    roles = service.models.roles()
    runs_on = service.models.runs_on(service.library.onnx_device())
    if args.json:
        print(json.dumps({
            "hardware": {"cpu_cores": hardware.cpu_cores, "ram_gb": round(hardware.ram_gb, 1),
                         "gpus": [vars(g) for g in hardware.gpus], "llama_gpu_offload": hardware.llama_gpu_offload,
                         "onnx_providers": service.library.onnx_providers(), "runs_on": runs_on},
            "recommended": {"name": choice.name, "variant": choice.variant, "reason": choice.why},
            "roles": roles,
            "models": [{**vars(r.model), "seconds_per_question": r.seconds_per_question,
                        "per_question": r.timing.short if r.timing else "", "measured": _measured(r),
                        "recommended": r.recommended} for r in rows]}, indent=2))
        return 0
    print(hardware.describe())
    print("Runs on: " + "   ".join(f"{part}: {where}" for part, where in runs_on.items()))
    print(f"Recommended here (*): {choice.name} {choice.variant} ({choice.why})\n")
    print(f"  {'ROLE':14}{'NAME':24}{'STATE':14}{'VARIANT':8}{'SIZE':>8}{'MEMORY':>8}  {'PER QUESTION':32}LICENCE")
    for r in rows:
        m = r.model
        size = f"{m.size_mb / 1024:.1f} GB" if m.size_mb >= 1024 else f"{m.size_mb:.0f} MB"
        memory = f"{m.memory_gb:.1f} GB" if m.memory_gb else "-"
        per_question = r.timing.short if r.timing else "-"
        print(f"{'*' if r.recommended else ' '} {m.role:14}{m.name:24}{m.state:14}{m.variant:8}{size:>8}{memory:>8}"
              f"  {per_question:32}{m.licence_text}")
        if m.location:
            print(f"{'':16}{m.location}" + (" (missing: reconnect its drive, or import it again)"
                                            if m.state == "missing" else ""))
    print()
    llm = service.settings.llm
    chosen = {"text": llm.text_model, "vision": llm.vision_model}
    why = {role: " (remote server)" if llm.backend == "remote"
           else f" (your choice; `docqa models default {role} auto` undoes it)" if chosen[role]
           else " (the most capable installed)" for role in chosen}
    print(f"text tasks   → {roles['text'] or 'none'}{why['text'] if roles['text'] else ''}")
    print(f"page images  → {roles['vision'] or NO_VISION_MODEL.split('. ')[0]}{why['vision'] if roles['vision'] else ''}")
    return 0


def _pull(service: Service, args) -> int:
    cancel = cancel_on_sigint()
    bar = _DownloadBar()
    model = service.models.pull(args.name, args.variant, bar, cancel)
    bar.close()
    print(f"{model.name} ready: {model.model_path}" + (f"\n  projector: {model.projector_path}"
                                                        if model.projector_path else ""))
    return 0


def _import(service: Service, args) -> int:
    cancel = cancel_on_sigint()
    bar = _DownloadBar()
    model = service.models.import_file(args.path, args.projector, args.name, args.link, bar, cancel)
    bar.close()
    status = next(m for m in service.models.statuses() if m.name == model.name)
    about_it = ", ".join(filter(None, (model.role, status.parameters_label and f"{status.parameters_label} parameters",
                                       status.licence_text)))
    print(f"imported {model.name} ({about_it}): {model.where_kept}")
    return 0


def _measured(row) -> int:
    return row.timing.measured if row.timing else 0


def _default(service: Service, args) -> int:
    serving = service.models.set_default(args.role, args.name)
    how = "the most capable installed" if args.name == "auto" else "your choice"
    print(f"{'text tasks ' if args.role == 'text' else 'page images'}  → {serving or 'none'} ({how})")
    return 0


def _verify(service: Service, args) -> int:
    results = service.models.verify(args.name)
    for r in results:
        print(f"{'ok    ' if r.ok else 'BROKEN'} {r.name}: {r.detail}")
    return 0 if all(r.ok for r in results) else 1


def _remove(service: Service, args) -> int:
    deleted = service.models.remove(args.name, args.keep_files)
    print(f"removed {args.name}" + (f"; deleted its {len(deleted)} file(s), downloaded or copied in" if deleted
                                    else ""))
    return 0


_VERBS = {"list": _list, "pull": _pull, "import": _import, "default": _default, "verify": _verify,
          "remove": _remove}


class _DownloadBar:
    def __init__(self, stream=None):
        self.stream = stream or sys.stderr  # the stderr of the moment (a served command's), not the one at import
        self.started = time.monotonic()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.stream.isatty() or not total:
            return
        rate = done / max(1e-3, time.monotonic() - self.started) / 2**20
        self.stream.write(f"\r{done / 2**20:,.0f} / {total / 2**20:,.0f} MB ({100 * done / total:.0f} %) "
                          f"{rate:.1f} MB/s   ")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
