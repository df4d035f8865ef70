// Attention Lab's line and bar charts (charts/lines.py's LineChart as a JSON spec, ui/linecharts.py mounts it as a
// components.v2 component): drawn as SVG at the box's width, so text keeps its size on a phone and a projector.
// Hover shows every series at the nearest x (or category); the download (PNG at twice the size, or SVG with text
// as text) is made here from the same SVG: nothing is fetched. The heatmaps are static/heatmaps.js's.

// The shared tip, download button and file save, with this module's own version query (see static/chartkit.js).
const {makeTip, makeDownloadButton, saveFile} = await import(new URL("chartkit.js" + new URL(import.meta.url).search, import.meta.url).href);

const TEXT = "#31333f", MUTED = "#5c6170", GRID = "#e6e8ec", AXIS = "#b9bdc6";
const FONT = "'Source Sans', 'Source Sans Pro', 'Noto Sans CJK SC', 'Noto Sans', sans-serif";
const MIN_FONT = 13;  // px: the smallest text of a chart (charts/lines.MIN_FONT)
const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

// A live chart (ui/linecharts.show_lines(live=True): a curve redrawn many times within one run) is a new
// component at each redraw, mounted beside the one before: the newest drawn hides the last, in the same frame, so
// no frame shows neither.
const LIVE = new Map();  // spec.file -> the live Plot drawn last

const esc = s => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

// ------------------------------------------------------------------ numbers
// fmt: {d: decimals, sep: thousands separators, g: shortest form, suffix}
function format(v, f) {
  if (v === null || v === undefined || Number.isNaN(v)) return "";
  f = f || {};
  let s;
  if (f.d === undefined || f.d === null) s = Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toPrecision(4) : String(+v.toPrecision(6));
  else s = f.sep ? v.toLocaleString("en-US", {minimumFractionDigits: f.d, maximumFractionDigits: f.d}) : v.toFixed(f.d);
  return s + (f.suffix || "");
}

function niceStep(span, n) {
  const raw = span / Math.max(1, n), mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map(m => m * mag).find(m => m >= raw) || raw;
}

// ------------------------------------------------------------------ scales
function scale(axis, values, lo, hi) {
  // axis: {type: "linear" | "log" | "category", range, ticks: [[v, label]], categories, zero}
  if (axis.type === "category") {
    const cats = axis.categories, band = (hi - lo) / Math.max(1, cats.length);
    const at = c => lo + band * (cats.indexOf(String(c)) + 0.5);
    const ticks = axis.ticks && axis.ticks.length ? axis.ticks : cats.map(c => [c, c]);
    return {at, band, ticks, cats};
  }
  const log = axis.type === "log";
  const finite = values.filter(v => Number.isFinite(v) && (!log || v > 0));
  let a, b;
  if (axis.range) [a, b] = axis.range;
  else if (finite.length) { a = Math.min(...finite); b = Math.max(...finite); }
  else { a = log ? 1 : 0; b = log ? 10 : 1; }
  if (!log && axis.zero) { a = Math.min(0, a); b = Math.max(0, b); }
  if (log) { a = Math.log10(a); b = Math.log10(b); }
  if (a === b) { a -= 1; b += 1; }
  if (!axis.range && !log) {  // a little air around the data, none below a zero line
    const pad = (b - a) * 0.05;
    a = axis.zero && a === 0 ? 0 : a - pad; b += pad;
  }
  const at = v => lo + (hi - lo) * ((log ? Math.log10(v) : v) - a) / (b - a);
  let ticks = axis.ticks && axis.ticks.length ? axis.ticks : null;
  if (!ticks) {
    ticks = [];
    if (log) for (let k = Math.ceil(a - 1e-9); k <= b + 1e-9; k++) ticks.push([10 ** k, format(10 ** k)]);
    else {
      const step = niceStep(b - a, Math.max(2, Math.min(6, Math.abs(hi - lo) / 60)));
      for (let v = Math.ceil(a / step - 1e-9) * step; v <= b + 1e-9; v += step) {
        const r = +v.toFixed(10);
        ticks.push([r, axis.sep ? r.toLocaleString("en-US") : format(r)]);
      }
    }
  }
  ticks = ticks.filter(([v]) => { const p = log ? Math.log10(v) : v; return p >= a - 1e-9 && p <= b + 1e-9; });
  return {at, ticks, log};
}

