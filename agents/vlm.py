"""A vision-language model as planner and as executor (Hugging Face transformers).

Any image-text-to-text checkpoint saved on disk (Qwen2.5-VL first) is loaded with
``AutoProcessor.from_pretrained`` / ``AutoModelForImageTextToText.from_pretrained``
(:func:`load_vlm`). Without ``torchvision`` the Qwen-VL processors cannot be built by
``AutoProcessor`` (their video processor needs it), so the loader falls back to the same
processor class built around the PIL image processor and the tokenizer, without video
support (:func:`load_processor`). Screenshots are resized to the model's input size with PIL
before the processor sees them, on either path.

* :class:`VLMPlanner`: chat template with the screenshot, the task instruction, the last K
  actions and the horizon T; the answer is parsed with :func:`guigym.actions.parse_plan`
  in one of the formats ``json`` (UI-R1), ``function`` or ``mobile_use`` (Qwen2.5-VL tool
  call), and its coordinates are rescaled from the model's resized image to the screenshot.
  Malformed output is never an exception: the plan is cut before its first malformed step
  (the first step is executed, as ``env.step(text)`` would), a no-op step when the first is
  malformed, with the parse error recorded in ``Plan.error``.
* :class:`VLMExecutor`: asks the model where to click for a grounding instruction.

Prompt building (:func:`plan_messages`, :func:`ground_messages`) and parsing
(:func:`parse_plan_output`) are pure functions, testable with canned outputs; the model is
behind a two-method interface (``model_size``, ``generate``) that tests can fake.

torch and transformers are imported only when a model is loaded.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Optional, Protocol, Sequence, Union

import numpy as np

from agents.executors import instruction_action
from agents.plan_act import NOOP, Plan, check_horizon
from guigym.action_text import FORMATS, ActionParseError, escape_surrogates, format_action, format_plan, parse_action, parse_plan
from guigym.actions import ACTION_TYPES, Action, Click, PlanStep, Scroll, Type, rescale_action

__all__ = [
    "VLM",
    "VLMPlanner",
    "VLMExecutor",
    "load_vlm",
    "smart_resize",
    "plan_messages",
    "ground_messages",
    "parse_plan_output",
    "history_lines",
    "system_prompt",
    "defuse_special_tokens",
    "QWEN_VL_CHAT_TEMPLATE",
]

#: The chat template of Qwen2-VL / Qwen2.5-VL instruct checkpoints (images as
#: ``<|vision_start|><|image_pad|><|vision_end|>``).
QWEN_VL_CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

Size = tuple[int, int]  # (width, height)


# ------------------------------------------------------------------------- geometry


def smart_resize(height: int, width: int, factor: int = 28, min_pixels: int = 56 * 56, max_pixels: int = 28 * 28 * 1280) -> tuple[int, int]:
    """Qwen2-VL's resize rule: ``(h, w)`` rounded to multiples of ``factor`` with
    ``min_pixels <= h·w <= max_pixels``, aspect ratio kept as closely as possible. As in
    Qwen's own, the bounds can be missed (an extreme aspect ratio, bounds close together):
    :meth:`VLM.model_size` settles on the size the processor keeps.

    >>> smart_resize(640, 360, factor=28, min_pixels=3136, max_pixels=12544)
    (140, 84)
    """
    if max(height, width) / min(height, width) > 200:
        raise ValueError(f"absolute aspect ratio must be smaller than 200, got {max(height, width) / min(height, width)}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def _screen_size(image: Any) -> Size:
    arr = np.asarray(image)
    return int(arr.shape[1]), int(arr.shape[0])


# -------------------------------------------------------------------------- prompts

_ANSWER_FORMAT = {
    "json": 'Answer with a JSON list of steps inside <answer>…</answer> (you may think inside <think>…</think> first). '
    'Step fields: "action" (click | scroll | type | open_app | back), "coordinate": [x, y] for click, '
    '"direction" for scroll, "text" for type, "app_name" for open_app, and "instruction".',
    "function": "Answer with one function call per line, nothing else: click(x=, y=), scroll(direction=), "
    "type(text=), open_app(name=), back(); every call also takes instruction=\"…\".",
    "mobile_use": 'Answer with one <tool_call>…</tool_call> block per step, each holding {"name": "mobile_use", '
    '"arguments": {…}} with "action" (click | swipe | type | open | system_button), "coordinate": [x, y] for click, '
    '"coordinate" and "coordinate2" for swipe, "text" for type and open, "button": "Back" for system_button, '
    'and "instruction".',
}


def _example(fmt: str, size: Size) -> str:
    w, h = size
    steps = [
        PlanStep(Click(w // 2, h // 5), "Click the 'Username' field"),
        PlanStep(Type("alice"), "Type 'alice' into the 'Username' field"),
        PlanStep(action=None, action_type="click", instruction="Click the 'Sign in' button"),
    ]
    return format_plan(steps, fmt)


def system_prompt(fmt: str, model_size: Size, horizon: int) -> str:
    """The system message of the planner: screen size, action set, horizon, answer format."""
    _check_fmt(fmt)
    w, h = model_size
    return (
        f"You are a GUI agent operating a phone screen. The screenshot is {w}x{h} pixels; coordinates are pixels "
        "of this image, origin at the top left.\n"
        "Actions: click a point; scroll up/down/left/right (down reveals what is below); type text into the focused "
        "field (replacing its content); back (system Back button); open_app by name.\n"
        f"Plan the next {horizon} actions that complete the task (fewer if it needs fewer). Only the first action is "
        "executed; then you see the new screen and plan again.\n"
        "Give every step an instruction, one sentence saying what it does (e.g. \"Click the 'Sign in' button\"). "
        "A step you cannot locate yet may omit its coordinate and keep only the action and the instruction.\n"
        f"{_ANSWER_FORMAT[fmt]}\nExample:\n{_example(fmt, model_size)}"
    )


def _history_item(a: Action, fmt: str) -> str:
    """One past action in ``fmt``, without the answer wrapper."""
    if fmt == "function":
        return format_action(a, "function")
    if fmt == "json":
        body = format_action(a, "json")[len("<answer>") : -len("</answer>")]
        return json.dumps(json.loads(body)[0], ensure_ascii=False)
    body = format_action(a, "mobile_use").removeprefix("<tool_call>\n").removesuffix("\n</tool_call>")
    return body


def history_lines(history: Sequence[Action], fmt: str, screen_size: Size, model_size: Size) -> list[str]:
    """Past actions, oldest first, in ``fmt`` with coordinates in the model's image pixels."""
    return [_history_item(rescale_action(a, screen_size, model_size), fmt) for a in history]


