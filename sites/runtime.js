// guigym runtime: draws a view (sent by Python) as real DOM and records what the user did.
//
// The app's behaviour lives in Python. This file only
//   * show(view, frameId): draws `view` (every widget absolutely positioned at the box Python's
//                  shared layout computed; unchanged widgets are kept), restores focus/values,
//                  paints `frameId` into the row below the screen, and returns the DOM boxes
//                  of the visible widgets;
//   * drain():     returns the DOM events recorded since the last call (clicks on widgets,
//                  checkbox `change`s, `input` values, wheel directions) and restores the DOM
//                  to the last shown view, so the page never diverges from Python's state;
//   * drainAfter(kind, ms): the same, once the input that ends in a `kind` event (mouseup,
//                  wheel, input, keyup) has been handled (sent with the input: one round trip).
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
  function txt(tag, cls, s, parent) {
    const e = el(tag, cls, parent);
    e.textContent = s == null ? "" : String(s);
    return e;
  }
  function place(e, x, y, w, h) {
    e.style.left = x + "px";
    e.style.top = y + "px";
    e.style.width = w + "px";
    e.style.height = h + "px";
  }

  // Build the elements of row `r` (box relative to the clip at ox, oy) into `parent`.
  function widget(r, parent, ox, oy) {
    const b = r.box;
    let root, ctl = null, divider = null;
    switch (r.kind) {
      case "button":
      case "icon":
        root = el("button", "w " + (r.kind === "icon" ? "icon" : "btn " + (r.style === "primary" ? "primary" : "secondary")), parent);
        root.type = "button";
        if (r.kind === "icon") {
          const tile = txt("span", "tile", r.label.slice(0, 1).toUpperCase(), root);
          tile.style.background = r.color || "var(--primary)";
          txt("span", "name t", r.label, root);
        } else {
          txt("span", "t", r.label, el("span", "face", root));
        }
        break;
      case "input": {
        root = el("label", "w field" + (r.focused ? " focused" : ""), parent);
        ctl = el("input", "", root);
        ctl.type = r.secret ? "password" : "text";
        ctl.autocomplete = "off";
        ctl.spellcheck = false;
        ctl.placeholder = r.placeholder || "";
        ctl.value = r.value;
        txt("span", "cap t", r.label, root);
        break;
      }
      case "checkbox":
      case "toggle":
      case "radio": {
        root = el("label", "w " + (r.kind === "checkbox" ? "check" : r.kind) + (r.value ? " on" : ""), parent);
        ctl = el("input", "ctl", root);
        ctl.type = r.kind === "radio" ? "radio" : "checkbox";
        if (r.kind === "radio") ctl.name = "g:" + (r.group || r.id);
        ctl.checked = !!r.value;
        ctl.tabIndex = -1;
        if (r.kind === "checkbox") el("span", "mark", el("span", "box", root));
        else if (r.kind === "radio") el("span", "dot", root);
        else { el("span", "track", root); el("span", "knob", root); }
        txt("span", "t", r.label, root);
        break;
      }
      case "link":
        root = el("a", "w link" + (r.detail ? " detail" : ""), parent);
        txt("span", "t", r.label, root);
        if (r.detail) txt("span", "d", r.detail, root);
        txt("span", "chev", "\u203a", root);
        break;
      default: // label, and any interactive kind this runtime does not know (a plain target)
        root = el("div", "w label" + (r.style ? " " + r.style : ""), parent);
        txt("span", "t", r.label, root);
    }
    place(root, b[0] - ox, b[1] - oy, b[2] - b[0] + 1, b[3] - b[1] + 1);
    if (r.interactive) root.dataset.wid = r.id;
    root.dataset.kind = r.kind;
    if (r.kind === "toggle" || r.kind === "link") {  // list divider, outside the box
      divider = el("div", "divider", parent);
      place(divider, b[0] - ox, b[3] + 6 - oy, b[2] - b[0] + 1, 1);
    }
    return { root, ctl, divider, json: "" };
  }

  // What is on the page, so that show() redraws only what changed: unchanged widgets keep
  // their elements (and pixels), changed ones are rebuilt, a new screen is built afresh.
  const shown = { key: null, theme: null, title: null, titleSpan: null, bar: null, barKey: null, dots: null, dotsKey: null, parts: new Map() };

  function register(r, part) {
    part.json = JSON.stringify(r);
    shown.parts.set(r.id, part);
    roots.set(r.id, part.root);
    if (part.ctl) controls.set(r.id, part.ctl); else controls.delete(r.id);
  }

  function rebuild(v) {
    roots.clear();
    controls.clear();
    shown.parts = new Map();
    const frag = document.createDocumentFragment();
    const status = el("div", "status", frag);
    place(status, 0, 0, v.width, v.status_h);
    txt("span", "", "12:00", status);
    shown.titleSpan = null;
    if (!v.grid) {
      const title = el("div", "title", frag);
      place(title, 0, v.status_h, v.width, v.title_h);
      shown.titleSpan = txt("span", "t", v.title, title);
    }
    const [cx, cy, cw, ch] = v.clip;
    clip = el("div", "body", frag);
    place(clip, cx, cy, cw, ch);
    for (const r of v.rows) register(r, widget(r, clip, cx, cy));
    document.getElementById("app").replaceChildren(frag);
    shown.title = v.title;
    shown.bar = shown.dots = shown.barKey = shown.dotsKey = null;
  }

  function show(v, frameId) {
    const app = document.getElementById("app");
    if (app.style.height !== v.height + "px") {
      place(app, 0, 0, v.width, v.height);
      place(document.getElementById("frame-id"), 0, v.height, v.width, 1);
    }
    const n = (frameId >>> 0) & 0xffffff;
    document.getElementById("frame-id").style.background = "rgb(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + ")";
    const theme = JSON.stringify(v.theme);
    if (theme !== shown.theme) {
      const rs = document.documentElement.style;
      for (const k of Object.keys(v.theme)) rs.setProperty("--" + k, v.theme[k]);
      shown.theme = theme;
    }
    const key = JSON.stringify([v.grid, v.width, v.height, v.status_h, v.title_h, v.clip, v.rows.map((r) => r.id)]);
    if (key !== shown.key) {
      rebuild(v);
      shown.key = key;
    } else {
      if (v.title !== shown.title && shown.titleSpan) {
        shown.titleSpan.textContent = v.title;
        shown.title = v.title;
      }
      const [cx, cy] = v.clip;
      for (const r of v.rows) {
        const old = shown.parts.get(r.id);
        if (old.json === JSON.stringify(r)) continue;
        const frag = document.createDocumentFragment();
        const part = widget(r, frag, cx, cy);
        if (old.divider) old.divider.remove();
        old.root.replaceWith(frag);
        register(r, part);
      }
    }
    const barKey = JSON.stringify(v.scrollbar);
    if (barKey !== shown.barKey) {
      if (shown.bar) shown.bar.remove();
      shown.bar = null;
      if (v.scrollbar) {
        shown.bar = el("div", "scrollbar", app);
        place(shown.bar, ...v.scrollbar);
      }
      shown.barKey = barKey;
    }
    const dotsKey = JSON.stringify([v.grid, v.page, v.pages, v.dots_y, v.width]);
    if (dotsKey !== shown.dotsKey) {
      if (shown.dots) shown.dots.remove();
      shown.dots = null;
      if (v.grid && v.pages > 1) {
        shown.dots = el("div", "dots", app);
        place(shown.dots, 0, v.dots_y - 5, v.width, 10);
        for (let p = 0; p < v.pages; p++) el("span", p === v.page ? "on" : "", shown.dots);
      }
      shown.dotsKey = dotsKey;
    }
    view = v;
    sync();
    return measure();
  }

  // Put focus, values, checked states and scroll offsets back to what `view` says.
  function sync() {
    if (!view) return;
    // write only what differs: a no-op write can still invalidate and cost a frame
    for (const r of view.rows) {
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
    for (const c of controls.values()) if (c.scrollLeft !== 0) c.scrollLeft = 0;
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
    if (t && t.tagName === "INPUT" && t.type !== "checkbox" && t.type !== "radio") queue.push({ type: "input", id: widOf(t), value: t.value });
  }, true);
  window.addEventListener("wheel", (e) => {
    e.preventDefault();  // scrolling is semantic (whole rows), applied by Python
    queue.push({ type: "wheel", dx: e.deltaX, dy: e.deltaY });
  }, { passive: false, capture: true });
  for (const t of ["submit", "dragstart", "contextmenu", "auxclick", "dblclick"]) {
    document.addEventListener(t, (e) => e.preventDefault(), true);
  }

  window.guigym = Object.freeze({ show, drain, drainAfter, measure });
})();