// ------------------------------------------------------------------ the chart
class Plot {
  constructor(root) {
    const doc = this.doc = root.ownerDocument || document;
    this.box = doc.createElement("div");
    this.box.className = "al-plot";
    this.box.style.cssText = "position:relative;width:100%;font-family:" + FONT;
    this.svgBox = doc.createElement("div");
    this.svgBox.setAttribute("role", "img");
    this.tip = makeTip(doc, TEXT);
    this.button = makeDownloadButton(doc, root, "al-plot", MUTED, () => this.download());
    this.box.append(this.svgBox, this.tip, this.button);
    this.box.__alPlot = this;  // for tests and tools: spec, hoverAt, svg
    root.appendChild(this.box);
    this.svgBox.addEventListener("pointermove", e => this.hover(e));
    this.svgBox.addEventListener("pointerdown", e => this.hover(e));
    this.svgBox.addEventListener("pointerleave", () => this.hide());
    this.measurer = doc.createElement("canvas").getContext("2d");
    this.width = 0;
    this.draws = 0;
    new ResizeObserver(() => { if (this.box.clientWidth && this.box.clientWidth !== this.width) this.draw(); }).observe(this.box);
  }

  update(spec) {
    this.spec = typeof spec === "string" ? JSON.parse(spec) : spec;
    this.svgBox.setAttribute("aria-label", this.spec.alt || this.spec.title || "");
    this.button.title = this.spec.download || "Download";
    this.button.setAttribute("aria-label", this.spec.download || "Download");
    this.draw();
  }

  textWidth(t, size, weight) {
    this.measurer.font = (weight || 400) + " " + size + "px " + FONT;
    return this.measurer.measureText(String(t)).width;
  }

