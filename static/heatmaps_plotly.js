// Candidate (a) of issue 18's renderer A/B: the same Heatmap payload (charts/payload.py) drawn by plotly.js
// itself, Plotly.react updating one div in place. plotly.min.js is the copy of the pinned plotly package's
// own file that ui/heatmaps.py puts in static/ (served by the app at app/static/, nothing from a CDN).

const FONT = "'Source Sans', 'Source Sans Pro', 'Noto Sans CJK SC', 'Noto Sans', sans-serif";
const PHONE = 640;

let loading = null;
function plotly(doc) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = new URL("app/static/plotly.min.js", document.baseURI).href;
      s.onload = () => resolve(window.Plotly);
      s.onerror = reject;
      document.head.appendChild(s);
    });
  }
  return loading;
}

function unpack(data) {
  const u8 = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  const buf = u8.slice().buffer;
  const n = new DataView(buf).getUint32(4, true), start = 8 + n + ((-(8 + n)) & 3);
  const h = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, n)));
  const panels = h.panels.map((p, i) => {
    const labels = (ref, count) => ref === null || ref === undefined
      ? Array.from({length: count}, (_, k) => String(k)) : h.labels[ref];
    return {...p, index: i, values: new Float32Array(buf, start + p.values[0], p.values[1] / 4),
      blocked: p.blocked ? new Uint8Array(buf, start + p.blocked[0], p.blocked[1]) : null,
      rowLabels: labels(p.row_labels, p.rows), colLabels: labels(p.col_labels, p.cols)};
  });
  return {h, panels};
}

// Category labels must be unique on an axis: a repeated token gets zero-width spaces (invisible).
function uniq(labels) {
  const seen = new Map();
  return labels.map(l => { const k = seen.get(l) || 0; seen.set(l, k + 1); return l + "\u200b".repeat(k); });
}

