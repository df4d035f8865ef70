"""Strings of the display options (sidebar section "Display") and the table view."""

STRINGS = {
    "display.header": {"zh": "显示", "en": "Display"},
    "display.palette": {"zh": "配色", "en": "Colours"},
    "display.palette.colorblind": {"zh": "色盲友好", "en": "colour-blind safe"},
    "display.palette.contrast": {"zh": "高对比度", "en": "high contrast"},
    "display.palette.help": {
        "zh": "色盲友好（默认）：权重用 Viridis（感知均匀，色盲可读，没有会在投影上消失的浅色端），"
        "有正负的数值用 RdBu（色盲安全的发散色阶，白色表示接近 0）。"
        "高对比度：投影仪用的配色——权重从浅灰到黑，有正负的数值从深蓝经灰到深橙。"
        "配色会写进链接，学生打开同一个链接就看到同样的颜色。",
        "en": "Colour-blind safe (default): Viridis for weights (perceptually uniform, readable with any colour-vision "
        "deficiency, no pale end that vanishes on a projector), RdBu for signed values (a colour-blind-safe "
        "diverging scale, white = about 0). High contrast: for a projector — weights from light grey "
        "to black, signed values from dark blue through grey to dark orange. The choice is part of the link, "
        "so students who open it see the same colours.",
    },
    "display.weight_scale": {"zh": "权重的颜色范围", "en": "Colour range of weights"},
    "display.weight_scale.data": {"zh": "数据自身", "en": "the data's own"},
    "display.weight_scale.unit": {"zh": "0 到 1", "en": "0 to 1"},
    "display.weight_scale.help": {
        "zh": "注意力权重图的颜色：“数据自身”从图中最小的权重到最大的权重（T 大时权重都在 1/T 附近，这样才看得出哪一行不同）；"
        "“0 到 1”对所有图都一样，便于互相比较。每张图下面都写着用的是哪个范围。",
        "en": "The colours of attention-weight charts: “the data's own” spans the chart's smallest to largest weight "
        "(at a large T every weight is near 1/T, and only this shows how the rows differ); “0 to 1” is the same for "
        "every chart, to compare charts. Each chart says under it which range it shows.",
    },
    "display.range.data": {
        "zh": "颜色范围：{lo} – {hi}（权重自身的最小值到最大值，不是 0 – 1）",
        "en": "Colour range: {lo} – {hi} (the weights' own smallest to largest, not 0 – 1)",
    },
    "display.range.unit": {"zh": "颜色范围：0 – 1", "en": "Colour range: 0 – 1"},
    "display.cell_numbers": {"zh": "在格子里显示数值", "en": "Numbers in the cells"},
    "display.cell_numbers.help": {
        "zh": "在热力图的格子里印出数值（与悬停、表格视图相同的小数位）。格子太小、字会小到看不清时就不印；"
        "这时悬停格子或使用表格视图查看数值。",
        "en": "Print each heatmap value inside its cell (the same decimals as the hover and the table view). Cells "
        "too small to hold a readable number stay blank: hover a cell, or use the table view.",
    },
    "display.table_view": {"zh": "用表格代替热力图", "en": "Tables instead of heatmaps"},
    "display.table_view.help": {
        "zh": "每张热力图改为显示同一个矩阵的表格（行、列用词元标注；多头时每个头一张表），可以用键盘和读屏软件浏览。",
        "en": "Show every heatmap as a table of the same matrix (rows and columns labelled with the tokens, one "
        "table per head), which a keyboard and a screen reader can browse.",
    },
    "display.image_format": {"zh": "图片下载格式", "en": "Image download format"},
    "display.image_format.help": {
        "zh": "把鼠标移到图上，点右上角的相机按钮即可保存图片（两倍分辨率，适合投影和讲义）。"
        "PNG 是位图；SVG 是矢量图，放大不失真。图片在浏览器里生成，不需要联网。",
        "en": "Hover a chart and click the camera button at its top right to save it (at twice the resolution, "
        "for slides and handouts). PNG is a bitmap; SVG is a vector image that stays sharp at any size. "
        "The image is made in the browser: no internet needed.",
    },
    "display.alt.heatmap": {
        "zh": "热力图，{n} 个面板，每个 {rows}×{cols}{names}。在侧边栏打开“用表格代替热力图”可以逐个读出数值。",
        "en": "heatmap, {n} panel(s) of {rows}×{cols}{names}. Switch on “Tables instead of heatmaps” in the "
        "sidebar to read the numbers.",
    },
    "display.alt.chart": {"zh": "图表。", "en": "chart."},
    "display.download": {"zh": "下载这张图（{fmt}）", "en": "Download this chart ({fmt})"},
    # The chart route (ui/heatmaps.py): a blocked cell's hover word; an axis title's note when labels are thinned
    # ({k} is filled in by the browser, so it stays a literal here).
    "display.blocked": {"zh": "被遮挡", "en": "blocked"},
    "display.thinned": {"zh": "每 {k} 个标一个", "en": "a label every {k}"},
}
