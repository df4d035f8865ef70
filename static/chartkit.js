// What the heatmaps (static/heatmaps.js) and the line and bar charts (static/plots.js) share: the hover tip, the
// download button (shown on hover or keyboard focus) and saving a file made in the page (nothing is fetched).
// Each renderer imports this with its own ?v= query, which ui/heatmaps.py and ui/linecharts.py hash over both files.

export function makeTip(doc, color) {
  const tip = doc.createElement("div");
  tip.className = "al-tip";
  tip.style.cssText = "position:absolute;pointer-events:none;display:none;white-space:pre;background:#fff;" +
    "border:1px solid rgba(27,31,36,.25);border-radius:4px;padding:4px 8px;font-size:14px;color:" + color +
    ";box-shadow:0 1px 4px rgba(0,0,0,.15);z-index:5;line-height:1.35";
  return tip;
}

// The camera button in the chart's top right corner; its style goes into `root` (the component's own root).
export function makeDownloadButton(doc, root, boxClass, color, onClick) {
  const button = doc.createElement("button");
  button.type = "button";
  button.className = "al-download";
  const style = doc.createElement("style");
  style.textContent = ".al-download{position:absolute;top:2px;right:2px;width:32px;height:32px;border:1px solid #d5d8de;" +
    "border-radius:6px;background:#fff;cursor:pointer;padding:5px;line-height:0;opacity:0;transition:opacity .15s}" +
    "." + boxClass + ":hover .al-download,.al-download:focus-visible{opacity:1}" +
    ".al-download:focus-visible{outline:2px solid #2a6fdb;outline-offset:1px}" +
    "@media (hover:none){.al-download{opacity:.85}}";
  root.appendChild(style);
  button.innerHTML = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="' + color +
    '" d="M9 3 7.2 5H4a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2h-3.2L15 3H9zm3 5a5 5 0 1 1 0 10 ' +
    '5 5 0 0 1 0-10zm0 2a3 3 0 1 0 0 6 3 3 0 0 0 0-6z"/></svg>';
  button.addEventListener("click", onClick);
  return button;
}

// Save the object URL `url` as the file `name` (a hidden link inside `box`, clicked once; the URL freed later).
export function saveFile(doc, box, url, name) {
  const a = doc.createElement("a");
  a.href = url; a.download = name; a.style.display = "none";
  box.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