def plan_messages(
    instruction: str,
    history: Sequence[Action],
    horizon: int,
    fmt: str,
    model_size: Size,
    screen_size: Size,
    history_len: int = 4,
    system: Optional[str] = None,
) -> list[dict[str, Any]]:
    """Chat messages for one planning call: the system prompt, then the user turn with the
    screenshot (one ``{"type": "image"}`` item), the task, the last ``history_len`` actions
    (rescaled to the model's image) and the horizon."""
    recent = list(history)[-history_len:] if history_len > 0 else []
    lines = history_lines(recent, fmt, screen_size, model_size)
    past = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(lines)) if lines else "none"
    text = (
        f"Task: {instruction}\n"
        f"Previous actions (the last {len(lines)}, oldest first):\n{past}\n"
        f"Plan the next {horizon} actions."
    )
    return [
        {"role": "system", "content": [{"type": "text", "text": system or system_prompt(fmt, model_size, horizon)}]},
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": text}]},
    ]


def ground_messages(instruction: str, kind: Optional[str], fmt: str, model_size: Size) -> list[dict[str, Any]]:
    """Chat messages asking for the one action that carries out ``instruction`` (the
    executor's question: where to click)."""
    _check_fmt(fmt)
    w, h = model_size
    system = (
        f"You are a GUI grounding model. The screenshot is {w}x{h} pixels. Output the single action that carries out "
        f"the instruction, with the exact point to click. {_ANSWER_FORMAT[fmt]}"
    )
    what = f" ({kind})" if kind else ""
    return [
        {"role": "system", "content": [{"type": "text", "text": system}]},
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": f"Instruction{what}: {instruction}"}]},
    ]


