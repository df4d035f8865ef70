"""Strings of the "Heads and shapes" page (pages/heads.py). Chinese wording follows the seed text."""

STRINGS = {
    "heads.intro": {
        "zh": "多头注意力把 d_model 维切成 h 个注意力头，每个头的维度 d_k = d_model / h。"
        "种子文本说：“这种划分确保了总计算成本与具有完整维度的单头注意力相似。”"
        "本页回答课堂上的两个问题：增加头数时，什么变了？代价是什么？",
        "en": "Multi-head attention cuts d_model into h attention heads of d_k = d_model / h each. The seed text says "
        "this split “keeps the total computational cost similar to a single head with full dimensionality”. "
        "This page answers two classroom questions: what changes when I add heads, and what does it cost?",
    },
    "heads.now": {
        "zh": "当前：d_model = {d_model} 被切成 h = {h} 个头，每个头 d_k = {d_k} 维；序列长度 T = {T}，批次 B = 1。",
        "en": "Now: d_model = {d_model} is cut into h = {h} heads of d_k = {d_k} each; sequence length T = {T}, batch B = 1.",
    },
    # 1. shape flow
    # Section tabs (ui/sections.py): one section drawn at a time; the id is the URL value heads_tab=...
    "heads.tab.shapes": {"zh": "1 形状流", "en": "1 Shapes"},
    "heads.tab.heads": {"zh": "2 所有头", "en": "2 Every head"},
    "heads.tab.cost": {"zh": "3 成本", "en": "3 Cost"},
    "heads.tab.timing": {"zh": "4 实测时间", "en": "4 Timing"},
    "heads.tab.slice": {"zh": "5 大投影 = h 个小投影", "en": "5 One big = h small"},
    "heads.tab.single": {"zh": "6 一个头对比 h 个头", "en": "6 One head vs h"},
    "heads.flow.title": {"zh": "1. 整个层的形状流", "en": "1. The shapes through the whole layer"},
    "heads.flow.about": {
        "zh": "每个方框都标出它的张量形状：上一行是轴的名字，下一行是当前的数值。"
        "橙色方框含有 h 或 d_k，改变头数时它们的形状会变（层叠表示 h 个头并行）；灰色方框的形状与 h 无关。",
        "en": "Every box shows its tensor's shape: axis names above, live sizes below. Orange boxes have an h or "
        "d_k axis and change shape when you change the number of heads (the stack stands for the h heads "
        "working in parallel); grey boxes keep their shape for every h.",
    },
    "heads.flow.changed": {
        "zh": "h 从 {prev} 变成 {h}：粗边框的橙色方框改变了形状（下面写着原来的形状），灰色方框一个都没变。",
        "en": "h went from {prev} to {h}: the thick-bordered orange boxes changed shape (their old sizes are "
        "written under them); not one grey box changed.",
    },
    "heads.flow.try": {
        "zh": "试一试：在左侧边栏移动“头数 h”滑块，看哪些方框变了。",
        "en": "Try it: move the “Heads h” slider in the sidebar and watch which boxes change.",
    },
    "heads.flow.legend.depends": {"zh": "形状随 h 变化（含 h 或 d_k）", "en": "shape depends on h (has h or d_k)"},
    "heads.flow.legend.same": {"zh": "形状与 h 无关", "en": "same shape for every h"},
    "heads.flow.legend.changed": {"zh": "h = {prev} 时形状不同", "en": "changed since h = {prev}"},
    "heads.flow.was": {"zh": "原为 {sizes}", "en": "was {sizes}"},
    "heads.flow.numbers": {"zh": "共 {n} 个数", "en": "{n} numbers"},
    "heads.box.x": {"zh": "输入 X", "en": "input X"},
    "heads.box.q": {"zh": "q = W_q(X)", "en": "q = W_q(X)"},
    "heads.box.k": {"zh": "k = W_k(X)", "en": "k = W_k(X)"},
    "heads.box.v": {"zh": "v = W_v(X)", "en": "v = W_v(X)"},
    "heads.box.q_heads": {"zh": "q 拆分成头", "en": "q split into heads"},
    "heads.box.k_heads": {"zh": "k 拆分成头", "en": "k split into heads"},
    "heads.box.v_heads": {"zh": "v 拆分成头", "en": "v split into heads"},
    "heads.box.scores": {"zh": "注意力分数 qᵢ·kᵢᵀ", "en": "scores qᵢ·kᵢᵀ"},
    "heads.box.scaled_scores": {"zh": "缩放 ÷ √d_k", "en": "scaled ÷ √d_k"},
    "heads.box.masked_scores": {"zh": "掩码：{mask}", "en": "mask: {mask}"},
    "heads.box.weights": {"zh": "softmax → 注意力权重", "en": "softmax → attention weights"},
    "heads.box.head_outputs": {"zh": "每个头的输出 = 权重·vᵢ", "en": "each head's output = weights·vᵢ"},
    "heads.box.concat": {"zh": "拼接(头₀, …, 头ₕ₋₁)", "en": "concat(head₀, …, headₕ₋₁)"},
    "heads.box.output": {"zh": "输出 = W_o(拼接)", "en": "output = W_o(concat)"},
    # 2. all heads
    "heads.grid.title": {"zh": "2. 所有注意力头并排比较", "en": "2. Every head's attention, side by side"},
    "heads.grid.about": {
        "zh": "每个面板是一个头的注意力权重（行 = 查询，列 = 键）。所有面板共用同一个颜色刻度（{lo:.2f} … {hi:.2f}，取自全部 {h} 个头），"
        "所以同一种颜色在任何面板里都表示同样大的权重（对照右侧的颜色条）。",
        "en": "Each panel is one head's attention weights (rows = queries, columns = keys). All panels share one "
        "colour scale ({lo:.2f} … {hi:.2f}, taken over all {h} heads), so one colour means the same weight in every panel (read it off the colour bar).",
    },
    "heads.grid.pick": {"zh": "选择要比较的头", "en": "Heads to compare"},
    "heads.grid.pick.help": {
        "zh": "最多 {n} 个；默认显示前 {d} 个。",
        "en": "Up to {n}; the first {d} are shown by default.",
    },
    "heads.grid.page.help": {
        "zh": "头太多时分组浏览：选择一组会替换上面的选择。",
        "en": "With many heads, browse them a group at a time: choosing a group replaces the selection.",
    },
    "heads.grid.empty": {"zh": "请至少选择一个头。", "en": "Pick at least one head."},
    "heads.grid.overview": {
        "zh": "全部 {h} 个头一览：每个查询最大权重的平均值（1 = 只看一个键，1/T = {u:.2f} = 平均分配）。当前显示的头颜色更深。",
        "en": "All {h} heads at a glance: the mean of each query's largest weight (1 = looks at one key only, "
        "1/T = {u:.2f} = spread evenly). The heads shown below are darker.",
    },
    "heads.grid.focus_axis": {"zh": "平均最大权重", "en": "mean largest weight"},
    # 3. cost
    "heads.cost.title": {
        "zh": "3. 计算成本：参数和乘加次数",
        "en": "3. What does it cost? Parameters and multiply-adds",
    },
    "heads.cost.params": {"zh": "参数", "en": "Parameters"},
    "heads.cost.macs": {"zh": "乘加次数（矩阵乘法）", "en": "Multiply-adds (matrix products)"},
    "heads.cost.elementwise": {"zh": "逐元素运算", "en": "Element-wise ops"},
    "heads.cost.elementwise.help": {
        "zh": "缩放、掩码和 softmax：每个分数元素各算一次。",
        "en": "Scaling, masking and softmax: one operation per score element each.",
    },
    "heads.cost.memory": {"zh": "注意力权重的内存", "en": "Attention-weight memory"},
    "heads.cost.memory.help": {
        "zh": "(B, h, T, T) 个 float32，每个 4 字节。",
        "en": "(B, h, T, T) float32 numbers, 4 bytes each.",
    },
    "heads.cost.table": {
        "zh": "每一步（B = 1，T = {T}）：矩阵乘法 (m × n)·(n × p) 需要 m·n·p 次乘加；逐元素运算按每个元素一次计数。",
        "en": "Per step (B = 1, T = {T}): a matrix product (m × n)·(n × p) costs m·n·p multiply-adds; "
        "element-wise work counts one operation per element.",
    },
    "heads.cost.col.what": {"zh": "数量", "en": "quantity"},
    "heads.cost.col.at": {"zh": "h = {h}", "en": "h = {h}"},
    "heads.cost.col.vs_one": {"zh": "与 h = 1 相比", "en": "vs h = 1"},
    "heads.cost.cell.same": {"zh": "相同（×1）", "en": "the same (×1)"},
    "heads.cost.col.step": {"zh": "步骤", "en": "step"},
    "heads.cost.col.shape": {"zh": "输出形状", "en": "output shape"},
    "heads.cost.col.axes": {"zh": "维度", "en": "axes"},
    "heads.cost.col.params": {"zh": "参数", "en": "parameters"},
    "heads.cost.col.macs": {"zh": "乘加次数", "en": "multiply-adds"},
    "heads.cost.col.elementwise": {"zh": "逐元素运算", "en": "element-wise"},
    "heads.cost.total": {"zh": "合计", "en": "total"},
    "heads.cost.chart": {
        "zh": "d_model = {d_model} 的所有因数 h 下的合计（深色 = 当前 h；h 下方的小数字是 d_k）",
        "en": "Totals for every h that divides d_model = {d_model} (dark = the current h; the small number under h is d_k)",
    },
    "heads.cost.chart.params": {"zh": "参数（每个 h 都相同）", "en": "Parameters (the same for every h)"},
    "heads.cost.chart.ops": {"zh": "运算次数", "en": "Operations"},
    "heads.cost.chart.memory": {"zh": "注意力权重的内存（随 h 增长）", "en": "Attention-weight memory (grows with h)"},
    "heads.cost.axis": {"zh": "h（下方：d_k）", "en": "h (below: d_k)"},
    "heads.cost.takeaway": {
        "zh": "为什么不变：每个头只有 d_k = d_model / h 维，h 个头 × d_k 列 = d_model 列，正好是一个完整的投影矩阵；"
        "qᵢkᵢᵀ 和 权重·vᵢ 的乘加次数是 h·T·T·d_k = T·T·d_model，也与 h 无关。"
        "真正随 h 增长的是形状为 (B, h, T, T) 的分数张量：它的逐元素运算和内存都与 h·T² 成正比。",
        "en": "Why the cost stays put: each head is only d_k = d_model / h wide, so h heads × d_k columns = d_model "
        "columns, exactly one full projection; the multiply-adds of qᵢkᵢᵀ and weights·vᵢ are h·T·T·d_k = T·T·d_model, "
        "also independent of h. What does grow with h is the (B, h, T, T) score tensor: its element-wise work and "
        "its memory are proportional to h·T².",
    },
    "heads.cost.ops_later": {
        "zh": "运算次数：T = {T} 时逐元素运算 {ew} 次，是乘加次数 {macs} 的 {pct}。乘加里也有随 T² 增长的 2·T²·d_model，"
        "所以逐元素运算要到 T = {from_T} 才会超过乘加次数。",
        "en": "Operations: at T = {T} the element-wise work is {ew}, {pct} of the {macs} multiply-adds. The "
        "multiply-adds grow with T² too (2·T²·d_model of them), so the element-wise work passes them only from "
        "T = {from_T}.",
    },
    "heads.cost.ops_never": {
        "zh": "运算次数：T = {T} 时逐元素运算 {ew} 次，是乘加次数 {macs} 的 {pct}。乘加里也有 2·T²·d_model 次随 T² 增长，"
        "而 h = {h} 时每个 T² 只有 {c}h = {ch} 次逐元素运算，不多于 2·d_model = {dd}：再长的 T，逐元素运算也不会超过乘加。",
        "en": "Operations: at T = {T} the element-wise work is {ew}, {pct} of the {macs} multiply-adds. The "
        "multiply-adds grow with T² too (2·T²·d_model of them), and at h = {h} the element-wise work is only "
        "{c}h = {ch} per T², no more than 2·d_model = {dd}: however long T gets, it never passes the multiply-adds.",
    },
    "heads.cost.ops_above": {
        "zh": "运算次数：T = {T} 时逐元素运算 {ew} 次，已超过乘加次数 {macs}（{pct}）。",
        "en": "Operations: at T = {T} the element-wise work, {ew}, is already more than the {macs} multiply-adds "
        "({pct}).",
    },
    "heads.cost.mem_later": {
        "zh": "内存：T = {T} 时注意力权重占 {mem}，少于这一层参数的 {params}（float32）；从 T = {from_T} 起它超过参数，"
        "长上下文时它才是主要的内存开销。",
        "en": "Memory: at T = {T} the attention weights take {mem}, less than the layer's {params} of parameters "
        "(float32); from T = {from_T} they take more, and with long contexts they dominate the memory.",
    },
    "heads.cost.mem_above": {
        "zh": "内存：T = {T} 时注意力权重占 {mem}，已超过这一层参数的 {params}（float32），而且随 h·T² 继续增长。",
        "en": "Memory: at T = {T} the attention weights take {mem}, already more than the layer's {params} of "
        "parameters (float32), and they keep growing with h·T².",
    },
    # 4. timing
    "heads.time.title": {"zh": "4. 实测：前向计算的时间", "en": "4. Measure it: time the forward pass"},
    "heads.time.about": {
        "zh": "对 d_model = {d_model} 的每个因数 h，计时 MultiHeadAttention.forward（B = 1，T = {T}，无掩码，torch.no_grad，"
        "单个 CPU 线程）：先预热一次，再测 {repeats} 次，取中位数；竖线表示最小到最大值。",
        "en": "For every h that divides d_model = {d_model}, this times MultiHeadAttention.forward (B = 1, T = {T}, no "
        "mask, torch.no_grad, one CPU thread): one warm-up call, then {repeats} repeats; the median is plotted, "
        "the whisker spans min to max.",
    },
    "heads.time.run": {"zh": "为每个 h 计时", "en": "Time the forward pass for every h"},
    "heads.time.again": {"zh": "重新测量", "en": "Measure again"},
    "heads.time.progress": {"zh": "正在计时 h = {h}（{i} / {n}）…", "en": "Timing h = {h} ({i} of {n})…"},
    "heads.time.none": {
        "zh": "这些设置还没有测量过：按上面的按钮（d_model = 512 时需要几秒）。",
        "en": "Not measured yet for these settings: press the button (a few seconds at d_model = 512).",
    },
    "heads.time.noise": {
        "zh": "计时有噪声：其他程序、CPU 频率和缓存都会让结果相差 10–30%，下结论前请多测几次。"
        "预测的运算次数几乎不变（各个 h 之间最多相差 {pct}），但 h 很大时 d_k 很小，许多小矩阵乘法在 CPU 上效率较低，"
        "而且 (B, h, T, T) 张量变大，所以实测时间可能随 h 上升。",
        "en": "Timings are noisy: other programs, the CPU clock and caches move them by 10–30 %, so measure twice "
        "before concluding anything. The predicted operation count hardly moves (at most {pct} apart over every h), "
        "but at large h every d_k is small, many small matrix products use a CPU less efficiently, and the "
        "(B, h, T, T) tensors grow, so real time can rise with h.",
    },
    "heads.time.noise_grows": {
        "zh": "计时有噪声：其他程序、CPU 频率和缓存都会让结果相差 10–30%，下结论前请多测几次。"
        "这里预测的运算次数从 h = 1 到 h = {h} 增长到 {x} 倍：d_model 小而 T 长时，(B, h, T, T) 张量上的逐元素运算"
        "比乘加次数不小，而它随 h 增长；再加上 h 很大时 d_k 很小，许多小矩阵乘法在 CPU 上效率较低，实测时间会随 h 上升。",
        "en": "Timings are noisy: other programs, the CPU clock and caches move them by 10–30 %, so measure twice "
        "before concluding anything. Here the predicted operation count grows {x}× from h = 1 to h = {h}: with a "
        "small d_model and a long T the element-wise work on the (B, h, T, T) tensors is not small beside the "
        "multiply-adds, and it grows with h; add that at large h every d_k is small and many small matrix products "
        "use a CPU less efficiently, and real time rises with h.",
    },
    "heads.time.measured": {"zh": "实测时间（中位数，毫秒）", "en": "measured time (median, ms)"},
    "heads.time.predicted": {
        "zh": "预测的运算次数（乘加 + 逐元素）",
        "en": "predicted operations (multiply-adds + element-wise)",
    },
    "heads.time.ms": {"zh": "毫秒", "en": "ms"},
    "heads.time.ops": {"zh": "运算次数", "en": "operations"},
    "heads.time.col.median": {"zh": "中位数 (ms)", "en": "median (ms)"},
    "heads.time.col.min": {"zh": "最小 (ms)", "en": "min (ms)"},
    "heads.time.col.max": {"zh": "最大 (ms)", "en": "max (ms)"},
    "heads.time.col.ops": {"zh": "预测运算次数", "en": "predicted ops"},
    # 5. one big projection = h small ones
    "heads.slice.title": {"zh": "5. 一个大投影 = h 个小投影", "en": "5. One big projection = h small ones"},
    "heads.slice.about": {
        "zh": "层里只存了一个 $W^Q$（代码里的 W_q），大小为 d_model × d_model = {d} × {d}。第 i 个头的 $W^Q_i$ 就是它的第 i·d_k … (i+1)·d_k − 1 列："
        "把大矩阵按列切成 h 块，没有任何额外的参数。",
        "en": "The layer stores a single $W^Q$ (the code's W_q) of d_model × d_model = {d} × {d}. Head i's $W^Q_i$ is its columns "
        "i·d_k … (i+1)·d_k − 1: the big matrix cut into h column blocks, with no extra parameters.",
    },
    "heads.slice.head": {"zh": "查看第几个头", "en": "Head to inspect"},
    "heads.slice.big": {
        "zh": "$W^Q$（显示前 {rows} / {d} 行），切成 {h} 个列块（各有边框，上方色条区分）；粗框 = 头 {i}",
        "en": "$W^Q$ (first {rows} of {d} rows), cut into {h} column blocks (each framed, a colour strip above); the thick frame = head {i}",
    },
    "heads.slice.small": {
        "zh": "$W^Q_{{{i}}}$ = model.head_projection('q', {i})：{d} × {dk}（显示前 {rows} 行）",
        "en": "$W^Q_{{{i}}}$ = model.head_projection('q', {i}): {d} × {dk} (first {rows} rows)",
    },
    "heads.slice.check": {
        "zh": "对全部 {h} 个头逐一验证：$\\max |W^Q[:, i d_k:(i+1) d_k] - W^Q_i|$ = {w}，$\\max |b^Q[i d_k:(i+1) d_k] - b^Q_i|$ = {b}，"
        "$\\max |q_i - (XW^Q_i + b^Q_i)|$ = {o:.1e}（$q_i$：q 的第 i 个头）。",
        "en": "Checked for all {h} heads: $\\max |W^Q[:, i d_k:(i+1) d_k] - W^Q_i|$ = {w}, $\\max |b^Q[i d_k:(i+1) d_k] - b^Q_i|$ = {b}, "
        "$\\max |q_i - (XW^Q_i + b^Q_i)|$ = {o:.1e} ($q_i$: head i of q).",
    },
    "heads.slice.numbers": {
        "zh": "同一批数：大矩阵 $W^Q$ 的第 {c0}… 列与 $W^Q_{{{i}}}$ 的第 0… 列（前 {r} 行）",
        "en": "The same numbers: columns {c0}… of the big $W^Q$ and columns 0… of $W^Q_{{{i}}}$ (first {r} rows)",
    },
    "heads.slice.params": {
        "zh": "参数一样多：$W^Q$ 的参数 = h × (d_model·d_k + d_k)",
        "en": "The same number of parameters: $W^Q$ holds h × (d_model·d_k + d_k)",
    },
    "heads.slice.col.h": {"zh": "头数 h", "en": "heads h"},
    "heads.slice.col.per_head": {"zh": "每个头 d_model·d_k + d_k", "en": "per head d_model·d_k + d_k"},
    "heads.slice.col.total": {"zh": "W_q 合计", "en": "W_q total"},
    "heads.slice.col.layer": {"zh": "整个层（W_q、W_k、W_v、W_o）", "en": "whole layer (W_q, W_k, W_v, W_o)"},
    "heads.slice.same": {
        "zh": "h = 1 与 h = 8 的参数数量完全相同：$W^K$、$W^V$ 同理，$W^O$ 无论 h 是多少都是 d_model × d_model。",
        "en": "h = 1 and h = 8 have exactly the same number of parameters; the same holds for $W^K$ and $W^V$, and $W^O$ "
        "is d_model × d_model for every h.",
    },
    # 6. one head vs h heads
    "heads.single.title": {
        "zh": "6. 一个完整维度的头对比 h 个窄头（同一个输入）",
        "en": "6. One full-width head vs h narrow heads, on the same input",
    },
    "heads.single.about": {
        "zh": "两边使用完全相同的 $W^Q$、$W^K$、$W^V$、$W^O$（同一个种子）和同一个输入 X：唯一的区别是这 {d} 列怎么切。"
        "参数：h = 1 时 {p1:,}，h = {h} 时 {ph:,}。",
        "en": "Both sides use exactly the same $W^Q$, $W^K$, $W^V$, $W^O$ (same seed) and the same input X: the only "
        "difference is how the {d} columns are cut. Parameters: {p1:,} with h = 1, {ph:,} with h = {h}.",
    },
    "heads.single.layout": {
        "zh": "第一个面板：h = 1，一个 d_k = {d} 的头。之后：h = {h} 时的 {n} 个头（共 {h} 个），每个 d_k = {dk}。"
        "所有面板用同一个色标、同样大小的格子。",
        "en": "First panel: h = 1, one head with d_k = {d}. Then h = {h}: {n} of the {h} heads, d_k = {dk} each. "
        "Every panel has the same colour scale and the same cell size.",
    },
    "heads.single.focus": {
        "zh": "每个查询最大权重的平均值：单头 {one:.2f}；各个头在 {lo:.2f} 到 {hi:.2f} 之间。",
        "en": "Mean of each query's largest weight: the single head {one:.2f}; the heads from {lo:.2f} to {hi:.2f}.",
    },
    "heads.single.why": {
        "zh": "为什么不同？单头在全部 {d} 维上比较查询和键；每个窄头只在自己的 {dk} 维子空间里比较，"
        "所以各个头可以关注不同的关系——这就是种子文本所说的“不同的表示子空间”。",
        "en": "Why do they differ? The single head compares queries and keys over all {d} dimensions at once; each "
        "narrow head compares them only in its own {dk}-dimensional subspace, so different heads can pick out "
        "different relations — the seed's “different representation subspaces”.",
    },
    "heads.single.trivial": {
        "zh": "当前 h = 1：两边是同一个头。请在侧边栏增加头数再比较。",
        "en": "h = 1 right now: both sides are the same head. Raise h in the sidebar to compare.",
    },
    # the heatmaps' panel titles and axes (lessons/heads/ text keys)
    "heads.hm.head": {"zh": "头 {i}", "en": "head {i}"},
    "heads.hm.single": {"zh": "单头（h = 1，d_k = {d}）", "en": "one head (h = 1, d_k = {d})"},
    "heads.hm.big": {"zh": "W_q（粗框：头 {i} 的列块）", "en": "W_q (thick frame: head {i}'s block)"},
    "heads.hm.small": {"zh": "头 {i} 的 W_q 列块", "en": "head {i}'s block of W_q"},
    "heads.axis.in": {"zh": "d_model（输入）", "en": "d_model (in)"},
    "heads.axis.out": {"zh": "d_model（输出）", "en": "d_model (out)"},
    "heads.axis.dk": {"zh": "W_q 的列号", "en": "column of W_q"},
}