  // The chart as one SVG string at width w (the page and the download draw the same).
  svg(w) {
    const s = this.spec, size = MIN_FONT, parts = [], hov = [];
    const series = s.series.map((d, i) => ({...d, color: d.color || PALETTE[i % PALETTE.length]}));
    let y = 4;
    if (s.title) {
      parts.push(`<text x="${w / 2}" y="${y + 16}" text-anchor="middle" font-size="${size + 3}" font-weight="600" fill="${TEXT}">${esc(s.title)}</text>`);
      y += 26;
    }
    // the legend, right under the title: entries wrap onto more lines
    const shown = series.filter(d => d.legend !== false);
    if (shown.length > 1 || (shown.length === 1 && s.legend_single)) {
      let x = 8, rowY = y + 12;
      for (const d of shown) {
        const wItem = 30 + this.textWidth(d.name, size);
        if (x + wItem > w - 40 && x > 8) { x = 8; rowY += 20; }
        const sw = d.kind === "bar"
          ? `<rect x="${x}" y="${rowY - 6}" width="18" height="12" fill="${d.colors ? d.colors[d.colors.length - 1] : d.color}"/>`
          : `<line x1="${x}" x2="${x + 22}" y1="${rowY}" y2="${rowY}" stroke="${d.color}" stroke-width="${Math.max(2, d.width || 2)}"` +
            (d.dash ? ` stroke-dasharray="${d.dash === "dot" ? "2 3" : "6 4"}"` : "") + "/>";
        parts.push(sw + `<text x="${x + 26}" y="${rowY}" dominant-baseline="central" font-size="${size}" fill="${TEXT}">${esc(d.name)}</text>`);
        x += wItem + 14;
      }
      y = rowY + 16;
    }
    const xa = s.x, ya = s.y, y2a = s.y2;
    const xTicksLines = xa.type === "category" ? Math.max(1, ...(xa.ticks || []).map(t => String(t[1]).split("\n").length)) : 1;
    const bottom = 8 + xTicksLines * (size + 3) + (xa.title ? size + 10 : 0);
    const top = y + 6, plotBottom = s.height - bottom;
    const yVals = [], y2Vals = [];
    for (const d of series) {
      const target = d.axis === 2 ? y2Vals : yVals;
      if (d.stack) continue;
      d.y.forEach((v, i) => { target.push(v); if (d.err) target.push(d.err[i][0], d.err[i][1]); });
    }
    const stacks = {};  // stacked bars: the running top of each category
    for (const d of series.filter(d => d.stack)) {
      d.base = d.x.map(x => (stacks[d.stack] = stacks[d.stack] || {})[x] || 0);
      d.x.forEach((x, i) => { stacks[d.stack][x] = d.base[i] + d.y[i]; yVals.push(stacks[d.stack][x]); });
    }
    const ys = scale(ya, yVals, plotBottom, top);
    const ys2 = y2a ? scale(y2a, y2Vals, plotBottom, top) : null;
    const labelW = sc => Math.max(0, ...sc.ticks.map(t => this.textWidth(t[1], size)));
    const left = 8 + (ya.title ? size + 8 : 0) + labelW(ys) + 6;
    const right = ys2 ? 8 + (y2a.title ? size + 8 : 0) + labelW(ys2) + 6 : 16;
    const xVals = series.flatMap(d => d.x);
    const xs = scale(xa, xVals, left, w - right);
    // grid and axes
    for (const [v, label] of ys.ticks) {
      const py = ys.at(v);
      parts.push(`<line x1="${left}" x2="${w - right}" y1="${py}" y2="${py}" stroke="${GRID}"/>` +
        `<text x="${left - 6}" y="${py}" text-anchor="end" dominant-baseline="central" font-size="${size}" fill="${MUTED}">${esc(label)}</text>`);
    }
    if (ys2) for (const [v, label] of ys2.ticks) {
      parts.push(`<text x="${w - right + 6}" y="${ys2.at(v)}" dominant-baseline="central" font-size="${size}" fill="${MUTED}">${esc(label)}</text>`);
    }
    parts.push(`<line x1="${left}" x2="${w - right}" y1="${plotBottom}" y2="${plotBottom}" stroke="${AXIS}"/>` +
      `<line x1="${left}" x2="${left}" y1="${top}" y2="${plotBottom}" stroke="${AXIS}"/>`);
    // a crowded category axis (a long sentence's tokens) labels every k-th category; the hover names them all
    const every = xa.type === "category"
      ? Math.max(1, Math.ceil((Math.max(0, ...xs.ticks.map(t => this.textWidth(String(t[1]).split("\n")[0], size))) + 6) / xs.band))
      : 1;
    for (const [k, [v, label]] of xs.ticks.entries()) {
      if (k % every) continue;
      const px = xs.at(v);
      if (xa.type !== "category") parts.push(`<line x1="${px}" x2="${px}" y1="${top}" y2="${plotBottom}" stroke="${GRID}"/>`);
      String(label).split("\n").forEach((line, k) => parts.push(
        `<text x="${px}" y="${plotBottom + 6 + k * (size + 3)}" text-anchor="middle" dominant-baseline="hanging" font-size="${size}" ` +
        `font-weight="${k === 0 && xa.type === "category" && xTicksLines > 1 ? 600 : 400}" fill="${MUTED}">${esc(line)}</text>`));
    }
    if (xa.title) parts.push(`<text x="${(left + w - right) / 2}" y="${s.height - 6}" text-anchor="middle" font-size="${size}" fill="${TEXT}">${esc(xa.title)}</text>`);
    const yTitle = (title, x, at) => `<text x="${x}" y="${(top + plotBottom) / 2}" text-anchor="middle" font-size="${size}" fill="${TEXT}" ` +
      `transform="rotate(${at} ${x} ${(top + plotBottom) / 2})">${esc(title)}</text>`;
    if (ya.title) parts.push(yTitle(ya.title, 4 + size / 2 + 2, -90));
    if (ys2 && y2a.title) parts.push(yTitle(y2a.title, w - 4 - size / 2 - 2, 90));
    // the data
    const bars = series.filter(d => d.kind === "bar");
    const groups = [...new Set(bars.map(d => d.stack || d.name))];
    parts.push(`<g clip-path="none">`);
    for (const d of series) {
      const sc = d.axis === 2 ? ys2 : ys, fmtX = v => xa.type === "category" ? String(v) : format(v, s.x.fmt);
      if (d.kind === "bar") {
        const g = groups.indexOf(d.stack || d.name), bw = xs.band * 0.8 / groups.length;
        d.x.forEach((x, i) => {
          const x0 = xs.at(x) - xs.band * 0.4 + g * bw, base = d.base ? d.base[i] : 0;
          const y0 = sc.at(base + d.y[i]), y1 = sc.at(base);
          parts.push(`<rect x="${x0 + 1}" y="${Math.min(y0, y1)}" width="${Math.max(1, bw - 2)}" height="${Math.abs(y1 - y0)}" fill="${d.colors ? d.colors[i] : d.color}"/>`);
        });
      } else {
        const pts = d.x.map((x, i) => [xs.at(x), d.y[i] === null || !Number.isFinite(d.y[i]) || (sc.log && d.y[i] <= 0) ? null : sc.at(d.y[i])]);
        let path = "", pen = false;
        for (const [px, py] of pts) {
          if (py === null) { pen = false; continue; }
          path += (pen ? "L" : "M") + px.toFixed(1) + " " + py.toFixed(1); pen = true;
        }
        const dash = d.dash ? ` stroke-dasharray="${d.dash === "dot" ? "2 3" : "6 4"}"` : "";
        parts.push(`<path d="${path}" fill="none" stroke="${d.color}" stroke-width="${d.width || 2}"${dash} stroke-linejoin="round"/>`);
        if (d.err) d.x.forEach((x, i) => {
          const px = xs.at(x);
          parts.push(`<line x1="${px}" x2="${px}" y1="${sc.at(d.err[i][0])}" y2="${sc.at(d.err[i][1])}" stroke="${d.color}" stroke-width="1.5" opacity=".6"/>`);
        });
        if (d.markers) pts.forEach(([px, py], i) => {
          if (py !== null) parts.push(`<circle cx="${px}" cy="${py}" r="${d.sizes ? d.sizes[i] / 2 : 3.5}" fill="${d.color}"/>`);
        });
      }
      if (d.hover === false) continue;
      d.x.forEach((x, i) => {
        if (d.y[i] === null || d.y[i] === undefined) return;
        const text = d.texts ? d.texts[i] : (xa.type === "category" ? "" : fmtX(x) + " → ") + format(d.y[i], d.fmt);
        hov.push({x: xs.at(x), key: String(x), y: sc.at((d.base ? d.base[i] : 0) + d.y[i]), label: xa.hoverLabel ? xa.hoverLabel[xa.categories.indexOf(String(x))] : fmtX(x), name: d.name, color: d.color, text});
      });
    }
    parts.push("</g>");
    this.hovers = hov;
    this.plotArea = {left, right: w - right, top, bottom: plotBottom};
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${s.height}" viewBox="0 0 ${w} ${s.height}" ` +
      `font-family="${esc(FONT)}"><title>${esc(s.alt || s.title || "")}</title><rect width="${w}" height="${s.height}" fill="#fff"/>` +
      parts.join("") + "</svg>";
  }