def _check_fmt(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")


def defuse_special_tokens(messages: list[dict[str, Any]], tokens: Sequence[str]) -> list[dict[str, Any]]:
    """``messages`` with every occurrence of a special token (``"<|image_pad|>"``,
    ``"<|im_end|>"``, …) in the text of a non-system turn broken by a zero-width space after its
    first character, so the tokenizer reads it as plain text. Those texts carry the task and the
    past actions, i.e. model output: a ``Type("<|image_pad|>")`` in the history otherwise made
    the processor count two image placeholders for one image and raise, and ``<|im_end|>``
    ended the user turn early. Text without special tokens is returned as it is."""
    toks = sorted({t for t in tokens if isinstance(t, str) and len(t) > 1}, key=len, reverse=True)
    if not toks:
        return messages

    def defuse(text: str) -> str:
        for t in toks:
            if t in text:
                text = text.replace(t, t[0] + "\u200b" + t[1:])
        return text

    out = []
    for m in messages:
        content = m.get("content")
        if m.get("role") == "system" or content is None:
            out.append(m)
        elif isinstance(content, str):
            out.append({**m, "content": defuse(content)})
        else:
            out.append({**m, "content": [{**c, "text": defuse(c["text"])} if isinstance(c.get("text"), str) else c for c in content]})
    return out


def parse_plan_output(text: str, fmt: Optional[str], horizon: int, model_size: Size, screen_size: Size) -> Plan:
    """Model text → :class:`Plan` of at most ``horizon`` steps, coordinates rescaled from the
    model's image (``model_size``) to the screenshot (``screen_size``). Never an exception.

    Text whose first ``horizon`` steps do not all parse gets ``error="ActionParseError: …"``
    (``Plan.error``: count such plans in ``EpisodeRecord.plan_errors``). Its plan is cut before
    the first malformed step: the steps the text gives before it, read as
    ``parse_plan(text, fmt, max_len=k)`` reads them, so the first step is the one ``env.step(text)``
    executes and :func:`guigym.rewards.grounded_reward` judges (TraceR1's MPC loop executes only
    the first step: a malformed later step no longer turns a good first step into a no-op).
    When not even the first step parses the plan is ``[NOOP]``. The error names the cut
    (``"ActionParseError: step 2: … (plan cut to its first 1 step)"``). Text whose later step
    does not parse but whose ``<answer>`` does (a parse falls back to it) is cut the same way:
    that answer's plan starts with another step than the one ``env.step(text)`` executes."""
    raw = text if isinstance(text, str) else str(text)
    try:
        steps = parse_plan(raw, fmt, max_len=horizon)
        error = None
        if horizon > 1 and steps[:1] != _plan_prefix(raw, fmt, 1):  # the whole text failed: its <answer> was read
            steps = _plan_prefix(raw, fmt, horizon)
            n = len(steps)
            if not steps:
                return Plan([NOOP], text=text, error="ActionParseError: the text's first step does not parse")
            error = (f"ActionParseError: step {n + 1} of the text does not parse, and its answer block holds another plan "
                     f"(plan cut to its first {n} step{'s' if n > 1 else ''})")
    except ActionParseError as e:
        steps = _plan_prefix(raw, fmt, horizon)
        if not steps:
            return Plan([NOOP], text=text, error=f"ActionParseError: {e}")
        error = f"ActionParseError: {e} (plan cut to its first {len(steps)} step{'s' if len(steps) > 1 else ''})"
    out = [PlanStep(rescale_action(s.action, model_size, screen_size), s.instruction) if s.action is not None else s for s in steps]
    return Plan(out, text=text, error=error)


def _plan_prefix(text: str, fmt: Optional[str], horizon: int) -> list[PlanStep]:
    """The steps of ``text`` before its first malformed one (empty: the first is malformed):
    the longest ``parse_plan(text, fmt, max_len=k)``, ``k <= horizon``, whose every shorter
    prefix is read the same way. A parse falls back to the text's ``<answer>`` when the whole
    text fails, so a longer ``k`` can read another part of the text; the prefix stops there, so
    its first step stays ``parse_plan(text, fmt, max_len=1)[0]``, what ``env.step(text)`` runs.
    Called only for text that failed to parse: up to ``horizon`` parses of at most
    ``MAX_TEXT_CHARS`` characters each."""
    steps: list[PlanStep] = []
    for k in range(1, horizon + 1):
        try:
            got = parse_plan(text, fmt, max_len=k)
        except ActionParseError:
            break
        if got[: len(steps)] != steps:  # another part of the text read: not these steps' plan
            break
        steps = got
        if len(got) < k:  # all the text's steps (or a done step): nothing more to read
            break
    return steps


# --------------------------------------------------------------------------- models


class Generator(Protocol):
    """What the planner and executor need from a model (a fake in tests)."""

    def model_size(self, screen_size: Size) -> Size: ...

    def generate(self, messages: list[dict[str, Any]], image: np.ndarray) -> tuple[str, Size]: ...


def _image_only_processor(path: Union[str, Path], **kwargs: Any) -> Any:
    """The checkpoint's processor class (Qwen2.5-VL / Qwen2-VL) around its image processor
    and tokenizer, without the video processor (which needs torchvision)."""
    import transformers
    from transformers import AutoImageProcessor, AutoTokenizer
    from transformers.processing_utils import ProcessorMixin

    cfg: dict[str, Any] = {}
    for name in ("processor_config.json", "preprocessor_config.json"):
        f = Path(path) / name
        if f.is_file():
            cfg = {**json.loads(f.read_text()), **cfg}
    base_name = cfg.get("processor_class", "Qwen2_5_VLProcessor")
    base = getattr(transformers, base_name, None) or transformers.Qwen2_5_VLProcessor

    class ImageOnlyProcessor(base):  # type: ignore[misc, valid-type]
        __doc__ = f"{base.__name__} without video support (built when torchvision is missing)."

        def __init__(self, image_processor: Any = None, tokenizer: Any = None, chat_template: Optional[str] = None, **kw: Any) -> None:
            self.image_token = getattr(tokenizer, "image_token", None) or "<|image_pad|>"
            self.video_token = getattr(tokenizer, "video_token", None) or "<|video_pad|>"
            self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
            self.video_token_id = tokenizer.convert_tokens_to_ids(self.video_token)
            ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template)

        def to_dict(self) -> dict[str, Any]:
            # saved under the base class's name: a checkpoint written from here (VLMPolicy.save) must
            # load like the original; transformers knows no class by this subclass's name
            return {**super().to_dict(), "processor_class": base.__name__}

    ImageOnlyProcessor.__name__ = ImageOnlyProcessor.__qualname__ = f"{base.__name__}ImageOnly"
    image_processor = AutoImageProcessor.from_pretrained(path, local_files_only=True, **kwargs)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    image_token = getattr(tokenizer, "image_token", None) or "<|image_pad|>"
    if image_token not in tokenizer.get_vocab():
        # a folder without tokenizer files gave an empty tokenizer (every token id 0, no image
        # token): a "loaded" model that failed only at its first generate
        raise OSError(f"{path}: no tokenizer with the image token {image_token!r} (tokenizer.json / tokenizer_config.json)")
    template = _read_chat_template(Path(path)) or getattr(tokenizer, "chat_template", None) or QWEN_VL_CHAT_TEMPLATE
    return ImageOnlyProcessor(image_processor=image_processor, tokenizer=tokenizer, chat_template=template)


