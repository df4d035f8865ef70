"""Strings of the "Softmax up close" page (pages/softmax.py, lessons/softmax/). Chinese follows the seed's terms
(注意力分数, 缩放, 掩码, 注意力权重, 查询/键/值, 注意力头). Formulas are LaTeX with Latin symbols; strings that carry
LaTeX and format parameters double their braces."""

STRINGS = {
    # The page in the navigation and on the home page
    "page.softmax": {"zh": "Softmax 细看", "en": "Softmax up close"},
    "page.softmax.blurb": {
        "zh": "为什么要除以 √d_k，为什么要先减去最大值，以及融合内核如何一块一块地算出同样的数。",
        "en": "Why ÷√d_k, why subtract the max, and how fused kernels get the same numbers tile by tile.",
    },
    "softmax.intro": {
        "zh": "种子文本里的一行 `F.softmax(attn_scores, dim=-1)` 背后有三件事：注意力分数为什么要先除以 √d_k，"
        "数值上可靠的 softmax 为什么要先减去最大值，以及 FlashAttention 和 PyTorch 的 "
        "`scaled_dot_product_attention` 为什么从不构造完整的 T×T 注意力分数矩阵却得到同样的结果。"
        "本页每个数都来自侧边栏的当前设置，并在页面上与普通路径比较。",
        "en": "Behind the seed's one line `F.softmax(attn_scores, dim=-1)` are three facts: why the scores are "
        "divided by √d_k first, why a numerically safe softmax subtracts the maximum, and why FlashAttention "
        "and PyTorch's `scaled_dot_product_attention` get the same result without ever forming the T×T score "
        "matrix. Every number on this page comes from the sidebar's settings and is checked against the "
        "plain path on the page.",
    },
    "softmax.tab.scale": {"zh": "1 为什么 ÷√d_k", "en": "1 Why ÷√d_k"},
    "softmax.tab.max": {"zh": "2 为什么减去最大值", "en": "2 Why subtract the max"},
    "softmax.tab.tiles": {"zh": "3 一块一块地算", "en": "3 Tile by tile"},
    # Controls (the URL keeps numbers: soft_head, soft_row, soft_gain, soft_bq, soft_bk, soft_step)
    "softmax.ctl.head": {"zh": "注意力头", "en": "Head"},
    "softmax.ctl.row": {"zh": "查询行（位置）", "en": "Query row (position)"},
    "softmax.ctl.row.help": {
        "zh": "注意力分数矩阵的第几行：一个查询对所有键的分数。",
        "en": "Which row of the score matrix: one query's scores against every key.",
    },
    "softmax.ctl.row_token": {"zh": "第 {row} 行的查询标记：“{token}”。", "en": "Row {row} is the query “{token}”."},
    "softmax.ctl.gain": {"zh": "把这一行的分数放大（倍数）", "en": "Multiply the row's scores by"},
    "softmax.ctl.gain.help": {
        "zh": "真实模型里分数可以很大（大的 d_k、没有缩放、训练中的尖峰）。放大这一行，看朴素的 exp 在哪里溢出。",
        "en": "Real models can produce large scores (large d_k, no scaling, spikes in training). Scale this row up "
        "and see where the naive exp overflows.",
    },
    "softmax.ctl.all_keys": {"zh": "每个键", "en": "Every key"},
    "softmax.ctl.all_keys.help": {
        "zh": "关：长的一行只列出说明问题的十来个键（最大分数、最后一个键、在线 m 变大处、exp 溢出处……），其余用 ⋯ 表示。"
        "开：列出每个键。",
        "en": "Off: a long row lists only the dozen or so keys that tell the story (the largest score, the last key, "
        "where the online m grows, where exp overflows…), the others as ⋯. On: every key.",
    },
    "softmax.ctl.bq": {"zh": "查询块大小 block_q", "en": "Query block block_q"},
    "softmax.ctl.bk": {"zh": "键/值块大小 block_k", "en": "Key/value block block_k"},
    "softmax.ctl.blocks.help": {
        "zh": "每块多少行；比 T 大的块就是一整块。",
        "en": "Rows per tile; a block longer than T is a single tile.",
    },
    "softmax.ctl.step": {"zh": "第几步（查询块, 键块）", "en": "Step (query tile, key tile)"},
    "softmax.ctl.prev": {"zh": "上一步", "en": "Previous"},
    "softmax.ctl.next": {"zh": "下一步", "en": "Next"},
    "softmax.ctl.one_step": {
        "zh": "这些块大小下只有一步：整个矩阵是一块。",
        "en": "With these blocks there is a single step: the whole matrix is one tile.",
    },
    # Heatmap axes and titles (lessons/softmax/ hands these keys to the renderer)
    "softmax.axis.query": {"zh": "查询", "en": "query"},
    "softmax.axis.key": {"zh": "键", "en": "key"},
    "softmax.axis.feature": {"zh": "特征（d_k 维）", "en": "feature (of d_k)"},
    "softmax.axis.scale": {"zh": "除以", "en": "divided by"},
    "softmax.axis.query_tile": {"zh": "查询块", "en": "query tile"},
    "softmax.axis.key_tile": {"zh": "键块", "en": "key tile"},
    "softmax.hm.scale_row": {
        "zh": "头 {head}，第 {row} 行（“{token}”）的注意力权重，三种缩放",
        "en": "Head {head}, row {row} (“{token}”): the weights under three divisors",
    },
    "softmax.hm.scores": {
        "zh": "头 {head} 的缩放注意力分数 QKᵀ/√{d_k}，当前块加框",
        "en": "Head {head}'s scaled scores QKᵀ/√{d_k}, the current tile outlined",
    },
    "softmax.hm.output_so_far": {
        "zh": "到这一步为止的输出 acc / l（前 {shown} / {d_k} 个特征）",
        "en": "The output so far, acc / l (first {shown} of {d_k} features)",
    },
    "softmax.hm.tile_p": {"zh": "这一块的 P = exp(S − m_new)", "en": "This tile's P = exp(S − m_new)"},
    "softmax.hm.result": {
        "zh": "分块结果与普通路径（前 {shown} / {d_k} 个特征）",
        "en": "Tiled result and plain path (first {shown} of {d_k} features)",
    },
    "softmax.hm.tiled": {"zh": "分块（FlashAttention）", "en": "tiled (FlashAttention)"},
    "softmax.hm.plain": {"zh": "普通路径 head_outputs", "en": "plain path head_outputs"},
    "softmax.state.todo": {"zh": "未算", "en": "to do"},
    "softmax.state.done": {"zh": "已算", "en": "done"},
    "softmax.state.current": {"zh": "当前", "en": "current"},
    "softmax.state.skipped": {"zh": "跳过", "en": "skipped"},
    # 1. Why divide by sqrt(d_k)
    "softmax.scale.title": {"zh": "1. 为什么要除以 √d_k", "en": "1. Why divide by √d_k"},
    "softmax.scale.variance": {
        "zh": "q 和 k 的每个分量都是均值 0、方差 1 的随机数时，点积 q·k 是 d_k 个乘积之和，方差等于 d_k。"
        "下图是实测的方差（每个 d_k 抽 {draws} 对随机向量，随机种子 {seed}），虚线是 y = d_k；"
        "除以 √d_k 之后方差回到 1 附近，与 d_k 无关。",
        "en": "When every component of q and k is random with mean 0 and variance 1, the dot product q·k is a sum of "
        "d_k products, so its variance is d_k. The chart shows the measured variance ({draws} random pairs per "
        "d_k, seed {seed}) against the dashed line y = d_k; divided by √d_k the variance is back near 1, "
        "whatever d_k is.",
    },
    "softmax.scale.variance_now": {
        "zh": "当前 d_k = {d_k}：实测 Var(q·k) = {var:.2f}（理论值 {d_k}），除以 √d_k 后为 {scaled:.3f}。",
        "en": "At the current d_k = {d_k}: measured Var(q·k) = {var:.2f} (theory {d_k}); divided by √d_k it is "
        "{scaled:.3f}.",
    },
    "softmax.scale.chart.measured": {"zh": "实测 Var(q·k)", "en": "measured Var(q·k)"},
    "softmax.scale.chart.line": {"zh": "y = d_k", "en": "y = d_k"},
    "softmax.scale.chart.scaled": {"zh": "实测 Var(q·k / √d_k)", "en": "measured Var(q·k / √d_k)"},
    "softmax.scale.chart.x": {"zh": "d_k（对数坐标）", "en": "d_k (log scale)"},
    "softmax.scale.chart.y": {"zh": "方差（对数坐标）", "en": "variance (log scale)"},
    "softmax.scale.chart.title": {"zh": "点积的方差随 d_k 增长", "en": "The dot product's variance grows with d_k"},
    "softmax.scale.row": {
        "zh": "同一行注意力分数 q·k 分别除以 1、√d_k 和 d_k 后做 softmax。分数的差距越大，softmax 越接近独热（饱和）："
        "几乎所有权重都落在一个键上，梯度几乎为零，模型很难再学。",
        "en": "One row of raw scores q·k, divided by 1, by √d_k and by d_k, then through the softmax. The wider the "
        "scores spread, the closer the softmax is to one-hot (saturated): almost all the weight on one key, "
        "the gradient almost zero, so the model can hardly learn any more.",
    },
    "softmax.scale.col.divisor": {"zh": "除以", "en": "divided by"},
    "softmax.scale.col.value": {"zh": "除数的值", "en": "divisor"},
    "softmax.scale.col.entropy": {"zh": "熵（nats）", "en": "entropy (nats)"},
    "softmax.scale.col.max": {"zh": "最大权重", "en": "largest weight"},
    "softmax.scale.col.grad": {"zh": "梯度大小 ‖J‖", "en": "gradient size ‖J‖"},
    "softmax.scale.col.mean_entropy": {"zh": "全部行和头的平均熵", "en": "mean entropy, all rows and heads"},
    "softmax.scale.col.mean_max": {"zh": "平均最大权重", "en": "mean largest weight"},
    "softmax.scale.col.mean_grad": {"zh": "平均梯度大小", "en": "mean gradient size"},
    "softmax.scale.run": {
        "zh": "当前运行自己的方差：课程模型的权重从 N(0, 1/d_model) 抽取，所以 X 的分量方差为 1 时，q 和 k 的分量方差也约为 1"
        "（Vaswani 等人论证 ÷√d_k 时的假设）。",
        "en": "This run's own variances: the lesson model draws its weights from N(0, 1/d_model), so when X's "
        "components have variance 1, q's and k's have variance about 1 too (the assumption Vaswani et al. make "
        "for ÷√d_k).",
    },
    "softmax.scale.var.col.what": {"zh": "量", "en": "quantity"},
    "softmax.scale.var.col.measured": {"zh": "实测方差", "en": "measured variance"},
    "softmax.scale.var.col.expected": {"zh": "分量方差为 1 时", "en": "with unit-variance components"},
    "softmax.scale.var.x": {"zh": "X 的分量", "en": "X's components"},
    "softmax.scale.var.q": {"zh": "q 的分量", "en": "q's components"},
    "softmax.scale.var.k": {"zh": "k 的分量", "en": "k's components"},
    "softmax.scale.var_back": {
        "zh": "这次运行中 Var(q·k) = {v1:.3g}，与 d_k = {d_k} 相近；除以 √d_k 把方差带回 {v2:.3f}，接近 1"
        "（在 0.75 到 1.33 之间）；除以 d_k 则缩到 {v3:.3g}。",
        "en": "In this run Var(q·k) = {v1:.3g}, near d_k = {d_k}; ÷√d_k brings it back to {v2:.3f}, close to 1 "
        "(between 0.75 and 1.33); ÷d_k shrinks it to {v3:.3g}.",
    },
    "softmax.scale.var_off": {
        "zh": "这次运行中除以 √d_k 后方差是 {v2:.3f}，不在 1 附近（{lo:.2f} 到 {hi:.2f} 之外）：一次运行只有 {n} 个分数"
        "（h·T·T），q、k 分量的实测方差是 {q:.3f} 和 {k:.3f}。论证说的是平均：上面的曲线每个 d_k 用了 {draws} 对随机向量。",
        "en": "In this run ÷√d_k gives a variance of {v2:.3f}, not close to 1 (outside {lo:.2f} to {hi:.2f}): one "
        "run has only {n} scores (h·T·T), and its q and k components measure {q:.3f} and {k:.3f}. The argument "
        "is about averages: the curve above uses {draws} random pairs per d_k.",
    },
    "softmax.scale.var_d_k_1": {
        "zh": "d_k = 1：三个除数都是 1，这次运行的 Var(q·k) = {v:.3f} 不变。",
        "en": "d_k = 1: all three divisors are 1, so this run's Var(q·k) = {v:.3f} stays as it is.",
    },
    "softmax.scale.table_about": {
        "zh": "熵：0 表示独热，ln(可见键数) = {max_entropy:.3f} 表示均匀。梯度大小是 softmax 雅可比矩阵 "
        "J = diag(p) − p pᵀ 的 Frobenius 范数：分数的微小变化还能让权重变化多少。后三列是当前运行所有头、所有行的平均。",
        "en": "Entropy: 0 is one-hot, ln(visible keys) = {max_entropy:.3f} is uniform. Gradient size is the Frobenius "
        "norm of the softmax Jacobian J = diag(p) − p pᵀ: how much a small change of a score still moves the "
        "weights. The last three columns average over every head and row of the current run.",
    },
    "softmax.scale.order": {
        "zh": "熵的顺序：÷1（{e1:.3f}）≤ ÷√d_k（{e2:.3f}）≤ ÷d_k（{e3:.3f}）：除数越大，这一行越平。",
        "en": "Entropy order: ÷1 ({e1:.3f}) ≤ ÷√d_k ({e2:.3f}) ≤ ÷d_k ({e3:.3f}): the larger the divisor, the "
        "flatter the row.",
    },
    "softmax.scale.order_broken": {
        "zh": "这一行的熵不按 ÷1 ≤ ÷√d_k ≤ ÷d_k 排列（{e1:.3f}, {e2:.3f}, {e3:.3f}）：只有一个可见键或分数几乎相等时会这样。",
        "en": "This row's entropies do not order as ÷1 ≤ ÷√d_k ≤ ÷d_k ({e1:.3f}, {e2:.3f}, {e3:.3f}): it happens "
        "when one key is visible or the scores are nearly equal.",
    },
    "softmax.scale.saturated": {
        "zh": "÷1 这一行几乎是独热的：最大权重 {top:.3f}（≥ 0.9），梯度大小只有 {g:.3f}；÷√d_k 这一行的最大权重是 {top2:.3f}。",
        "en": "The ÷1 row is almost one-hot: its largest weight is {top:.3f} (≥ 0.9) and its gradient size only "
        "{g:.3f}; the ÷√d_k row's largest weight is {top2:.3f}.",
    },
    "softmax.scale.not_saturated": {
        "zh": "这里 ÷1 的最大权重只有 {top:.3f}（低于 0.9）：最大的两个分数只差 {gap:.2f}，所以第二个键的权重是第一个的 "
        "e^−{gap:.2f} = {ratio:.3f} 倍。",
        "en": "Here the ÷1 row's largest weight is only {top:.3f} (below 0.9): its two largest scores are only "
        "{gap:.2f} apart, so the second key keeps e^−{gap:.2f} = {ratio:.3f} of the top key's weight.",
    },
    "softmax.scale.try_big": {
        "zh": "同样的 T、掩码和随机种子，把 d_model 调到 {d_model}、h 调到 {h}（d_k = {d_k}）：÷1 各行的最大权重平均 "
        "{m1:.2f}（{n} 行中 {k} 行 ≥ 0.9），÷√d_k 各行平均 {m2:.2f}。",
        "en": "With the same T, mask and seed, set d_model to {d_model} and h to {h} (d_k = {d_k}): the ÷1 rows' "
        "largest weight is {m1:.2f} on average ({k} of {n} rows ≥ 0.9), the ÷√d_k rows' {m2:.2f}.",
    },
    "softmax.scale.grad": {
        "zh": "这一行梯度最大的是 {row}（{g:.4f}）；全部行和头平均，梯度最大的是 {mean}（{gm:.4f}）。对照：独热的一行梯度为 0，"
        "{n} 个键上均匀的一行为 √(n−1)/n = {u:.4f}。",
        "en": "Largest gradient size in this row: {row} ({g:.4f}); averaged over every row and head: {mean} "
        "({gm:.4f}). For comparison, a one-hot row has 0 and a uniform row over {n} keys √(n−1)/n = {u:.4f}.",
    },
    "softmax.scale.grad_one_key": {
        "zh": "这一行只有一个可见键：三种缩放的权重都是 1，梯度都是 0。",
        "en": "Only one key of this row is visible: its weight is 1 and the gradient 0 under all three divisors.",
    },
    "softmax.scale.d_k_1": {
        "zh": "d_k = 1：三个除数都是 1，三行完全相同。把 d_model 调大或把 h 调小试试。",
        "en": "d_k = 1: all three divisors are 1 and the rows are the same. Raise d_model or "
        "lower h to see them differ.",
    },
    "softmax.scale.blocked": {
        "zh": "掩码屏蔽了这一行的所有键：三种缩放都得到均匀权重（每格都是 −1e9）。",
        "en": "The mask blocks every key of this row: all three give uniform weights (every cell is −1e9).",
    },
    "softmax.scale.check": {
        "zh": "检查：÷√d_k 这一行与模型自己的注意力权重 trace.weights 的最大差 = {diff:.2e}。",
        "en": "Check: the ÷√d_k row against the model's own attention weights trace.weights, max |difference| = "
        "{diff:.2e}.",
    },
    # 2. Why subtract the max
    "softmax.max.title": {"zh": "2. 为什么要先减去最大值", "en": "2. Why subtract the max"},
    "softmax.max.intro": {
        "zh": "三种 softmax，数学上相等。朴素的直接算 exp(s)，分数一大 exp 就溢出成 inf，inf/inf 得到 NaN。"
        "安全的先减去这一行的最大值 m，最大的 exp 正好是 1。在线的只扫一遍键，边走边记住目前的最大值 m "
        "和归一化因子 l，遇到更大的值时用 exp(m_old − m_new) 把已经累加的部分重新缩放——这正是 FlashAttention 用的办法。",
        "en": "Three softmaxes, equal in exact maths. The naive one takes exp(s) as it is: a large score overflows "
        "exp to inf, and inf/inf is NaN. The safe one subtracts the row's maximum m first, so the largest exp "
        "is exactly 1. The online one makes one pass over the keys, keeping the running maximum m and "
        "normaliser l, and rescales what it has summed by exp(m_old − m_new) whenever a larger score comes: "
        "the trick FlashAttention uses.",
    },
    "softmax.max.row": {
        "zh": "这一行是模型的 softmax 实际看到的输入（已除以 √d_k，被屏蔽的键为 −1e9），乘以 {gain}。"
        "倍数 1 时最大的可见分数是 {row_max:.3f}；exp 在 float32 中超过 {t32:.2f}、在 float16 中超过 {t16:.2f} 就溢出。",
        "en": "This row is what the model's softmax sees (already ÷√d_k, blocked keys −1e9), times {gain}. At gain 1 "
        "its largest visible score is {row_max:.3f}; exp overflows above {t32:.2f} in float32 and {t16:.2f} in "
        "float16.",
    },
    "softmax.max.breaks_from": {
        "zh": "在这一行上，朴素 softmax 从倍数 {g32} 起在 float32 中出错，从倍数 {g16} 起在 float16 中出错。",
        "en": "On this row the naive softmax breaks from gain {g32} in float32 and from gain {g16} in float16.",
    },
    "softmax.max.never": {"zh": "（列表中的倍数都不会）", "en": "(no gain of the list)"},
    "softmax.max.naive_ok": {
        "zh": "{dtype}：没有溢出（最大分数 {top:.3f} < {thr:.2f}），朴素 softmax 与精确值的最大差 {diff:.2e}。",
        "en": "{dtype}: no overflow (largest score {top:.3f} < {thr:.2f}); naive vs exact softmax, max |difference| "
        "{diff:.2e}.",
    },
    "softmax.max.naive_broken": {
        "zh": "{dtype}：exp(s) 在 {n} 个键上溢出成 inf（s > {thr:.2f}），朴素 softmax 得到 {nan} 个 NaN、{zero} 个被错误地变成 0 的权重。",
        "en": "{dtype}: exp(s) overflows to inf at {n} keys (s > {thr:.2f}); the naive softmax gives {nan} NaN and "
        "{zero} weights wrongly wiped to 0.",
    },
    "softmax.max.sum_overflow": {
        "zh": "{dtype}：单个 exp 都没溢出，但它们的和超过了 {dtype} 的最大值：朴素 softmax 的权重全被压成 0。",
        "en": "{dtype}: no single exp overflows, but their sum passes {dtype}'s largest number: the naive weights "
        "are all crushed to 0.",
    },
    "softmax.max.sum_underflow": {
        "zh": "{dtype}：没有 exp 溢出，但每个 exp(s) 都下溢成 0（最大分数 {top:.3f} 的 exp 在 {dtype} 里也舍入为 0）："
        "和为 0，朴素 softmax 的每个权重都是 0/0 = NaN。",
        "en": "{dtype}: no exp overflows, but every exp(s) underflows to 0 (even the largest score's, {top:.3f}, rounds "
        "to 0 in {dtype}): the sum is 0 and every naive weight is 0/0 = NaN.",
    },
    "softmax.max.scores_inf": {
        "zh": "{dtype}：放大后的分数本身已经超过 {dtype} 能表示的最大数（65504），连分数都是 inf。",
        "en": "{dtype}: the scaled scores themselves exceed the largest {dtype} number (65504): the scores are inf "
        "before any exp.",
    },
    "softmax.max.safe_ok": {
        "zh": "安全 softmax 与精确值最大差 {safe:.2e}，在线 softmax {online:.2e}（容差 {tol:.1e}）。",
        "en": "Safe softmax vs exact: {safe:.2e}; online softmax: {online:.2e} (tolerance {tol:.1e}).",
    },
    "softmax.max.safe_off": {
        "zh": "安全 softmax 与精确值最大差 {safe:.2e}，在线 softmax {online:.2e}，超出容差 {tol:.1e}。",
        "en": "Safe softmax vs exact: {safe:.2e}; online softmax: {online:.2e}, beyond the tolerance {tol:.1e}.",
    },
    "softmax.max.blocked": {
        "zh": "掩码屏蔽了这一行的所有键：float32 中每格 −1e9，权重均匀；float16 中 −1e9 变成 −inf，三种方法都得到 NaN。",
        "en": "The mask blocks every key of this row: in float32 every cell is −1e9 and the weights are uniform; in "
        "float16 −1e9 becomes −inf and all three give NaN.",
    },
    "softmax.max.col.key": {"zh": "键", "en": "key"},
    "softmax.max.col.exact": {"zh": "精确（float64）", "en": "exact (float64)"},
    "softmax.max.col.naive": {"zh": "朴素", "en": "naive"},
    "softmax.max.col.safe": {"zh": "安全", "en": "safe"},
    "softmax.max.col.online": {"zh": "在线", "en": "online"},
    "softmax.max.col.m": {"zh": "在线 m", "en": "online m"},
    "softmax.max.col.l": {"zh": "在线 l", "en": "online l"},
    "softmax.max.shown": {
        "zh": "这一行有 {total} 个键，表中是说明问题的 {shown} 个：分数最大的键 {top}、最后一个键，以及在线 m 变大的键"
        "（{grows} 个中的 {grows_shown} 个）{rest}；⋯ 是省略的键。打开“每个键”可看全部 {total} 个。",
        "en": "{shown} of the row's {total} keys, the ones that tell the story: the largest score (key {top}), the "
        "last key, and where the online m grows ({grows_shown} of {grows}){rest}; ⋯ stands for the keys left out. "
        "Switch on “Every key” to see all {total}.",
    },
    "softmax.max.shown_overflow": {
        "zh": "这一行有 {total} 个键，表中是说明问题的 {shown} 个：分数最大的键 {top}、最后一个键、在线 m 变大的键"
        "（{grows} 个中的 {grows_shown} 个），以及 exp(s) 溢出的键（{over} 个中的 {over_shown} 个，分数大的在先）{rest}；"
        "⋯ 是省略的键。打开“每个键”可看全部 {total} 个。",
        "en": "{shown} of the row's {total} keys, the ones that tell the story: the largest score (key {top}), the "
        "last key, where the online m grows ({grows_shown} of {grows}) and where exp(s) overflows ({over_shown} of "
        "{over}, largest score first){rest}; ⋯ stands for the keys left out. Switch on “Every key” to see all {total}.",
    },
    "softmax.max.shown_wiped": {
        "zh": "这一行有 {total} 个键，表中是说明问题的 {shown} 个：分数最大的键 {top}、最后一个键、在线 m 变大的键"
        "（{grows} 个中的 {grows_shown} 个）、exp(s) 溢出的键（{over} 个中的 {over_shown} 个，分数大的在先），"
        "以及朴素 softmax 错误地变成 0 的权重中精确值最大的键 {wiped}{rest}；⋯ 是省略的键。打开“每个键”可看全部 {total} 个。",
        "en": "{shown} of the row's {total} keys, the ones that tell the story: the largest score (key {top}), the "
        "last key, where the online m grows ({grows_shown} of {grows}), where exp(s) overflows ({over_shown} of "
        "{over}, largest score first), and key {wiped}, the largest exact weight the naive softmax wipes to 0{rest}; ⋯ "
        "stands for the keys left out. Switch on “Every key” to see all {total}.",
    },
    "softmax.max.shown.rest": {
        "zh": "；其余几行是这一行精确权重最大的键",
        "en": "; the other lines are the row's largest exact weights",
    },
    "softmax.max.table_about": {
        "zh": "每行一个键（按在线扫描的顺序）：被屏蔽的键标 ✕。m 和 l 是在线 softmax 扫过这个键之后的值。",
        "en": "Each line is a key, in the online pass's order; blocked keys are marked ✕. m and l are the online "
        "softmax's values after it has read that key.",
    },
    # 3. Tile by tile
    "softmax.tiles.title": {
        "zh": "3. 一块一块地算：FlashAttention 的前向",
        "en": "3. Tile by tile: FlashAttention's forward pass",
    },
    "softmax.tiles.intro": {
        "zh": "查询按 block_q 行分块，键和值按 block_k 行分块。对每个（查询块, 键块）只算一小块注意力分数 S，"
        "用在线 softmax 的 m、l 更新每一行，把 P·V 累加进未归一化的输出 acc；一个查询块的所有键块都算完后，"
        "输出 O = acc / l。整个 T×T 矩阵从来没有出现过。因果掩码下，完全被屏蔽的块直接跳过。",
        "en": "Queries are cut into tiles of block_q rows, keys and values into tiles of block_k rows. For each "
        "(query tile, key tile) only a small tile of scores S is computed; the online softmax's m and l "
        "update each row, and P·V is added into the unnormalised output acc; once a query tile has seen "
        "all its key tiles, its output is O = acc / l. The T×T matrix never exists. Under a causal mask, "
        "tiles that are fully blocked are skipped.",
    },
    "softmax.tiles.now": {
        "zh": "第 **{step} / {n}** 步：查询块 {i}（行 {q0}–{q1}）× 键块 {j}（键 {k0}–{k1}）。"
        "共 {tiles} 块，跳过 {skipped} 块（到这一步之前跳过了 {skipped_before} 块）。",
        "en": "Step **{step} of {n}**: query tile {i} (rows {q0}–{q1}) × key tile {j} (keys {k0}–{k1}). "
        "{tiles} tiles in all, {skipped} skipped ({skipped_before} of them before this step).",
    },
    "softmax.tiles.scores_about": {
        "zh": "完整的注意力分数矩阵只是为了看清楚才画出来：当前块加粗框，跳过的块以灰框标出，被掩码屏蔽的格子是灰色的。",
        "en": "The full score matrix is drawn only so you can see where you are: the current tile is outlined, the "
        "skipped tiles are framed in grey, and the cells the mask blocks are grey.",
    },
    "softmax.tiles.rows_title": {"zh": "这一块各行的 m 和 l", "en": "This tile's rows: m and l"},
    "softmax.tiles.col.row": {"zh": "行（查询）", "en": "row (query)"},
    "softmax.tiles.col.m_old": {"zh": "m_old", "en": "m_old"},
    "softmax.tiles.col.m_new": {"zh": "m_new", "en": "m_new"},
    "softmax.tiles.col.rescale": {"zh": "exp(m_old − m_new)", "en": "exp(m_old − m_new)"},
    "softmax.tiles.col.l": {"zh": "l", "en": "l"},
    "softmax.tiles.writes": {
        "zh": "这是查询块 {i} 的最后一个键块：这几行的输出 O = acc / l 写出。",
        "en": "This is query tile {i}'s last key tile: its rows' output O = acc / l is written.",
    },
    "softmax.tiles.output_about": {
        "zh": "已写出的行是最终结果，正在算的行显示当前的 acc / l，还没开始的行是空的。",
        "en": "Written rows are final, the rows being computed show acc / l so far, rows not started yet are empty.",
    },
    "softmax.tiles.result_later": {
        "zh": "走到最后一步（第 {n} 步），上面的输出下方会出现分块结果与普通路径的并排比较。",
        "en": "At the last step (step {n}) the tiled result appears under the output above, beside the plain path's.",
    },
    "softmax.tiles.equal": {
        "zh": "分块结果与普通路径相同：这个头的最大差 {head:.2e}，所有 {h} 个头 {all:.2e}，与 PyTorch 的 "
        "F.scaled_dot_product_attention 相比 {sdpa:.2e}，最后的 l 与未归一化权重的行和的相对差 {l:.2e}（容差 {tol:.0e}）。"
        "处理了 {steps} 块，跳过 {skipped} 块。",
        "en": "The tiled result equals the plain path: this head max |difference| {head:.2e}, all {h} heads "
        "{all:.2e}, against PyTorch's F.scaled_dot_product_attention {sdpa:.2e}, the last l against the row sums "
        "of the unnormalised weights (relative) {l:.2e} (tolerance {tol:.0e}). {steps} tiles processed, "
        "{skipped} skipped.",
    },
    "softmax.tiles.not_equal": {
        "zh": "分块结果与普通路径不同：这个头 {head:.2e}，所有头 {all:.2e}，SDPA {sdpa:.2e}，l {l:.2e}（容差 {tol:.0e}）。",
        "en": "The tiled result differs from the plain path: this head {head:.2e}, all heads {all:.2e}, SDPA "
        "{sdpa:.2e}, l {l:.2e} (tolerance {tol:.0e}).",
    },
    "softmax.tiles.traffic": {
        "zh": "到这一步为止从内存读写的数：Q {read_q:,}，K {read_k:,}，V {read_v:,}，写出 O {write_o:,}。",
        "en": "Numbers moved to and from memory up to this step: Q {read_q:,}, K {read_k:,}, V {read_v:,}, "
        "O written {write_o:,}.",
    },
    "softmax.mem.title": {"zh": "内存：最大的中间结果", "en": "Memory: the largest intermediate"},
    "softmax.mem.about": {
        "zh": "普通路径要存下每个头完整的 T×T 注意力分数（float32，每个数 4 字节）；分块路径一次只存一块 "
        "block_q × block_k。下表用当前的 d_k = {d_k}、h = {h}：每个 T 都用你选的块大小 {bq} × {bk}，长上下文再加上"
        "真实内核的块大小（FlashAttention 这类内核每块 64–128 行）。读写量按每个头计：分块路径每个查询块都要把 K、V "
        "重读一遍，块越大，重读越少。",
        "en": "The plain path stores every head's full T×T scores (float32, 4 bytes a number); the tiled path "
        "holds one block_q × block_k tile at a time. The table uses the current d_k = {d_k} and h = {h}: your "
        "blocks {bq} × {bk} at every T, and at the long contexts also a real kernel's tile (kernels such as "
        "FlashAttention use tiles of 64–128 rows). Traffic is per head: the tiled path reads K and V again for "
        "every query tile, so larger blocks reread less.",
    },
    "softmax.mem.col.blocks": {"zh": "块大小", "en": "blocks"},
    "softmax.mem.kernel": {"zh": "{bq} × {bk}（内核）", "en": "{bq} × {bk} (kernel)"},
    "softmax.mem.col.vs_plain": {"zh": "分块 ÷ 普通", "en": "tiled ÷ plain"},
    "softmax.mem.pays": {
        "zh": "块大小 {bq} × {bk}：在 {T} 个词元时，分块路径的读写量是普通路径的 {ratio} 倍，更少：分块省下了读写。",
        "en": "Blocks {bq} × {bk}: at {T} tokens the tiled path moves {ratio}× the plain path's numbers, fewer: "
        "tiling saves memory traffic.",
    },
    "softmax.mem.costs": {
        "zh": "块大小 {bq} × {bk}：在 {T} 个词元时，分块路径的读写量是普通路径的 {ratio} 倍，反而更多："
        "省下的是内存，不是读写。",
        "en": "Blocks {bq} × {bk}: at {T} tokens the tiled path moves {ratio}× the plain path's numbers, more, "
        "not fewer: it saves memory, not traffic.",
    },
    "softmax.mem.rule": {
        "zh": "原因：每个查询块都要重读一遍 K 和 V，共约 2·T·d_k·T/block_q 个数，而普通路径读写 4·T² 个分数。"
        "所以只有 block_q 至少约为 d_k/2 = {half} 时，分块才少读写；真实内核用 64–128 行的块。",
        "en": "Why: every query tile rereads K and V, about 2·T·d_k·T/block_q numbers, against the plain path's 4·T² "
        "numbers of scores. So tiling moves fewer numbers only once block_q reaches about d_k/2 = {half}; real "
        "kernels use tiles of 64–128 rows.",
    },
    "softmax.mem.col.T": {"zh": "T", "en": "T"},
    "softmax.mem.col.scores": {"zh": "T×T 分数（每个头）", "en": "T×T scores (one head)"},
    "softmax.mem.col.all": {"zh": "T×T 分数（{h} 个头）", "en": "T×T scores ({h} heads)"},
    "softmax.mem.col.tile": {"zh": "一块", "en": "one tile"},
    "softmax.mem.col.ratio": {"zh": "T×T ÷ 一块", "en": "T×T ÷ tile"},
    "softmax.mem.col.plain": {"zh": "读写（普通）", "en": "traffic (plain)"},
    "softmax.mem.col.tiled": {"zh": "读写（分块）", "en": "traffic (tiled)"},
    "softmax.mem.col.causal": {"zh": "读写（分块，因果）", "en": "traffic (tiled, causal)"},
    "softmax.mem.col.skipped": {"zh": "因果下跳过的块", "en": "tiles skipped (causal)"},
    "softmax.mem.current": {"zh": "{T}（当前）", "en": "{T} (now)"},
    # Predict-then-reveal questions of lessons/softmax/ quiz_questions (joined to the Quiz page by lessons/quiz/sources.py).
    # Format with **q.params, **q.facts, answer=q.answer; entropy_order also e1, e2, e3 = facts["entropies"];
    # dot_variance also expr = "q·k / √d_k" if params["scaled"] else "q·k".
    "softmax.quiz.causal_skipped.prompt": {
        "zh": "T = {T} 个标记，因果掩码，查询块 block_q = {block_q} 行，键块 block_k = {block_k} 行。"
        "分块前向计算会整块跳过多少个（查询块, 键块）？",
        "en": "T = {T} tokens, a causal mask, query tiles of block_q = {block_q} rows and key tiles of block_k = "
        "{block_k}. How many (query tile, key tile) pairs does the tiled forward pass skip entirely?",
    },
    "softmax.quiz.causal_skipped.why": {
        "zh": "键块的第一个键在查询块最后一个查询之后时，整块都被屏蔽：{total} 块中跳过 {answer} 块，处理 {processed} 块。",
        "en": "A tile whose first key comes after its last query is fully blocked: {answer} of the {total} tiles are "
        "skipped, {processed} processed.",
    },
    "softmax.quiz.tile_count.prompt": {
        "zh": "T = {T}，block_q = {block_q}，block_k = {block_k}，没有掩码：一共有多少个（查询块, 键块）？（T 不一定能被块大小整除。）",
        "en": "T = {T}, block_q = {block_q}, block_k = {block_k}, no mask: how many (query tile, key tile) pairs are "
        "there? (T need not divide by the block sizes.)",
    },
    "softmax.quiz.tile_count.why": {
        "zh": "⌈T / block_q⌉ × ⌈T / block_k⌉ = {n_q_tiles} × {n_k_tiles} = {answer}：每个方向最后一块短一些。",
        "en": "⌈T / block_q⌉ × ⌈T / block_k⌉ = {n_q_tiles} × {n_k_tiles} = {answer}: the last tile of each axis "
        "is shorter.",
    },
    "softmax.quiz.entropy_order.prompt": {
        "zh": "d_k = {d_k} 时，把同一行注意力分数分别除以 1、√d_k、d_k 后做 softmax。按熵从低（最接近独热）到高排列这三种。",
        "en": "At d_k = {d_k}, one row of scores is divided by 1, by √d_k and by d_k, then put through the softmax. "
        "Order the three from the lowest entropy (most one-hot) to the highest.",
    },
    "softmax.quiz.entropy_order.why": {
        "zh": "÷1 < ÷√d_k < ÷d_k：除数越大，分数的差距越小，softmax 越平。当前运行（头 {head}，第 {row} 行，d_k = {run_d_k}）"
        "{run_note}",
        "en": "÷1 < ÷√d_k < ÷d_k: the larger the divisor, the smaller the spread of the scores and the flatter the "
        "softmax. In the current run (head {head}, row {row}, d_k = {run_d_k}) {run_note}",
    },
    "softmax.quiz.entropy_order.run_agrees": {
        "zh": "的熵依次是 {e1} < {e2} < {e3}。",
        "en": "the entropies are {e1} < {e2} < {e3}.",
    },
    "softmax.quiz.entropy_order.run_d_k_1": {
        "zh": "的熵是 {e1}、{e2}、{e3}，三个相同：d_k = 1 时 √d_k = d_k = 1，三个除数都是 1。",
        "en": "the entropies are {e1}, {e2}, {e3}, all the same: at d_k = 1, √d_k = d_k = 1, so the three divisors "
        "are all 1.",
    },
    "softmax.quiz.entropy_order.run_close": {
        "zh": "的熵是 {e1}、{e2}、{e3}，保留三位小数时看不出差别：这一行的分数几乎相同（或只看得到一个键），"
        "除以多少都改变不了多少。",
        "en": "the entropies are {e1}, {e2}, {e3}, not apart at three decimals: this row's scores hardly differ (or "
        "it sees a single key), so no divisor changes its softmax much.",
    },
    "softmax.quiz.overflow_threshold.prompt": {
        "zh": "在 {dtype} 中，分数 s 超过多少时 exp(s) 会溢出成 inf？（误差 {slack} 以内算对）",
        "en": "Above which score s does exp(s) overflow to inf in {dtype}? (within {slack} counts)",
    },
    "softmax.quiz.overflow_threshold.why": {
        "zh": "{dtype} 能表示的最大数是 {max:.6g}，所以 s > ln({max:.6g}) ≈ {answer} 时 exp(s) 溢出。安全的 softmax 先减去最大值，永远不会走到这里。",
        "en": "The largest {dtype} number is {max:.6g}, so exp(s) overflows once s > ln({max:.6g}) ≈ {answer}. The "
        "safe softmax subtracts the maximum first and never gets there.",
    },
    "softmax.quiz.dot_variance.prompt": {
        "zh": "q 和 k 各有 d_k = {d_k} 个独立分量，每个分量均值 0、方差 1。{expr} 的方差是多少？",
        "en": "q and k each have d_k = {d_k} independent components with mean 0 and variance 1. What is the "
        "variance of {expr}?",
    },
    "softmax.quiz.dot_variance.why": {
        "zh": "q·k 是 d_k 个方差为 1 的独立乘积之和，方差为 d_k = {d_k}；除以 √d_k 后方差为 1。答案：{answer}。",
        "en": "q·k is a sum of d_k independent products of variance 1, so its variance is d_k = {d_k}; divided by "
        "√d_k it is 1. Answer: {answer}.",
    },
    "softmax.quiz.score_bytes.prompt": {
        "zh": "对 T = {T:,} 个标记做自注意力，float32（每个数 {bytes_per_number} 字节）：一个头的 T×T 注意力分数矩阵占多少字节？",
        "en": "Self-attention over T = {T:,} tokens in float32 ({bytes_per_number} bytes a number): how many bytes "
        "does one head's T×T score matrix take?",
    },
    "softmax.quiz.score_bytes.why": {
        "zh": "T × T × {bytes_per_number} = {answer:,} 字节。分块（FlashAttention）的内核从不存下它，一次只存一块。",
        "en": "T × T × {bytes_per_number} = {answer:,} bytes. A tiled (FlashAttention) kernel never stores it, only "
        "one tile at a time.",
    },
}