  draw() {
    if (!this.spec) return;
    const w = this.box.clientWidth || 600;
    this.width = w;
    this.svgBox.innerHTML = this.svg(w);
    this.svgBox.firstChild.setAttribute("aria-hidden", "true");  // the box is the image (role img, its name)
    this.box.setAttribute("data-drawn", String(++this.draws));
    if (this.spec.live) {
      const before = LIVE.get(this.spec.file);
      if (before && before !== this) before.box.style.display = "none";
      LIVE.set(this.spec.file, this);
    }
    window.__alPainted = performance.now();  // benchmarks/bench_browser.py: the end of a step's redraw
  }

  // Every series at the x nearest to the pointer (a category: its bars), as one box of lines.
  hoverAt(px) {
    if (!this.hovers || !this.hovers.length) return null;
    let best = this.hovers[0];
    for (const h of this.hovers) if (Math.abs(h.x - px) < Math.abs(best.x - px)) best = h;
    const at = this.hovers.filter(h => h.key === best.key);
    return {x: best.x, y: Math.min(...at.map(h => h.y)), lines: [best.label, ...at.map(h => (at.length > 1 || h.name ? h.name + ": " : "") + h.text)]};
  }

  hover(e) {
    const r = this.svgBox.getBoundingClientRect(), px = e.clientX - r.left;
    const a = this.plotArea;
    if (!a || px < a.left - 10 || px > a.right + 10) return this.hide();
    const h = this.hoverAt(px);
    if (!h) return this.hide();
    this.tip.textContent = h.lines.filter(Boolean).join("\n");
    this.tip.style.display = "block";
    const tw = this.tip.offsetWidth;
    this.tip.style.left = Math.max(0, Math.min(r.width - tw, h.x + 12 > r.width - tw ? h.x - tw - 12 : h.x + 12)) + "px";
    this.tip.style.top = Math.max(0, h.y - 10) + "px";
  }

  hide() { this.tip.style.display = "none"; }

  // ------------------------------------------------------------------ download (made here: nothing is fetched)
  download() {
    const s = this.spec, svg = s.format === "svg", w = this.width || 600, text = this.svg(w), scale = 2;
    const save = url => saveFile(this.doc, this.box, url, (s.file || "chart") + (svg ? ".svg" : ".png"));
    const blob = new Blob([text], {type: "image/svg+xml"});
    if (svg) return save(URL.createObjectURL(blob));
    const img = new Image(), src = URL.createObjectURL(blob);
    img.onload = () => {
      const c = this.doc.createElement("canvas");
      c.width = w * scale; c.height = s.height * scale;
      const ctx = c.getContext("2d");
      ctx.scale(scale, scale); ctx.drawImage(img, 0, 0);
      URL.revokeObjectURL(src);
      c.toBlob(b => save(URL.createObjectURL(b)), "image/png");
    };
    img.src = src;
  }
}

export function render(component) {
  const {parentElement, data} = component;
  if (!data) return;
  if (!parentElement.__alPlot) parentElement.__alPlot = new Plot(parentElement);
  parentElement.__alPlot.update(data);
}

export default render;