def holds_checkpoint(path: Union[str, Path]) -> bool:
    """Whether the folder ``path`` holds what :func:`load_vlm` loads: ``config.json`` (a model) or
    ``adapter_config.json`` (a LoRA adapter saved by :meth:`agents.vlm_policy.VLMPolicy.save`).
    Command lines check their checkpoint flags with it before anything loads."""
    return any((Path(path) / f).is_file() for f in ("config.json", "adapter_config.json"))


def _checkpoint_dir(path: Union[str, Path]) -> Path:
    """``path`` as a checkpoint folder: it must exist and :func:`holds_checkpoint`."""
    p = Path(path)
    if not p.is_dir():
        raise FileNotFoundError(f"{path}: no such folder (expected a local Hugging Face checkpoint)")
    if not holds_checkpoint(p):
        raise FileNotFoundError(f"{path}: not a Hugging Face checkpoint (no config.json)")
    return p


def _read_chat_template(path: Path) -> Optional[str]:
    if (path / "chat_template.jinja").is_file():
        return (path / "chat_template.jinja").read_text()
    if (path / "chat_template.json").is_file():
        return json.loads((path / "chat_template.json").read_text()).get("chat_template")
    return None


def load_processor(path: Union[str, Path]) -> Any:
    """``AutoProcessor.from_pretrained(path)``; if that fails only because torchvision is
    missing (or the folder, saved from the fallback, has no video processor), or gives no
    image processor, the image-only fallback (see the module docstring)."""
    from transformers import AutoProcessor

    path = _checkpoint_dir(path)
    try:
        proc = AutoProcessor.from_pretrained(path, local_files_only=True)
    except (ImportError, AttributeError, OSError) as e:
        # OSError: a folder saved from the fallback has no video processor config to load
        if not any(k in str(e).lower() for k in ("torchvision", "video_processor", "video processor")):
            raise
        return _image_only_processor(path)
    if getattr(proc, "image_processor", None) is None:
        # AutoProcessor silently returns the bare tokenizer for a processor class it does not know
        # (a folder saved by an earlier version of the fallback names its subclass)
        return _image_only_processor(path)
    return proc


