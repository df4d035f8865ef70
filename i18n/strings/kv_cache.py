"""Strings of the "KV cache, MQA, GQA" page (pages/kv-cache.py, lessons/kv_cache/). Chinese wording follows the
seed text: 查询 (Q), 键 (K), 值 (V), 注意力头, 注意力权重, 掩码."""

STRINGS = {
    # The page's title and home card (here, not in common.py: one file per page keeps merges apart).
    "page.kv-cache": {"zh": "KV 缓存与共享键值头", "en": "KV cache, MQA, GQA"},
    "page.kv-cache.blurb": {
        "zh": "聊天机器人如何一次生成一个词元而不重算一切；为什么 Llama-3 的 32 个查询头只配 8 个键/值头。",
        "en": "How a chatbot makes one token at a time without recomputing everything, and why Llama-3 gives its "
        "32 query heads only 8 K/V heads.",
    },
    "kv.intro": {
        "zh": "生成文本时，模型每一步只新增一个词元。之前所有词元的键 K 和值 V 不会再变，所以可以存起来（KV 缓存），"
        "新词元只需算出自己的一行查询、键、值。缓存随上下文变长而变大，于是现代模型让一组查询头共用同一个"
        "键/值头：h_kv = h 是普通多头注意力（MHA），h_kv = 1 是多查询注意力（MQA），介于两者之间是分组查询注意力（GQA）。",
        "en": "When a model generates text it adds one token per step. The keys K and values V of all earlier tokens "
        "never change, so they can be stored (the KV cache) and the new token computes only its own query, key "
        "and value row. The cache grows with the context, so modern models let a group of query heads share one "
        "K/V head: h_kv = h is plain multi-head attention (MHA), h_kv = 1 multi-query attention (MQA), anything "
        "between grouped-query attention (GQA).",
    },
    "kv.bad_url": {
        "zh": "链接中的 {param} = “{given}” 无效，已改用 {used}。",
        "en": "The link's {param} = “{given}” is not valid; using {used}.",
    },
    "kv.control": {"zh": "键/值头数 h_kv（h = {h} 的约数）", "en": "K/V heads h_kv (divisors of h = {h})"},
    "kv.control.help": {
        "zh": "最左边 1 = MQA（所有查询头共用一个键/值头），最右边 h = MHA（每个查询头有自己的键/值头）。",
        "en": "Far left, 1 = MQA (every query head shares one K/V head); far right, h = MHA (each query head has "
        "its own).",
    },
    "kv.control.ends": {"zh": "← MQA（h_kv = 1） · MHA（h_kv = h）→", "en": "← MQA (h_kv = 1) · MHA (h_kv = h) →"},
    "kv.kind.mha": {
        "zh": "现在：MHA，{h} 个查询头各有自己的键/值头。",
        "en": "Now: MHA, each of the {h} query heads has its own K/V head.",
    },
    "kv.kind.gqa": {
        "zh": "现在：GQA，{h} 个查询头分成 {kv} 组，每组 {g} 个查询头共用一个键/值头。",
        "en": "Now: GQA, the {h} query heads form {kv} groups; the {g} query heads of a group share one K/V head.",
    },
    "kv.kind.mqa": {
        "zh": "现在：MQA，全部 {h} 个查询头共用一个键/值头。",
        "en": "Now: MQA, all {h} query heads share one K/V head.",
    },
    "kv.tab.sharing": {"zh": "1 共享键/值头", "en": "1 Shared K/V heads"},
    "kv.tab.decode": {"zh": "2 逐词元解码", "en": "2 Decoding"},
    "kv.tab.memory": {"zh": "3 缓存大小", "en": "3 Memory"},
    "kv.tab.timing": {"zh": "4 实测时间", "en": "4 Timing"},
    # heatmap axes and panels (lessons/kv_cache/ names them by key)
    "kv.axis.token": {"zh": "词元", "en": "token"},
    "kv.axis.column": {"zh": "列", "en": "column"},
    "kv.axis.dim": {"zh": "维度（d_k）", "en": "dimension (d_k)"},
    "kv.axis.query_head": {"zh": "查询头", "en": "query head"},
    "kv.axis.kv_head": {"zh": "键/值头", "en": "K/V head"},
    "kv.axis.query": {"zh": "查询", "en": "query"},
    "kv.axis.key": {"zh": "键", "en": "key"},
    "kv.panel.head": {"zh": "头 {i} · 键/值头 {kv}", "en": "head {i} · K/V head {kv}"},
    # 1. sharing
    "kv.share.title": {"zh": "1. 哪些查询头共用哪个键/值头", "en": "1. Which query heads share which K/V head"},
    "kv.share.about": {
        "zh": "W^K 和 W^V 只投影到 h_kv × d_k 列，而 W^Q 仍然投影到 h × d_k = d_model 列。每连续 h / h_kv 个查询头"
        "读同一个键/值头；同一种颜色就是同一组。",
        "en": "W^K and W^V now project to h_kv × d_k columns only, while W^Q still projects to h × d_k = d_model. "
        "Each run of h / h_kv consecutive query heads reads the same K/V head; one colour is one group.",
    },
    "kv.share.none": {
        "zh": "MHA：查询头 i 读它自己的键/值头 i（共 {h} 个），没有共享。把滑块往左移，看查询头如何分组。",
        "en": "MHA: query head i reads its own K/V head i ({h} of them); nothing is shared. Move the slider left to "
        "see the query heads form groups.",
    },
    "kv.share.col.kv_head": {"zh": "键/值头", "en": "K/V head"},
    "kv.share.col.q_heads": {"zh": "读它的查询头", "en": "query heads that read it"},
    "kv.share.shapes": {
        "zh": "Q 的形状是 ({T}, {d})，K 和 V 是 ({T}, {w}) = ({T}, {kv} × {dk})。拆分成头后，K 是 {kh}；"
        "计算分数时把每个键/值头重复给它那组查询头，得到 {ke}（只是视图，缓存里只存 h_kv 份）。",
        "en": "Q is ({T}, {d}); K and V are ({T}, {w}) = ({T}, {kv} × {dk}). Split into heads, K is {kh}; for the "
        "scores each K/V head is repeated for its group of query heads, giving {ke} (a view: the cache holds "
        "only h_kv copies).",
    },
    "kv.share.q": {"zh": "Q = X·W^Q：({T}, {d})，不随 h_kv 变", "en": "Q = X·W^Q: ({T}, {d}), the same for every h_kv"},
    "kv.share.q_big": {
        "zh": "Q = X·W^Q 仍是 ({T}, {d})，不随 h_kv 变（这么大时只画 K）。",
        "en": "Q = X·W^Q stays ({T}, {d}) for every h_kv (at this size only K is drawn).",
    },
    "kv.share.k": {"zh": "K = X·W^K：({T}, {w})，随 h_kv 缩小", "en": "K = X·W^K: ({T}, {w}), shrinking with h_kv"},
    "kv.first_cols": {"zh": "（这么宽时只画前 {n} 列）", "en": " (only the first {n} columns drawn at this width)"},
    "kv.share.v_same": {"zh": "V = X·W^V 的形状与 K 相同。", "en": "V = X·W^V has the same shape as K."},
    "kv.share.weights": {
        "zh": "前 {n} 个查询头（共 {h} 个）的注意力权重；标题写着它读哪个键/值头。同组的头用同样的键，却有各自的查询。",
        "en": "Attention weights of the first {n} of {h} query heads; each title names the K/V head it reads. "
        "Heads of one group use the same keys but their own queries.",
    },
    "kv.share.table": {
        "zh": "**每个 h_kv 的代价**（T = {T}，一层，float32）：Q 不变，K/V、W^K/W^V 的参数和每个词元的缓存按比例缩小。",
        "en": "**Every h_kv** (T = {T}, one layer, float32): Q stays; K/V, the W^K/W^V parameters and the cache per "
        "token shrink in proportion.",
    },
    "kv.share.now": {"zh": "{kv}（当前）", "en": "{kv} (now)"},  # the h_kv column: the value shown now
    "kv.share.col.kind": {"zh": "类型", "en": "kind"},
    "kv.share.col.q": {"zh": "Q 形状", "en": "Q shape"},
    "kv.share.col.k": {"zh": "K、V 形状", "en": "K, V shape"},
    "kv.share.col.params": {"zh": "W^K + W^V 参数", "en": "W^K + W^V parameters"},
    "kv.share.col.cache": {"zh": "每个词元的缓存", "en": "cache per token"},
    "kv.share.sdpa": {
        "zh": "与 PyTorch 的 F.scaled_dot_product_attention(enable_gqa=True) 相比：最大绝对差 {diff}（比较了 {rows} 行，"
        "容差 {tol}）。",
        "en": "Against PyTorch's F.scaled_dot_product_attention(enable_gqa=True): max abs difference {diff} "
        "({rows} rows compared, tolerance {tol}).",
    },
    "kv.share.leaders": {
        "zh": "每组第一个查询头保留了 MHA 模型中它自己的键和值：它的注意力权重与 MHA 相同（最大绝对差 {diff}）；"
        "组里其他头现在读这个头的键和值。",
        "en": "The first query head of each group keeps its own keys and values from the MHA model: its weights "
        "equal the MHA's (max abs difference {diff}); the other heads of the group now read these.",
    },
    # 2. decoding
    "kv.dec.title": {"zh": "2. 有缓存时一次解码一个词元", "en": "2. Decoding one token at a time with the cache"},
    "kv.dec.about": {
        "zh": "第 t 步：新词元算出自己的查询、键、值各一行；键和值追加进缓存（缓存变成 t 行），查询与缓存里全部 t 个键"
        "算出一行分数和权重，得到一行输出。右边是对全部 T 个词元做一次因果注意力时的同一行：两者相等。",
        "en": "Step t: the new token computes one row each of query, key and value; the key and value are appended "
        "to the cache (now t rows), and the query against all t cached keys gives one row of scores and "
        "weights, then one output row. Beside it, the same row of one causal pass over all T tokens: equal.",
    },
    "kv.dec.step": {"zh": "解码步 t（1 到 {T}）", "en": "Decode step t (1 to {T})"},
    "kv.dec.next": {"zh": "下一个词元", "en": "Next token"},
    "kv.dec.head": {"zh": "查询头", "en": "Query head"},
    "kv.dec.mask_note": {
        "zh": "侧边栏选的是“{mask}”，但逐词元生成本身就是因果的：这里始终用因果掩码。",
        "en": "The sidebar's mask is “{mask}”, but generating token by token is causal by nature: this view always "
        "uses the causal mask.",
    },
    "kv.dec.now": {
        "zh": "第 **{t}** 步：新词元 **{tok}**（位置 {pos}）。缓存的 K（V 相同）形状 **{shape}** = (B, h_kv, t, d_k)，"
        "共 {bytes}。查询头 {head} 读键/值头 {kv}，与它共用的查询头：{group}。",
        "en": "Step **{t}**: new token **{tok}** (position {pos}). The cache's K (and V) is **{shape}** = "
        "(B, h_kv, t, d_k), {bytes} in all. Query head {head} reads K/V head {kv}, shared by query heads {group}.",
    },
    "kv.dec.q_row": {
        "zh": "新词元的查询：每个查询头一行（{h} × {dk}），颜色标出它读的键/值头",
        "en": "The new token's query: one row per query head ({h} × {dk}), coloured by the K/V head it reads",
    },
    "kv.dec.k_cache": {
        "zh": "缓存中键/值头 {kv} 的 K：{t} × {dk}，框出的最后一行是这一步新加的",
        "en": "K in the cache, K/V head {kv}: {t} × {dk}; the outlined last row was added this step",
    },
    "kv.dec.v_cache": {
        "zh": "缓存中键/值头 {kv} 的 V：{t} × {dk}",
        "en": "V in the cache, K/V head {kv}: {t} × {dk}",
    },
    "kv.dec.scores": {
        "zh": "一行缩放后的分数 q·kᵀ / √d_k：每个查询头一行，{t} 个缓存的键（{h} × {t}）",
        "en": "One row of scaled scores q·kᵀ / √d_k: a row per query head against the {t} cached keys ({h} × {t})",
    },
    "kv.dec.weights": {
        "zh": "有缓存：softmax 后的注意力权重（{h} × {t}）",
        "en": "With the cache: attention weights after the softmax ({h} × {t})",
    },
    "kv.dec.full_weights": {
        "zh": "一次完整因果计算：权重第 {r} 行的前 {t} 列",
        "en": "One full causal pass: row {r} of the weights, first {t} keys",
    },
    "kv.dec.output": {
        "zh": "输出行的前 {n} 个数（共 {d} 个）：有缓存的一步与完整计算的第 {r} 行",
        "en": "The first {n} of the output row's {d} numbers: the cached step vs row {r} of the full pass",
    },
    "kv.dec.col.dim": {"zh": "维度", "en": "dimension"},
    "kv.dec.col.cache": {"zh": "有缓存（一步）", "en": "with cache (one step)"},
    "kv.dec.col.full": {"zh": "完整因果计算", "en": "full causal pass"},
    "kv.dec.equal": {
        "zh": "相等：输出最大绝对差 {out}，权重最大绝对差 {w}（容差 {tol}）。",
        "en": "Equal: output max abs difference {out}, weights max abs difference {w} (tolerance {tol}).",
    },
    "kv.dec.cost.title": {
        "zh": "**第 {t} 步的乘加次数**（注意力层，一个词元的输出）",
        "en": "**Multiply-adds of step {t}** (the attention layer, one token's output)",
    },
    "kv.dec.cost.with": {"zh": "有缓存", "en": "with the cache"},
    "kv.dec.cost.without": {"zh": "无缓存（重算全部）", "en": "without (recompute all)"},
    "kv.dec.cost.saved": {"zh": "缓存省下", "en": "saved by the cache"},
    "kv.dec.cost.so_far": {
        "zh": "第 1 到第 {t} 步合计：有缓存 {w}，无缓存 {wo}，省下 {saved}。",
        "en": "Steps 1 to {t} together: {w} with the cache, {wo} without, {saved} saved.",
    },
    "kv.dec.mask.title": {
        "zh": "**一行查询的因果掩码：右下对齐**",
        "en": "**The causal mask for one query row: bottom-right aligned**",
    },
    "kv.dec.mask.bottom_right": {
        "zh": "新查询是第 {t} 个词元，因果掩码的最后一行：保留全部 {t} 个缓存的键",
        "en": "The new query is token {t}, the causal mask's last row: all {t} cached keys kept",
    },
    "kv.dec.mask.top_left": {
        "zh": "is_causal=True 的左上对齐会把这一行当成第 0 行：只保留键 0（带缓存时的常见错误）",
        "en": "is_causal=True aligns top-left and treats this row as row 0: only key 0 kept (a common bug with a cache)",
    },
    # 3. memory
    "kv.mem.title": {"zh": "3. KV 缓存的大小与上下文长度", "en": "3. KV-cache size against context length"},
    "kv.mem.formula": {
        "zh": "2 是 K 和 V 两份，L 是层数，T 是上下文长度（词元数），B 是批大小；预设模型按 fp16（2 字节），"
        "我们自己的模型按 float32（4 字节）。",
        "en": "2 for K and V, L layers, T tokens of context, batch B; the presets in fp16 (2 bytes), our own model "
        "in float32 (4 bytes).",
    },
    "kv.mem.model": {"zh": "模型", "en": "Model"},
    "kv.mem.model.help": {
        "zh": "真实模型的层数、头数和键/值头数取自它们公开的 config.json；“我们的模型”是共享设置的单层模型。",
        "en": "Layers, heads and K/V heads of the real models come from their published config.json; “our model” is "
        "the one-layer model of the shared settings.",
    },
    "kv.mem.ours_label": {"zh": "我们的模型（单层）", "en": "our model (one layer)"},
    "kv.mem.latex": {
        "zh": r"\text{字节数} = 2 \times L \times h_{kv} \times d_k \times T \times B \times \text{每个数的字节数}",
        "en": r"\text{bytes} = 2 \times L \times h_{kv} \times d_k \times T \times B \times \text{bytes per value}",
    },
    "kv.mem.context": {"zh": "表格的上下文长度", "en": "Context length of the table"},
    "kv.mem.chart": {
        "zh": "**{name}**：L = {L} 层，h = {h} 个查询头，d_k = {dk}，每个数 {b} 字节，批大小 1。曲线是 h_kv = h、一个 GQA 值和 1；"
        "粗线是这个模型自己的 h_kv。",
        "en": "**{name}**: L = {L} layers, h = {h} query heads, d_k = {dk}, {b} bytes per value, batch 1. The lines are "
        "h_kv = h, a GQA value and 1; the thick one is the model's own h_kv.",
    },
    "kv.mem.chart_stops": {
        "zh": "这个模型最多只接受 {max} 个词元的上下文，所以曲线在那里结束：更长的缓存不存在。",
        "en": "This model takes at most {max} tokens of context, so its lines end there: a longer cache does not exist.",
    },
    "kv.mem.chart_window": {
        "zh": "这个模型的每一层只看最近 {w} 个词元（滑动窗口），缓存只保留这么多：过了 {w} 个词元，曲线就变平了。",
        "en": "Each layer of this model attends to the last {w} tokens only (a sliding window), and its rolling cache "
        "keeps only those: past {w} tokens the lines are flat.",
    },
    "kv.mem.col.max": {"zh": "最长上下文", "en": "max context"},
    "kv.mem.window": {"zh": "不限（窗口 {w}）", "en": "no limit (window {w})"},
    "kv.mem.beyond": {"zh": "超出上下文", "en": "beyond its context"},  # the max context column beside says how far
    "kv.mem.capped": {"zh": "{b}（只存最近 {w} 个）", "en": "{b} (last {w} only)"},
    "kv.mem.ours_name": {"zh": "我们的模型", "en": "our model"},
    "kv.mem.line": {"zh": "h_kv = {kv}（{kind}）", "en": "h_kv = {kv} ({kind})"},
    "kv.mem.actual": {"zh": " · 实际", "en": " · actual"},
    "kv.mem.axis.x": {"zh": "上下文长度（词元）", "en": "context length (tokens)"},
    "kv.mem.table": {
        "zh": "**上下文 {ctx} 个词元时**（fp16，批大小 1）：",
        "en": "**At a context of {ctx} tokens** (fp16, batch 1):",
    },
    "kv.mem.col.model": {"zh": "模型", "en": "model"},
    "kv.mem.col.layers": {"zh": "层数", "en": "layers"},
    "kv.mem.col.heads": {"zh": "查询头", "en": "query heads"},
    "kv.mem.col.kv": {"zh": "键/值头", "en": "K/V heads"},
    "kv.mem.col.bytes": {"zh": "KV 缓存", "en": "KV cache"},
    "kv.mem.col.mha": {"zh": "若为 MHA", "en": "if it were MHA"},
    "kv.mem.col.saving": {"zh": "节省", "en": "saving"},
    "kv.mem.sources": {"zh": "数据来源：", "en": "Sources:"},
    "kv.mem.ours": {
        "zh": "**我们的模型**（一层，float32）在 h_kv = {kv}、d_k = {dk} 时，{ctx} 个词元的缓存是 {b}。",
        "en": "**Our model** (one layer, float32) with h_kv = {kv}, d_k = {dk}: {b} of cache for {ctx} tokens.",
    },
    "kv.mem.check": {
        "zh": "核对：把当前 T = {T} 个词元真正写进缓存，torch 数到 {real} 字节；公式给出 {formula} 字节。",
        "en": "Check: with the T = {T} current tokens really written into a cache, torch counts {real} bytes; the "
        "formula gives {formula}.",
    },
    # 4. timing
    "kv.time.title": {
        "zh": "4. 实测：有缓存与无缓存地生成",
        "en": "4. Measured: generating with and without the cache",
    },
    "kv.time.about": {
        "zh": "在这台服务器上用我们自己的实现生成 n 个词元：有缓存时每一步只算新词元的一行；无缓存时每一步都对"
        "目前为止的全部词元重新做一次因果注意力。点击按钮才开始计时。",
        "en": "Generate n tokens with our own core on this server: with the cache each step computes the new token's "
        "row only; without, each step runs one causal pass over every token so far. Timing starts on a click.",
    },
    "kv.time.tokens": {"zh": "生成的词元数 n", "en": "Tokens to generate n"},
    "kv.time.run": {"zh": "开始计时", "en": "Time it"},
    "kv.time.again": {"zh": "再测一次", "en": "Time it again"},
    "kv.time.running": {"zh": "正在生成 {n} 个词元……", "en": "Generating {n} tokens…"},
    "kv.time.none": {"zh": "还没有测量结果。", "en": "Nothing measured yet."},
    "kv.time.with": {"zh": "有缓存", "en": "with the cache"},
    "kv.time.without": {"zh": "无缓存", "en": "without the cache"},
    "kv.time.axis.x": {"zh": "已生成的词元数", "en": "tokens generated"},
    "kv.time.axis.y": {"zh": "累计 CPU 时间（毫秒）", "en": "total CPU time (ms)"},
    "kv.time.total_with": {"zh": "有缓存，{n} 个词元", "en": "With the cache, {n} tokens"},
    "kv.time.total_without": {"zh": "无缓存，{n} 个词元", "en": "Without, {n} tokens"},
    "kv.time.speedup": {"zh": "加速", "en": "Speed-up"},
    "kv.time.fit": {
        "zh": "拟合 时间 ∝ nᵖ：有缓存 p = {ew}（{kw}），无缓存 p = {ewo}（{kwo}）。只数乘加次数的预测：{mw} 与 {mwo}。",
        "en": "Fitting time ∝ nᵖ: with the cache p = {ew} ({kw}), without p = {ewo} ({kwo}). Counting multiply-adds "
        "alone predicts {mw} and {mwo}.",
    },
    "kv.growth.linear": {"zh": "线性", "en": "linear"},
    "kv.growth.quadratic": {"zh": "二次", "en": "quadratic"},
    "kv.growth.cubic": {"zh": "三次", "en": "cubic"},
    "kv.time.meta": {
        "zh": "每种方式各生成 {repeats} 次，每步取最快的一次；用时 {wall} 秒。两种方式输出的最大绝对差 {diff}。",
        "en": "Each mode generated {repeats} time(s), each step the fastest; {wall} s in all. The two modes' outputs "
        "differ by at most {diff}.",
    },
    "kv.time.why": {
        "zh": "为什么形状不同：无缓存时第 t 步要对 t 个词元重算投影和 t × t 的分数，n 步合计约 n²（分数部分甚至 n³）；"
        "有缓存时第 t 步只算一行投影和 t 个分数，投影占大头时合计接近线性。服务器同时为别人工作，单次测量会有噪声。",
        "en": "Why the shapes differ: without the cache step t recomputes the projections of t tokens and t × t "
        "scores, about n² over n steps (the scores even n³); with it step t computes one projection row and t "
        "scores, close to linear while the projections dominate. The server works for others too, so one "
        "measurement is noisy.",
    },
    # Predict-then-reveal questions of this page (lessons/kv_cache.quiz_questions; joined to the quiz by the lead).
    "kv.quiz.cache_shape": {
        "zh": "d_model = {d_model}，h = {h} 个查询头，h_kv = {h_kv} 个键/值头，批大小 B = {B}。逐词元解码 {t} 步之后，"
        "缓存里的 K 是什么形状？按 ({axes}) 的顺序写。",
        "en": "d_model = {d_model}, h = {h} query heads, h_kv = {h_kv} K/V heads, batch B = {B}. After {t} decode "
        "steps, what is the shape of K in the cache? Write it in the order ({axes}).",
    },
    "kv.quiz.cache_shape.why": {
        "zh": "每一步追加一行，所以有 t = {t} 行；缓存只存 h_kv = {h_kv} 个键/值头（不是 h = {h} 个），每个头 d_k = {d_k} 维。",
        "en": "Each step appends one row, so t = {t} rows; the cache holds h_kv = {h_kv} K/V heads (not h = {h}), "
        "d_k = {d_k} wide each.",
    },
    "kv.quiz.preset_bytes": {
        "zh": "{name}：{layers} 层，{heads} 个查询头，{kv_heads} 个键/值头，d_k = {head_dim}，fp16（{bytes_per_value} 字节），"
        "批大小 {batch}。{tokens} 个词元的 KV 缓存有多少 MiB？",
        "en": "{name}: {layers} layers, {heads} query heads, {kv_heads} K/V heads, d_k = {head_dim}, fp16 "
        "({bytes_per_value} bytes), batch {batch}. How many MiB is the KV cache of {tokens} tokens?",
    },
    "kv.quiz.preset_bytes.why": {
        "zh": "2 × {layers} × {kv_heads} × {head_dim} × {tokens:,} × {batch} × {bytes_per_value} = {bytes:,} 字节，"
        "除以 2²⁰ 得到 MiB。用的是键/值头数，不是查询头数。",
        "en": "2 × {layers} × {kv_heads} × {head_dim} × {tokens:,} × {batch} × {bytes_per_value} = {bytes:,} bytes; divide "
        "by 2²⁰ for MiB. It counts K/V heads, not query heads.",
    },
    "kv.quiz.shared_heads": {
        "zh": "h = {h} 个查询头，h_kv = {h_kv} 个键/值头（每组 {group} 个查询头）。哪些查询头读键/值头 {kv_head}？",
        "en": "h = {h} query heads, h_kv = {h_kv} K/V heads ({group} query heads per group). Which query heads read "
        "K/V head {kv_head}?",
    },
    "kv.quiz.shared_heads.why": {
        "zh": "查询头 i 读键/值头 i // {group}：连续的 {group} 个查询头为一组。",
        "en": "Query head i reads K/V head i // {group}: each run of {group} consecutive query heads is one group.",
    },
}
