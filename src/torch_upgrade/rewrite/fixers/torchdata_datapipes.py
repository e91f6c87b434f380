"""torchdata's DataPipes and DataLoader2 (TUD002): deprecated in torchdata 0.8, removed in 0.10.

The DataPipes torch itself ships were re-exports (every torchdata release from 0.3 to 0.9 imports
them from ``torch.utils.data``), so their imports move to ``torch.utils.data.datapipes`` by the
rule's ``rename`` table: the same classes. That is no rewrite where the file calls a functional form
only torchdata registers (``.header()``, ``.parse_csv()``, ...): importing ``torchdata.datapipes``
is what adds them to every DataPipe, and the moved import no longer does. Other names get advice
that says what to do with them: a torchdata-only DataPipe has no replacement; DataLoader2 and its
ReadingServices become a ``DataLoader`` (or torchdata's ``StatefulDataLoader``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.syntax.analysis import Reference

# The functional forms torchdata 0.9 adds to IterDataPipe / MapDataPipe when torchdata.datapipes is
# imported (``IterDataPipe.functions`` on torch 2.13 before and after the import); torch's own are
# batch, collate, concat, demux, filter, fork, groupby, list_files, map, mux, open_files,
# read_from_stream, routed_decode, sharding_filter, shuffle, unbatch, zip.
TORCHDATA_FORMS = frozenset({
    "add_index", "async_map_batches", "bucketbatch", "check_hash", "cycle", "dataframe", "decompress", "drop",
    "end_caching", "enumerate", "extract", "flatmap", "flatten", "fullsync", "header", "in_batch_shuffle",
    "in_memory_cache", "lines_to_paragraphs", "list_files_by_ais", "list_files_by_fsspec", "list_files_by_iopath",
    "list_files_by_s3", "load_files_by_ais", "load_files_by_s3", "load_from_bz2", "load_from_rar", "load_from_tar",
    "load_from_tfrecord", "load_from_xz", "load_from_zip", "load_parquet_as_df", "map_batches",
    "max_token_bucketize", "memory_cell", "mux_longest", "on_disk_cache", "open_files_by_fsspec",
    "open_files_by_iopath", "parse_csv", "parse_csv_as_dict", "parse_json_files", "pin_memory", "prefetch",
    "random_split", "read_from_gdrive", "read_from_http", "read_from_remote", "readlines", "repeat",
    "round_robin_demux", "rows2columnar", "save_by_fsspec", "save_by_iopath", "save_to_disk", "set_length",
    "shard_expand", "sharding_round_robin_dispatch", "shuffled_flatmap", "slice", "threadpool_map",
    "to_map_datapipe", "unzip", "webdataset", "zip_longest", "zip_with_iter", "zip_with_map",
    "to_iter_datapipe",
})

_LOADER = ("torchdata.dataloader2",)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    qualname = ref.qualname or ""
    new = rename.renamed(ctx.rule.rename, qualname)
    if new is None:
        if _advised(ref, qualname):
            raise Advice(_advice(qualname, ctx.rule.message))
        return None  # a module: the rule's message says it all
    forms = sorted({name for name in _called_methods(ctx) if name in TORCHDATA_FORMS})
    if forms:
        shown = ", ".join(f".{name}()" for name in forms[:4]) + (", ..." if len(forms) > 4 else "")
        which = "a functional form" if len(forms) == 1 else "functional forms"
        raise Advice(
            f"torchdata.datapipes is deprecated since torchdata 0.8 and removed in 0.10: {qualname.rsplit('.', 1)[-1]} "
            f"is torch's own class (import it from {new.rsplit('.', 1)[0]}), but this file calls {shown}, {which} "
            "that only torchdata adds to DataPipes when torchdata.datapipes is imported: no rewrite; neither torch nor "
            "torchdata >= 0.10 has them (copy them, or keep torchdata <= 0.9)")
    return rename.fix(ref, ctx)


def _advised(ref: Reference, qualname: str) -> bool:
    """Whether the name is one thing a message can be specific about (a class, not a module)."""
    last = qualname.rsplit(".", 1)[-1]
    return ref.ctx != "import" or isinstance(ref.import_statement, cst.ImportFrom) and last[:1].isupper()


def _advice(qualname: str, generic: str) -> str:
    last = qualname.rsplit(".", 1)[-1]
    if not last[:1].isupper():
        return generic
    if qualname.startswith(_LOADER):
        if last == "DataLoader2":
            return ("torchdata's DataLoader2 is deprecated since torchdata 0.8 and removed in 0.10: use "
                    "torch.utils.data.DataLoader(datapipe, num_workers=...), or "
                    "torchdata.stateful_dataloader.StatefulDataLoader (torchdata >= 0.8; same arguments as "
                    "DataLoader) where the loader's state is saved and restored (state_dict()/load_state_dict())")
        if last.endswith("ReadingService"):
            return (f"torchdata's {last} (a DataLoader2 reading service) is deprecated since torchdata 0.8 and "
                    "removed in 0.10: a torch.utils.data.DataLoader takes its settings directly (num_workers=, "
                    "worker_init_fn=, prefetch_factor=; it applies a DataPipe graph's sharding and seeding itself)")
        return (f"torchdata's {last} (of torchdata.dataloader2) is deprecated since torchdata 0.8 and removed in 0.10, "
                "with DataLoader2: no replacement; port the loading to torch.utils.data.DataLoader (or "
                "torchdata.stateful_dataloader.StatefulDataLoader)")
    return (f"{last} is a torchdata-only DataPipe: torchdata.datapipes is deprecated since torchdata 0.8 and removed "
            "in 0.10, and neither torch nor torchdata >= 0.10 has a replacement (copy its code, or keep "
            "torchdata <= 0.9)")


def _called_methods(ctx: FixContext) -> set[str]:
    """The names of the methods the file calls on receivers that names alone do not tell."""
    return {r.node.attr.value for r in ctx.analysis.references
            if r.call is not None and r.qualname is None and isinstance(r.node, cst.Attribute)}
