// Attention Lab's heatmap renderer, the one route for heatmaps: paints a Heatmap payload
// (charts/payload.py: a JSON header and the panels' values as raw float32 bytes; ui/heatmaps.py mounts it
// as a components.v2 component). Panels sit side by side, wrap to several rows, and stack on a phone
// (<= 640 px). Hover texts are made here from the value, the header's `decimals`, the labels and the worded
// axis titles; a click on a cell of a clickable chart sends {panel, row, col}; the download (PNG at twice
// the size, or SVG with text as text) is made here too: nothing is fetched.

// The shared tip, download button and file save, with this module's own version query (see static/chartkit.js).
const {makeTip, makeDownloadButton, saveFile} = await import(new URL("chartkit.js" + new URL(import.meta.url).search, import.meta.url).href);

const TEXT = "#31333f", MUTED = "#5c6170", PAPER = "#ffffff", PAD = 6, GAP = 14, STRIP = 5;
const MIN_FONT = 13;  // px: the smallest text of a chart, for a projector and a phone
const FONT = "'Source Sans', 'Source Sans Pro', 'Noto Sans CJK SC', 'Noto Sans', sans-serif";
const PHONE = 640;  // px: at most this wide, panels stack one per row
const MAX_CELL = 44, MAX_PANEL_H = 520;

// ------------------------------------------------------------------ the payload
function unpack(data) {
  const u8 = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  if (!(u8[0] === 65 && u8[1] === 76 && u8[2] === 72 && u8[3] === 49)) throw new Error("not a heatmap payload");
  const buf = u8.slice().buffer;  // a copy at offset 0: a Float32Array view needs an aligned offset
  const n = new DataView(buf).getUint32(4, true), start = 8 + n + ((-(8 + n)) & 3);
  const h = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, n)));
  const panels = h.panels.map((p, i) => {
    const labels = (ref, count) => ref === null || ref === undefined
      ? Array.from({length: count}, (_, k) => String(k)) : h.labels[ref];
    let values, codes = null;
    if (p.codes) {  // int16 codes of the printed numbers (charts/payload.printed_codes): value = code / 10**decimals
      codes = new Int16Array(buf, start + p.values[0], p.values[1] / 2);
      // A plain loop: Float32Array.from with a mapping function cost ~3 ms a step for 16k codes (512/16/32).
      values = new Float32Array(codes.length);
      const scale = 10 ** h.decimals;
      for (let k = 0; k < codes.length; k++) values[k] = codes[k] === -32768 ? NaN : codes[k] / scale;
    } else values = new Float32Array(buf, start + p.values[0], p.values[1] / 4);
    return {
      ...p, index: i, values, codes,
      blocked: p.blocked ? new Uint8Array(buf, start + p.blocked[0], p.blocked[1]) : null,
      marks: p.marks ? new Uint8Array(buf, start + p.marks[0], p.marks[1]) : null,
      rowLabels: labels(p.row_labels, p.rows), colLabels: labels(p.col_labels, p.cols),
    };
  });
  return {h, panels};
}

// ------------------------------------------------------------------ colours
function rgb(color) {
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
  const cols = stops.map(([t, c]) => [t, rgb(c)]), out = [];
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

const css = ([r, g, b]) => `rgb(${r},${g},${b})`;

// One value as the chart prints it everywhere (hover, cells; charts/table.py `number` for the table view).
function number(v, decimals) {
  if (Number.isNaN(v)) return "";
  if (!Number.isFinite(v)) return v < 0 ? "-inf" : "inf";
  return v.toFixed(decimals);
}

// A code of a compact panel as the number it stands for, printed from the integer (no float rounding).
function codeText(q, decimals) {
  if (q === -32768) return "";
  const digits = String(Math.abs(q)).padStart(decimals + 1, "0");
  return (q < 0 ? "-" : "") + (decimals ? digits.slice(0, -decimals) + "." + digits.slice(-decimals) : digits);
}

// A shorter number for a small cell: the same decimals when they fit, else fewer (hover keeps them all).
function cellNumber(v, decimals) {
  if (!Number.isFinite(v)) return number(v, decimals);
  const a = Math.abs(v);
  if (a >= 1e4) return v.toExponential(0);
  return v.toFixed(Math.min(decimals, a >= 100 ? 0 : a >= 10 ? 1 : 2));
}

function barTicks(lo, hi) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / 5, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map(m => m * mag).find(s => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(10));
  return out;
}

