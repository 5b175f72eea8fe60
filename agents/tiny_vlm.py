"""A tiny, randomly initialised Qwen2.5-VL checkpoint, built offline, for tests and CPU demos.

Model weights cannot be downloaded in tests, so :func:`build_tiny_qwen25vl` writes a
complete checkpoint directory in the layout of a real ``Qwen/Qwen2.5-VL-*-Instruct`` one —
``config.json`` + ``model.safetensors`` + ``generation_config.json``, a byte-level BPE
tokenizer trained offline on a small corpus with Qwen's special tokens
(``tokenizer.json``/``tokenizer_config.json``), ``preprocessor_config.json`` (a
``Qwen2VLImageProcessor`` under ``Qwen2_5_VLProcessor``) and ``chat_template.json`` — so it
is loaded back through exactly the code path of a real checkpoint
(:func:`agents.vlm.load_vlm`).

The config obeys the constraints a Qwen2.5-VL must meet: ``sum(mrope_section) ==
head_dim / 2`` (head_dim = hidden / heads), vision ``out_hidden_size`` == text
``hidden_size``, and ``image_token_id``/``video_token_id``/``vision_*_token_id`` are the
tokenizer's ids of ``<|image_pad|>`` etc.

    python -m agents.tiny_vlm out/tiny-qwen25vl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Optional, Union, cast

__all__ = ["build_tiny_qwen25vl", "QWEN25VL_3B", "SPECIAL_TOKENS", "tiny_corpus"]

#: The published dimensions of ``Qwen/Qwen2.5-VL-3B-Instruct`` (its ``config.json`` and
#: ``preprocessor_config.json``), as :func:`build_tiny_qwen25vl` arguments: a random model of
#: this shape has the real one's parameter count, memory and step time (but not its answers:
#: random weights never emit the end token, so every completion runs to ``max_new_tokens``).
QWEN25VL_3B: dict[str, Any] = dict(
    hidden_size=2048, num_layers=36, num_heads=16, num_kv_heads=2, intermediate_size=11008, mrope_section=[16, 24, 24],
    rope_theta=1_000_000.0, max_position_embeddings=128_000, model_vocab_size=151_936, tie_word_embeddings=True,
    vision_hidden_size=1280, vision_depth=32, vision_heads=16, vision_intermediate_size=3420, window_size=112,
    fullatt_block_indexes=[7, 15, 23, 31], min_pixels=3136, max_pixels=12_845_056,
)

#: Qwen2.5-VL's special tokens, in the order of the real tokenizer's added tokens.
SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)
#: Tool-call tags are added (not special) tokens in Qwen2.5: they survive decoding.
ADDED_TOKENS: tuple[str, ...] = ("<tool_call>", "</tool_call>")

_WORDS = (
    "Log in as alice with password maple42 and tick Remember me. Open the Notes app, create a note, set an alarm. "
    "Switch off Automatically sync app data. Change the Bluetooth visibility to Hidden. Click the Sign in button. "
    "Type the verification code. Scroll down to Privacy. Go back. Username Password Email Passcode Continue Settings"
)


def tiny_corpus() -> list[str]:
    """The tokenizer's training text: the planner's prompts and answers in every format,
    task-like sentences, and numbers (so coordinates tokenize compactly)."""
    from agents.vlm import FORMATS, ground_messages, plan_messages
    from guigym.action_text import format_plan
    from guigym.actions import Back, Click, OpenApp, PlanStep, Scroll, Type

    lines = [_WORDS, " ".join(str(i) for i in range(1000))]
    steps = [
        PlanStep(Click(84, 140), "Click the 'Username' field"),
        PlanStep(Type("alice"), "Type 'alice' into the 'Username' field"),
        PlanStep(Scroll("down", 42, 70), "Scroll down"),
        PlanStep(OpenApp("Notes"), "Open the Notes app"),
        PlanStep(Back(), "Go back"),
        PlanStep(action=None, action_type="click", instruction="Click the 'Sign in' button"),
    ]
    for fmt in FORMATS:
        for msg in plan_messages("Log in as alice", [Click(10, 20), Type("alice")], 8, fmt, (84, 140), (360, 640)):
            lines += [c["text"] for c in msg["content"] if c.get("type") == "text"]
        for msg in ground_messages("Click the 'Sign in' button", "click", fmt, (84, 140)):
            lines += [c["text"] for c in msg["content"] if c.get("type") == "text"]
        lines.append(format_plan(steps, fmt))
    return lines


def build_tiny_qwen25vl(
    out_dir: Union[str, Path],
    hidden_size: int = 64,
    num_layers: int = 1,
    num_heads: int = 4,
    vision_hidden_size: int = 32,
    vocab_size: int = 1024,
    min_pixels: int = 28 * 28 * 4,
    max_pixels: int = 28 * 28 * 16,
    seed: int = 0,
    *,
    num_kv_heads: Optional[int] = None,
    intermediate_size: Optional[int] = None,
    mrope_section: Optional[list[int]] = None,
    rope_theta: float = 10000.0,
    max_position_embeddings: int = 4096,
    model_vocab_size: Optional[int] = None,
    tie_word_embeddings: Optional[bool] = None,
    vision_depth: int = 1,
    vision_heads: int = 2,
    vision_intermediate_size: Optional[int] = None,
    window_size: int = 56,
    fullatt_block_indexes: Optional[list[int]] = None,
    device: str = "cpu",
    dtype: Any = None,
) -> Path:
    """Build and save a tiny random Qwen2.5-VL at ``out_dir``; return its path.

    Defaults: text hidden 64, 1 layer, 4 heads (head_dim 16, ``mrope_section=[4, 2, 2]``),
    a 1-layer vision tower of width 32 (patch 14, merge 2), a 1,024-token BPE vocabulary
    (fewer if the corpus has fewer merges), and images resized to 4–16 merged 28 px patches
    (a 360×640 screenshot becomes 84×140: 15 image tokens). About 0.22 M parameters;
    building takes a few seconds, mostly importing transformers. Deterministic given ``seed``.

    The keyword-only arguments give other shapes, e.g. ``**QWEN25VL_3B`` (built on ``device``
    in ``dtype``, e.g. ``"cuda"`` and ``torch.bfloat16``: 3.75 B random parameters); the
    embedding has ``model_vocab_size`` rows (default: the tokenizer's size; a real checkpoint
    pads its vocabulary), of which the offline tokenizer uses the first.
    """
    import torch
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration
    from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX, Qwen2Tokenizer
    from transformers.utils import logging as hf_logging

    from agents.vlm import QWEN_VL_CHAT_TEMPLATE

    hf_logging.disable_progress_bar()
    if hidden_size % num_heads:
        raise ValueError(f"hidden_size {hidden_size} must be divisible by num_heads {num_heads}")
    head_dim = hidden_size // num_heads
    if head_dim % 2 or head_dim < 6:
        raise ValueError(f"head_dim = hidden_size / num_heads must be even and >= 6, got {head_dim}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    # --- tokenizer: byte-level BPE with Qwen2's pre-tokenizer, trained on a small corpus ---
    bpe = Tokenizer(models.BPE())
    bpe.normalizer = normalizers.NFC()
    bpe.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    bpe.decoder = decoders.ByteLevel()
    n_added = len(SPECIAL_TOKENS) + len(ADDED_TOKENS)
    trainer = trainers.BpeTrainer(
        vocab_size=max(300, vocab_size - n_added + 1), initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"], show_progress=False,
    )
    bpe.train_from_iterator(tiny_corpus(), trainer)
    model_json = json.loads(bpe.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model_json["merges"]]
    tok = Qwen2Tokenizer(vocab=model_json["vocab"], eos_token="<|im_end|>", pad_token="<|endoftext|>",
                         merges=merges, unk_token=None)  # type: ignore[arg-type]  # HF hints too narrow: BPE takes pairs, None
    from tokenizers import AddedToken

    tok.add_special_tokens({"additional_special_tokens": [t for t in SPECIAL_TOKENS if t != "<|endoftext|>"]})
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in ADDED_TOKENS])
    tok.chat_template = QWEN_VL_CHAT_TEMPLATE
    tok.save_pretrained(out)
    ids = {t: cast(int, tok.convert_tokens_to_ids(t)) for t in SPECIAL_TOKENS}  # one token in, one id out

    # --- model ---
    third = head_dim // 2 // 3
    mrope = mrope_section or [head_dim // 2 - 2 * third, third, third]  # sums to head_dim / 2
    if sum(mrope) != head_dim // 2:
        raise ValueError(f"mrope_section {mrope} must sum to head_dim / 2 = {head_dim // 2}")
    if model_vocab_size is not None and model_vocab_size < len(tok):
        raise ValueError(f"model_vocab_size {model_vocab_size} is smaller than the tokenizer's {len(tok)} tokens")
    extra: dict[str, Any] = {} if tie_word_embeddings is None else {"tie_word_embeddings": tie_word_embeddings}
    cfg = Qwen2_5_VLConfig(
        text_config=dict(
            vocab_size=model_vocab_size or len(tok), hidden_size=hidden_size, intermediate_size=intermediate_size or 2 * hidden_size,
            num_hidden_layers=num_layers, num_attention_heads=num_heads,
            num_key_value_heads=num_kv_heads or max(1, num_heads // 2), max_position_embeddings=max_position_embeddings,
            rope_parameters={"rope_type": "default", "rope_theta": rope_theta, "mrope_section": mrope},
            bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"], **extra,
        ),
        vision_config=dict(
            depth=vision_depth, hidden_size=vision_hidden_size, intermediate_size=vision_intermediate_size or 2 * vision_hidden_size,
            num_heads=vision_heads, patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=window_size,
            out_hidden_size=hidden_size, fullatt_block_indexes=fullatt_block_indexes or [0],
        ),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"], **extra,
    )
    torch.manual_seed(seed)
    with torch.device(device):
        model = Qwen2_5_VLForConditionalGeneration(cfg)
    if dtype is not None:
        model = model.to(getattr(torch, dtype) if isinstance(dtype, str) else dtype)
    gen = model.generation_config
    gen.eos_token_id = [ids["<|im_end|>"], ids["<|endoftext|>"]]
    gen.pad_token_id = ids["<|endoftext|>"]
    gen.bos_token_id = ids["<|endoftext|>"]
    gen.do_sample = False
    model.save_pretrained(out)

    # --- image processor + processor files, as a real checkpoint ships them ---
    (out / "preprocessor_config.json").write_text(json.dumps({
        "min_pixels": min_pixels, "max_pixels": max_pixels, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2,
        "image_mean": [0.48145466, 0.4578275, 0.40821073], "image_std": [0.26862954, 0.26130258, 0.27577711],
        "image_processor_type": "Qwen2VLImageProcessor", "processor_class": "Qwen2_5_VLProcessor",
    }, indent=2) + "\n")
    (out / "chat_template.json").write_text(json.dumps({"chat_template": QWEN_VL_CHAT_TEMPLATE}, indent=2) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Build a tiny random Qwen2.5-VL checkpoint (offline).")
    p.add_argument("out_dir")
    p.add_argument("--hidden-size", type=int, default=64)
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    from guigym.viz import folder_problem

    # checked before transformers loads (a file as DIR, hidden size 0 or 7 raised tracebacks;
    # --layers 0 "saved" a model with no layer)
    problems = [f"DIR {a.out_dir}: {problem}"] if (problem := folder_problem(a.out_dir)) else []
    problems += [f"--{k} must be >= 1, got {v}" for k, v in (("hidden-size", a.hidden_size), ("layers", a.layers)) if v < 1]
    if a.hidden_size >= 1 and (a.hidden_size % 4 or (a.hidden_size // 4) % 2 or a.hidden_size // 4 < 6):
        problems.append(f"--hidden-size must be a multiple of 8 and >= 24 (4 heads of an even size >= 6), got {a.hidden_size}")
    if a.seed < 0:
        problems.append(f"--seed must be >= 0, got {a.seed}")
    if problems:
        p.error("; ".join(problems))
    path = build_tiny_qwen25vl(a.out_dir, hidden_size=a.hidden_size, num_layers=a.layers, seed=a.seed)
    print(f"saved a tiny Qwen2.5-VL to {path}: {sorted(f.name for f in path.iterdir())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
