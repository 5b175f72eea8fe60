"""A tiny torch planner that learns GUI tasks on a CPU: it sees what a VLM sees.

Inputs: the screenshot (downscaled to 128×72 RGB, fed as its signed and absolute deviation from
the background colour, so that dark and light themes show the same shapes), the instruction
(words) and, when the env gives ``extra_obs=("history",)``, the last actions. Not the privileged element list — unless
``TinyConfig(use_elements=True)``, a variant reported beside it that paints each visible
widget's role and label-vs-instruction overlap onto the click grid.

Output: a plan of ``T`` steps, decoded autoregressively over a discrete action vocabulary.
Each step is up to three decisions ("tokens"):

====================  =====================================================================
``type``              click / scroll / back / open_app / type (``POLICY_TYPES``: no Answer)
argument              click: a cell of a 16×9 grid (40 px cells at 360×640; the click point
                      is the cell centre) — or, in the ungrounded variant
                      (``TinyConfig(click_labels=…)``), a label of a fixed vocabulary: the
                      step is "Click 'Sign in'" and a frozen executor grounds it · scroll: a direction · open_app: an index into
                      ``guigym.apps.catalog.APP_NAMES`` · type: the first instruction word
                      to copy (a pointer) · back: none
span length           type only: how many words to copy (1..``max_span``); the typed text is
                      the instruction's own characters from the first to the last word
====================  =====================================================================

The ungrounded variant is TraceR1's stage-2 path: the planner names what to click, never where;
``agents.executors.ElementExecutor`` (or a VLM executor) finds it on the screen. Its click
argument is scored by attention over the vocabulary's label keys (hashed words and trigrams of
the label plus a learned vector) and by how strongly each label's key matches some click cell of
the screenshot (a max over the cells: "is this label on the screen?"). Executed clicks in the
history stay grounded (their cell); a planned ungrounded click is coded with span 1 (a marker,
not a decision).

Every Login widget row is 44 px tall and full width, so some 40-px cell centre lies in each
row (and each home-screen icon) — see ``tests/test_train_small.py``.

Network: a small CNN (with a learned position map) → a 16×9 feature map (one vector per
click cell) and a pooled vector; instruction words → hashed word + character-trigram
embeddings → BiGRU. Screen and instruction set the initial state of a GRU cell that first
reads the last ``hist_len`` executed actions and then decodes the plan — one sequence model
over actions, so "the step after these actions" is the same computation whether the actions
were executed (history) or planned (earlier plan steps), and what stage 1 teaches about step
``t`` of a plan carries over to the first step ``t − 1`` actions later. Clicks and typed
words are chosen by dot-product attention over the cells and over the words.

The class implements the :class:`agents.grpo.Policy` protocol (``sample`` / ``logprobs``).
"""

from __future__ import annotations

import re
import zlib
from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence, cast

import numpy as np
try:
    import torch
except ModuleNotFoundError as e:  # the base install: name the extra, not a bare "No module named 'torch'"
    raise ModuleNotFoundError("agents.tiny_policy needs torch: pip install 'guigym[rl]'", name="torch") from e
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

from agents.grpo import Completion
from guigym.action_text import parse_action
from guigym.actions import ACTION_TYPES, DIRECTIONS, Back, Click, OpenApp, PlanStep, Scroll, Type
from guigym.apps.base import KINDS, role_id
from guigym.apps.catalog import APP_NAMES

__all__ = ["TinyConfig", "TinyObs", "TinyPolicy", "TinyPlanner", "split_words", "cell_centre", "point_cell"]

CLICK, SCROLL, BACK, OPEN_APP, TYPE = range(5)
#: The action types the tiny policy plans: the five screen actions (it answers no questions).
POLICY_TYPES: tuple[str, ...] = ACTION_TYPES[:5]
N_TYPES = len(POLICY_TYPES)
NONE_TYPE = N_TYPES  # history padding
TOK_PER_STEP = 3  # type, argument, span length

_STRIP = "'\"()[]{}.,:;!?“”‘’"
_WORD_BUCKETS = 4096
_TRI_BUCKETS = 2048
_WORD_FEATS = 7


@dataclass
class TinyConfig:
    """Sizes of the tiny policy (saved in its checkpoint)."""

    viewport: tuple[int, int] = (360, 640)  # (width, height) of the screenshots
    img_hw: tuple[int, int] = (128, 72)  # network input (height, width)
    grid_rows: int = 16  # click grid: 16×9 cells = 40 px at 360×640
    grid_cols: int = 9
    horizon: int = 5  # T: steps per plan
    max_span: int = 6  # words one Type may copy
    hist_len: int = 4  # actions of history read
    channels: int = 64
    hidden: int = 128
    word_dim: int = 64
    use_elements: bool = False  # the privileged variant: widgets painted onto the grid
    use_history: bool = True
    # the image as its deviation from the background colour, signed and absolute (6 channels):
    # a field is as visible on a dark theme as on a light one (False: raw RGB, older checkpoints)
    contrast_invariant: bool = True
    # with contrast_invariant: flip the signed deviation where the background is dark, so that
    # ink is negative on every theme (light text on a dark theme looks like dark text on a light
    # one); a fixed input normalisation, not an augmentation (False: older checkpoints)
    polarity_invariant: bool = True
    # non-empty: the ungrounded variant — a click names one of these labels instead of a cell
    click_labels: tuple[str, ...] = ()