def _pixel_bounds(image_processor: Any) -> tuple[Optional[int], Optional[int]]:
    size = getattr(image_processor, "size", None)
    get = (lambda k: size.get(k)) if isinstance(size, dict) else (lambda k: getattr(size, k, None))
    lo = getattr(image_processor, "min_pixels", None) or (get("shortest_edge") if size is not None else None)
    hi = getattr(image_processor, "max_pixels", None) or (get("longest_edge") if size is not None else None)
    return lo, hi


def _pixel_limits(ip: Any, min_pixels: Optional[int], max_pixels: Optional[int]) -> tuple[int, int, int, int]:
    """``(patch_size, factor, min_pixels, max_pixels)`` of a model's image processor ``ip`` with
    the caller's bounds (which can only narrow the processor's); ``ValueError`` when they leave
    no size (``max_pixels`` below the model's minimum)."""
    patch_size = int(getattr(ip, "patch_size", 14) or 14)
    factor = patch_size * int(getattr(ip, "merge_size", 2) or 2)
    lo, hi = _pixel_bounds(ip)
    low = max(v for v in (min_pixels, lo, factor * factor) if v is not None)
    high = min(v for v in (max_pixels, hi, 28 * 28 * 16384) if v is not None)
    if high < low:
        raise ValueError(f"max_pixels {high} < min_pixels {low}")
    return patch_size, factor, low, high


