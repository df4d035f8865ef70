// Attention Lab's heatmap renderer: paints a scene of core/canvas_chart.py (ui/charts.py mounts it as a Streamlit
// component with {scene, alt, file, format, labels}).
//
// Why not plotly: Streamlit mounts a new plotly chart whenever its figure changes, and plotly lays the whole chart
// out again (3-6 animation frames for a heatmap, benchmarks/README.md). A new scene here repaints the same canvas,
// about a millisecond for 16k cells. It keeps the plotly figures' conventions: plotly's axis positions and ranges,
// the hover templates (%{x}, %{y}, %{z:.4f}, %{customdata}, %{text}), click targets (a click sends the marker's
// customdata), and a download of the chart (PNG at twice the size, or SVG with text as text), made in the browser.

const TEXT = "#31333f", MUTED = "#5c6170", PAPER = "#ffffff", PAD = 6;
const MIN_FONT = 13;  // px: the smallest text of a chart (core/figures.MIN_FONT), for a projector and a phone
// Panels side by side (a scene's "panels": the Masks lab's mask | scores | weights) go one under another, each the
// full width, on a chart narrower than this (a phone): side by side their cells would be a few px and their
// titles cut.
const STACK_BELOW = 600;
const BAR_H = 10;  // px: a panel's colour bar, drawn under it
const FONT = "'Source Sans', 'Source Sans Pro', 'Noto Sans CJK SC', 'Noto Sans', sans-serif";

// An array of a scene: raw bytes (a packed payload, resolved by unpack) or base64 text.
function bytesOf(b64) {
  if (b64 instanceof Uint8Array) return b64;
  return Uint8Array.from(atob(b64), ch => ch.charCodeAt(0));
}