# ----------------------------------------------------------------------------- words


def split_words(text: str) -> list[tuple[str, int, int]]:
    """Instruction words as ``(word, start, end)`` character spans, surrounding quotes and
    punctuation stripped (``"(password:"`` → ``"password"``; ``"x.y@example.com."`` keeps
    its inner dots). Copying words ``i..j`` types ``text[start_i:end_j]``.

    >>> [w for w, _, _ in split_words("Use the account bob.lee (password: lemon13) to sign in.")]
    ['Use', 'the', 'account', 'bob.lee', 'password', 'lemon13', 'to', 'sign', 'in']
    """
    out = []
    for m in re.finditer(r"\S+", text):
        s, e = m.start(), m.end()
        while s < e and text[s] in _STRIP:
            s += 1
        while e > s and text[e - 1] in _STRIP:
            e -= 1
        if e > s:
            out.append((text[s:e], s, e))
    return out


def _h(s: str, buckets: int) -> int:
    return zlib.crc32(s.encode("utf-8")) % buckets


def _trigrams(w: str) -> list[int]:
    s = f"<{w.lower()}>"
    return [_h("3:" + s[i : i + 3], _TRI_BUCKETS) for i in range(max(1, len(s) - 2))]


def _word_shape(w: str) -> list[float]:
    return [
        float(any(c.isdigit() for c in w)),
        float("@" in w),
        float("." in w),
        float(w[:1].isupper()),
        min(len(w), 20) / 20.0,
    ]


# ------------------------------------------------------------------------- geometry


def cell_centre(cell: int, cfg: TinyConfig) -> tuple[int, int]:
    """Screen point (x, y) of the centre of click cell ``cell`` (row-major)."""
    W, H = cfg.viewport
    r, c = divmod(int(cell), cfg.grid_cols)
    return int((c + 0.5) * W / cfg.grid_cols), int((r + 0.5) * H / cfg.grid_rows)