class VLM:
    """A loaded image-text-to-text model and its processor, with the screenshot resizing
    and decoding the planner needs.

    The screenshot is resized to :meth:`model_size` (:func:`smart_resize` with the model's
    ``patch_size · merge_size`` factor and ``min_pixels``/``max_pixels``, which default to the
    processor's and can only narrow them) before it is given to the processor, so the size
    named in the prompt is the size the model sees; :meth:`generate` reports the size
    actually used (from ``image_grid_thw``) for rescaling its coordinates.
    """

    def __init__(
        self,
        model: Any,
        processor: Any,
        min_pixels: Optional[int] = None,
        max_pixels: Optional[int] = None,
        max_new_tokens: int = 256,
        do_sample: bool = False,
        temperature: float = 1.0,
        top_p: float = 1.0,
        top_k: int = 0,
    ) -> None:
        self.model = model
        self.processor = processor
        self.patch_size, self.factor, self.min_pixels, self.max_pixels = _pixel_limits(processor.image_processor, min_pixels, max_pixels)
        lo, hi = _pixel_bounds(processor.image_processor)
        #: the bounds the processor resizes with again (it knows nothing of the caller's)
        self.processor_pixels: tuple[int, int] = (lo or self.min_pixels, hi or self.max_pixels)
        self.max_new_tokens = max_new_tokens
        self.do_sample = do_sample
        self.temperature = temperature
        self.top_p = top_p
        self.top_k = top_k
        tok = getattr(processor, "tokenizer", None)
        #: strings the prompt's texts must not spell out (see :func:`defuse_special_tokens`)
        placeholders = (getattr(processor, "image_token", None), getattr(processor, "video_token", None))
        self.special_tokens: list[str] = [*(getattr(tok, "all_special_tokens", None) or ()), *(t for t in placeholders if t)]

    @property
    def device(self) -> Any:
        return next(self.model.parameters()).device

    def seed(self, seed: int) -> None:
        import torch

        torch.manual_seed(seed)

    def model_size(self, screen_size: Size) -> Size:
        """The ``(width, height)`` the model sees a screenshot of ``screen_size`` at: Qwen's
        :func:`smart_resize` with this model's bounds, then with the processor's until that
        keeps it. The rule can miss its bounds (a short side floored to one patch row above
        ``max_pixels``; ``max_pixels`` narrowed so far that the floors fall below
        ``min_pixels``), and the processor then resized the image again: the prompt named,
        and :class:`agents.vlm_policy.VLMPolicy` rescaled its plans from, a size the model
        never saw (2x off for a 360x640 screen with ``max_pixels=5000`` on the tiny model)."""
        w, h = screen_size
        rh, rw = smart_resize(h, w, self.factor, self.min_pixels, self.max_pixels)
        lo, hi = self.processor_pixels
        for _ in range(8):  # a fixed point in one or two passes
            nh, nw = smart_resize(rh, rw, self.factor, lo, hi)
            if (nh, nw) == (rh, rw):
                break
            rh, rw = nh, nw
        return rw, rh

    def chat_text(self, messages: list[dict[str, Any]]) -> str:
        """The prompt text of ``messages`` (chat template, generation prompt), with special
        tokens spelled out in the task or the history defused (:func:`defuse_special_tokens`)
        and lone surrogates escaped (:func:`~guigym.action_text.escape_surrogates`: a model's
        ``"\\ud83d"`` parses to one, and a past action or a plan step carrying it into the next
        prompt made the tokenizer raise, ending the rollout)."""
        msgs = defuse_special_tokens(messages, self.special_tokens)
        return escape_surrogates(self.processor.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True))

    def generate(self, messages: list[dict[str, Any]], image: np.ndarray) -> tuple[str, Size]:
        """Greedy (or sampled) answer to ``messages`` about ``image``; returns the decoded new
        text and the ``(width, height)`` of the image the model saw."""
        import torch
        from PIL import Image

        screen = _screen_size(image)
        mw, mh = self.model_size(screen)
        img = Image.fromarray(np.asarray(image, dtype=np.uint8)).convert("RGB").resize((mw, mh), Image.Resampling.BICUBIC)
        text = self.chat_text(messages)
        inputs = self.processor(text=[text], images=[img], return_tensors="pt").to(self.device)
        grid = inputs.get("image_grid_thw")
        seen = (int(grid[0][2]) * self.patch_size, int(grid[0][1]) * self.patch_size) if grid is not None else (mw, mh)
        if "pixel_values" in inputs:
            inputs["pixel_values"] = inputs["pixel_values"].to(self.model.dtype)
        kw: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "do_sample": self.do_sample}
        if self.do_sample:
            # top_k explicitly: else the checkpoint's own (Qwen2.5-VL-Instruct ships top_k=1) turned
            # "sampling" into greedy decoding whatever temperature and top_p said
            kw.update(temperature=self.temperature, top_p=self.top_p, top_k=self.top_k)
        tok = getattr(self.processor, "tokenizer", None)
        if tok is not None and getattr(tok, "pad_token_id", None) is not None:
            kw["pad_token_id"] = tok.pad_token_id
        with torch.inference_mode():
            out = self.model.generate(**inputs, **kw)
        new = out[:, inputs["input_ids"].shape[1] :]
        answer = self.processor.batch_decode(new, skip_special_tokens=True, clean_up_tokenization_spaces=False)[0]
        return answer, seen


