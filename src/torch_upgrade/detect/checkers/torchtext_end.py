"""The end of torchtext (TUT007): one finding per import statement of torchtext, naming what to use
instead for the torchtext APIs the file uses.

torchtext's development ended with 0.18 (April 2024). The advice is about the file, not the line: the
same text at each of its torchtext imports, built from the categories of torchtext names the file
refers to (a tokenizer, a vocabulary, pretrained vectors, datasets, ...). An import line that another
torchtext rule reports in the window (``torchtext.legacy`` once 0.12 is reached, ``torchtext.data.Field``
once 0.9 is) is left to that rule: one line, one finding. Imports inside ``try: ... except ImportError:``
or another guard are compatibility code and are not reported.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

from torch_upgrade.catalog import policy
from torch_upgrade.catalog.ruledata import DATA_FILES, Rule, load_file, rules_dir
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = ("torchtext",)
ROOT = "torchtext"

# (prefixes of qualified names, what to use instead), in the order the message lists them
USES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("torchtext.data.utils.get_tokenizer", "torchtext.data.get_tokenizer", "torchtext.transforms.RegexTokenizer"),
     "tokenizer: get_tokenizer('basic_english') lower-cases, spaces out punctuation with a few regular "
     "expressions and splits on whitespace (a plain function does the same), get_tokenizer('spacy', ...) calls "
     "spaCy (call it directly); the Hugging Face `tokenizers` package for subword tokenizers"),
    (("torchtext.transforms.SentencePieceTokenizer", "torchtext.data.functional.load_sp_model",
      "torchtext.data.functional.generate_sp_model", "torchtext.data.functional.sentencepiece_tokenizer",
      "torchtext.data.functional.sentencepiece_numericalizer", "torchtext.data.load_sp_model",
      "torchtext.data.generate_sp_model", "torchtext.data.sentencepiece_tokenizer",
      "torchtext.data.sentencepiece_numericalizer"),
     "SentencePiece: the `sentencepiece` package loads and trains the same model files"),
    (("torchtext.transforms.GPT2BPETokenizer", "torchtext.transforms.CLIPTokenizer", "torchtext.transforms.BERTTokenizer",
      "torchtext.transforms.CharBPETokenizer"),
     "BPE/WordPiece tokenizers: the Hugging Face `tokenizers` or `transformers` packages"),
    (("torchtext.vocab.vocab", "torchtext.vocab.build_vocab_from_iterator", "torchtext.vocab.Vocab",
      "torchtext.transforms.VocabTransform", "torchtext.transforms.LabelToIndex"),
     "vocabulary: a dict from token to index (built from a collections.Counter), with an explicit index for "
     "unknown tokens"),
    (("torchtext.vocab.GloVe", "torchtext.vocab.FastText", "torchtext.vocab.CharNGram", "torchtext.vocab.Vectors",
      "torchtext.vocab.pretrained_aliases"),
     "pretrained vectors: read the published vector files (GloVe's .txt, fastText's .vec) into a tensor"),
    (("torchtext.datasets",),
     "datasets: the Hugging Face `datasets` package (load_dataset) or the data set's own files (torchtext's "
     "datasets also need torchdata < 0.10)"),
    (("torchtext.models",), "models: the Hugging Face `transformers` package has RoBERTa, XLM-R and T5 checkpoints"),
    (("torchtext.transforms", "torchtext.functional", "torchtext.data.functional"),
     "transforms: plain functions (torch.nn.utils.rnn.pad_sequence pads a batch)"),
    (("torchtext.data.metrics.bleu_score", "torchtext.data.bleu_score"),
     "BLEU: a package such as sacrebleu or nltk (check that its tokenisation and smoothing match)"),
    (("torchtext.nn",), "nn: torch.nn.MultiheadAttention"),
    (("torchtext.utils.download_from_url", "torchtext.utils.extract_archive"),
     "downloads: torch.hub.download_url_to_file, tarfile / zipfile"),
)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    statements: dict[int, Reference] = {}
    for ref in analysis.references:
        if ref.ctx == "import" and not ref.guarded and _ours(ref.qualname) and ref.import_statement is not None:
            statements.setdefault(id(ref.import_statement), ref)
    if not statements:
        return []
    others = _other_rules(rule, window)
    reported = {id(r.import_statement) for r in analysis.references
                if r.ctx == "import" and _ours(r.qualname) and any(_reports(o, r.qualname or "") for o in others)}
    message = _message(rule, analysis)
    return [Hit(rule, ref.import_statement, ref.import_statement, ref=ref, message=message)
            for key, ref in statements.items() if key not in reported and ref.import_statement is not None]


def _ours(qualname: Optional[str]) -> bool:
    return qualname is not None and (qualname == ROOT or qualname.startswith(ROOT + "."))


def _other_rules(rule: Rule, window: Window) -> list[Rule]:
    return [r for r in _library_rules(rule.library) if r.id != rule.id and policy.applies(r, window)]


@lru_cache(maxsize=4)
def _library_rules(library: str) -> tuple[Rule, ...]:
    """The library's own rule files only (a few ms; the whole catalog takes a second to parse)."""
    folder = rules_dir() / library
    return tuple(r for path in sorted(folder.glob("*.toml")) if path.name not in DATA_FILES for r in load_file(path))


def _reports(rule: Rule, qualname: str) -> bool:
    """Whether ``rule`` reports an import of ``qualname`` (as ``Matcher`` accepts an import)."""
    m = rule.match
    renamed = any(qualname == old or qualname.startswith(old + ".") for old in rule.rename)
    return qualname in m.names or any(qualname == mod or qualname.startswith(mod + ".") for mod in m.modules) \
        or (qualname in m.calls and (policy.references_match(rule) or renamed))


def _message(rule: Rule, analysis: Analysis) -> str:
    used = {r.qualname for r in analysis.references if _ours(r.qualname)}
    parts = [advice for prefixes, advice in USES
             if any(q == p or q.startswith(p + ".") for q in used if q for p in prefixes)]
    found = "; ".join(dict.fromkeys(parts))
    return f"{rule.message}; for what this file uses: {found}" if found else \
        f"{rule.message}; copy what this file uses or find it another home"