const esc = s => String(s).replace(/[<>&"]/g, ch => ({"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;"}[ch]));

// ------------------------------------------------------------------ two surfaces: the canvas, and SVG for the download
class CanvasSurface {
  constructor(ctx, texts) { this.ctx = ctx; this.texts = texts; }
  rect(x, y, w, h, fill) {  // the fill set only when it changes: a set parses the colour string
    if (fill !== this.fill) this.ctx.fillStyle = this.fill = fill;
    this.ctx.fillRect(x, y, w, h);
  }
  outline(x, y, w, h, color, width, dash) {
    const c = this.ctx; c.save(); c.strokeStyle = color; c.lineWidth = width; if (dash) c.setLineDash([4, 3]);
    c.strokeRect(x, y, w, h); c.restore();
  }
  line(x1, y1, x2, y2, color, width) {
    const c = this.ctx; c.strokeStyle = color; c.lineWidth = width; c.beginPath(); c.moveTo(x1, y1); c.lineTo(x2, y2); c.stroke();
  }
  // A chart at 512/16/32 paints ~130 labels a draw: the font, colour and alignment are set only when they change
  // (a font string is parsed on every set), and the matrix is turned and put back only for turned text.
  text(t, x, y, o) {
    const c = this.ctx;
    if (this.texts) this.texts.push(t);
    const font = (o.weight || 400) + " " + o.size + "px " + FONT, fill = o.color || TEXT;
    const align = o.align || "left", base = o.baseline || "alphabetic";
    if (font !== this.font) c.font = this.font = font;
    if (fill !== this.fill) c.fillStyle = this.fill = fill;
    if (align !== this.align) c.textAlign = this.align = align;
    if (base !== this.base) c.textBaseline = this.base = base;
    if (!o.rotate) { c.fillText(t, x, y); return; }
    const m = c.getTransform();
    c.translate(x, y); c.rotate(o.rotate); c.fillText(t, 0, 0); c.setTransform(m);
  }
  image(src, cols, rows, x, y, w, h) {  // src: a canvas of one pixel per cell, the cells in its top-left cols x rows
    const c = this.ctx; c.save(); c.imageSmoothingEnabled = false; c.drawImage(src, 0, 0, cols, rows, x, y, w, h); c.restore();
  }
  clip(x, y, w, h) { const c = this.ctx; c.save(); c.beginPath(); c.rect(x, y, w, h); c.clip(); }
  unclip() { this.ctx.restore(); this.font = this.fill = this.align = this.base = undefined; }
}

class SvgSurface {
  constructor() { this.parts = []; this.clips = 0; }
  rect(x, y, w, h, fill) { this.parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${fill}"/>`); }
  outline(x, y, w, h, color, width, dash) {
    this.parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${color}" stroke-width="${width}"` +
      (dash ? ' stroke-dasharray="4 3"' : "") + "/>");
  }
  line(x1, y1, x2, y2, color, width) {
    this.parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${color}" stroke-width="${width}"/>`);
  }
  text(t, x, y, o) {
    const anchor = {left: "start", center: "middle", right: "end"}[o.align || "left"];
    const base = {top: "hanging", middle: "central", bottom: "text-after-edge", alphabetic: "auto"}[o.baseline || "alphabetic"];
    const rot = o.rotate ? ` transform="rotate(${o.rotate * 180 / Math.PI} ${x} ${y})"` : "";
    this.parts.push(`<text x="${x}" y="${y}" font-family="${esc(FONT)}" font-size="${o.size}" font-weight="${o.weight || 400}" ` +
      `fill="${o.color || TEXT}" text-anchor="${anchor}" dominant-baseline="${base}"${rot}>${esc(t)}</text>`);
  }
  image(src, cols, rows, x, y, w, h) {
    const exact = src.ownerDocument.createElement("canvas");  // the cells alone: the kept canvas may be larger
    exact.width = cols; exact.height = rows;
    exact.getContext("2d").drawImage(src, 0, 0, cols, rows, 0, 0, cols, rows);
    const png = exact.toDataURL("image/png");
    this.parts.push(`<image x="${x}" y="${y}" width="${w}" height="${h}" preserveAspectRatio="none" ` +
      `style="image-rendering:pixelated" href="${png}" xlink:href="${png}"/>`);
  }
  clip(x, y, w, h) {
    const id = "al-clip-" + (++this.clips);
    this.parts.push(`<clipPath id="${id}"><rect x="${x}" y="${y}" width="${w}" height="${h}"/></clipPath><g clip-path="url(#${id})">`);
  }
  unclip() { this.parts.push("</g>"); }
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
    this.box.className = "al-chart";
    this.box.style.cssText = "position:relative;width:100%;font-family:" + FONT;
    this.canvas = doc.createElement("canvas");
    this.canvas.setAttribute("role", "img");
    this.canvas.style.cssText = "display:block;width:100%";
    this.tip = makeTip(doc, TEXT);
    this.button = makeDownloadButton(doc, root, "al-chart", MUTED, () => this.download());
    // The canvas's frame, as tall as the chart: the canvas inside may be taller (draw keeps its backing store).
    this.frame = doc.createElement("div");
    this.frame.className = "al-canvas";
    this.frame.style.cssText = "overflow:hidden";
    this.frame.append(this.canvas);
    this.box.append(this.frame, this.tip, this.button);
    this.box.__alChart = this;  // for tests and tools: header, drawn texts, cellPoint, hoverAt, pixel
    root.appendChild(this.box);
    this.canvas.addEventListener("mousemove", e => this.hover(e));
    this.canvas.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.canvas.addEventListener("click", e => this.click(e));
    this.measurer = doc.createElement("canvas").getContext("2d");
    this.widths = new Map();  // font + text -> width (textWidth)
    this.pool = [];  // the panels' one-pixel-per-cell canvases (pixels)
    this.width = 0;
    this.clicks = 0;
    this.draws = 0;
    new ResizeObserver(() => { if (this.box.clientWidth && this.box.clientWidth !== this.width) this.draw(); }).observe(this.box);
  }

  update(data, setTriggerValue) {
    const t0 = performance.now();
    this.trigger = setTriggerValue;
    const {h, panels} = unpack(data);
    this.header = h; this.panels = panels;
    const co = h.colours;
    this.lut = co.scale ? lut(co.scale) : null;
    this.stateRgb = (co.states || []).map(rgb);
    for (const c of [...(this.lut || []), ...this.stateRgb]) c.css = css(c);  // each colour's string made once
    for (const p of panels) p.pixels = null;
    // A projector (the walkthrough's presenter view): every text times font_scale, and with fit_height (> 0,
    // the least height in px) the chart as tall as the window leaves below its top, redrawn on resize.
    this.fs = h.font_scale > 0 ? h.font_scale : 1;
    this.fit = h.fit_height > 0 ? h.fit_height : 0;
    if (this.fit && !this.onResize) {
      this.onResize = () => { if (this.fit) this.draw(); };
      window.addEventListener("resize", this.onResize);
    }
    this.canvas.setAttribute("aria-label", h.alt || "");
    this.button.title = h.download || "Download";
    this.button.setAttribute("aria-label", h.download || "Download");
    this.draw();
    this.ms = performance.now() - t0;  // unpack + layout + paint of the last update (benchmarks, tools)
  }

  // Kept per chart: a layout at 512/16/32 asks ~600 widths, mostly the same tokens again for every panel.
  textWidth(text, size, weight) {
    const font = (weight || 400) + " " + size + "px " + FONT, key = font + "\n" + text;
    let w = this.widths.get(key);
    if (w === undefined) {
      if (this.widths.size > 4000) this.widths.clear();
      if (this.measurer.font !== font) this.measurer.font = font;
      this.widths.set(key, w = this.measurer.measureText(text).width);
    }
    return w;
  }

  color(v) {
    const h = this.header;
    if (!this.lut) { const k = Math.round(v); return this.stateRgb[Math.max(0, Math.min(this.stateRgb.length - 1, k))]; }
    const t = (v - h.vmin) / ((h.vmax - h.vmin) || 1);
    return this.lut[Math.max(0, Math.min(255, Math.round(t * 255)))];
  }

  // Where everything goes at this width: a grid of panel slots, labels, titles, the colour bar or legend.
  layout(width, cellH) {
    const h = this.header, panels = this.panels, fs = this.fs || 1, size = MIN_FONT * fs, g = {width, size, fs};
    const phone = width <= PHONE;
    g.top = PAD + (h.title ? 24 * fs : 0);
    g.left = PAD + (h.row_axis ? size + 8 : 0);
    // The colour bar (continuous roles) or the states' legend, on the right.
    if (this.lut) {
      g.ticks = barTicks(h.vmin, h.vmax);
      if (h.scale === "data") {  // a weights chart on its own range: the bar's two ends are the exact smallest and largest
        const span = h.vmax - h.vmin, ends = [h.vmin, h.vmax].map(v => +v.toFixed(4));
        g.ticks = [ends[0], ...g.ticks.filter(v => v - h.vmin > span * 0.12 && h.vmax - v > span * 0.12), ends[1]];
      }
      g.right = 16 + 14 + 6 + Math.max(...g.ticks.map(v => this.textWidth(String(v), size))) + PAD;
    } else {
      g.right = 16 + 14 + 6 + Math.max(0, ...h.states.map(s => this.textWidth(s, size))) + PAD;
    }
    const shareY = panels.every(p => p.row_labels === panels[0].row_labels && p.rows === panels[0].rows);
    const yLab = Math.max(...panels.map(p => Math.max(0, ...p.rowLabels.map(t => this.textWidth(t, size))))) + 6;
    const avail = Math.max(60, width - g.left - g.right);
    const maxCols = Math.max(...panels.map(p => p.cols)), n = panels.length;
    let per;
    if (phone) per = 1;
    else if (h.panel_columns > 0) per = Math.min(h.panel_columns, n);
    else {
      const minW = Math.min(avail - yLab, Math.max(120, maxCols * 5));
      per = 1;
      while (per < n) {
        const next = per + 1, labs = shareY ? yLab : next * yLab;
        if ((avail - labs - (next - 1) * GAP) / next < minW) break;
        per = next;
      }
    }
    g.per = per;
    const labW = i => (i === 0 || !shareY ? yLab : 0) + (panels.some(p => p.row_groups) ? STRIP + 4 : 0);
    let labs = 0;
    for (let i = 0; i < per; i++) labs += labW(i);
    const pw = (avail - labs - (per - 1) * GAP) / per;
    // One cell size for every panel (panels are compared by eye), square-ish, within a height cap.
    const cw = Math.min(MAX_CELL, ...panels.map(p => pw / p.cols));
    let ch = cellH > 0 ? cellH
      : Math.max(Math.min(cw, MAX_CELL * 0.8, ...panels.map(p => MAX_PANEL_H / p.rows)), Math.min(6, ...panels.map(p => MAX_PANEL_H / p.rows)));
    if (h.every_row && !(cellH > 0)) ch = Math.max(ch, size * 1.1);  // every row labelled (g.yk below is 1)
    g.cw = cw; g.ch = ch;
    const hasTitles = panels.some(p => p.title), hasColGroups = panels.some(p => p.col_groups);
    // x labels: all when they fit side by side (turned 45 degrees when wider than a cell), else every k-th.
    const xw = Math.max(...panels.map(p => Math.max(0, ...p.colLabels.map(t => this.textWidth(t, size)))));
    g.rotate = xw + 4 > cw;
    g.xk = g.rotate ? Math.max(1, Math.ceil(size * 1.2 / cw)) : 1;
    g.yk = Math.max(1, Math.ceil(size * 1.1 / ch));
    const xh = g.rotate ? Math.min(xw, 120) * Math.SQRT1_2 + size : size + 4;
    g.slots = [];
    let y = g.top;
    const rowsOf = Math.ceil(n / per);
    g.cellRows = 0;  // the panel rows' heights in cells (fit_height scales the cell height to the window)
    for (let r = 0; r < rowsOf; r++) {
      const inRow = panels.slice(r * per, (r + 1) * per);
      const ph = Math.max(...inRow.map(p => p.rows * ch));
      g.cellRows += Math.max(...inRow.map(p => p.rows));
      const top = y + (hasTitles ? 22 * fs : 0) + (hasColGroups ? STRIP + 2 : 0);
      let x = g.left;
      inRow.forEach((p, i) => {
        // A title wider than its (small) panel gets room beside it, up to the panel's share of the row.
        const w = p.cols * cw, room = p.title ? Math.min(this.textWidth(p.title, 14 * fs) + 4, pw) : 0;
        const extra = Math.max(0, room - w) / 2;
        x += labW(i) + extra;
        g.slots[p.index] = {x, y: top, w, h: p.rows * ch, titleY: y + 2, labels: i === 0 || !shareY, room};
        x += w + extra + GAP;
      });
      y = top + ph + 6 + xh + 4;
    }
    g.xTitleY = y + 2;
    y += h.col_axis ? size + 10 : 0;
    g.barTop = g.slots[0].y;
    g.barH = Math.max(120, Math.min(260, panels[0].rows * ch));
    g.height = Math.ceil(Math.max(y + PAD, g.barTop + g.barH + PAD + size));
    if (h.range) {  // which colour range a weights chart shows, on the chart itself (and in its downloads)
      g.rangeSize = Math.min(size, size * (width - 2 * PAD) / Math.max(1, this.textWidth(h.range, size)));
      g.rangeY = g.height - PAD / 2;
      g.height = Math.ceil(g.height + g.rangeSize + 6);
    }
    g.gridTop = g.slots[0].y; g.gridBottom = y;
    return g;
  }

  draw() {
    if (!this.header) return;
    const width = this.box.clientWidth || 600, dpr = window.devicePixelRatio || 1;
    this.width = width;
    const g = this.g = this.fit ? this.fitted(width) : this.layout(width);
    // A new size clears and reallocates the canvas (~2 ms at 1400 px wide), and a step of T makes the chart a few
    // rows taller or shorter: the backing store is kept while it holds the chart and is less than twice its height
    // (made anew, a quarter taller than needed); paint fills the chart's part, and the frame, as tall as the chart,
    // hides the rows below it.
    const cw = Math.round(width * dpr), chh = Math.round(g.height * dpr);
    if (this.canvas.width !== cw || this.canvas.height < chh || this.canvas.height >= 2 * chh) {
      this.canvas.width = cw;
      this.canvas.height = Math.ceil(chh * 1.25);
    }
    const shown = this.canvas.height / dpr + "px";  // one backing pixel per device pixel
    if (this.canvas.style.height !== shown) this.canvas.style.height = shown;
    if (this.frame.style.height !== g.height + "px") this.frame.style.height = g.height + "px";
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.drawn = [];  // every text painted (titles, labels, cell numbers): what a test can read back
    this.paint(new CanvasSurface(ctx, this.drawn), g);
    this.box.setAttribute("data-drawn", String(++this.draws));  // (benchmarks: the last DOM change of a redraw)
    window.__alPainted = performance.now();  // benchmarks/bench_browser.py: a paint is no DOM mutation the page sees
  }

  // fit_height: the height the window leaves below the chart's top (at least the header's fit_height).
  fitHeight() {
    const top = this.box.getBoundingClientRect().top + window.scrollY;
    return Math.round(Math.max(this.fit, window.innerHeight - top - 12));
  }

  // The layout whose cells fill that height: shorter cells when the chart would overflow it, taller when it
  // leaves room (as the plotly-era projector view did). What is above may still move (a formula typeset): look again a few times.
  fitted(width) {
    const target = this.fitHeight(), g = this.layout(width);
    const fixed = g.height - g.cellRows * g.ch;
    const ch = Math.max(2, Math.min(MAX_CELL * 1.5, (target - fixed) / Math.max(1, g.cellRows)));
    clearTimeout(this.refit);
    const again = waits => {
      if (!waits.length) return;
      this.refit = setTimeout(() => {
        if (this.fit && Math.abs(this.fitHeight() - target) > 2) this.draw(); else again(waits.slice(1));
      }, waits[0]);
    };
    again([60, 250, 700, 1500]);
    return Math.abs(ch - g.ch) < 0.01 ? g : this.layout(width, ch);
  }

  pixels(p) {
    if (!p.pixels) {
      const img = new ImageData(p.cols, p.rows), co = this.header.colours;
      const fill = rgb(co.blocked.fill);
      for (let k = 0; k < p.rows * p.cols; k++) {
        const v = p.values[k];
        const c = p.blocked && p.blocked[k] ? fill : Number.isNaN(v) ? null : this.color(v);
        if (!c) continue;
        img.data[4 * k] = c[0]; img.data[4 * k + 1] = c[1]; img.data[4 * k + 2] = c[2]; img.data[4 * k + 3] = 255;
      }
      // One small canvas per panel slot, kept from draw to draw and never made smaller: a new size reallocates it
      // (0.4-1.1 ms for the 8 panels of a step of T at 512/16/32); the cells are its top-left cols x rows, which
      // putImageData replaces, alpha too, and the painter reads alone.
      const c = this.pool[p.index] || (this.pool[p.index] = this.doc.createElement("canvas"));
      if (c.width < p.cols) c.width = p.cols;
      if (c.height < p.rows) c.height = p.rows;
      c.getContext("2d").putImageData(img, 0, 0);
      p.pixels = c;
    }
    return p.pixels;
  }

  paint(sf, g) {
    const h = this.header, size = g.size, co = h.colours;
    sf.rect(0, 0, g.width, g.height, PAPER);
    if (h.title) sf.text(h.title, PAD, PAD, {size: size + 2 * g.fs, weight: 600, baseline: "top"});
    const gapped = g.cw >= 10 && g.ch >= 10;
    for (const p of this.panels) {
      const s = g.slots[p.index];
      if (gapped) {  // a white line between cells when they are large enough to keep it
        // Painted colour by colour (cells do not overlap), so the fill changes once per colour, not once per cell.
        const byFill = new Map();
        for (let r = 0; r < p.rows; r++) for (let c = 0; c < p.cols; c++) {
          const k = r * p.cols + c, v = p.values[k], b = p.blocked && p.blocked[k];
          if (!b && Number.isNaN(v)) continue;
          const fill = b ? co.blocked.fill : this.color(v).css, cells = byFill.get(fill);
          if (cells) cells.push(r, c); else byFill.set(fill, [r, c]);
        }
        for (const [fill, cells] of byFill) for (let i = 0; i < cells.length; i += 2) {
          sf.rect(s.x + cells[i + 1] * g.cw + 0.5, s.y + cells[i] * g.ch + 0.5, g.cw - 1, g.ch - 1, fill);
        }
      } else {
        sf.image(this.pixels(p), p.cols, p.rows, s.x, s.y, s.w, s.h);
      }
      if (p.blocked && g.cw >= 4 && g.ch >= 4) this.paintHatch(sf, g, p, s);
      if (h.cell_numbers && h.role !== "mask" && h.role !== "state") this.paintNumbers(sf, g, p, s);
      if (p.marks) this.paintMarks(sf, g, p, s);
      this.paintGroups(sf, g, p, s);
      this.paintLabels(sf, g, p, s);
      if (p.title) this.paintTitle(sf, g, p, s);
    }
    for (const rect of h.rects) {
      const s = g.slots[rect.panel];
      if (!s) continue;
      const color = co.rects[rect.style] || co.rects.current, width = rect.style === "current" ? 2.5 : 1.5;
      sf.outline(s.x + rect.c0 * g.cw, s.y + rect.r0 * g.ch, (rect.c1 - rect.c0) * g.cw, (rect.r1 - rect.r0) * g.ch,
        color, width, rect.style === "skipped");
    }
    this.paintAxisTitles(sf, g);
    if (this.lut) this.paintBar(sf, g); else this.paintLegend(sf, g);
  }

  paintHatch(sf, g, p, s) {
    const hatch = this.header.colours.blocked.hatch, step = 5;
    for (let r = 0; r < p.rows; r++) for (let c = 0; c < p.cols; c++) {
      if (!p.blocked[r * p.cols + c]) continue;
      const x = s.x + c * g.cw, y = s.y + r * g.ch;
      sf.clip(x, y, g.cw, g.ch);
      for (let d = -g.ch; d < g.cw; d += step) sf.line(x + d, y + g.ch, x + d + g.ch, y, hatch, 1);
      sf.unclip();
    }
  }

  // Numbers in the cells where they fit: one font size per panel (its longest number decides).
  paintNumbers(sf, g, p, s) {
    const dec = this.header.decimals, texts = [];
    let longest = 1;
    for (let k = 0; k < p.rows * p.cols; k++) {
      const t = cellNumber(p.values[k], dec);
      texts.push(t); longest = Math.max(longest, t.length);
    }
    const size = Math.min(g.size, g.ch * 0.62, (g.cw - 2) / (longest * 0.58));
    if (size < 8) return;  // too small to read: hover and the table view have the numbers
    for (let r = 0; r < p.rows; r++) for (let c = 0; c < p.cols; c++) {
      const k = r * p.cols + c, v = p.values[k];
      if (!texts[k] || (p.blocked && p.blocked[k]) || (p.marks && p.marks[k])) continue;
      sf.text(texts[k], s.x + (c + 0.5) * g.cw, s.y + (r + 0.5) * g.ch + 0.5, {size, align: "center", baseline: "middle",
        color: luminance(this.color(v)) < 0.18 ? "#ffffff" : "#1b1f24"});
    }
  }

  // A marked cell's word (header.marks: a mask's stored 0/1, a fill value, NaN), printed whatever the
  // "numbers in the cells" option, where it fits; dark or white for contrast with what is painted under it.
  paintMarks(sf, g, p, s) {
    const marks = this.header.marks || [];
    let longest = 1;
    for (let k = 0; k < p.rows * p.cols; k++) if (p.marks[k]) longest = Math.max(longest, (marks[p.marks[k] - 1] || {cell: ""}).cell.length);
    const size = Math.min(MIN_FONT, g.ch * 0.62, (g.cw - 2) / (longest * 0.58));
    if (size < 9) return;  // too small to read (a wall of tiny digits): the hover and the table view say it
    const blockedFill = rgb(this.header.colours.blocked.fill), paper = rgb(PAPER);
    for (let r = 0; r < p.rows; r++) for (let c = 0; c < p.cols; c++) {
      const k = r * p.cols + c, m = p.marks[k] && marks[p.marks[k] - 1];
      if (!m) continue;
      const v = p.values[k], under = p.blocked && p.blocked[k] ? blockedFill : Number.isNaN(v) ? paper : this.color(v);
      sf.text(m.cell, s.x + (c + 0.5) * g.cw, s.y + (r + 0.5) * g.ch + 0.5, {size, align: "center", baseline: "middle",
        color: luminance(under) < 0.18 ? "#ffffff" : "#1b1f24"});
    }
  }

  paintGroups(sf, g, p, s) {
    const colors = this.header.colours.groups, pick = k => colors[((k % colors.length) + colors.length) % colors.length];
    if (p.row_groups) p.row_groups.forEach((k, r) => sf.rect(s.x - STRIP - 2, s.y + r * g.ch, STRIP, g.ch, pick(k)));
    if (p.col_groups) p.col_groups.forEach((k, c) => sf.rect(s.x + c * g.cw, s.y - STRIP - 2, g.cw, STRIP, pick(k)));
  }

  paintLabels(sf, g, p, s) {
    const size = g.size, off = p.row_groups ? STRIP + 6 : 4;
    if (s.labels) {
      for (let r = 0; r < p.rows; r += g.yk) {
        sf.text(p.rowLabels[r], s.x - off, s.y + (r + 0.5) * g.ch, {size, color: MUTED, align: "right", baseline: "middle"});
      }
    }
    const y = s.y + s.h + 6;
    for (let c = 0; c < p.cols; c += g.xk) {
      const x = s.x + (c + 0.5) * g.cw;
      let t = p.colLabels[c];
      if (g.rotate) {
        while (t.length > 2 && this.textWidth(t, size) > 120) t = t.slice(0, -2) + "…";
        sf.text(t, x + 3, y, {size, color: MUTED, align: "right", baseline: "middle", rotate: -Math.PI / 4});
      } else sf.text(t, x, y, {size, color: MUTED, align: "center", baseline: "top"});
    }
  }

  // A panel title fits its panel: set smaller down to MIN_FONT, then shortened with an ellipsis.
  paintTitle(sf, g, p, s) {
    const room = Math.max(s.w + GAP - 4, s.room || 0, 40);
    let size = 14 * g.fs, t = p.title;
    while (size > MIN_FONT * g.fs && this.textWidth(t, size) > room) size -= 1;
    while (t.length > 2 && this.textWidth(t, size) > room) t = t.slice(0, -2) + "…";
    sf.text(t, s.x + s.w / 2, s.titleY, {size, align: "center", baseline: "top"});
  }

  // Axis titles; when labels are thinned the title says so ("every 4th labelled"), nothing is dropped silently.
  paintAxisTitles(sf, g) {
    const h = this.header, size = g.size;
    const note = k => k > 1 && h.thinned ? " (" + h.thinned.replace("{k}", k) + ")" : "";
    if (h.col_axis) {
      const mid = g.left + (g.width - g.left - g.right) / 2;
      sf.text(h.col_axis + note(g.xk), mid, g.xTitleY, {size, align: "center", baseline: "top"});
    }
    if (h.row_axis) {
      sf.text(h.row_axis + note(g.yk), PAD + size / 2 + 1, (g.gridTop + g.gridBottom) / 2, {size, align: "center",
        baseline: "middle", rotate: -Math.PI / 2});
    }
  }

  paintBar(sf, g) {
    const h = this.header, x = g.width - g.right + 16, top = g.barTop, bh = g.barH;
    const steps = Math.max(2, Math.min(128, Math.round(bh / 2)));
    for (let i = 0; i < steps; i++) {
      sf.rect(x, top + i * bh / steps, 14, bh / steps + 0.6, this.lut[Math.round((1 - i / (steps - 1)) * 255)].css);
    }
    for (const v of g.ticks) {
      sf.text(String(v), x + 20, top + (1 - (v - h.vmin) / ((h.vmax - h.vmin) || 1)) * bh, {size: g.size, color: MUTED, baseline: "middle"});
    }
    if (h.range) sf.text(h.range, PAD, g.rangeY, {size: g.rangeSize, color: MUTED, baseline: "top"});
  }

  paintLegend(sf, g) {
    const x = g.width - g.right + 16, h = this.header;
    h.states.forEach((word, i) => {
      const y = g.barTop + i * (g.size + 10);
      sf.rect(x, y, 14, 14, css(this.stateRgb[i] || [0, 0, 0]));
      sf.outline(x, y, 14, 14, "#9aa0aa", 1);
      sf.text(word, x + 20, y + 7, {size: g.size, color: TEXT, baseline: "middle"});
    });
  }

  // ------------------------------------------------------------------ hover and click
  hit(px, py) {
    const g = this.g;
    for (const p of this.panels) {
      const s = g.slots[p.index];
      if (px < s.x || py < s.y || px >= s.x + s.w || py >= s.y + s.h) continue;
      const r = Math.min(p.rows - 1, Math.floor((py - s.y) / g.ch)), c = Math.min(p.cols - 1, Math.floor((px - s.x) / g.cw));
      return {panel: p.index, row: r, col: c};
    }
    return null;
  }

  // The hover of cell (r, c) of panel i: built from the value, decimals, labels and the worded axis titles.
  hoverText(i, r, c) {
    const h = this.header, p = this.panels[i], k = r * p.cols + c, v = p.values[k];
    const lines = [];
    if (p.title) lines.push(p.title);
    lines.push(`${h.row_axis} ${p.rowLabels[r]}`.trim(), `${h.col_axis} ${p.colLabels[c]}`.trim());
    let value = h.role === "state" ? (h.states[Math.round(v)] ?? number(v, 0))
      : p.codes ? codeText(p.codes[k], h.decimals) : number(v, h.decimals);
    const mark = p.marks && p.marks[k] && (h.marks || [])[p.marks[k] - 1];
    if (mark) value = mark.hover || mark.cell;
    if (p.blocked && p.blocked[k]) value = h.blocked_word + (value ? " (" + value + ")" : "");
    if (value) lines.push(value);
    return lines.join("\n");
  }

  hover(e) {
    const box = this.canvas.getBoundingClientRect(), px = e.clientX - box.left, py = e.clientY - box.top;
    const at = this.hit(px, py);
    if (!at) { this.tip.style.display = "none"; return; }
    this.tip.textContent = this.hoverText(at.panel, at.row, at.col);
    this.tip.style.display = "block";
    const w = this.tip.offsetWidth, left = px + 14 + w > this.width ? px - 14 - w : px + 14;
    this.tip.style.left = Math.max(0, left) + "px";
    this.tip.style.top = Math.max(0, py - 10) + "px";
  }

  click(e) {
    if (!this.header.clickable || !this.trigger) return;
    const box = this.canvas.getBoundingClientRect(), at = this.hit(e.clientX - box.left, e.clientY - box.top);
    if (!at) return;
    this.clicks += 1;
    this.trigger("click", {...at, n: this.clicks});
  }

  // Page coordinates of the centre of cell (r, c) of panel i (tests and tools).
  cellPoint(i, r, c) {
    const box = this.canvas.getBoundingClientRect(), s = this.g.slots[i], g = this.g;
    const inside = (a, size) => { const k = Math.ceil(a); return k < a + size ? k : a + size / 2; };
    return [inside(box.left + s.x + c * g.cw, g.cw), inside(box.top + s.y + r * g.ch, g.ch)];
  }

  // The colour painted at page coordinates (x, y), as [r, g, b].
  pixel(x, y) {
    const box = this.canvas.getBoundingClientRect(), dpr = this.canvas.width / box.width;
    const d = this.canvas.getContext("2d").getImageData(Math.round((x - box.left) * dpr), Math.round((y - box.top) * dpr), 1, 1).data;
    return [d[0], d[1], d[2]];
  }

  // ------------------------------------------------------------------ download (made here: nothing is fetched)
  download() {
    const h = this.header, svg = h.format === "svg", w = this.width, scale = 2, g = this.layout(w);
    const save = url => saveFile(this.doc, this.box, url, (h.file || "chart") + (svg ? ".svg" : ".png"));
    if (svg) {
      const sf = new SvgSurface();
      this.paint(sf, g);
      save(URL.createObjectURL(new Blob([sf.svg(w, g.height, scale, h.alt || "")], {type: "image/svg+xml"})));
      return;
    }
    const big = this.doc.createElement("canvas");
    big.width = w * scale; big.height = g.height * scale;
    const ctx = big.getContext("2d");
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    this.paint(new CanvasSurface(ctx), g);
    big.toBlob(blob => save(URL.createObjectURL(blob)), "image/png");
  }
}

export function render(component) {
  const {parentElement, setTriggerValue, data} = component;
  if (!data) return;
  if (!parentElement.__alChart) parentElement.__alChart = new Chart(parentElement);
  parentElement.__alChart.update(data, setTriggerValue);
}

export default render;