def load_vlm(
    path: Union[str, Path],
    device: str = "cpu",
    dtype: Any = None,
    min_pixels: Optional[int] = None,
    max_pixels: Optional[int] = None,
    **generate_kwargs: Any,
) -> VLM:
    """Load a local image-text-to-text checkpoint (``AutoModelForImageTextToText`` and
    :func:`load_processor`) into a :class:`VLM`.

    ``device``: ``"cpu"``, ``"cuda"``, … or ``"auto"`` (CUDA when available). ``dtype``: a
    torch dtype or its name; default float32 on CPU and bfloat16 on CUDA.
    ``generate_kwargs``: ``max_new_tokens``, ``do_sample``, ``temperature``, ``top_p``,
    ``top_k`` (0: no top-k cut; these override the checkpoint's ``generation_config``).

    ``path`` must be an existing local folder: anything else raises ``FileNotFoundError`` before
    transformers is asked (which took a missing relative path for a Hub id and went online).
    A ``max_pixels`` below the model's minimum raises ``ValueError`` before the weights load.
    """
    import torch
    from transformers import AutoModelForImageTextToText
    from transformers.utils import logging as hf_logging

    path = _checkpoint_dir(path)
    hf_logging.disable_progress_bar()
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if dtype is None:
        dtype = torch.bfloat16 if str(device).startswith("cuda") else torch.float32
    elif isinstance(dtype, str) and dtype != "auto":
        named = getattr(torch, dtype, None)
        if not isinstance(named, torch.dtype):  # "bf16" was a bare AttributeError of module torch
            raise ValueError(f"dtype {dtype!r} is not a torch dtype; e.g. 'bfloat16', 'float16', 'float32' or 'auto'")
        dtype = named
    processor = load_processor(path)
    _pixel_limits(processor.image_processor, min_pixels, max_pixels)  # a bad max_pixels: before the weights load
    model = AutoModelForImageTextToText.from_pretrained(path, dtype=dtype, local_files_only=True)
    model.to(device).eval()  # type: ignore[arg-type]  # HF's .to is @functools.wraps'd, whose stub does not bind self
    return VLM(model, processor, min_pixels=min_pixels, max_pixels=max_pixels, **generate_kwargs)


# ------------------------------------------------------------------ planner, executor


def _as_vlm(vlm: Union[Generator, str, Path], load_kwargs: dict[str, Any]) -> Generator:
    if isinstance(vlm, (str, Path)):
        return load_vlm(vlm, **load_kwargs)
    if load_kwargs:
        raise TypeError(f"loading options {sorted(load_kwargs)} given with an already loaded model")
    return vlm


class VLMPlanner:
    """A planner that asks a VLM for the next ``horizon`` steps.

    Args:
        vlm: a :class:`VLM` (or anything with ``model_size``/``generate``), or a checkpoint
            path, loaded with :func:`load_vlm` and ``load_kwargs``.
        horizon: ``T``, the number of steps asked for (and kept).
        history_len: ``K``, the number of past actions shown.
        fmt: answer format, ``"json"`` (UI-R1), ``"function"`` or ``"mobile_use"``; ``None``
            parses any of them (the prompt then asks for json).
        system: replaces :func:`system_prompt`.

    ``last_messages``/``last_text`` keep the latest prompt and raw answer.
    """

    def __init__(
        self,
        vlm: Union[Generator, str, Path],
        horizon: int = 8,
        history_len: int = 4,
        fmt: Optional[str] = "json",
        system: Optional[str] = None,
        **load_kwargs: Any,
    ) -> None:
        horizon = check_horizon(horizon)
        if fmt is not None:
            _check_fmt(fmt)
        self.vlm = _as_vlm(vlm, load_kwargs)
        self.horizon = horizon
        self.history_len = history_len
        self.fmt = fmt
        self.system = system
        self.last_messages: list[dict[str, Any]] = []
        self.last_text: Optional[str] = None

    def reset(self, seed: Optional[int] = None) -> None:
        if seed is not None and hasattr(self.vlm, "seed"):
            self.vlm.seed(seed)

    def messages(self, obs: dict[str, Any], history: Sequence[Action]) -> tuple[list[dict[str, Any]], Size, Size]:
        screen = _screen_size(obs["screenshot"])
        size = self.vlm.model_size(screen)
        instruction = str(obs.get("instruction", ""))
        msgs = plan_messages(instruction, history, self.horizon, self.fmt or "json", size, screen, self.history_len, self.system)
        return msgs, size, screen

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Action] = ()) -> Plan:
        msgs, _, screen = self.messages(obs, history)
        text, seen = self.vlm.generate(msgs, obs["screenshot"])
        self.last_messages, self.last_text = msgs, text
        return parse_plan_output(text, self.fmt, self.horizon, seen, screen)