function decode(b64) {
  const bytes = bytesOf(b64);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

function int16(b64) {
  const b = bytesOf(b64);
  return new Int16Array(b.buffer, b.byteOffset, b.byteLength / 2);
}

// A heat layer's values: float32 ('z'), ten-thousandths ('z4', the cells that do not fit in 'z4x'), whole
// numbers ('zi'), or one byte per cell ('levels', 255 = empty) when the hover never prints z
// (core/canvas_chart.py picks).
function values(layer) {
  if (layer.z !== undefined) return decode(layer.z);
  if (layer.z4 !== undefined || layer.zi !== undefined) {  // int16, -32768 = empty
    const whole = layer.zi !== undefined, q = int16(whole ? layer.zi : layer.z4), out = new Float32Array(q.length);
    const unit = whole ? 1 : 1e4;  // ten-thousandths: exactly what a 4-decimal hover prints
    for (let i = 0; i < q.length; i++) out[i] = q[i] === -32768 ? NaN : q[i] / unit;
    for (const k in layer.z4x || {}) out[+k] = layer.z4x[k] / 1e4;
    return out;
  }
  const q = bytesOf(layer.levels), out = new Float32Array(q.length), span = layer.zmax - layer.zmin;
  for (let i = 0; i < q.length; i++) out[i] = q[i] === 255 ? NaN : layer.zmin + q[i] / 254 * span;
  return out;
}

function rgb(color) {
  if (!color) return [0, 0, 0];
  if (color[0] === "#") return [1, 3, 5].map(i => parseInt(color.slice(i, i + 2), 16));
  const m = color.match(/[\d.]+/g) || [0, 0, 0];
  return [+m[0], +m[1], +m[2]];
}

function luminance([r, g, b]) {
  const lin = c => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

// A colour scale as 256 [r, g, b] entries, linear in RGB between the stops (as plotly interpolates).
function lut(stops) {
  const cols = stops.map(([t, c]) => [t, rgb(c)]);
  const out = [];
  for (let i = 0; i < 256; i++) {
    const t = i / 255;
    let k = 0;
    while (k < cols.length - 2 && t > cols[k + 1][0]) k++;
    const [t0, a] = cols[k], [t1, b] = cols[Math.min(k + 1, cols.length - 1)];
    const f = t1 > t0 ? Math.min(1, Math.max(0, (t - t0) / (t1 - t0))) : 0;
    out.push([0, 1, 2].map(j => Math.round(a[j] + (b[j] - a[j]) * f)));
  }
  return out;
}

function fmt(v, spec) {
  if (v === null || v === undefined) return "";
  if (typeof v !== "number") return String(v);
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v < 0 ? "-inf" : "inf";
  const m = spec && spec.match(/^\.(\d+)([fe])$/);
  if (m) return m[2] === "f" ? v.toFixed(+m[1]) : v.toExponential(+m[1]);
  if (spec === "int") return String(Math.round(v));
  return String(+v.toPrecision(6));
}

const clean = s => String(s).replace(/[\u200b\u2009]/g, "").trim();

// A title in two lines, broken at the space or comma nearest its middle (any character for CJK text).
function split(text) {
  const mid = text.length / 2;
  let best = -1;
  for (let i = 1; i < text.length - 1; i++) {
    if (/[\s,，、:：]/.test(text[i]) && (best < 0 || Math.abs(i - mid) < Math.abs(best - mid))) best = i;
  }
  if (best < 0) best = Math.ceil(mid);
  const cut = /\s/.test(text[best]) ? [text.slice(0, best), text.slice(best + 1)] : [text.slice(0, best + 1), text.slice(best + 1)];
  return cut.map(t => t.trim()).filter(Boolean);
}
const esc = s => String(s).replace(/[<>&"]/g, ch => ({"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;"}[ch]));

function barTicks(lo, hi) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / 5, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map(m => m * mag).find(s => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(10));
  return out;
}

// ------------------------------------------------------------------ two surfaces: the canvas, and SVG for the download
class CanvasSurface {
  constructor(ctx, texts) { this.ctx = ctx; this.texts = texts; }
  rect(x, y, w, h, fill) { this.ctx.fillStyle = fill; this.ctx.fillRect(x, y, w, h); }
  outline(x, y, w, h, color, width) { const c = this.ctx; c.strokeStyle = color; c.lineWidth = width; c.strokeRect(x, y, w, h); }
  line(x1, y1, x2, y2, color, width) {
    const c = this.ctx; c.strokeStyle = color; c.lineWidth = width; c.beginPath(); c.moveTo(x1, y1); c.lineTo(x2, y2); c.stroke();
  }
  circle(x, y, r, color, open, width) {
    const c = this.ctx; c.beginPath(); c.arc(x, y, r, 0, 2 * Math.PI);
    if (open) { c.strokeStyle = color; c.lineWidth = width; c.stroke(); } else { c.fillStyle = color; c.fill(); }
  }
  text(t, x, y, o) {
    const c = this.ctx;
    if (this.texts) this.texts.push(t);
    c.save(); c.translate(x, y); if (o.rotate) c.rotate(o.rotate);
    c.font = (o.weight || 400) + " " + o.size + "px " + FONT; c.fillStyle = o.color || TEXT;
    c.textAlign = o.align || "left"; c.textBaseline = o.baseline || "alphabetic";
    c.fillText(t, 0, 0); c.restore();
  }
  image(src, x, y, w, h) {  // src: a canvas of one pixel per cell; w/h < 0 flip it
    const c = this.ctx;
    c.save(); c.imageSmoothingEnabled = false;
    c.translate(w < 0 ? x - w : x, h < 0 ? y - h : y); c.scale(w < 0 ? -1 : 1, h < 0 ? -1 : 1);
    c.drawImage(src, 0, 0, Math.abs(w), Math.abs(h)); c.restore();
  }
  clip(x, y, w, h) { const c = this.ctx; c.save(); c.beginPath(); c.rect(x, y, w, h); c.clip(); }
  unclip() { this.ctx.restore(); }
  shift(dy) { this.ctx.save(); this.ctx.translate(0, dy); }
  unshift() { this.ctx.restore(); }
  alpha(a) { this.ctx.globalAlpha = a; }
}

class SvgSurface {
  constructor() { this.parts = []; this.clips = 0; this.opacity = 1; }
  rect(x, y, w, h, fill) { this.parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${fill}"/>`); }
  outline(x, y, w, h, color, width) {
    this.parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${color}" stroke-width="${width}" opacity="${this.opacity}"/>`);
  }
  line(x1, y1, x2, y2, color, width) {
    this.parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${color}" stroke-width="${width}" opacity="${this.opacity}"/>`);
  }
  circle(x, y, r, color, open, width) {
    this.parts.push(open ? `<circle cx="${x}" cy="${y}" r="${r}" fill="none" stroke="${color}" stroke-width="${width}"/>`
      : `<circle cx="${x}" cy="${y}" r="${r}" fill="${color}"/>`);
  }
  text(t, x, y, o) {
    const anchor = {left: "start", center: "middle", right: "end"}[o.align || "left"];
    const base = {top: "hanging", middle: "central", bottom: "text-after-edge", alphabetic: "auto"}[o.baseline || "alphabetic"];
    const rot = o.rotate ? ` transform="rotate(${o.rotate * 180 / Math.PI} ${x} ${y})"` : "";
    this.parts.push(`<text x="${x}" y="${y}" font-family="${esc(FONT)}" font-size="${o.size}" font-weight="${o.weight || 400}" ` +
      `fill="${o.color || TEXT}" text-anchor="${anchor}" dominant-baseline="${base}"${rot}>${esc(t)}</text>`);
  }
  image(src, x, y, w, h) {
    const png = src.toDataURL("image/png");
    const fx = w < 0 ? -1 : 1, fy = h < 0 ? -1 : 1;
    this.parts.push(`<g transform="translate(${w < 0 ? x - w : x} ${h < 0 ? y - h : y}) scale(${fx} ${fy})">` +
      `<image width="${Math.abs(w)}" height="${Math.abs(h)}" preserveAspectRatio="none" style="image-rendering:pixelated" ` +
      `href="${png}" xlink:href="${png}"/></g>`);
  }
  clip(x, y, w, h) {
    const id = "al-clip-" + (++this.clips);
    this.parts.push(`<clipPath id="${id}"><rect x="${x}" y="${y}" width="${w}" height="${h}"/></clipPath><g clip-path="url(#${id})">`);
  }
  unclip() { this.parts.push("</g>"); }
  shift(dy) { this.parts.push(`<g transform="translate(0 ${dy})">`); }
  unshift() { this.parts.push("</g>"); }
  alpha(a) { this.opacity = a; }
  svg(w, h, scale, title) {
    return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${w * scale}" height="${h * scale}" ` +
      `viewBox="0 0 ${w} ${h}"><title>${esc(title)}</title>${this.parts.join("")}</svg>`;
  }
}

// ------------------------------------------------------------------ the chart
class Chart {
  constructor(root) {
    this.root = root;
    const doc = this.doc = root.ownerDocument || document;
    this.box = doc.createElement("div");
    this.box.className = "al-heatmap";
    this.box.style.cssText = "position:relative;width:100%;font-family:" + FONT;
    this.canvas = doc.createElement("canvas");
    this.canvas.setAttribute("role", "img");
    this.canvas.style.cssText = "display:block;width:100%";
    this.tip = doc.createElement("div");
    this.tip.className = "al-tip";
    this.tip.style.cssText = "position:absolute;pointer-events:none;display:none;white-space:pre;background:#fff;" +
      "border:1px solid rgba(27,31,36,.25);border-radius:4px;padding:4px 8px;font-size:14px;color:" + TEXT +
      ";box-shadow:0 1px 4px rgba(0,0,0,.15);z-index:5;line-height:1.35";
    this.button = doc.createElement("button");
    this.button.type = "button";
    this.button.className = "al-download";
    const style = doc.createElement("style");  // the download button shows on hover or keyboard focus, like plotly's
    style.textContent = ".al-download{position:absolute;top:2px;right:2px;width:32px;height:32px;border:1px solid #d5d8de;" +
      "border-radius:6px;background:#fff;cursor:pointer;padding:5px;line-height:0;opacity:0;transition:opacity .15s}" +
      ".al-heatmap:hover .al-download,.al-download:focus-visible{opacity:1}" +
      ".al-download:focus-visible{outline:2px solid #2a6fdb;outline-offset:1px}" +
      "@media (hover:none){.al-download{opacity:.85}}";
    root.appendChild(style);
    this.button.innerHTML = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="' + MUTED +
      '" d="M9 3 7.2 5H4a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2h-3.2L15 3H9zm3 5a5 5 0 1 1 0 10 ' +
      '5 5 0 0 1 0-10zm0 2a3 3 0 1 0 0 6 3 3 0 0 0 0-6z"/></svg>';
    this.button.addEventListener("click", () => this.download());
    // "Numbers in the cells" that cannot be printed (panels too large, cells too narrow here) are said here,
    // under the chart, where the reader looks for them (the switch itself is in the collapsed sidebar on a phone).
    this.note = doc.createElement("div");
    this.note.className = "al-note";
    this.note.style.cssText = "display:none;font-size:14px;line-height:1.4;margin-top:4px;color:" + MUTED;
    this.box.append(this.canvas, this.note, this.tip, this.button);
    this.box.__alChart = this;  // for tests and tools: where a cell is (clientPoint), what the scene is
    root.appendChild(this.box);
    this.canvas.addEventListener("mousemove", e => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.canvas.addEventListener("click", e => this.click(e));
    this.measurer = doc.createElement("canvas").getContext("2d");
    this.width = 0;
    this.clicks = 0;
    new ResizeObserver(() => { if (this.box.clientWidth && this.box.clientWidth !== this.width) this.draw(); }).observe(this.box);
  }

  update(data, setTriggerValue) {
    this.data = data;
    this.trigger = setTriggerValue;
    const s = this.scene = data.scene;
    // A projector (the walkthrough's presenter view) asks for larger type: every size the scene gives (titles,
    // axis titles, tick labels, panel titles, text labels; cell numbers follow font_size) times font_scale.
    const k = data.font_scale > 0 ? data.font_scale : 1;
    if (k !== 1 && !s.scaled) {
      s.scaled = true;
      s.font_size *= k; s.title_size *= k; s.x.size *= k; s.y.size *= k;
      for (const n of s.notes || []) n.size *= k;
      for (const layer of s.layers) if (layer.type !== "heat" && layer.type !== "marks" && layer.size) layer.size *= k;
    }
    if (data.height > 0) s.height = data.height;  // a fixed height asked for (a second chart beside the main one)
    // fit_height: as tall as the window leaves below the chart's top (at least min_height), redrawn on resize.
    this.fit = data.fit_height ? {min: data.min_height || 280, own: s.own_height || (s.own_height = s.height)} : null;
    if (this.fit && !this.onResize) {
      this.onResize = () => { if (this.fit) this.draw(); };
      window.addEventListener("resize", this.onResize);
    }
    for (const layer of s.layers) {
      if (layer.type !== "heat") continue;
      layer.values = values(layer);
      layer.lut = lut(layer.scale);
      const cu = layer.custom;
      layer.customValues = !cu ? null : cu.num ? decode(cu.num) : cu.num16 ? int16(cu.num16) : null;
      layer.pixels = null;  // one pixel per cell, made when first painted
    }
    this.canvas.setAttribute("aria-label", data.alt || "");
    const label = (data.labels && data.labels.download) || "Download";
    this.button.title = label;
    this.button.setAttribute("aria-label", label);
    this.draw();
  }

  fitHeight() {
    const top = this.box.getBoundingClientRect().top + window.scrollY;
    return Math.round(Math.max(this.fit.min, window.innerHeight - top - 12));
  }

  textWidth(text, size, weight) {
    this.measurer.font = (weight || 400) + " " + size + "px " + FONT;
    return this.measurer.measureText(text).width;
  }

  // Margins from the labels' real widths (plotly's automargin, done once): no label is cut off.
  layout(width) {
    const s = this.scene, g = {width, height: s.height};
    const bar = !s.panels && s.layers.find(l => l.type === "heat" && l.colorbar);  // panels: a bar under each
    const xs = s.x.ticks, ys = s.y.ticks;
    const yw = Math.max(0, ...ys.map(([, t]) => this.textWidth(t, s.y.size)));
    const xw = Math.max(0, ...xs.map(([, t]) => this.textWidth(t, s.x.size)));
    g.top = s.title ? s.title_size + 16 : 10;
    g.left = PAD + (ys.length ? yw + 6 : 0) + (s.y.title ? s.font_size + 8 : 0);
    g.right = 12;
    if (bar) {
      const ticks = barTicks(bar.zmin, bar.zmax);
      g.bar = {lo: bar.zmin, hi: bar.zmax, lut: bar.lut, ticks};
      g.right = 16 + 14 + 6 + Math.max(...ticks.map(v => this.textWidth(fmt(v), s.x.size))) + PAD;
    }
    g.W = Math.max(40, width - g.left - g.right);
    // x labels turn 45 degrees when they would overlap side by side (plotly's 'auto' angle), or when asked.
    const span = Math.abs(s.x.range[1] - s.x.range[0]) || 1;
    const step = xs.length > 1 ? Math.min(...xs.slice(1).map(([p], i) => Math.abs(p - xs[i][0]))) * g.W / span : g.W;
    g.rotate = s.x.angle !== null && s.x.angle !== undefined ? s.x.angle !== 0 : xw + 6 > step;
    const xh = g.xh = !xs.length ? 0 : g.rotate ? xw * Math.SQRT1_2 + s.x.size : s.x.size + 2;
    g.bottom = PAD + (xs.length ? xh + 8 : 0) + (s.x.title ? s.font_size + 8 : 0);
    if (s.panels && s.panels.some(p => p.bar !== null)) {  // the panels' colour bars, with their numbers
      g.bottom += BAR_H + s.x.size + 12;
      g.barY = s.height - PAD - BAR_H - s.x.size - 6;  // under the axis labels and title
    }
    g.L = g.left; g.T = g.top; g.H = Math.max(40, s.height - g.top - g.bottom);
    const [x0, x1] = s.x.range, [y0, y1] = s.y.range;
    g.px = v => g.L + (v - x0) / (x1 - x0) * g.W;
    g.py = v => g.T + (y1 - v) / (y1 - y0) * g.H;
    g.dataX = p => x0 + (p - g.L) / g.W * (x1 - x0);
    g.dataY = p => y1 - (p - g.T) / g.H * (y1 - y0);
    g.notes = this.fitNotes(g);
    // A title set on two lines near the top needs room above it: give the plot less height, once.
    const highest = Math.min(g.height, ...g.notes.map(n => n.py - (n.lines.length - (n.yanchor === "bottom" ? 0 : 0.5)) * n.fit * 1.2));
    if (highest < 2) {
      g.T += 2 - highest; g.H = Math.max(40, g.H - (2 - highest));
      g.notes = this.fitNotes(g);
    }
    return g;
  }

  draw() {
    if (!this.scene) return;
    const width = this.box.clientWidth || 600, dpr = window.devicePixelRatio || 1;
    this.width = width;
    if (this.fit) {
      this.scene.height = this.fitHeight();
      // What is above may still move (a chart above drawn a moment later, a formula typeset): look again.
      clearTimeout(this.refit);
      const again = (waits) => {
        if (!waits.length) return;
        this.refit = setTimeout(() => {
          if (this.fit && Math.abs(this.fitHeight() - this.scene.height) > 2) this.draw();
          else again(waits.slice(1));
        }, waits[0]);
      };
      again([60, 250, 700, 1500]);
    }
    this.parts = this.split(width);
    const height = this.parts.reduce((sum, part) => sum + part.height, 0);
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    this.canvas.style.height = height + "px";
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.drawn = [];  // every text painted (titles, labels, cell numbers): what a test can read back
    this.paintParts(new CanvasSurface(ctx, this.drawn), width);
    this.g = this.parts[0].g;
    this.stacked = this.parts.length > 1;
    const labels = (this.data && this.data.labels) || {};
    const small = this.parts.some(p => p.g.cellText !== undefined && p.g.cellText < 7);
    const note = this.data && this.data.numbers === "large" && labels.numbers_large ? labels.numbers_large
      : small && labels.numbers_small ? labels.numbers_small : "";
    this.note.textContent = note;
    this.note.style.display = note ? "block" : "none";
  }

  // The chart as parts one under another: the whole scene, or (panels on a narrow chart) one part per panel,
  // each a copy of the scene whose x range is that panel's (the other panels' cells fall outside it).
  split(width) {
    const s = this.scene, panels = s.panels;
    if (!panels || panels.length < 2 || width >= STACK_BELOW) return [{scene: s, top: 0, height: s.height}];
    let top = 0;
    return panels.map((p, i) => {
      const [lo, hi] = p.x, inside = v => v >= lo - 1e-9 && v <= hi + 1e-9;
      const height = Math.round(Math.min(s.height + 80, Math.max(240, (width - 90) * p.rows / p.cols + 170)));
      const scene = {...s, panels: [p], height, title: i ? "" : s.title,
        x: {...s.x, range: [lo, hi], ticks: s.x.ticks.filter(([v]) => inside(v))},
        notes: s.notes.filter(n => n.xref !== "x" || inside(n.x))};
      const part = {scene, top, height};
      top += height;
      return part;
    });
  }

  paintParts(sf, width) {
    const full = this.scene;
    try {
      for (const part of this.parts) {
        this.scene = part.scene;
        part.g = this.layout(width);
        sf.shift(part.top);
        this.paint(sf, part.g);
        sf.unshift();
      }
    } finally {
      this.scene = full;
    }
  }

  paint(sf, g) {
    const s = this.scene;
    sf.rect(0, 0, g.width, g.height, PAPER);
    sf.clip(g.L, g.T, g.W, g.H);
    if (s.background) sf.rect(g.L, g.T, g.W, g.H, s.background);
    for (const layer of s.layers) {
      if (layer.type === "heat") this.paintHeat(sf, g, layer);
      else if (layer.type === "marks") this.paintMarks(sf, g, layer);
      else this.paintLabels(sf, g, layer);
    }
    for (const sh of s.shapes || []) {
      const x0 = g.px(sh.x0), x1 = g.px(sh.x1), y0 = g.py(sh.y0), y1 = g.py(sh.y1);
      if (sh.kind === "line") sf.line(x0, y0, x1, y1, sh.color, sh.width);
      else sf.outline(Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0), sh.color, sh.width);
    }
    sf.unclip();
    for (const n of g.notes) {
      const step = n.fit * 1.2, base = n.yanchor === "bottom" ? "bottom" : n.yanchor === "top" ? "top" : "middle";
      n.lines.forEach((line, i) => {  // a title on two lines grows upwards from its anchor
        const dy = n.yanchor === "top" ? i * step : -(n.lines.length - 1 - i) * step;
        sf.text(line, n.px, n.py + dy, {size: n.fit, color: n.color || TEXT, align: n.align, baseline: base});
      });
    }
    this.paintAxes(sf, g);
    if (g.bar) this.paintBar(sf, g);
    if (g.barY !== undefined) this.paintPanelBars(sf, g);
    if (s.title) sf.text(s.title, PAD, 6, {size: s.title_size, weight: 600, baseline: "top"});
  }

  // Panel titles fit their panel: a title wider than the room to its neighbours (a phone) is set smaller,
  // down to MIN_FONT, then on two lines, then shortened with an ellipsis; none runs off the chart's edges.
  fitNotes(g) {
    const notes = this.scene.notes.map(n => ({...n,
      px: (n.xref === "paper" ? g.L + n.x * g.W : g.px(n.x)) + (n.dx || 0),
      py: (n.yref === "paper" ? g.T + (1 - n.y) * g.H : g.py(n.y)) - (n.dy || 0) - (n.yanchor === "bottom" ? 2 : 0)}));
    const fits = (t, size, room) => this.textWidth(t, size) <= room;
    for (const n of notes) {
      let room = g.width;
      for (const m of notes) if (m !== n && Math.abs(m.py - n.py) < 1) room = Math.min(room, Math.abs(m.px - n.px));
      room -= 6;
      let size = n.size, lines = [n.text];
      while (size > MIN_FONT && !fits(n.text, size, room)) size -= 1;
      if (!fits(n.text, size, room)) lines = split(n.text);
      lines = lines.map(line => { while (line.length > 2 && !fits(line, size, room)) line = line.slice(0, -2) + "…"; return line; });
      const w = Math.max(...lines.map(line => this.textWidth(line, size)));
      Object.assign(n, {fit: size, lines, align: n.xanchor === "left" ? "left" : n.xanchor === "right" ? "right" : "center"});
      if (n.align === "center") n.px = Math.min(Math.max(n.px, w / 2 + 2), g.width - w / 2 - 2);
    }
    return notes;
  }

  color(layer, v) {
    const t = (v - layer.zmin) / ((layer.zmax - layer.zmin) || 1);
    return layer.lut[Math.max(0, Math.min(255, Math.round(t * 255)))];
  }

  // The pixel box of cell (r, c), its gaps taken off (plotly's xgap/ygap).
  cell(g, layer, r, c) {
    const cx = layer.x0 + c * layer.dx, cy = layer.y0 + r * layer.dy;
    const xa = g.px(cx - layer.dx / 2), xb = g.px(cx + layer.dx / 2), ya = g.py(cy - layer.dy / 2), yb = g.py(cy + layer.dy / 2);
    const [gx, gy] = layer.gap;
    return [Math.min(xa, xb) + gx / 2, Math.min(ya, yb) + gy / 2, Math.abs(xb - xa) - gx, Math.abs(yb - ya) - gy];
  }

  pixels(layer) {
    if (!layer.pixels) {
      const {rows, cols, values} = layer, img = new ImageData(cols, rows);
      for (let k = 0; k < rows * cols; k++) {
        if (Number.isNaN(values[k])) continue;
        const [r, g, b] = this.color(layer, values[k]);
        img.data[4 * k] = r; img.data[4 * k + 1] = g; img.data[4 * k + 2] = b; img.data[4 * k + 3] = 255;
      }
      const c = this.doc.createElement("canvas");
      c.width = cols; c.height = rows;
      c.getContext("2d").putImageData(img, 0, 0);
      layer.pixels = c;
    }
    return layer.pixels;
  }

  paintHeat(sf, g, layer) {
    const {rows, cols, values} = layer;
    if (!layer.gap[0] && !layer.gap[1]) {  // no gaps: one pixel per cell, scaled up without smoothing
      const x0 = g.px(layer.x0 - layer.dx / 2), x1 = g.px(layer.x0 + layer.dx * (cols - 0.5));
      const y0 = g.py(layer.y0 - layer.dy / 2), y1 = g.py(layer.y0 + layer.dy * (rows - 0.5));
      sf.image(this.pixels(layer), x0, y0, x1 - x0, y1 - y0);
    } else {
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const v = values[r * cols + c];
          if (Number.isNaN(v)) continue;
          const [cr, cg, cb] = this.color(layer, v), [x, y, w, h] = this.cell(g, layer, r, c);
          sf.rect(x, y, Math.max(w, 0.5), Math.max(h, 0.5), `rgb(${cr},${cg},${cb})`);
        }
      }
    }
    if (layer.text) this.paintCellText(sf, g, layer);
  }

  // One size for every number in the chart (the longest decides), so panels side by side read alike.
  cellTextSize(g) {
    let size = Infinity;
    for (const layer of this.scene.layers) {
      if (layer.type !== "heat" || !layer.text) continue;
      const [, , w, h] = this.cell(g, layer, 0, 0);
      let longest = 1;
      for (const row of layer.text) for (const t of row) longest = Math.max(longest, t.length);
      size = Math.min(size, this.scene.font_size - 1, h * 0.62, w / (longest * 0.58));
    }
    return size;
  }

  paintCellText(sf, g, layer) {
    const size = g.cellText === undefined ? (g.cellText = this.cellTextSize(g)) : g.cellText;
    if (size < 7) return;  // too small to read: the hover and the table view still have the numbers
    for (let r = 0; r < layer.rows; r++) {
      for (let c = 0; c < layer.cols; c++) {
        const text = layer.text[r] && layer.text[r][c], v = layer.values[r * layer.cols + c];
        if (!text || Number.isNaN(v)) continue;
        const [x, y, cw, ch] = this.cell(g, layer, r, c);
        sf.text(text, x + cw / 2, y + ch / 2 + 0.5, {size, align: "center", baseline: "middle",
          color: luminance(this.color(layer, v)) < 0.18 ? "#ffffff" : "#1b1f24"});
      }
    }
  }

  paintMarks(sf, g, layer) {
    if (!layer.opacity) return;  // click targets: invisible, like the plotly markers they stand for
    const half = layer.size / 2, color = layer.line_color || layer.color || "#d62728", width = Math.max(1, layer.line || 1.5);
    sf.alpha(layer.opacity);
    for (let i = 0; i < layer.x.length; i++) {
      const x = g.px(layer.x[i]), y = g.py(layer.y[i]);
      if (layer.symbol.startsWith("x")) {
        sf.line(x - half, y - half, x + half, y + half, color, width);
        sf.line(x + half, y - half, x - half, y + half, color, width);
      } else if (layer.symbol.startsWith("square")) {
        if (layer.symbol.endsWith("open")) sf.outline(x - half, y - half, 2 * half, 2 * half, color, width);
        else sf.rect(x - half, y - half, 2 * half, 2 * half, layer.color || color);
      } else {
        sf.circle(x, y, half, layer.color || color, layer.symbol.endsWith("open"), width);
      }
    }
    sf.alpha(1);
  }

  paintLabels(sf, g, layer) {
    for (let i = 0; i < layer.x.length; i++) {
      sf.text(layer.text ? layer.text[i] : "", g.px(layer.x[i]), g.py(layer.y[i]),
        {size: layer.size, color: layer.colors[i] || TEXT, align: "center", baseline: "middle"});
    }
  }

  // Labels that would overlap are thinned to every k-th, as plotly does on a crowded axis. Counted from the start
  // of each run of evenly spaced labels: the panels of a tiled grid all keep the same tokens (0, 3, 6 ...).
  thin(ticks, toPx, room) {
    if (ticks.length < 2) return ticks;
    let gap = Infinity;
    for (let i = 1; i < ticks.length; i++) gap = Math.min(gap, Math.abs(toPx(ticks[i][0]) - toPx(ticks[i - 1][0])));
    const k = Math.max(1, Math.ceil(room / Math.max(gap, 0.01)));
    if (k === 1) return ticks;
    let n = 0;
    return ticks.filter((tick, i) => {
      const jump = i > 0 && Math.abs(toPx(tick[0]) - toPx(ticks[i - 1][0])) > gap * 1.5;  // a new panel
      n = jump ? 0 : i === 0 ? 0 : n + 1;
      return n % k === 0;
    });
  }

  paintAxes(sf, g) {
    const s = this.scene;
    const ys = s.y.ticks.filter(([p]) => { const q = g.py(p); return q >= g.T - 1 && q <= g.T + g.H + 1; });
    for (const [p, t] of this.thin(ys, g.py, s.y.size * 1.15)) {
      sf.text(t, g.L - 6, g.py(p), {size: s.y.size, color: MUTED, align: "right", baseline: "middle"});
    }
    const xs = s.x.ticks.filter(([p]) => { const q = g.px(p); return q >= g.L - 1 && q <= g.L + g.W + 1; });
    const xw = Math.max(0, ...xs.map(([, t]) => this.textWidth(t, s.x.size)));
    for (const [p, t] of this.thin(xs, g.px, g.rotate ? s.x.size * 1.3 : xw + 8)) {
      const x = g.px(p), y = g.T + g.H + 6;
      if (g.rotate) sf.text(t, x + 3, y, {size: s.x.size, color: MUTED, align: "right", baseline: "middle", rotate: -Math.PI / 4});
      else sf.text(t, x, y, {size: s.x.size, color: MUTED, align: "center", baseline: "top"});
    }
    if (s.x.title) sf.text(s.x.title, g.L + g.W / 2, g.T + g.H + g.xh + 10, {size: s.font_size, align: "center", baseline: "top"});
    if (s.y.title) {
      sf.text(s.y.title, PAD + s.font_size / 2 + 1, g.T + g.H / 2, {size: s.font_size, align: "center", baseline: "middle",
        rotate: -Math.PI / 2});
    }
  }

  paintBar(sf, g) {
    const {lo, hi, lut: table, ticks} = g.bar, x = g.L + g.W + 16, top = g.T + g.H * 0.08, h = g.H * 0.84;
    const steps = Math.max(2, Math.min(128, Math.round(h / 2)));
    for (let i = 0; i < steps; i++) {
      const [r, gg, b] = table[Math.round((1 - i / (steps - 1)) * 255)];
      sf.rect(x, top + i * h / steps, 14, h / steps + 0.6, `rgb(${r},${gg},${b})`);
    }
    for (const v of ticks) {
      sf.text(fmt(v), x + 20, top + (1 - (v - lo) / ((hi - lo) || 1)) * h, {size: this.scene.x.size, color: MUTED, baseline: "middle"});
    }
  }

  // A colour bar under each panel that has one (core/canvas_chart._panels), numbered at its round values.
  paintPanelBars(sf, g) {
    const s = this.scene, size = s.x.size;
    for (const p of s.panels) {
      if (p.bar === null) continue;
      const layer = s.layers[p.bar], lo = layer.zmin, hi = layer.zmax;
      const x0 = Math.max(g.L, g.px(p.x[0])) + 2, x1 = Math.min(g.L + g.W, g.px(p.x[1])) - 2, w = x1 - x0;
      if (!(w > 30)) continue;
      const steps = Math.max(2, Math.min(128, Math.round(w / 2)));
      for (let i = 0; i < steps; i++) {
        const [r, gg, b] = layer.lut[Math.round(i / (steps - 1) * 255)];
        sf.rect(x0 + i * w / steps, g.barY, w / steps + 0.6, BAR_H, `rgb(${r},${gg},${b})`);
      }
      let ticks = barTicks(lo, hi);
      const room = ts => ts.reduce((sum, v) => sum + this.textWidth(fmt(v), size) + 10, 0);
      while (ticks.length > 2 && room(ticks) > w) ticks = ticks.filter((_, i) => i % 2 === 0);
      for (const v of ticks) {
        const x = x0 + (v - lo) / ((hi - lo) || 1) * w, half = this.textWidth(fmt(v), size) / 2;
        sf.text(fmt(v), Math.min(Math.max(x, x0 + half), x1 - half), g.barY + BAR_H + 3,
          {size, color: MUTED, align: "center", baseline: "top"});
      }
    }
  }

  // ------------------------------------------------------------------ hover and click
  // The pointer in the part it is over (a stacked chart has one part per panel): its layout becomes this.g.
  at(e) {
    const box = this.canvas.getBoundingClientRect(), px = e.clientX - box.left, y = e.clientY - box.top;
    const part = (this.parts || []).find(p => y >= p.top && y < p.top + p.height) || (this.parts || [])[0];
    const g = part && part.g, py = y - (part ? part.top : 0);
    if (!g || px < g.L || px > g.L + g.W || py < g.T || py > g.T + g.H) return null;
    this.g = g;
    return {px, py, top: part.top, x: g.dataX(px), y: g.dataY(py)};
  }

  // The part whose x range holds data position x (the whole chart unless stacked).
  partAt(x) {
    const parts = this.parts || [];
    return parts.find(p => { const [a, b] = p.scene.x.range; return x >= Math.min(a, b) && x <= Math.max(a, b); })
      || parts[0];
  }

  // The topmost layer under the pointer that shows a hover (or, for a click, a marker with customdata).
  pick(p, click) {
    const layers = this.scene.layers;
    for (let i = layers.length - 1; i >= 0; i--) {
      const layer = layers[i];
      if (layer.type === "marks") {
        if (click ? layer.custom === null : !layer.hover) continue;
        let best = -1, dist = Infinity;
        for (let k = 0; k < layer.x.length; k++) {
          const d = Math.max(Math.abs(this.g.px(layer.x[k]) - p.px), Math.abs(this.g.py(layer.y[k]) - p.py));
          if (d < dist) { dist = d; best = k; }
        }
        if (best >= 0 && dist <= Math.max(layer.size / 2 + 2, 5)) return {layer, k: best};
      } else if (layer.type === "heat" && !click && layer.hover) {
        const c = Math.round((p.x - layer.x0) / layer.dx), r = Math.round((p.y - layer.y0) / layer.dy);
        if (r < 0 || c < 0 || r >= layer.rows || c >= layer.cols) continue;
        const v = layer.values[r * layer.cols + c];
        if (Number.isNaN(v) && !layer.hoverongaps) continue;
        return {layer, r, c, v};
      }
    }
    return null;
  }

  category(axis, pos) {
    const cats = this.scene[axis].categories;
    const i = Math.round(pos);
    return cats.length && Math.abs(pos - i) < 1e-6 && cats[i] !== undefined ? cats[i] : fmt(pos);
  }

  hoverText(hit) {
    const {layer} = hit;
    let x, y, z = "", custom = "", text = "";
    if (layer.type === "heat") {
      const {r, c} = hit, k = r * layer.cols + c;
      x = this.category("x", layer.x0 + c * layer.dx);
      y = this.category("y", layer.y0 + r * layer.dy);
      z = hit.v;
      if (layer.custom) {
        const cu = layer.custom;
        custom = cu.z ? fmt(hit.v, cu.fmt) : k in cu.text ? cu.text[k] : fmt(layer.customValues[k], cu.fmt);
      }
      const t = layer.text || layer.hover_text;
      if (t) text = t[r][c];
    } else {
      const k = hit.k;
      x = clean(layer.cx[k]); y = clean(layer.cy[k]);
      custom = layer.custom ? layer.custom[k] : ""; text = layer.text ? layer.text[k] : "";
    }
    return layer.hover
      .replace(/%\{(\w+)(?:\[(\d+)\])?(?::([^}]+))?\}/g, (_, name, index, spec) => {
        let v = {x, y, z, customdata: custom, text}[name];
        if (index !== undefined && Array.isArray(v)) v = v[+index];
        if (Array.isArray(v)) v = v.join(", ");
        if (spec && typeof v === "string" && v !== "" && !Number.isNaN(+v)) v = +v;
        return fmt(v, spec);
      })
      .replace(/<br\s*\/?>/gi, "\n").replace(/<[^>]+>/g, "");
  }

  hover(e) {
    const p = this.at(e), hit = p && this.pick(p, false);
    if (!hit) { this.tip.style.display = "none"; return; }
    this.tip.textContent = this.hoverText(hit);
    this.tip.style.display = "block";
    const w = this.tip.offsetWidth, left = p.px + 14 + w > this.width ? p.px - 14 - w : p.px + 14;
    this.tip.style.left = Math.max(0, left) + "px";
    this.tip.style.top = Math.max(0, p.top + p.py - 10) + "px";
  }

  click(e) {
    if (!this.scene.clickable || !this.trigger) return;
    const p = this.at(e), hit = p && this.pick(p, true);
    if (!hit) return;
    const {layer, k} = hit;
    this.clicks += 1;
    this.trigger("click", {customdata: layer.custom[k], x: layer.cx[k], y: layer.cy[k], point_index: k, n: this.clicks});
  }

  // Page coordinates of the centre of cell (r, c) of the i-th heat layer (tests and tools).
  cellPoint(i, r, c) {
    const layer = this.scene.layers.filter(l => l.type === "heat")[i], box = this.canvas.getBoundingClientRect();
    const part = this.partAt(layer.x0 + c * layer.dx);
    const [x, y0, w, h] = this.cell(part.g, layer, r, c), y = y0 + part.top;
    // A whole pixel inside the cell where there is one: a mouse event's clientX/Y are whole pixels, and
    // a cell under 2 px wide (512 columns) would otherwise be missed for its neighbour. In a cell wide enough,
    // one pixel further in: the first one may straddle the cell's antialiased edge (a page laid out at .875 px).
    const inside = (a, size) => { const k = Math.ceil(a) + (size >= 6 ? 1 : 0); return k < a + size ? k : a + size / 2; };
    return [inside(box.left + x, w), inside(box.top + y, h)];
  }

  // The colour painted at page coordinates (x, y), as [r, g, b].
  pixel(x, y) {
    const box = this.canvas.getBoundingClientRect(), dpr = this.canvas.width / box.width;
    const d = this.canvas.getContext("2d").getImageData(Math.round((x - box.left) * dpr), Math.round((y - box.top) * dpr), 1, 1).data;
    return [d[0], d[1], d[2]];
  }

  // Page coordinates of the click target whose customdata is `custom` (e.g. [row, col]), or null.
  clientPoint(custom) {
    const box = this.canvas.getBoundingClientRect(), want = JSON.stringify(custom);
    for (const layer of this.scene.layers) {
      if (layer.type !== "marks" || !layer.custom) continue;
      const k = layer.custom.findIndex(c => JSON.stringify(c) === want);
      if (k >= 0) {
        const part = this.partAt(layer.x[k]);
        return [box.left + part.g.px(layer.x[k]), box.top + part.top + part.g.py(layer.y[k])];
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ download (made here: nothing is fetched)
  download() {
    const d = this.data, svg = d.format === "svg", w = this.width, scale = 2;
    this.parts = this.split(w);
    const h = this.parts.reduce((sum, part) => sum + part.height, 0);
    const save = (url, revoke) => {
      const a = this.doc.createElement("a");
      a.href = url; a.download = (d.file || "chart") + (svg ? ".svg" : ".png"); a.style.display = "none";
      this.box.appendChild(a); a.click(); a.remove();
      if (revoke) setTimeout(() => URL.revokeObjectURL(url), 10000);
    };
    if (svg) {
      const sf = new SvgSurface();
      this.paintParts(sf, w);
      save(URL.createObjectURL(new Blob([sf.svg(w, h, scale, d.alt || "")], {type: "image/svg+xml"})), true);
      return;
    }
    const big = this.doc.createElement("canvas");
    big.width = w * scale; big.height = h * scale;
    const ctx = big.getContext("2d");
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    this.paintParts(new CanvasSurface(ctx), w);
    big.toBlob(blob => save(URL.createObjectURL(blob), true), "image/png");
  }
}

// A payload of core/scene_wire.payload: "ALB1", the header's length, the header JSON, then the scene's
// arrays as raw bytes at offsets that are multiples of 4. Each {"$b": [offset, length]} in the scene becomes
// a Uint8Array over them ("rows": the distinct row each row repeats).
function unpack(bytes) {
  const u8 = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
  if (!(u8[0] === 65 && u8[1] === 76 && u8[2] === 66 && u8[3] === 49)) return JSON.parse(new TextDecoder().decode(u8));
  const buf = u8.slice().buffer;  // a copy at offset 0: float32 and int16 views need aligned offsets
  const n = new DataView(buf).getUint32(4, true), start = 8 + n + ((-(8 + n)) & 3);
  const data = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, n)));
  const get = ref => {
    if (!ref || ref.$b === undefined) return ref;
    const [offset, length] = ref.$b, raw = new Uint8Array(buf, start + offset, length);
    if (!ref.rows) return raw;
    const size = length / (Math.max(...ref.rows) + 1), out = new Uint8Array(size * ref.rows.length);
    ref.rows.forEach((r, i) => out.set(raw.subarray(r * size, (r + 1) * size), i * size));
    return out;
  };
  for (const name of ["x", "y"]) {  // numbered categories as {from, count}; "all": a label on each
    const axis = data.scene[name], cats = axis && axis.categories;
    if (!cats || Array.isArray(cats)) continue;
    axis.categories = Array.from({length: cats.count}, (_, i) => String(cats.from + i));
    if (axis.ticks === "all") axis.ticks = axis.categories.map((c, i) => [i, c]);
  }
  for (const layer of data.scene.layers) {
    if (layer.grid) {  // markers on every cell of a grid, row by row: its distinct positions and labels
      const g = layer.grid, nx = g.x.length, n = nx * g.y.length;
      layer.x = []; layer.y = []; layer.cx = []; layer.cy = [];
      if (g.rc) layer.custom = [];
      for (let k = 0; k < n; k++) {
        const r = Math.floor(k / nx), c = k % nx;
        layer.x.push(g.x[c]); layer.y.push(g.y[r]); layer.cx.push(g.cx[c]); layer.cy.push(g.cy[r]);
        if (g.rc) layer.custom.push([r, c]);
      }
      delete layer.grid;
    }
    if (layer.text4) {  // hover texts that are 4-decimal numbers, as int16 ten-thousandths
      layer.text = Array.from(int16(get(layer.text4)), q => (q / 1e4).toFixed(4));
      delete layer.text4;
    }
    for (const k of ["z", "z4", "zi", "levels"]) if (layer[k] !== undefined) layer[k] = get(layer[k]);
    if (layer.custom) for (const k of ["num", "num16"]) if (layer.custom[k] !== undefined) layer.custom[k] = get(layer.custom[k]);
  }
  return data;
}

export function render(component) {
  const {parentElement, setTriggerValue} = component;
  let {data} = component;
  // ui/charts.py sends a packed scene (written once on the server, cached there for every session).
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) data = unpack(data);
  if (!parentElement.__alChart) parentElement.__alChart = new Chart(parentElement);
  parentElement.__alChart.update(data, setTriggerValue);
}

export default render;
