"""Strings of the "Positions" page (pages/positions.py, lessons/positions/). Chinese follows the seed text
(查询 / 键 / 值, 注意力权重, 多头注意力, 掩码, 拼接); formulas in LaTeX with Latin symbols in both languages.

Strings without format fields are shown as written (single LaTeX braces); strings with fields go through
str.format, so their LaTeX braces are doubled.
"""

STRINGS = {
    "page.positions": {"zh": "位置", "en": "Positions"},
    "page.positions.blurb": {
        "zh": "打乱词序，多头注意力的输出只是跟着移动：它看不出顺序。正弦、可学习的位置编码和 RoPE 怎样补上位置的信息。",
        "en": "Shuffle the words and multi-head attention's output just moves along: it cannot see order. How "
        "sinusoids, a learned table and RoPE add the positions.",
    },
    "pos.intro": {
        "zh": "种子文本里的多头注意力把输入 $X$ 当作一个**集合**：$QK^\\top$、softmax 和用注意力权重对 $V$ 的加权求和，"
        "都只看每一行装的是什么，不看它排在第几。本页先用数字证明这一点，再看三种补上位置的方法。",
        "en": "Multi-head attention as the seed writes it treats its input $X$ as a **set**: $QK^\\top$, the softmax "
        "and $\\text{weights}\\,V$ look at what each row holds, never at where it sits. This page proves "
        "it with numbers, then shows three ways to add the positions.",
    },
    # tabs (ui/sections.py): the id is the URL value pos_tab=...
    "pos.tab.shuffle": {"zh": "1 打乱词序", "en": "1 Shuffle the words"},
    "pos.tab.add": {"zh": "2 加上位置", "en": "2 Add positions"},
    "pos.tab.rope": {"zh": "3 RoPE 只看距离", "en": "3 RoPE is about distance"},
    "pos.tab.learned": {"zh": "4 学到的位置表", "en": "4 The learned table"},
    # corrections of the page's URL values (lessons.url.Fix.reason)
    "pos.fix.unreadable": {
        "zh": "链接里的 {param}={given} 无法读取，改用 {used}。",
        "en": "The link's {param}={given} could not be read; using {used}.",
    },
    "pos.fix.out_of_range": {
        "zh": "链接里的 {param}={given} 超出范围，改用最接近的 {used}。",
        "en": "The link's {param}={given} is out of range; using the nearest, {used}.",
    },
    "pos.fix.odd_d_k": {
        "zh": "d_k = {given} 是奇数：RoPE 把 d_k 个数两两配对再旋转，奇数会剩下一个没有搭档的数。改用偶数 d_k = {used}。",
        "en": "d_k = {given} is odd: RoPE turns the d_k numbers in pairs, and an odd d_k leaves one number without "
        "a partner. Using the even d_k = {used}.",
    },
    "pos.fix.base_at_most_1": {
        "zh": "base = {given} 不行：base 必须大于 1（base = 1 时每一对都以同样的速度旋转，小于 1 时慢的一对反而最快）。"
        "改用默认的 {used}。",
        "en": "base = {given} cannot be used: the base must be above 1 (with base 1 every pair turns at the same "
        "speed; below 1 the slow pairs become the fast ones). Using the default {used}.",
    },
    # names shared by the sections
    "pos.kind.none": {"zh": "无位置", "en": "no positions"},
    "pos.kind.sinusoidal": {"zh": "正弦位置编码", "en": "sinusoidal"},
    "pos.kind.learned": {"zh": "可学习的位置编码", "en": "learned"},
    "pos.kind.rope": {"zh": "RoPE 旋转", "en": "RoPE"},
    "pos.panel.before": {"zh": "打乱前", "en": "before the shuffle"},
    "pos.panel.after": {"zh": "打乱后", "en": "after the shuffle"},
    "pos.axis.query": {"zh": "查询", "en": "query"},
    "pos.axis.key": {"zh": "键", "en": "key"},
    "pos.axis.token": {"zh": "标记", "en": "token"},
    "pos.axis.dimension": {"zh": "维度", "en": "dimension"},
    "pos.axis.position": {"zh": "位置", "en": "position"},
    "pos.axis.query_position": {"zh": "查询的位置 m", "en": "query position m"},
    "pos.axis.key_position": {"zh": "键的位置 n", "en": "key position n"},
    "pos.axis.distance": {"zh": "距离 m − n", "en": "distance m − n"},
    "pos.axis.score": {"zh": "缩放后的分数", "en": "scaled score"},
    "pos.head": {"zh": "注意力头", "en": "Head"},
    "pos.loading": {"zh": "正在载入真实模型……", "en": "Loading the real model…"},
    "pos.real_missing": {
        "zh": "无法载入真实模型：{error}",
        "en": "The real model could not be loaded: {error}",
    },
    "pos.note.shared_mask_not_used": {
        "zh": "侧边栏的掩码（{mask}）在这里不用：下面的开关决定有没有因果掩码。",
        "en": "The sidebar's mask ({mask}) is not used here: the switch below decides whether the causal mask is on.",
    },
    "pos.note.shuffle_gap_with_mask": {
        "zh": "侧边栏的掩码（{mask}）也属于位置：有了它，连“无位置”的打乱差距也不再是 0。选“无掩码”看干净的对比。",
        "en": "The sidebar's mask ({mask}) belongs to positions too: with it even the no-positions shuffle gap is "
        "not 0. Pick “no mask” for the clean comparison.",
    },
    "pos.note.rope_odd_d_k": {
        "zh": "当前 d_k 是奇数，RoPE 无法两两配对，所以这里不画 RoPE。",
        "en": "The current d_k is odd, so RoPE cannot pair the numbers and is not drawn here.",
    },
    "pos.note.shared_d_k_odd": {
        "zh": "共享设置的 d_k = {dk} 是奇数，不能旋转；这里用 d_k = {used} 的随机向量 q、k。",
        "en": "The shared d_k = {dk} is odd and cannot be turned; this section uses random q, k with d_k = {used}.",
    },
    "pos.note.shared_d_k_max": {
        "zh": "共享设置的 d_k = {dk} 超过了 RoPE 的上限；这里用 d_k = {used} 的随机向量 q、k。",
        "en": "The shared d_k = {dk} is above the RoPE limit; this section uses random q, k with d_k = {used}.",
    },
    # 1. shuffle the words
    "pos.shuffle.title": {"zh": "1. 打乱词序，数值不变", "en": "1. Shuffle the words: the numbers stay"},
    "pos.shuffle.about": {
        "zh": "把 $X$ 的行（标记）打乱成 $X_\\pi$（第 $i$ 行是原来的第 $\\pi(i)$ 行），用同一个模型再算一遍。"
        "没有掩码时，输出只是跟着移动：$\\text{MHA}(X_\\pi)_i = \\text{MHA}(X)_{\\pi(i)}$，"
        "注意力权重的行和列也一样移动。每一行的数值都没变，只是换了位置。打开因果掩码：掩码属于位置而不属于标记，对称就被打破了。",
        "en": "Shuffle the rows (tokens) of $X$ into $X_\\pi$ (row $i$ is the old row $\\pi(i)$) and run the same "
        "model again. Without a mask the output only moves along: "
        "$\\text{MHA}(X_\\pi)_i = \\text{MHA}(X)_{\\pi(i)}$, and the rows and columns of the attention "
        "weights move the same way. No number changes, only its place. Turn on the causal mask: the mask "
        "belongs to the positions, not to the tokens, and the symmetry breaks.",
    },
    "pos.shuffle.seed": {"zh": "打乱的种子", "en": "Shuffle seed"},
    "pos.shuffle.seed.help": {
        "zh": "同一个种子总是同样的打乱顺序，它也在链接里：全班看到同样的顺序。",
        "en": "The same seed always gives the same shuffle; it is in the link, so the class sees the same order.",
    },
    "pos.shuffle.again": {"zh": "再打乱一次", "en": "Shuffle again"},
    "pos.shuffle.causal": {"zh": "因果掩码", "en": "Causal mask"},
    "pos.shuffle.causal.help": {
        "zh": "两次运行用同一个因果掩码：位置 i 只能看到 0..i。",
        "en": "Both runs use the same causal mask: position i sees 0..i only.",
    },
    "pos.shuffle.perm": {
        "zh": "打乱：{T} 行里有 {n} 行换了位置（新行←原来的行）：{moves}",
        "en": "The shuffle moved {n} of {T} rows (new row ← old row): {moves}",
    },
    "pos.shuffle.equal": {
        "zh": "把打乱后的结果还原顺序，与原来的结果比较：输出最大绝对差 {out}，注意力权重（所有头）最大绝对差 {w}。"
        "只是浮点误差：同样的数，只是换了位置（$X$ 本身移动后的差：{x}）。",
        "en": "Put the shuffled run back in order and compare: max abs difference of the outputs {out}, of the "
        "attention weights (every head) {w}. Float error only: the same numbers, moved "
        "(X itself after the move: {x}).",
    },
    "pos.shuffle.broken": {
        "zh": "有因果掩码时还原顺序也对不上：输出最大绝对差 {out}，注意力权重 {w}（没有掩码时是 {free}）。",
        "en": "With the causal mask, putting it back in order does not match: max abs difference of the outputs "
        "{out}, of the weights {w} (without the mask: {free}).",
    },
    "pos.shuffle.front": {
        "zh": "反例：打乱后排在第 0 位的标记 **{token}** 在因果掩码下只能看到它自己，头 {h} 里它对自己的权重从 {before} 变成 {after}。",
        "en": "A counter-example: the token shuffled to the front, **{token}**, sees only itself under the causal "
        "mask; in head {h} its weight on itself goes from {before} to {after}.",
    },
    "pos.shuffle.x": {
        "zh": "输入 X：打乱前后（前 {dims} 维，共 {d} 维）。每个标记带着自己的颜色条和原来的序号移动："
        "右图第 i 行就是左图第 π(i) 行。",
        "en": "Input X before and after (the first {dims} of {d} dimensions). Each token moves with its colour "
        "strip and its original index: row i on the right is row π(i) on the left.",
    },
    "pos.shuffle.weights": {
        "zh": "头 {h} 的注意力权重：打乱后，行和列跟着标记一起移动。",
        "en": "Head {h}'s attention weights: after the shuffle, rows and columns move with their tokens.",
    },
    "pos.shuffle.output": {
        "zh": "输出：打乱前后（前 {dims} 维，共 {d} 维）。新第 i 行与原来第 π(i) 行的最大差（全部维度）：{row}。",
        "en": "Output before and after (the first {dims} of {d} dimensions). Largest difference between new row i "
        "and old row π(i) over all dimensions: {row}.",
    },
    # 2. add positions
    "pos.add.title": {"zh": "2. 加上位置", "en": "2. Add positions"},
    "pos.add.about": {
        "zh": "同一句话，四种做法：不加位置；加上正弦位置编码；加上可学习的位置编码（真实模型训练出来的表）；"
        "或者在每个头里旋转 $q$ 和 $k$（RoPE）。下面是同一个头的注意力权重，并排比较。",
        "en": "One sentence, four ways: no positions; sinusoidal positions added to $X$; learned positions added "
        "(the real model's trained table); or $q$ and $k$ turned inside every head (RoPE). Below, the "
        "attention weights of one head under each, side by side.",
    },
    "pos.model": {"zh": "模型", "en": "Model"},
    "pos.model.random": {"zh": "共享设置的随机模型", "en": "random model of the shared settings"},
    "pos.model.real": {"zh": "真实模型（all-MiniLM-L6-v2 第 0 层）", "en": "real model (all-MiniLM-L6-v2, layer 0)"},
    "pos.example": {"zh": "句子", "en": "Sentence"},
    "pos.base": {"zh": "RoPE 的 base", "en": "RoPE base"},
    "pos.base.help": {
        "zh": "第 i 对维度每个位置转 θ_i = base^(−2i/d_k) 弧度；必须大于 1。默认 10,000，Llama 3 用 500,000。",
        "en": "Pair i turns by θ_i = base^(−2i/d_k) radians per position; must be above 1. Default 10,000; "
        "Llama 3 uses 500,000.",
    },
    "pos.add.model.random": {
        "zh": "共享设置的模型：h = {h} 个头，d_model = {d}，d_k = {dk}，T = {T} 个标记。",
        "en": "The shared settings' model: h = {h} heads, d_model = {d}, d_k = {dk}, T = {T} tokens.",
    },
    "pos.add.model.real": {
        "zh": "真实模型的第 0 层（第一层：层和头都从 0 开始编号，与“真实模型的注意力头”页面相同）：h = {h} 个头，"
        "d_model = {d}，d_k = {dk}，这句话有 T = {T} 个标记（含 [CLS] 和 [SEP]）。",
        "en": "The real model's layer 0 (its first: layers and heads count from 0, as on the Real heads page): "
        "h = {h} heads, d_model = {d}, d_k = {dk}; this sentence has T = {T} tokens ([CLS] and [SEP] included).",
    },
    "pos.reason.learned_width": {
        "zh": "可学习的位置编码是真实模型的表，每行 {width} 个数；它要加到每个标记的向量上，而这里 d_model = {d}，"
        "宽度对不上。选“真实模型”看四种做法。",
        "en": "The learned positions are the real model's table, {width} numbers a row; a row is added to a token's "
        "vector, and here d_model = {d}: the widths do not match. Pick “real model” to see all four.",
    },
    "pos.reason.rope_odd_d_k": {
        "zh": "d_k = {dk} 是奇数：RoPE 把数两两配对旋转，奇数 d_k 有一个数没有搭档，所以这里不画 RoPE。",
        "en": "d_k = {dk} is odd: RoPE turns numbers in pairs and an odd d_k leaves one without a partner, so RoPE "
        "is not drawn here.",
    },
    "pos.reason.rope_d_k_max": {
        "zh": "d_k = {dk} 超过了本应用 RoPE 的上限 {max}（Llama 的头是 128），所以这里不画 RoPE。",
        "en": "d_k = {dk} is above this app's RoPE limit of {max} (Llama's heads use 128), so RoPE is not drawn here.",
    },
    "pos.add.heatmap": {
        "zh": "头 {h} 的注意力权重，每种做法一张。",
        "en": "Head {h}'s attention weights, one panel per kind.",
    },
    "pos.add.col.kind": {"zh": "做法", "en": "kind"},
    "pos.add.kind.trained": {"zh": "{kind} ★", "en": "{kind} ★"},  # the kind the real model was trained with
    "pos.add.col.shuffle": {"zh": "打乱后还原的差", "en": "shuffle gap"},
    "pos.add.col.change": {"zh": "与无位置的差", "en": "change vs none"},
    "pos.add.col.added": {"zh": "加上的向量平均长度", "en": "mean length added"},
    "pos.add.col.twin": {"zh": "{a} 与 {b} 两行的差", "en": "rows {a} vs {b}"},
    "pos.add.table": {
        "zh": "每一列都是最大绝对差（所有头）。打乱差距：打乱词序、还原后与原来的差，只有不加位置时是 0。"
        "标记向量本身的平均长度：{token}。★ 表示模型训练时用的就是这种位置。",
        "en": "Every column is a max abs difference over every head. Shuffle gap: shuffle the words, put the result "
        "back in order, compare; it is 0 only without positions. The tokens' own vectors have mean length "
        "{token}. ★ marks the kind the model was trained with.",
    },
    "pos.add.trained": {
        "zh": "同一个词出现两次时，没有位置它的两行完全相同；任何一种位置都让它们不同。模型只学过自己的位置表：正弦向量比它的标记向量长得多，"
        "会淹没词的信息。",
        "en": "A word that appears twice has two identical rows without positions; every kind of positions makes "
        "them differ. The model only learned its own table: the sinusoid rows are much longer than its "
        "token vectors and drown the words.",
    },
    "pos.add.kinds": {
        "zh": "- **正弦位置编码**（《Attention Is All You Need》）：$X + PE$，"
        "$PE_{p,2i} = \\sin(p / 10000^{2i/d_{model}})$，$PE_{p,2i+1} = \\cos(p / 10000^{2i/d_{model}})$。\n"
        "- **可学习的位置编码**：$X + E_{pos}[p]$，$E_{pos}$ 是和模型一起训练的表。\n"
        "- **RoPE**：不加任何东西；在每个头里把 $q$、$k$ 的第 $i$ 对数旋转 $p\\,\\theta_i$，"
        "$\\theta_i = \\text{base}^{-2i/d_k}$；$v$ 不旋转。",
        "en": "- **Sinusoidal** (Attention Is All You Need): $X + PE$, "
        "$PE_{p,2i} = \\sin(p / 10000^{2i/d_{model}})$, $PE_{p,2i+1} = \\cos(p / 10000^{2i/d_{model}})$.\n"
        "- **Learned**: $X + E_{pos}[p]$, with $E_{pos}$ a table trained with the model.\n"
        "- **RoPE**: nothing is added; inside every head, pair $i$ of $q$ and $k$ turns by $p\\,\\theta_i$, "
        "$\\theta_i = \\text{base}^{-2i/d_k}$; $v$ is not turned.",
    },
    # 3. RoPE
    "pos.rope.title": {"zh": "3. RoPE 只看距离", "en": "3. RoPE is about distance"},
    "pos.rope.about": {
        "zh": "把同一对 $q$、$k$ 放到查询位置 $m$ 和键位置 $n$：RoPE 把它们各自旋转 $R(m)$、$R(n)$，而"
        "$(R(m)q)\\cdot(R(n)k) = q \\cdot R(n-m)\\,k$。所以分数只取决于距离 $m-n$：下面的网格沿每条对角线都是常数。",
        "en": "Put the same $q$ and $k$ at query position $m$ and key position $n$: RoPE turns them by $R(m)$ and "
        "$R(n)$, and $(R(m)q)\\cdot(R(n)k) = q \\cdot R(n-m)\\,k$. So the score depends on the distance "
        "$m-n$ only: the grid below is constant along every diagonal.",
    },
    "pos.dk": {"zh": "d_k（偶数）", "en": "d_k (even)"},
    "pos.dk.help": {
        "zh": "RoPE 把 d_k 个数两两配对，所以 d_k 必须是偶数。等于共享设置的 d_k = {dk} 时，q、k 来自当前模型。",
        "en": "RoPE pairs the d_k numbers, so d_k must be even. At the shared d_k = {dk}, q and k come from the "
        "current model.",
    },
    "pos.grid": {"zh": "网格的位置数", "en": "Positions in the grid"},
    "pos.rope.source.scenario": {
        "zh": "q 是头 {h} 中最后一个标记 {q} 的查询，k 是第一个标记 {k} 的键（d_k = {dk}），与其他页面的数值相同。",
        "en": "q is the query of the last token {q} in head {h}, k the key of the first token {k} (d_k = {dk}): "
        "the numbers of the other pages.",
    },
    "pos.rope.source.random": {
        "zh": "q、k 是 d_k = {dk} 的随机向量（种子 {seed}）。",
        "en": "q and k are random vectors of d_k = {dk} (seed {seed}).",
    },
    "pos.rope.equal": {
        "zh": "每条对角线上最大值与最小值之差：{spread}（浮点误差）。对角线 m = n 上就是不旋转的分数 q·k/√d_k = {plain}（差 {diag}）。",
        "en": "Largest spread along any diagonal: {spread} (float error). On the diagonal m = n it is the "
        "unturned score q·k/√d_k = {plain} (difference {diag}).",
    },
    "pos.rope.not_equal": {
        "zh": "对角线上的差 {spread} 超过了浮点误差。",
        "en": "The spread along a diagonal, {spread}, exceeds float error.",
    },
    "pos.rope.grid": {
        "zh": "RoPE：(q 在 m)·(k 在 n)/√d_k，{n} × {n} 个位置。",
        "en": "RoPE: (q at m)·(k at n)/√d_k, {n} × {n} positions.",
    },
    "pos.rope.absolute": {
        "zh": "对比：把正弦位置加到 q、k 上，(q + PE_m)·(k + PE_n)/√d_k。对角线上的差：{spread}，不再只看距离。",
        "en": "Contrast: sinusoids added to q and k, (q + PE_m)·(k + PE_n)/√d_k. Spread along a diagonal: "
        "{spread}; no longer about distance only.",
    },
    "pos.rope.by_distance": {
        "zh": "分数与距离 m − n：每条对角线上的最小值和最大值（两条线重合）。",
        "en": "Score against the distance m − n: the lowest and highest cell of each diagonal (the two lines coincide).",
    },
    "pos.rope.by_distance_apart": {
        "zh": "分数与距离 m − n：每条对角线上的最小值和最大值（两条线分开了：网格沿对角线并不是常数）。",
        "en": "Score against the distance m − n: the lowest and highest cell of each diagonal (the two lines part: "
        "the grid is not constant along its diagonals).",
    },
    "pos.series.lowest": {"zh": "对角线最小值", "en": "lowest on the diagonal"},
    "pos.series.highest": {"zh": "对角线最大值", "en": "highest on the diagonal"},
    "pos.pair.title": {"zh": "一对维度在旋转", "en": "One pair of dimensions turning"},
    "pos.pair": {"zh": "第几对", "en": "Pair"},
    "pos.at": {"zh": "位置 m", "en": "Position m"},
    "pos.pair.numbers": {
        "zh": "第 {i} 对是 q 的第 {a} 维和第 {b} 维（前半和后半配对，d_k = {dk}）。"
        "每个位置转 $\\theta_{{{i}}} = {base}^{{-2\\cdot {i}/{dk}}} = {theta}$ 弧度；在位置 $m = {m}$ "
        "转了 {angle} 弧度（{turns} 圈，画出来是 {deg}°）。\n\n"
        "- 蓝色：位置 0 的 ({b0}, {b1})，长度 {lb}\n"
        "- 红色：位置 {m} 的 ({a0}, {a1})，长度 {la}（旋转不改变长度）\n"
        "- 灰点：位置 0 到 {last} 上的这一对；橙色弧：转过的角度（不足一圈的部分）",
        "en": "Pair {i} is q's dimensions {a} and {b} (first half paired with second half, d_k = {dk}). It turns "
        "by $\\theta_{{{i}}} = {base}^{{-2\\cdot {i}/{dk}}} = {theta}$ radians per position; at "
        "$m = {m}$ by {angle} radians ({turns} turns, drawn as {deg}°).\n\n"
        "- blue: at position 0, ({b0}, {b1}), length {lb}\n"
        "- red: at position {m}, ({a0}, {a1}), length {la} (a rotation keeps the length)\n"
        "- grey dots: the pair at positions 0 to {last}; orange arc: the angle turned (within one turn)",
    },
    "pos.falloff.title": {"zh": "分数随距离衰减", "en": "How a score falls off with distance"},
    "pos.falloff.about": {
        "zh": "{samples} 个随机 q（d_k = {dk}）的平均。k = q（匹配的键）时，分数从约 √d_k = {sq} 开始（这里 {start}），"
        "随距离摆动着下降：距离 {half} 以外再也回不到起点的 {env} 以上。k 与 q 无关时，|分数| 的平均不随距离变化。",
        "en": "The mean over {samples} random q (d_k = {dk}). With k = q (a matching key) the score starts near "
        "√d_k = {sq} (here {start}) and falls, wiggling, with distance: beyond distance {half} it never climbs back "
        "above {env} of its start. With k unrelated to q the mean |score| stays flat.",
    },
    "pos.falloff.swings": {
        "zh": "{samples} 个随机 q（d_k = {dk}）的平均。k = q（匹配的键）时，分数从约 √d_k = {sq} 开始（这里 {start}），"
        "但并不随距离衰减：距离 {half} 以外它又回到起点的 {env}。只有 {pairs} 对维度在旋转，它们的余弦抵消不掉；"
        "d_k 更大时才会衰减。k 与 q 无关时，|分数| 的平均不随距离变化。",
        "en": "The mean over {samples} random q (d_k = {dk}). With k = q (a matching key) the score starts near "
        "√d_k = {sq} (here {start}) but does not fall off: beyond distance {half} it swings back to {env} of its "
        "start. Few pairs of dimensions turn (d_k/2 = {pairs}), and their cosines do not average out; a wider d_k "
        "falls off. With k unrelated to q the mean |score| stays flat.",
    },
    "pos.series.matched": {"zh": "k = q（样本平均）", "en": "k = q (sample mean)"},
    "pos.series.expected": {"zh": "k = q（精确期望）", "en": "k = q (exact mean)"},
    "pos.series.unrelated": {"zh": "k 与 q 无关（|分数| 平均）", "en": "k unrelated (mean |score|)"},
    # 4. the learned table
    "pos.learned.title": {"zh": "4. 真实模型学到的位置表", "en": "4. The real model's learned position table"},
    "pos.learned.about": {
        "zh": "all-MiniLM-L6-v2 为 512 个位置各学了一行向量。两个位置的向量有多像（余弦相似度）？"
        "旁边是同样宽度的正弦位置编码，作为对比。",
        "en": "all-MiniLM-L6-v2 learned one vector for each of its 512 positions. How alike are two positions' "
        "vectors (cosine similarity)? Beside it, sinusoids of the same width for comparison.",
    },
    "pos.span": {"zh": "显示的位置数", "en": "Positions shown"},
    "pos.learned.shape": {
        "zh": "位置表的形状 ({rows}, {cols})；第 0 行的前四个数：{first}。显示位置 0 到 {last}，每 {stride} 个位置取一个。",
        "en": "The table's shape is ({rows}, {cols}); row 0 starts {first}. Positions 0 to {last}, one in every "
        "{stride} shown.",
    },
    "pos.learned.shape_all": {
        "zh": "位置表的形状 ({rows}, {cols})；第 0 行的前四个数：{first}。显示位置 0 到 {last}，每个位置都显示。",
        "en": "The table's shape is ({rows}, {cols}); row 0 starts {first}. Positions 0 to {last}, every one shown.",
    },
    "pos.learned.col.table": {"zh": "位置表", "en": "table"},
    "pos.learned.col.near": {"zh": "相邻位置的平均相似度", "en": "mean similarity of neighbours"},
    "pos.learned.col.far": {"zh": "相距至少 {half} 的平均相似度", "en": "mean similarity at least {half} apart"},
    "pos.learned.read": {
        "zh": "对角线附近的格子颜色最接近色标的 +1 端（深红；高对比度配色下是深橙），离对角线越远越接近 0 的浅色："
        "相邻位置的向量平均相似度 {near}，相距至少 {half} 的只有 {far}。训练让可学习的表也有了这种“距离感”。",
        "en": "Near the diagonal the cells are closest to the +1 end of the colour bar (deep red; deep orange in the "
        "high-contrast palette), and they pale towards 0 away from it: neighbouring positions' vectors have a mean "
        "similarity of {near}, positions at least {half} apart only {far}. Training gave the learned table a "
        "sense of distance too.",
    },
    "pos.learned.read_flat": {
        "zh": "这里相邻位置并不比远处的位置更相似：相邻 {near}，相距至少 {half} 的 {far}。",
        "en": "Here neighbouring positions are not more alike than far ones: {near} for neighbours, {far} at least "
        "{half} apart.",
    },
    # Predict, then reveal (lessons.positions.quiz_items): "<key>.prompt" and "<key>.why", formatted with the item's
    # params and answer=the computed answer; lessons/quiz/sources.py puts them in the quiz.
    "pos.q.shuffled_row.prompt": {
        "zh": "打乱后新第 i 行是原来的第 perm[i] 行，perm = {perm}。不加掩码再运行一次：输出的第 {row} 行等于原来输出的第几行？",
        "en": "After the shuffle, new row i is old row perm[i], with perm = {perm}. Run again without a mask: row {row} "
        "of the output equals which row of the original output?",
    },
    "pos.q.shuffled_row.why": {
        "zh": "没有掩码时输出跟着标记移动：新第 {row} 行就是原来的第 {answer} 行（{token}），数值完全相同。",
        "en": "Without a mask the output moves with its token: new row {row} is old row {answer} ({token}), every "
        "number the same.",
    },
    "pos.q.gap_free.prompt": {
        "zh": "打乱标记，不加掩码再运行，再把输出还原顺序。它与原来的输出相差为零（浮点误差 {tolerance} 以内）还是不为零？",
        "en": "Shuffle the tokens, run again without a mask, put the output back in order. Is it the same as the "
        "original (zero up to float error, {tolerance}) or not?",
    },
    "pos.q.gap_free.why": {
        "zh": "多头注意力对置换是等变的：没有位置信息，它只看每一行装的是什么。",
        "en": "Multi-head attention is permutation-equivariant: without positions it only sees what each row holds.",
    },
    "pos.q.gap_causal.prompt": {
        "zh": "同样的实验，但两次运行都用因果掩码。还原顺序后的差为零还是不为零？",
        "en": "The same experiment, but both runs use the causal mask. Is the difference after putting it back in "
        "order zero or not?",
    },
    "pos.q.gap_causal.why": {
        "zh": "因果掩码属于位置（位置 i 只看 0..i），不跟着标记移动：一个标记换了位置，就看到另一组键。",
        "en": "The causal mask belongs to the positions (position i sees 0..i) and does not move with the tokens: a "
        "token that moves sees another set of keys.",
    },
    "pos.q.front_self.prompt": {
        "zh": "有因果掩码时，被打乱到第 0 位的标记 {token} 对它自己的注意力权重是多少？",
        "en": "With the causal mask, what attention weight does the token shuffled to the front, {token}, give itself?",
    },
    "pos.q.front_self.why": {
        "zh": "位置 0 只能看到它自己：softmax 只有一个数，权重是 1（{answer}）。",
        "en": "Position 0 sees only itself: the softmax has one number, so the weight is 1 ({answer}).",
    },
    "pos.q.rope_diagonal.prompt": {
        "zh": "用 RoPE（d_k = {d_k}，base = {base}），同一对 q、k 在位置 (m, n) = ({m0}, {n0}) 的分数是 {score0}。"
        "放到 ({m}, {n}) 时分数是多少？",
        "en": "With RoPE (d_k = {d_k}, base = {base}) a q, k pair scores {score0} at positions (m, n) = ({m0}, {n0}). "
        "What does it score at ({m}, {n})?",
    },
    "pos.q.rope_diagonal.why": {
        "zh": "两处的距离 m − n 相同，RoPE 的分数只取决于距离：还是 {answer}。",
        "en": "Both have the same distance m − n, and a RoPE score depends on the distance only: {answer} again.",
    },
    "pos.q.rope_angle.prompt": {
        "zh": "RoPE（d_k = {d_k}，base = {base}）把第 {pair} 对维度在位置 {position} 旋转多少弧度（不约去整圈）？",
        "en": "Through how many radians (whole turns included) does RoPE (d_k = {d_k}, base = {base}) turn pair {pair} "
        "at position {position}?",
    },
    "pos.q.rope_angle.why": {
        "zh": "第 i 对每个位置转 θ_i = base^(−2i/d_k) 弧度；位置 {position} 转 {position} · θ_{pair} = {answer}。",
        "en": "Pair i turns θ_i = base^(−2i/d_k) radians per position; at position {position} that is "
        "{position} · θ_{pair} = {answer}.",
    },
    "pos.q.rope_odd.prompt": {
        "zh": "RoPE 能用在 d_k = {d_k} 的头上吗？（能 / 不能）",
        "en": "Can RoPE be used on heads of d_k = {d_k}? (yes / no)",
    },
    "pos.q.rope_odd.why": {
        "zh": "RoPE 把 d_k 个数两两配对旋转：d_k 必须是偶数（答案：{answer}）。",
        "en": "RoPE turns the d_k numbers in pairs: d_k must be even (answer: {answer}).",
    },
    "pos.q.sinusoid.prompt": {
        "zh": "d_model = {d_model} 的正弦位置编码表中，PE[{position}, {column}] 是多少？",
        "en": "In the sinusoidal table for d_model = {d_model}, what is PE[{position}, {column}]?",
    },
    "pos.q.sinusoid.why": {
        "zh": "`PE[p, 2i] = sin(p / 10000^(2i/d_model))`；第 0 列 i = 0，所以是 sin({position}) = {answer}。",
        "en": "`PE[p, 2i] = sin(p / 10000^(2i/d_model))`; column 0 has i = 0, so it is sin({position}) = {answer}.",
    },
}
