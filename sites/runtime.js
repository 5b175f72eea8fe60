// guigym runtime: draws a view (sent by Python) as real DOM and records what the user did.
//
// The app's behaviour lives in Python. This file only
//   * show(view, frameId): draws `view.items`, the display list Python computed (guigym/display.py:
//                  rectangles, circles, lines, text runs and widgets, every colour and offset
//                  resolved; unchanged widgets are kept), restores focus/values,
//                  paints `frameId` into the row below the screen, and returns the DOM boxes
//                  of the visible widgets;
//   * drain():     returns the DOM events recorded since the last call (clicks on widgets,
//                  checkbox `change`s, `input` values, wheel directions) and restores the DOM
//                  to the last shown view, so the page never diverges from Python's state;
//   * drainAfter(kind, ms): the same, once the input that ends in a `kind` event (mouseup,
//                  wheel, input, keyup) has been handled (sent with the input: one round trip);
//   * drainIf(kind): drain() if that input has been handled already, else null (sent with
//                  the input, first: its answer is not held back by a frame, see below);
//   * font(name, b64): registers a bundled font (the `font` variation) from its file's bytes.
// Text from views (labels, values typed by a model) only ever goes through `textContent` and
// `value`: it is never parsed as HTML nor executed.
(() => {
  "use strict";

  const queue = [];
  let view = null;            // the last view shown
  const roots = new Map();    // widget id -> root element (data-wid)
  const controls = new Map(); // widget id -> its <input>, if it has one
  let clip = null;            // the element that clips the rows (body or grid)

  function el(tag, cls, parent) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function place(e, x, y, w, h) {
    e.style.left = x + "px";
    e.style.top = y + "px";
    e.style.width = w + "px";
    e.style.height = h + "px";
  }
  function rgb(c) { return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")"; }
  function fill(e, r) {  // a filled shape, or its outline (border px wide)
    if (r.border) e.style.border = r.border + "px solid " + rgb(r.color);
    else e.style.background = rgb(r.color);
  }
  const SVG = "http://www.w3.org/2000/svg";
  // characters that break a line or jump to a tab stop under `white-space: pre` (text runs)
  const BREAKS = /[\t\n\v\f\r\x85\u2028\u2029]/g;

  // Draw one primitive record of the display list (see guigym/display.py) into `parent`
  // (coordinates are relative to its corner). One case per record type; no layout here.
  function paint(r, parent) {
    const cls = "p" + (r.name ? " " + r.name : "");
    switch (r.type) {
      case "rect": {
        const e = el("div", cls, parent);
        place(e, r.box[0], r.box[1], r.box[2], r.box[3]);
        fill(e, r);
        if (r.radius) e.style.borderRadius = r.radius + "px";
        return;
      }
      case "circle": {
        const e = el("div", cls + " round", parent);
        place(e, r.center[0] - r.r, r.center[1] - r.r, 2 * r.r, 2 * r.r);
        fill(e, r);
        return;
      }
      case "lines": {
        const svg = document.createElementNS(SVG, "svg");
        svg.setAttribute("class", cls);
        place(svg, 0, 0, 1, 1);
        const line = document.createElementNS(SVG, "polyline");
        line.setAttribute("points", r.points.map((p) => p.join(",")).join(" "));
        line.setAttribute("fill", "none");
        line.setAttribute("stroke", rgb(r.color));
        line.setAttribute("stroke-width", String(r.width));
        svg.appendChild(line);
        parent.appendChild(svg);
        return;
      }
      case "text": {
        const e = el("span", "t" + (r.name ? " " + r.name : ""), parent);
        // one line, as the mock draws it (pygame breaks no line and draws a tab as any other
        // character): under `white-space: pre` a line break would start a new line (drawn over
        // the rows below) and a tab would jump to a tab stop, so each is drawn as a space
        e.textContent = r.text == null ? "" : String(r.text).replace(BREAKS, " ");
        e.style.left = r.x + "px";
        e.style.top = r.y + "px";
        e.style.fontSize = r.px + "px";
        e.style.color = rgb(r.color);
        // the file the mock draws: a bundled font, else pygame's own (registered as
        // "pygame-default"), regular unless bold (the mock emboldens it once more)
        e.style.fontFamily = '"guigym-' + (r.font || "pygame-default") + '"';
        e.style.fontWeight = r.bold ? "bold" : "normal";
        if (!r.font) e.style.lineHeight = "1";  // pygame's: ascent + descent = 1 em, its text's height
        // as the mock places it: the whole run aligned (a centred one wider than `w` overflows
        // on both sides), then only its first `clip` px drawn
        if (r.clip != null && r.align !== "left") e.style.clipPath = "inset(0 max(0px, calc(100% - " + r.clip + "px)) 0 0)";
        else if (r.clip != null) e.style.maxWidth = r.clip + "px";
        let tx = "0", ty = r.valign === "middle" ? "-50%" : "0";
        if (r.align === "center") {
          tx = "-50%";
          if (r.w != null) e.style.left = r.x + r.w / 2 + "px";
        } else if (r.align === "right") tx = "-100%";
        if (tx !== "0" || ty !== "0") e.style.transform = "translate(" + tx + "," + ty + ")";
        return;
      }
    }
  }

  // Build a `widget` record into `parent` (whose corner is at ox, oy): its root element (a
  // native control where the kind needs one, so that input is real) at the box, its parts,
  // then the control, last: a focused field's caret is a layer of its own, and anything
  // painted over it would need layers too (screenshots paint a single layer).
  const ROOT_TAG = { button: "button", icon: "button", input: "label", textarea: "label", checkbox: "label", toggle: "label", radio: "label", link: "a" };
  function widget(r, parent, ox, oy) {
    const b = r.box;
    const root = el(ROOT_TAG[r.kind] || "div", "w", parent);  // div: labels, and kinds this runtime does not know
    place(root, b[0] - ox, b[1] - oy, b[2] - b[0] + 1, b[3] - b[1] + 1);
    let into = root;  // parts of an unclipped widget (icons) may overflow its box
    if (r.clip) {
      into = el("div", "clip", root);
      place(into, 0, 0, r.clip[0], r.clip[1]);
    }
    for (const p of r.parts) paint(p, into);
    let ctl = null;
    switch (r.kind) {
      case "button":
      case "icon":
        root.type = "button";
        break;
      case "input":
      case "textarea":  // a native field, its text transparent: the parts draw it (wrapped)
        root.className = "w field";
        ctl = el(r.kind, "", root);
        if (r.kind === "input") ctl.type = r.secret ? "password" : "text";
        ctl.autocomplete = "off";
        ctl.spellcheck = false;
        ctl.value = r.value;
        break;
      case "checkbox":
      case "toggle":
      case "radio":
        ctl = el("input", "ctl", root);
        ctl.type = r.kind === "radio" ? "radio" : "checkbox";
        if (r.kind === "radio") ctl.name = "g:" + (r.group || r.id);
        ctl.checked = !!r.value;
        ctl.tabIndex = -1;
        break;
    }
    if (r.interactive) root.dataset.wid = r.id;
    root.dataset.kind = r.kind;
    return { root, ctl, json: "" };
  }

  // What is on the page, so that show() redraws only what changed: unchanged widgets keep
  // their elements (and pixels), changed ones are rebuilt, a new screen is built afresh. The
  // records before the first widget are drawn under the widgets, the others over them.
  const shown = { key: null, under: null, over: null, parts: new Map() };
  let under = null, over = null;

  function register(r, part) {
    part.json = JSON.stringify(r);
    shown.parts.set(r.id, part);
    if (!r.inert) roots.set(r.id, part.root);  // the screen under a dialog: drawn, never measured
    if (part.ctl) controls.set(r.id, part.ctl); else controls.delete(r.id);
  }

  function rebuild(v, widgets) {
    roots.clear();
    controls.clear();
    shown.parts = new Map();
    const frag = document.createDocumentFragment();
    under = el("div", "layer", frag);
    const [cx, cy, cw, ch] = v.clip;
    clip = el("div", "body", frag);
    place(clip, cx, cy, cw, ch);
    over = el("div", "layer", frag);
    for (const r of widgets) register(r, widget(r, clip, cx, cy));
    document.getElementById("app").replaceChildren(frag);
    shown.under = shown.over = null;
  }

  function chrome(layer, items, old) {
    const key = JSON.stringify(items);
    if (key === old) return key;
    const frag = document.createDocumentFragment();
    for (const r of items) paint(r, frag);
    layer.replaceChildren(frag);
    return key;
  }

  function show(v, frameId) {
    const app = document.getElementById("app");
    if (app.style.height !== v.height + "px") {
      place(app, 0, 0, v.width, v.height);
      place(document.getElementById("frame-id"), 0, v.height, v.width, 1);
    }
    const n = (frameId >>> 0) & 0xffffff;
    document.getElementById("frame-id").style.background = "rgb(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + ")";
    const widgets = [], below = [], above = [];
    for (const r of v.items) {
      if (r.type === "widget") widgets.push(r);
      else (widgets.length ? above : below).push(r);
    }
    const key = JSON.stringify([v.width, v.height, v.clip, widgets.map((r) => r.id)]);
    if (key !== shown.key) {
      rebuild(v, widgets);
      shown.key = key;
    } else {
      const [cx, cy] = v.clip;
      for (const r of widgets) {
        const old = shown.parts.get(r.id);
        if (old.json === JSON.stringify(r)) continue;
        const frag = document.createDocumentFragment();
        const part = widget(r, frag, cx, cy);
        old.root.replaceWith(frag);
        register(r, part);
      }
    }
    shown.under = chrome(under, below, shown.under);
    shown.over = chrome(over, above, shown.over);
    view = v;
    view.widgets = widgets;
    sync();
    return measure();
  }

  // Put focus, values, checked states and scroll offsets back to what `view` says.
  function sync() {
    if (!view) return;
    // write only what differs: a no-op write can still invalidate and cost a frame
    for (const r of view.widgets) {
      const c = controls.get(r.id);
      if (!c) continue;
      if (c.type === "checkbox" || c.type === "radio") {
        if (c.checked !== !!r.value) c.checked = !!r.value;
      } else if (c.value !== r.value) {
        c.value = r.value;
      }
    }
    const f = view.focus != null ? controls.get(view.focus) : null;
    if (f && f.type !== "checkbox" && f.type !== "radio") {
      if (document.activeElement !== f) f.focus({ preventScroll: true });
      // Type replaces the content: keep it all selected (the selection is invisible)
      if (f.selectionStart !== 0 || f.selectionEnd !== f.value.length) f.select();
    } else if (document.activeElement && document.activeElement !== document.body) {
      document.activeElement.blur();
    }
    for (const c of controls.values()) {
      if (c.scrollLeft !== 0) c.scrollLeft = 0;
      if (c.scrollTop !== 0) c.scrollTop = 0;  // a textarea's
    }
    for (const e of [document.scrollingElement, clip]) {
      if (e && e.scrollTop !== 0) e.scrollTop = 0;
      if (e && e.scrollLeft !== 0) e.scrollLeft = 0;
    }
  }

  // DOM boxes (x0, y0, x1, y1 inclusive) of the widgets that are wholly inside the clip.
  function measure() {
    const out = {};
    if (!clip) return out;
    const c = clip.getBoundingClientRect();
    for (const [id, e] of roots) {
      const r = e.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      if (r.left >= c.left && r.top >= c.top && r.right <= c.right && r.bottom <= c.bottom) {
        out[id] = [Math.round(r.left), Math.round(r.top), Math.round(r.right) - 1, Math.round(r.bottom) - 1];
      }
    }
    return out;
  }

  function drain() {
    const f = view && view.focus != null ? controls.get(view.focus) : null;
    const out = { events: queue.splice(0, queue.length), focus_value: f ? f.value : null, timed_out: false };
    for (const k of Object.keys(seen)) seen[k] = 0;
    sync();
    return out;
  }

  // drain() once the DOM has seen a `kind` event (mouseup, wheel, input, keyup) and the task
  // that dispatched it has finished, so that everything it caused (click, change, focus) is
  // recorded; or after `ms` milliseconds with `timed_out` set.
  const seen = { mouseup: 0, wheel: 0, input: 0, keyup: 0 };
  let waiter = null;
  function drainAfter(kind, ms) {
    return new Promise((resolve) => {
      const w = { kind, resolve, timer: 0, done: false };
      w.finish = (timedOut) => {
        if (w.done) return;
        w.done = true;
        clearTimeout(w.timer);
        if (waiter === w) waiter = null;
        const out = drain();
        out.timed_out = timedOut;
        resolve(out);
      };
      if (seen[kind] > 0) { setTimeout(() => w.finish(false), 0); return; }
      waiter = w;
      w.timer = setTimeout(() => w.finish(true), ms);
    });
  }
  // A command runs in a task of its own, so when it sees the `kind` event counted, the task
  // that dispatched it (and the click, change and input events it caused) is over. Answered
  // at once: drainAfter's answer comes from a later task, and after input Chromium holds
  // such an answer back until the next frame (up to 16.7 ms) when that task changed the DOM,
  // which drain()'s sync() usually does (it blurs the field the click focused).
  function drainIf(kind) { return seen[kind] > 0 ? drain() : null; }
  function saw(kind) {
    seen[kind] += 1;
    const w = waiter;
    if (w && w.kind === kind) setTimeout(() => w.finish(false), 0);  // after this task
  }
  for (const k of Object.keys(seen)) window.addEventListener(k, () => saw(k), { capture: true, passive: true });

  function widOf(target) {
    const e = target && target.closest ? target.closest("[data-wid]") : null;
    return e ? e.dataset.wid : null;
  }

  document.addEventListener("click", (e) => {
    const id = widOf(e.target);
    if (e.target.closest && e.target.closest("a")) e.preventDefault();
    if (id !== null) queue.push({ type: "click", id });
  }, true);
  document.addEventListener("change", (e) => {
    const t = e.target;
    if (t && t.type === "checkbox") queue.push({ type: "toggle", id: widOf(t), on: t.checked });
  }, true);
  document.addEventListener("input", (e) => {
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA") && t.type !== "checkbox" && t.type !== "radio") queue.push({ type: "input", id: widOf(t), value: t.value });
  }, true);
  window.addEventListener("wheel", (e) => {
    e.preventDefault();  // scrolling is semantic (whole rows), applied by Python
    queue.push({ type: "wheel", dx: e.deltaX, dy: e.deltaY });
  }, { passive: false, capture: true });
  for (const t of ["submit", "dragstart", "contextmenu", "auxclick", "dblclick"]) {
    document.addEventListener(t, (e) => e.preventDefault(), true);
  }

  // A bundled font (guigym/fonts, the `font` variation), registered from the file's bytes
  // (base64) as family `name`; resolves once it is loaded, so the next show() draws with it.
  async function font(name, b64) {
    if (fonts.has(name)) return true;
    const bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const face = new FontFace(name, bytes.buffer);
    await face.load();
    document.fonts.add(face);
    fonts.add(name);
    return true;
  }
  const fonts = new Set();

  window.guigym = Object.freeze({ show, drain, drainAfter, drainIf, measure, font });
})();