def point_cell(x: float, y: float, cfg: TinyConfig) -> int:
    """The click cell that contains screen point ``(x, y)``."""
    W, H = cfg.viewport
    c = min(cfg.grid_cols - 1, max(0, int(x * cfg.grid_cols // W)))
    r = min(cfg.grid_rows - 1, max(0, int(y * cfg.grid_rows // H)))
    return r * cfg.grid_cols + c


# ---------------------------------------------------------------------- observations


@dataclass
class TinyObs:
    """One observation, preprocessed (small: safe to keep for thousands of states)."""

    image: torch.Tensor  # uint8 [3, h, w]
    instruction: str
    words: list[tuple[str, int, int]]
    word_ids: list[int]
    tri_ids: list[list[int]]
    word_feats: list[list[float]]  # shape + "already typed" flag
    hist: list[tuple[int, int, int]]  # (type, arg, span) codes, oldest first
    elements: list[tuple[int, tuple[int, int, int, int], float, list[int]]]  # role, box, overlap, label ids


class _InstrCache:
    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.d: OrderedDict[str, Any] = OrderedDict()

    def get(self, text: str) -> Any:
        v = self.d.get(text)
        if v is None:
            words = split_words(text)
            plain = [w for w, _, _ in words]
            v = (words, [_h(w.lower(), _WORD_BUCKETS) for w in plain], [_trigrams(w) for w in plain], [_word_shape(w) for w in plain])
            self.d[text] = v
            if len(self.d) > self.size:
                self.d.popitem(last=False)
        else:
            self.d.move_to_end(text)
        return v


def _find_span(words: list[tuple[str, int, int]], text: str, instruction: str, max_span: int) -> Optional[tuple[int, int]]:
    t = " ".join(text.split())
    for i in range(len(words)):
        for k in range(min(max_span, len(words) - i)):
            if " ".join(instruction[words[i][1] : words[i + k][2]].split()) == t:
                return i, k
    return None


# ----------------------------------------------------------------------------- model


class TinyPolicy(nn.Module):
    """The tiny planner. ``sample``/``logprobs`` take raw env observations or
    :class:`TinyObs` (see :meth:`prepare`)."""

    def __init__(self, cfg: Optional[TinyConfig] = None) -> None:
        super().__init__()
        self.cfg = cfg = cfg or TinyConfig()
        C, Hd, Wd = cfg.channels, cfg.hidden, cfg.word_dim
        n_cells = cfg.grid_rows * cfg.grid_cols
        self.n_cells, self.n_apps = n_cells, len(APP_NAMES)
        self._cache = _InstrCache()
        self._last: Optional[tuple[Any, Any, Any, TinyObs]] = None
        # vision: 3 × 128 × 72 → C × 16 × 9; a learned bias map after the first layer tells
        # every position where it is (a CoordConv, without concatenating coordinates)
        h, w = cfg.img_hw
        self.conv1 = nn.Conv2d(6 if cfg.contrast_invariant else 3, 32, 5, stride=2, padding=2)
        self.pos1 = nn.Parameter(torch.zeros(1, 32, (h + 1) // 2, (w + 1) // 2))
        self.conv = nn.Sequential(
            nn.Conv2d(32, C, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(C, C, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(C, C, 3, stride=1, padding=1), nn.ReLU(),
        )
        self.cell_pos = nn.Parameter(torch.randn(n_cells, C) * 0.1)
        # elements (privileged variant): role, label overlap with the instruction, label words
        if cfg.use_elements:
            self.role_emb = nn.Embedding(len(KINDS), C)
            self.label_emb = nn.EmbeddingBag(_WORD_BUCKETS, C, mode="mean")
            self.elem_proj = nn.Linear(C + 1, C)
        # instruction
        self.word_emb = nn.Embedding(_WORD_BUCKETS, Wd)
        self.tri_emb = nn.EmbeddingBag(_TRI_BUCKETS, Wd, mode="mean")
        self.word_in = nn.Linear(2 * Wd + _WORD_FEATS, Wd)
        self.word_rnn = nn.GRU(Wd, Wd, batch_first=True, bidirectional=True)
        # step embeddings (decoder input and history)
        E = Wd
        self.type_emb = nn.Embedding(N_TYPES + 2, E)  # + history padding + start
        self.cell_emb = nn.Embedding(n_cells, E)
        self.dir_emb = nn.Embedding(len(DIRECTIONS), E)
        self.app_emb = nn.Embedding(self.n_apps, E)
        self.span_emb = nn.Embedding(cfg.max_span, E)
        self.word_to_e = nn.Linear(2 * Wd, E)
        # context and decoder
        self.ctx = nn.Sequential(nn.Linear(2 * C + 2 * Wd, Hd), nn.ReLU(), nn.Linear(Hd, Hd), nn.Tanh())
        self.gru = nn.GRUCell(E, Hd)
        self.small_head = nn.Linear(Hd, N_TYPES + len(DIRECTIONS) + self.n_apps)  # type | direction | app
        A = self.att_dim = 64
        self.cell_k = nn.Sequential(nn.Linear(C, A), nn.ReLU(), nn.Linear(A, A))
        self.cell_q = nn.Sequential(nn.Linear(Hd, A), nn.ReLU(), nn.Linear(A, A))
        self.word_k = nn.Sequential(nn.Linear(2 * Wd, A), nn.ReLU(), nn.Linear(A, A))
        self.word_q = nn.Sequential(nn.Linear(Hd, A), nn.ReLU(), nn.Linear(A, A))
        self.span_head = nn.Sequential(nn.Linear(Hd + 2 * Wd, A), nn.ReLU(), nn.Linear(A, cfg.max_span))
        # the ungrounded variant (created last: the grounded policy's initialisation is unchanged)
        self.n_labels = len(cfg.click_labels)
        if self.n_labels:
            ids: list[int] = []
            offs: list[int] = []
            for lab in cfg.click_labels:
                offs.append(len(ids))
                for word, _, _ in split_words(lab) or [(lab, 0, 0)]:
                    ids.append(_h(word.lower(), _WORD_BUCKETS))
                    ids.extend(_WORD_BUCKETS + t for t in _trigrams(word))
            self.register_buffer("label_ids", torch.tensor(ids, dtype=torch.long), persistent=False)
            self.register_buffer("label_offs", torch.tensor(offs, dtype=torch.long), persistent=False)
            self.label_tok = nn.EmbeddingBag(_WORD_BUCKETS + _TRI_BUCKETS, A, mode="mean")
            self.label_vec = nn.Embedding(self.n_labels, A)
            self.label_q = nn.Sequential(nn.Linear(Hd, A), nn.ReLU(), nn.Linear(A, A))
            self.label_seen = nn.Linear(A, A, bias=False)  # label key → the cell key it looks like
            self.label_e = nn.Embedding(self.n_labels, E)

    # -------------------------------------------------------------- preprocessing
    def prepare(self, obs: Any, history: Optional[Sequence[Any]] = None) -> TinyObs:
        """A raw observation (``screenshot``, ``instruction``[, ``history``][, ``elements``])
        → :class:`TinyObs`. ``history``: the actions executed so far (as the plan-act loop
        passes them); without it, the env's ``obs["history"]`` text is read if present.
        A ``TinyObs`` is returned as is."""
        if isinstance(obs, TinyObs):
            return obs
        cfg = self.cfg
        shot = obs["screenshot"]
        hist_key = None if history is None else tuple(history)
        last = self._last
        if last is not None and last[0] is shot and last[1] == hist_key and last[2] == obs["instruction"]:
            return last[3]  # the plan-act loop and the state recorder see the same observation
        shot = np.asarray(shot)
        h, w = cfg.img_hw
        if shot.shape[0] == h and shot.shape[1] == w:
            small = shot
        elif shot.shape[0] % h == 0 and shot.shape[1] % w == 0 and shot.shape[0] // h == shot.shape[1] // w:
            small = np.asarray(Image.fromarray(shot).reduce(shot.shape[0] // h))  # box average, fast
        else:
            small = np.asarray(Image.fromarray(shot).resize((w, h), Image.Resampling.BOX))
        image = torch.from_numpy(np.ascontiguousarray(small.transpose(2, 0, 1)))
        instruction = str(obs["instruction"])
        words, wids, tris, shapes = self._cache.get(instruction)
        hist: list[tuple[int, int, int]] = []
        typed: set[str] = set()
        if cfg.use_history:
            if history is None:
                history = []
                for line in str(obs.get("history") or "").split("\n"):
                    try:
                        history.append(parse_action(line, "function"))
                    except ValueError:
                        continue
            for a in history:
                if isinstance(a, Type):
                    typed.update(a.text.lower().split())
            hist = [self._code_of(a, words, instruction) for a in list(history)[-cfg.hist_len :] if a is not None]
        feats = [s + [float(wd.lower() in typed), 1.0] for s, (wd, _, _) in zip(shapes, words)]
        elements = []
        if cfg.use_elements and obs.get("elements") is not None:
            iw = {wd.lower() for wd, _, _ in words}
            for e in obs["elements"]:
                toks = [t for t, _, _ in split_words(str(e["label"]))]
                overlap = sum(t.lower() in iw for t in toks) / max(1, len(toks))
                role = int(e["role"]) if not isinstance(e["role"], str) else role_id(e["role"])
                box = cast("tuple[int, int, int, int]", tuple(int(v) for v in np.asarray(e["box"]).tolist()))  # (x0, y0, x1, y1)
                elements.append((role, box, overlap, [_h(t.lower(), _WORD_BUCKETS) for t in toks] or [0]))
        out = TinyObs(image, instruction, words, wids, tris, feats, hist, elements)
        self._last = (obs["screenshot"], hist_key, obs["instruction"], out)
        return out

    def _code_of(self, a: Any, words: list[tuple[str, int, int]], instruction: str) -> tuple[int, int, int]:
        """(type, argument, span) code of an action (the inverse of :meth:`_action_of`)."""
        if isinstance(a, Click):
            return CLICK, point_cell(a.x, a.y, self.cfg), 0
        if isinstance(a, Scroll):
            return SCROLL, DIRECTIONS.index(a.direction), 0
        if isinstance(a, OpenApp):
            name = a.name.strip().lower()
            idx = next((i for i, n in enumerate(APP_NAMES) if n.lower() == name), 0)
            return OPEN_APP, idx, 0
        if isinstance(a, Type):
            span = _find_span(words, a.text, instruction, self.cfg.max_span)
            return (TYPE, span[0], span[1]) if span else (TYPE, 0, 0)
        return BACK, 0, 0

    def _action_of(self, t: int, arg: int, span: int, ob: TinyObs) -> Any:
        if t == CLICK and span == 1 and self.n_labels:  # ungrounded: the executor finds the label
            label = self.cfg.click_labels[min(arg, self.n_labels - 1)]
            return PlanStep(action=None, instruction=f"Click '{label}'", action_type="click")
        if t == CLICK:
            return Click(*cell_centre(arg, self.cfg))
        if t == SCROLL:
            return Scroll(DIRECTIONS[arg])
        if t == OPEN_APP:
            return OpenApp(APP_NAMES[arg])
        if t == TYPE:
            if not ob.words:
                return Type("")
            i = min(arg, len(ob.words) - 1)
            j = min(i + span, len(ob.words) - 1)
            return Type(ob.instruction[ob.words[i][1] : ob.words[j][2]])
        return Back()

    # -------------------------------------------------------------------- encoder
    def _device(self) -> torch.device:
        return self.cell_pos.device

    def _encode(self, obs: Sequence[TinyObs]) -> dict[str, torch.Tensor]:
        cfg, dev = self.cfg, self._device()
        B = len(obs)
        img = torch.stack([o.image for o in obs]).to(dev).float().div_(255.0)
        if cfg.contrast_invariant:  # deviation from the background (the per-channel median): theme-independent shapes
            bg = img.flatten(2).median(-1).values  # [B, 3]
            d = img - bg[..., None, None]
            if cfg.polarity_invariant:  # a dark background: ink is brighter than the page, flip it
                d = d * torch.where(bg.mean(-1) < 0.5, -1.0, 1.0)[:, None, None, None]
            img = torch.cat([d, d.abs()], 1)
        else:
            img = img.sub_(0.5)
        fmap = self.conv(torch.relu(self.conv1(img) + self.pos1))  # [B, C, R, Cc]
        if fmap.shape[-2:] != (cfg.grid_rows, cfg.grid_cols):
            fmap = F.adaptive_avg_pool2d(fmap, (cfg.grid_rows, cfg.grid_cols))
        cells = fmap.flatten(2).transpose(1, 2) + self.cell_pos  # [B, n_cells, C]
        if cfg.use_elements:
            cells = cells + self._paint_elements(obs, cells.shape[-1])
        g = torch.cat([cells.mean(1), cells.amax(1)], dim=-1)
        # words
        Lw = max(1, max(len(o.words) for o in obs))
        wid = torch.zeros(B, Lw, dtype=torch.long)
        feats = torch.zeros(B, Lw, _WORD_FEATS)
        wmask = torch.zeros(B, Lw, dtype=torch.bool)
        flat_tri: list[int] = []
        offsets: list[int] = []
        for b, o in enumerate(obs):
            n = len(o.words)
            if n:
                wid[b, :n] = torch.tensor(o.word_ids)
                feats[b, :n] = torch.tensor(o.word_feats)
                wmask[b, :n] = True
            for k in range(Lw):
                offsets.append(len(flat_tri))
                flat_tri.extend(o.tri_ids[k] if k < n else [0])
        tri = self.tri_emb(torch.tensor(flat_tri, device=dev), torch.tensor(offsets, device=dev)).view(B, Lw, -1)
        wx = torch.relu(self.word_in(torch.cat([self.word_emb(wid.to(dev)), tri, feats.to(dev)], dim=-1)))
        lengths = wmask.sum(1).clamp(min=1)  # an instruction without words reads one padding word, as alone
        if bool((lengths < Lw).any()):
            # a shorter instruction padded to the batch's longest: the backward GRU must start at its
            # own last word, not run through the padding (else an observation's plans score other
            # log-probs in a batch than alone: the GRPO ratio was off before any update)
            packed = nn.utils.rnn.pack_padded_sequence(wx, lengths, batch_first=True, enforce_sorted=False)
            wenc = nn.utils.rnn.pad_packed_sequence(self.word_rnn(packed)[0], batch_first=True, total_length=Lw)[0]
        else:
            wenc, _ = self.word_rnn(wx)  # [B, Lw, 2Wd]
        wm = wmask.to(dev)
        wsum = (wenc * wm[..., None]).sum(1) / wm.sum(1, keepdim=True).clamp(min=1)
        # history
        K = cfg.hist_len
        hcodes = torch.full((B, K, 3), 0, dtype=torch.long)
        hcodes[:, :, 0] = NONE_TYPE
        for b, o in enumerate(obs):
            hs = o.hist[-K:]
            for k, c in enumerate(hs):
                hcodes[b, K - len(hs) + k] = torch.tensor(c)
        hcodes = hcodes.to(dev)
        hemb = self._step_embed(hcodes, cells, wenc)  # [B, K, E]
        # the decoder reads the history first: [start, h_1 … h_k] then continues with the plan,
        # so "the step after h_1 … h_k" is one computation whether h_i were executed or planned
        h = self.ctx(torch.cat([g, wsum], dim=-1))
        x = self.type_emb(torch.full((B,), N_TYPES + 1, dtype=torch.long, device=dev))
        for k in range(K):
            valid = (hcodes[:, k, 0] != NONE_TYPE)[:, None]
            h = torch.where(valid, self.gru(x, h), h)
            x = torch.where(valid, hemb[:, k], x)
        out = {"cells": cells, "cell_k": self.cell_k(cells), "wenc": wenc, "word_k": self.word_k(wenc), "wmask": wm, "ctx": h, "x0": x}
        if self.n_labels:
            keys = self.label_tok(self.label_ids, self.label_offs) + self.label_vec.weight  # [L, A]
            out["label_k"] = keys
            # how well each label matches its best cell of this screenshot: [B, L]
            out["label_seen"] = torch.einsum("bca,la->bcl", out["cell_k"], self.label_seen(keys)).amax(1) / self.att_dim**0.5
        return out

    def _paint_elements(self, obs: Sequence[TinyObs], C: int) -> torch.Tensor:
        cfg, dev = self.cfg, self._device()
        rows: list[int] = []
        roles: list[int] = []
        overlaps: list[float] = []
        labels: list[int] = []
        offs: list[int] = []
        cell_lists: list[list[int]] = []
        centres = [cell_centre(c, cfg) for c in range(self.n_cells)]
        for b, o in enumerate(obs):
            for role, (x0, y0, x1, y1), ov, lab in o.elements:
                inside = [c for c, (x, y) in enumerate(centres) if x0 <= x <= x1 and y0 <= y <= y1]
                if not inside:
                    continue
                rows.append(b)
                roles.append(role)
                overlaps.append(ov)
                offs.append(len(labels))
                labels.extend(lab)
                cell_lists.append(inside)
        out = torch.zeros(len(obs), self.n_cells, C, device=dev)
        if not rows:
            return out
        lab = self.label_emb(torch.tensor(labels, device=dev), torch.tensor(offs, device=dev))
        role = self.role_emb(torch.tensor(roles, device=dev))
        v = self.elem_proj(torch.cat([role + lab, torch.tensor(overlaps, device=dev)[:, None]], -1))
        idx_b = torch.tensor([rows[i] for i, cl in enumerate(cell_lists) for _ in cl], device=dev)
        idx_c = torch.tensor([c for cl in cell_lists for c in cl], device=dev)
        src = v[torch.tensor([i for i, cl in enumerate(cell_lists) for _ in cl], device=dev)]
        out.index_put_((idx_b, idx_c), src, accumulate=True)
        return out

    def _step_embed(
        self, codes: torch.Tensor, cells: Optional[torch.Tensor], wenc: torch.Tensor, rows: Optional[torch.Tensor] = None
    ) -> torch.Tensor:
        """Embedding of steps ``codes`` ``[..., 3]`` (type, arg, span). ``rows`` maps each
        leading index to its observation (for word lookups), default identity."""
        t, arg, span = codes[..., 0], codes[..., 1], codes[..., 2]
        e = self.type_emb(t)
        is_click, is_scroll, is_app, is_type = (t == CLICK), (t == SCROLL), (t == OPEN_APP), (t == TYPE)
        if self.n_labels:  # span 1 marks a planned ungrounded click (arg: a label), 0 an executed one (a cell)
            named = is_click & (span == 1)
            e = e + self.cell_emb(arg.clamp(0, self.n_cells - 1)) * (is_click & ~named)[..., None]
            e = e + self.label_e(arg.clamp(0, self.n_labels - 1)) * named[..., None]
        else:
            e = e + self.cell_emb(arg.clamp(0, self.n_cells - 1)) * is_click[..., None]
        e = e + self.dir_emb(arg.clamp(0, len(DIRECTIONS) - 1)) * is_scroll[..., None]
        e = e + self.app_emb(arg.clamp(0, self.n_apps - 1)) * is_app[..., None]
        Lw = wenc.shape[1]
        if rows is None:
            src = wenc
        else:
            src = wenc[rows]
        widx = arg.clamp(0, Lw - 1)
        if codes.dim() == 3:  # [B, K, 3]
            wv = torch.gather(src, 1, widx[..., None].expand(-1, -1, src.shape[-1]))
        else:  # [N, 3]
            wv = src[torch.arange(src.shape[0], device=src.device), widx]
        e = e + (self.word_to_e(wv) + self.span_emb(span.clamp(0, self.cfg.max_span - 1))) * is_type[..., None]
        return e

    # -------------------------------------------------------------------- decoder
    def _decode(
        self,
        enc: dict[str, torch.Tensor],
        rows: torch.Tensor,
        codes: Optional[torch.Tensor],
        greedy: bool = False,
        horizon: Optional[int] = None,
        generator: Optional[torch.Generator] = None,
        want_entropy: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Decode ``len(rows)`` plans (row ``n`` reads observation ``rows[n]``): sample (or
        argmax) when ``codes`` is None, else score ``codes`` ``[N, T, 3]``.
        Returns ``codes``, ``logp`` ``[N, 3T]``, ``mask`` ``[N, 3T]``, ``entropy`` ``[N]``."""
        T = horizon or (codes.shape[1] if codes is not None else self.cfg.horizon)
        N = rows.shape[0]
        B = enc["ctx"].shape[0]
        if N % B or not torch.equal(rows, torch.arange(B, device=rows.device).repeat_interleave(N // B)):
            raise ValueError("rows must be grouped: arange(B).repeat_interleave(n)")
        G = N // B
        dev = rows.device
        h = enc["ctx"][rows]
        cell_kT = enc["cell_k"].transpose(1, 2) / self.att_dim**0.5  # [B, A, cells]
        word_kT = enc["word_k"].transpose(1, 2) / self.att_dim**0.5  # [B, A, Lw]
        wenc = enc["wenc"][rows]
        wmask = enc["wmask"][rows]
        n_words = wmask.sum(1)  # [N]
        neg = torch.finfo(h.dtype).min
        x = enc["x0"][rows]
        out_codes = torch.zeros(N, T, 3, dtype=torch.long, device=dev)
        logps = torch.zeros(N, T, 3, device=dev)
        masks = torch.zeros(N, T, 3, device=dev)
        ent = torch.zeros(N, device=dev)
        ar = torch.arange(N, device=dev)
        span_range = torch.arange(self.cfg.max_span, device=dev)
        nd, na = len(DIRECTIONS), self.n_apps
        sample = codes is None and not greedy
        zeros_l = torch.zeros(N, dtype=torch.long, device=dev)

        def choose(lp: torch.Tensor, noise: Optional[torch.Tensor], given: Optional[torch.Tensor]) -> torch.Tensor:
            if given is not None:
                return given
            return (lp + noise).argmax(-1) if noise is not None else lp.argmax(-1)

        def gumbel(shape: tuple[int, ...]) -> torch.Tensor:
            u = torch.rand(shape, generator=generator, device=dev).clamp_(1e-10, 1.0 - 1e-7)
            return -torch.log(-torch.log(u))

        def entropy(lp: torch.Tensor) -> torch.Tensor:
            return -(lp.exp() * lp.clamp(min=-1e4)).sum(-1)

        for t in range(T):
            h = self.gru(x, h)
            g = None if codes is None else codes[:, t]
            small = self.small_head(h)
            lp_type = torch.log_softmax(small[:, :N_TYPES], -1)
            lp_dir = torch.log_softmax(small[:, N_TYPES : N_TYPES + nd], -1)
            lp_app = torch.log_softmax(small[:, N_TYPES + nd :], -1)
            if self.n_labels:  # the click argument is a label: what to click, not where
                lab = self.label_q(h) @ enc["label_k"].T / self.att_dim**0.5 + enc["label_seen"][rows]
                lp_cell = torch.log_softmax(lab, -1)
            else:
                lp_cell = torch.log_softmax(torch.bmm(self.cell_q(h).view(B, G, -1), cell_kT).view(N, -1), -1)
            n_click = lp_cell.shape[1]
            lp_word = torch.log_softmax(torch.bmm(self.word_q(h).view(B, G, -1), word_kT).view(N, -1).masked_fill(~wmask, neg), -1)
            noise = gumbel((N, N_TYPES + nd + na + n_click + lp_word.shape[1])) if sample else None
            cut = np.cumsum([0, N_TYPES, nd, na, n_click, lp_word.shape[1]]).tolist()
            seg = (lambda k: noise[:, cut[k] : cut[k + 1]]) if noise is not None else (lambda k: None)
            ty = choose(lp_type, seg(0), None if g is None else g[:, 0])
            d = choose(lp_dir, seg(1), None if g is None else g[:, 1].clamp(0, nd - 1))
            app = choose(lp_app, seg(2), None if g is None else g[:, 1].clamp(0, na - 1))
            cell = choose(lp_cell, seg(3), None if g is None else g[:, 1].clamp(0, n_click - 1))
            w = choose(lp_word, seg(4), None if g is None else g[:, 1].clamp(0, wenc.shape[1] - 1))
            span_logits = self.span_head(torch.cat([h, wenc[ar, w]], -1))
            span_ok = (w[:, None] + span_range[None, :]) < n_words[:, None].clamp(min=1)
            span_ok[:, 0] = True
            lp_span = torch.log_softmax(span_logits.masked_fill(~span_ok, neg), -1)
            given_sp = None if g is None else g[:, 2].clamp(0, self.cfg.max_span - 1)
            sp = choose(lp_span, gumbel(tuple(lp_span.shape)) if sample else None, given_sp)
            # the argument of the chosen type (click, scroll, back, open_app, type order)
            args_all = torch.stack([cell, d, zeros_l, app, w], 1)
            lp_all = torch.stack([
                lp_cell.gather(1, cell[:, None])[:, 0], lp_dir.gather(1, d[:, None])[:, 0], torch.zeros_like(lp_type[:, 0]),
                lp_app.gather(1, app[:, None])[:, 0], lp_word.gather(1, w[:, None])[:, 0],
            ], 1)
            arg = args_all.gather(1, ty[:, None])[:, 0]
            is_type = ty == TYPE
            spn = torch.where(is_type, sp, zeros_l)
            if self.n_labels:  # the marker of a planned ungrounded click (not a decision: unscored)
                spn = torch.where(ty == CLICK, torch.ones_like(spn), spn)
            step = torch.stack([ty, arg, spn], -1)
            out_codes[:, t] = step
            logps[:, t, 0] = lp_type.gather(1, ty[:, None])[:, 0]
            logps[:, t, 1] = lp_all.gather(1, ty[:, None])[:, 0]
            logps[:, t, 2] = torch.where(is_type, lp_span.gather(1, sp[:, None])[:, 0], torch.zeros_like(logps[:, t, 2]))
            masks[:, t, 0] = 1.0
            masks[:, t, 1] = (ty != BACK).float()
            masks[:, t, 2] = is_type.float()
            if want_entropy:
                e_all = torch.stack([entropy(lp_cell), entropy(lp_dir), torch.zeros_like(ent), entropy(lp_app), entropy(lp_word)], 1)
                ent = ent + entropy(lp_type) + e_all.gather(1, ty[:, None])[:, 0]
            x = self._step_embed(step, None, wenc)
        return out_codes, logps.flatten(1), masks.flatten(1), ent / T

    # ------------------------------------------------------------------ protocol
    def _completions(self, obs: Sequence[TinyObs], rows: torch.Tensor, codes: torch.Tensor) -> list[Completion]:
        out = []
        cl = codes.cpu().tolist()
        for n, b in enumerate(rows.tolist()):
            ob = obs[b]
            steps = [self._action_of(t, a, s, ob) for t, a, s in cl[n]]
            out.append(Completion(steps=steps, data=codes[n].cpu()))
        return out

    def sample(
        self,
        obs_batch: Sequence[Any],
        n: int,
        greedy: bool = False,
        horizon: Optional[int] = None,
        generator: Optional[torch.Generator] = None,
    ) -> tuple[list[Completion], tuple[torch.Tensor, torch.Tensor]]:
        """``n`` plans per observation (grouped), with their per-decision log-probs
        (``[B·n, 3T]``) and mask (1 for the decisions a step has: type; argument unless Back;
        span length for Type). ``greedy``: the most likely plan, ``n`` identical copies."""
        obs = [self.prepare(o) for o in obs_batch]
        with torch.no_grad():
            enc = self._encode(obs)
            rows = torch.arange(len(obs), device=self._device()).repeat_interleave(n)
            codes, logp, mask, _ = self._decode(enc, rows, None, greedy=greedy, horizon=horizon, generator=generator)
        return self._completions(obs, rows, codes), (logp, mask)

    def logprobs(self, obs_batch: Sequence[Any], completions: Sequence[Completion]) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probs ``[B·n, 3T]`` (with gradients) and mask of ``completions``, grouped ``n``
        per observation."""
        lp, mask, _ = self._score(obs_batch, completions, want_entropy=False)
        return lp, mask

    def logprobs_entropy(
        self, obs_batch: Sequence[Any], completions: Sequence[Completion]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`logprobs` plus each row's mean per-step entropy (type + the chosen type's
        argument), for an entropy bonus — one forward pass for both."""
        return self._score(obs_batch, completions, want_entropy=True)

    def _score(
        self, obs_batch: Sequence[Any], completions: Sequence[Completion], want_entropy: bool
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        obs = [self.prepare(o) for o in obs_batch]
        B, N = len(obs), len(completions)
        if B == 0 or N % B:
            raise ValueError(f"{N} completions do not split into {B} equal groups")
        enc = self._encode(obs)
        rows = torch.arange(B, device=self._device()).repeat_interleave(N // B)
        codes = torch.stack([c.data for c in completions]).to(self._device())
        _, lp, mask, ent = self._decode(enc, rows, codes, want_entropy=want_entropy)
        return lp, mask, ent

    def plan(self, obs: Any, greedy: bool = True, history: Optional[Sequence[Any]] = None) -> list[Any]:
        """One plan (``T`` actions) for one observation."""
        comps, _ = self.sample([self.prepare(obs, history)], 1, greedy=greedy)
        return comps[0].steps

    # ---------------------------------------------------------------- checkpoint
    def save(self, path: str, extra: Optional[dict[str, Any]] = None) -> None:
        torch.save({"config": asdict(self.cfg), "state_dict": self.state_dict(), **(extra or {})}, path)

    @classmethod
    def load(cls, path: str) -> "TinyPolicy":
        ck = torch.load(path, map_location="cpu", weights_only=False)
        cfgd = dict(ck["config"])
        for k in ("viewport", "img_hw"):
            cfgd[k] = tuple(cfgd[k])
        cfgd.setdefault("contrast_invariant", False)  # checkpoints from before the option: raw RGB
        cfgd.setdefault("polarity_invariant", False)  # checkpoints from before the option: signed as drawn
        cfgd["click_labels"] = tuple(cfgd.get("click_labels", ()))
        pol = cls(TinyConfig(**cfgd))
        pol.load_state_dict(ck["state_dict"])
        return pol


class TinyPlanner:
    """Adapter: a :class:`TinyPolicy` as a planner of the plan-act loop
    (:class:`agents.plan_act.Planner`: ``reset(seed)``, ``plan(obs, info, history)``).

    ``greedy=True`` decodes the most likely plan (evaluation); ``False`` samples it with a
    generator seeded by ``reset(seed)`` (rollouts). The policy sees the screenshot, the
    instruction and the executed ``history``, never ``info`` (the reference, the elements) —
    except the elements when the policy is the ``use_elements`` variant, which reads them
    from ``info["elements"]`` when the observation lacks them.
    """

    def __init__(self, policy: TinyPolicy, greedy: bool = True, horizon: Optional[int] = None) -> None:
        self.policy = policy
        self.greedy = greedy
        self.horizon = int(horizon or policy.cfg.horizon)
        self.gen = torch.Generator()

    def reset(self, seed: Optional[int] = None) -> None:
        self.gen.manual_seed(0 if seed is None else int(seed))

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Any] = ()) -> Any:
        from agents.plan_act import Plan

        comps, _ = self.policy.sample([self._prepare(obs, info, history)], 1, greedy=self.greedy, horizon=self.horizon,
                                      generator=self.gen)
        return Plan([a if isinstance(a, PlanStep) else PlanStep(action=a) for a in comps[0].steps])

    def plan_batch(self, obs: Sequence[dict[str, Any]], infos: Sequence[dict[str, Any]],
                   histories: Sequence[Sequence[Any]]) -> list[Any]:
        """Greedy plans for several episodes in one batched forward pass (the lockstep loop,
        :func:`agents.plan_act.run_episodes`). Each is the plan :meth:`plan` decodes (shorter
        instructions are packed, not read through the batch's padding), up to floating point: a
        batched product may round another last bit than one observation alone, which could flip
        a near-tie (``benchmarks/bench_eval_lockstep.py`` compares every metric both ways)."""
        from agents.plan_act import Plan

        if not self.greedy:  # a sampled plan depends on its own episode's generator (reset(seed))
            raise ValueError("TinyPlanner.plan_batch decodes greedily; a sampling planner plans one episode at a time")
        if not obs:
            return []
        prepared = [self._prepare(o, i, h) for o, i, h in zip(obs, infos, histories)]
        comps, _ = self.policy.sample(prepared, 1, greedy=True, horizon=self.horizon)
        return [Plan([a if isinstance(a, PlanStep) else PlanStep(action=a) for a in c.steps]) for c in comps]

    def _prepare(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Any]) -> Any:
        if self.policy.cfg.use_elements and "elements" not in obs:
            obs = {**obs, "elements": list(info.get("elements", []))}  # prepare() reads string roles too
        return self.policy.prepare(obs, list(history))