class VLMExecutor:
    """Grounds an instruction by asking a VLM for the action (the point to click).

    Back/Type/OpenApp/Answer steps need no pointing: they are read from the instruction
    (:func:`agents.executors.instruction_action`) unless ``ask_all=True``. A scroll answer
    given as a click keeps the instruction's direction at that point. Returns ``None`` (with
    ``last_error``) when the answer does not parse, or is an action of another type than the
    step's (a click for an answer step), and, without asking the model, for a step whose type
    is no action type (a ``done`` step ends a plan: nothing to ground) and for the no-op step
    (:data:`~agents.plan_act.NOOP`, no type and no instruction: a plan that did not parse; the
    model was asked where to click for an empty instruction, and ``grounded_reward`` could score
    its guess).
    """

    def __init__(self, vlm: Union[Generator, str, Path], fmt: str = "json", ask_all: bool = False, **load_kwargs: Any) -> None:
        _check_fmt(fmt)
        self.vlm = _as_vlm(vlm, load_kwargs)
        self.fmt = fmt
        self.ask_all = ask_all
        self.last_error: Optional[str] = None
        self.last_text: Optional[str] = None

    def __call__(self, env: Any, step: PlanStep) -> Optional[Action]:
        self.last_error = None
        if step.action is not None:
            return step.action
        kind = step.kind
        if kind is not None and kind not in ACTION_TYPES:  # "done" (the plan's end), or unknown
            self.last_error = "a done step ends the plan: nothing to ground" if step.done else f"unknown action type {kind!r}"
            return None
        if kind is None and not str(step.instruction or "").strip():  # the no-op step (a plan that did not parse): nothing was asked
            self.last_error = "no-op step (nothing usable was planned): nothing to ground"
            return None
        if not self.ask_all and kind in ("back", "type", "open_app", "answer"):
            a = instruction_action(kind, step.instruction)
            if a is None:
                self.last_error = f"cannot read a {kind} action from {step.instruction!r}"
            return a
        u = getattr(env, "unwrapped", env)
        shot = u.observe()["screenshot"] if hasattr(u, "observe") else u.render()
        screen = _screen_size(shot)
        size = self.vlm.model_size(screen)
        text, seen = self.vlm.generate(ground_messages(step.instruction, kind, self.fmt, size), shot)
        self.last_text = text
        try:
            a = parse_action(text, self.fmt)
        except ActionParseError as e:
            self.last_error = f"ActionParseError: {e}"
            return None
        a = rescale_action(a, seen, screen)
        if kind == "scroll" and isinstance(a, Click):
            d = instruction_action("scroll", step.instruction)
            a = Scroll(d.direction, a.x, a.y) if isinstance(d, Scroll) else a
        if kind == "type" and not isinstance(a, Type):
            t = instruction_action("type", step.instruction)
            a = t if t is not None else a
        if kind is not None and a.type != kind:  # e.g. a click for an answer step: not the planned step
            self.last_error = f"the model answered a {a.type} action for a {kind} step"
            return None
        return a