// The panels tiled into ONE heatmap trace on one pair of axes (empty NaN cells between them), as
// core/figures.heads_figure does: plotly pays per subplot (16 subplots cost ~10x one tiled trace).
function figure(h, panels, width) {
  const n = panels.length, R = Math.max(...panels.map(p => p.rows)), C = Math.max(...panels.map(p => p.cols));
  const per = width <= PHONE ? 1 : h.panel_columns > 0 ? Math.min(h.panel_columns, n)
    : Math.min(n, Math.max(1, Math.floor(width / Math.max(160, C * 5))));
  const rowsOf = Math.ceil(n / per), gc = Math.max(1, Math.ceil(C * 0.08)), gr = Math.max(1, Math.ceil(R * 0.22));
  const W = per * C + (per - 1) * gc, H = rowsOf * R + (rowsOf - 1) * gr;
  const z = Array.from({length: H}, () => new Float32Array(W).fill(NaN));
  const text = Array.from({length: H}, () => new Array(W).fill(""));
  const blocked = panels.some(p => p.blocked) ? Array.from({length: H}, () => new Array(W).fill(null)) : null;
  const annotations = [], shapes = [], xticks = [], yticks = [];
  const co = h.colours, dec = h.decimals;
  const num = v => Number.isNaN(v) ? "" : Number.isFinite(v) ? v.toFixed(dec) : (v < 0 ? "-inf" : "inf");
  panels.forEach((p, i) => {
    const y0 = Math.floor(i / per) * (R + gr), x0 = (i % per) * (C + gc);
    for (let r = 0; r < p.rows; r++) {
      const row = z[y0 + r], tr = text[y0 + r], head = (p.title ? p.title + "<br>" : "") + `${h.row_axis} ${p.rowLabels[r]}<br>${h.col_axis} `;
      for (let c = 0; c < p.cols; c++) {
        const k = r * p.cols + c, v = p.values[k];
        row[x0 + c] = v;
        const b = p.blocked && p.blocked[k];
        tr[x0 + c] = head + p.colLabels[c] + "<br>" + (b ? h.blocked_word + " (" + num(v) + ")" : num(v));
        if (b) blocked[y0 + r][x0 + c] = 1;
      }
    }
    const kx = Math.max(1, Math.ceil(p.cols / 16)), ky = Math.max(1, Math.ceil(p.rows / 16));
    if (i < per) for (let c = 0; c < p.cols; c += kx) xticks.push([x0 + c, p.colLabels[c]]);
    if (i % per === 0) for (let r = 0; r < p.rows; r += ky) yticks.push([y0 + r, p.rowLabels[r]]);
    if (p.title) annotations.push({text: p.title, x: x0 + (p.cols - 1) / 2, y: y0 - 0.5, yanchor: "bottom", showarrow: false,
      font: {size: 14}});
  });
  for (const r of h.rects) {
    const y0 = Math.floor(r.panel / per) * (R + gr), x0 = (r.panel % per) * (C + gc);
    shapes.push({type: "rect", x0: x0 + r.c0 - 0.5, x1: x0 + r.c1 - 0.5, y0: y0 + r.r0 - 0.5, y1: y0 + r.r1 - 0.5,
      line: {color: co.rects[r.style] || co.rects.current, width: r.style === "current" ? 2.5 : 1.5}});
  }
  const scale = co.scale || co.states.map((c, i) => [[i / co.states.length, c], [(i + 1) / co.states.length, c]]).flat();
  const small = R <= 12 && C * Math.min(per, 4) <= 24;
  const data = [{type: "heatmap", z, text, zmin: h.vmin, zmax: h.vmax, colorscale: scale, showscale: true, hoverongaps: false,
    xgap: C <= 16 ? 1 : 0, ygap: R <= 16 ? 1 : 0, hovertemplate: "%{text}<extra></extra>",
    texttemplate: h.cell_numbers && small ? "%{z:.2f}" : undefined}];
  if (blocked) data.push({type: "heatmap", z: blocked, showscale: false, hoverinfo: "skip",
    colorscale: [[0, co.blocked.fill], [1, co.blocked.fill]]});
  const layout = {margin: {l: 60, r: 20, t: h.title ? 50 : 30, b: 60}, font: {family: FONT, size: 14},
    title: h.title ? {text: h.title, x: 0, xanchor: "left"} : undefined,
    height: 90 + rowsOf * Math.max(140, Math.min(420, R * 7 + 40)), paper_bgcolor: "#fff", plot_bgcolor: "#fff",
    hovermode: "closest", dragmode: false, annotations, shapes,
    xaxis: {range: [-0.5, W - 0.5], tickvals: xticks.map(t => t[0]), ticktext: xticks.map(t => t[1]), tickangle: -45,
      showgrid: false, zeroline: false, fixedrange: true, title: {text: h.col_axis}},
    yaxis: {range: [H - 0.5, -0.5 - gr * 0.8], tickvals: yticks.map(t => t[0]), ticktext: yticks.map(t => t[1]),
      showgrid: false, zeroline: false, fixedrange: true, title: {text: h.row_axis}}};
  const config = {displaylogo: false, displayModeBar: "hover", responsive: true,
    toImageButtonOptions: {format: h.format, filename: h.file, scale: 2}};
  return {data, layout, config, per, R, C, gr, gc};
}

export async function render(component) {
  const {parentElement, setTriggerValue, data} = component;
  if (!data) return;
  let box = parentElement.__alPlot;
  if (!box) {
    box = parentElement.__alPlot = document.createElement("div");
    box.className = "al-plotly";
    box.setAttribute("role", "img");
    parentElement.appendChild(box);
  }
  const {h, panels} = unpack(data);
  box.setAttribute("aria-label", h.alt || "");
  const Plotly = await plotly();
  const t0 = performance.now();
  const fig = figure(h, panels, box.clientWidth || parentElement.clientWidth || 800);
  const t1 = performance.now();
  await Plotly.react(box, fig.data, fig.layout, fig.config);
  box.__ms = [Math.round(t1 - t0), Math.round(performance.now() - t1)];  // (benchmarks: figure, Plotly.react)
  box.__header = h;
  box.__tiling = fig;
  box.__trigger = setTriggerValue;
  if (!box.__clicks) {
    box.__clicks = 0;
    box.on("plotly_click", ev => {
      const pt = ev.points && ev.points[0], head = box.__header;
      if (!pt || !head.clickable) return;
      const t = box.__tiling, [y, x] = pt.pointIndex, r = y % (t.R + t.gr), c = x % (t.C + t.gc);
      const panel = Math.floor(y / (t.R + t.gr)) * t.per + Math.floor(x / (t.C + t.gc));
      if (r >= t.R || c >= t.C || panel >= head.panels.length) return;
      box.__clicks += 1;
      box.__trigger("click", {panel, row: r, col: c, n: box.__clicks});
    });
  }
  box.setAttribute("data-drawn", String((+box.getAttribute("data-drawn") || 0) + 1));
}

export default render;
