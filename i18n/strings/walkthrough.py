"""Strings of the walkthrough page (pages/walkthrough.py). Chinese wording follows the seed text.

LaTeX entries are used without format arguments (their braces are LaTeX, not placeholders).
"""

STRINGS = {
    "walk.intro": {
        "zh": "跟着输入 X 走过多头注意力的每一步：每一步都给出公式、计算它的那一行代码（直接取自本应用的源码）、"
        "带轴名的形状，以及每个注意力头的数值。",
        "en": "Follow the input X through every step of multi-head attention: for each step, the formula, the line of "
        "code that computes it (taken from this app's own source), the shape with named axes, and the numbers "
        "of every head.",
    },
    # Navigation
    "walk.view": {"zh": "视图", "en": "View"},
    "walk.view.step": {"zh": "单步", "en": "One step"},
    "walk.view.all": {"zh": "全部步骤", "en": "All steps"},
    "walk.view.present": {"zh": "演示模式", "en": "Presenter"},
    "walk.view.legend": {
        "zh": "单步：一次看一步，可以追踪一个格子。全部步骤：十步的公式、代码和形状依次列出。"
        "演示模式：给投影仪用的大字版，公式、形状和热力图同屏，用 ← → 键（或翻页笔）翻步。",
        "en": "One step: a step at a time, with one cell's story. All steps: the formula, code and shape of all ten "
        "in a row. Presenter: large type for a projector, formula, shape and heatmap on one screen; step with "
        "← → (or a presenter clicker).",
    },
    "walk.present.keys": {"zh": "← → 键翻步", "en": "← → to step"},
    "walk.present.code": {"zh": "代码", "en": "Code"},
    "walk.step": {"zh": "步骤", "en": "Step"},
    "walk.prev": {"zh": "上一步", "en": "Previous"},
    "walk.next": {"zh": "下一步", "en": "Next"},
    "walk.step_of": {"zh": "第 {n} 步，共 {total} 步", "en": "Step {n} of {total}"},
    "walk.pipeline": {"zh": "形状流水线", "en": "Shape pipeline"},
    "walk.link": {
        "zh": "地址栏中的链接指向当前步骤和视图：老师可以把它直接发给学生。",
        "en": "The address bar links to this step and view: a teacher can send it straight to the class.",
    },
    "walk.heads_capped": {
        "zh": "每页 {n} 个头；全部 {h} 个头共用一个颜色刻度。",
        "en": "{n} heads per page; all {h} heads share one colour scale.",
    },
    "walk.all.open": {
        "zh": "全部十步依次列出，每一步都有公式、代码和形状；一次只画出一步的张量（在这里选择，或点击某一步下面的按钮）。",
        "en": "All ten steps are listed, each with its formula, code and shape; the tensors of one step at a time "
        "are drawn (choose it here, or with the button under a step).",
    },
    "walk.all.show": {"zh": "画出第 {n} 步的张量", "en": "Draw the tensors of step {n}"},
    "walk.role": {"zh": "显示哪个张量的拆分", "en": "Tensor to split"},
    "walk.project.role": {"zh": "显示哪个投影", "en": "Projection to show"},
    "walk.project.one": {
        "zh": "d_model = {d_model} 时，q、k、v 各有 {d_model} 列，并排放不下：一次显示一个，三者共用一个色标。"
        "它们来自同一个 X，只是乘了不同的权重矩阵。",
        "en": "At d_model = {d_model}, q, k and v are {d_model} columns wide each, too many to sit side by side: "
        "one at a time, on one colour scale for all three. All three come from the same X, through "
        "different weights.",
    },
    # Warnings about URL values
    "walk.bad_url": {
        "zh": "链接里的 {param} = “{given}” 无效，已改用 {used}。",
        "en": "The link's {param} = “{given}” is not valid; using {used}.",
    },
    # Step panels
    "walk.code_where": {"zh": "位置：`{where}`", "en": "From `{where}`"},
    "walk.shape": {"zh": "形状", "en": "Shape"},
    "walk.hover": {
        "zh": "把鼠标悬停在格子上可以看到精确数值；同一步骤的所有图共用一个颜色刻度。",
        "en": "Hover a cell for its exact value; every chart of one step shares one colour scale.",
    },
    "walk.axis.token": {"zh": "标记", "en": "token"},
    "walk.axis.col": {"zh": "列", "en": "column"},
    "walk.axis.query": {"zh": "查询", "en": "query"},
    "walk.axis.key": {"zh": "键", "en": "key"},
    "walk.axis.head": {"zh": "头", "en": "head"},
    "walk.axis.vector": {"zh": "向量", "en": "vector"},
    "walk.axis.term": {"zh": "项", "en": "term"},
    "walk.chart.tensor": {"zh": "{name}", "en": "{name}"},  # a tensor's code name (x, q, k, v, concat, output)
    "walk.chart.head": {"zh": "头 {head}", "en": "head {head}"},  # a head's panel
    "walk.chart.mix_part": {"zh": "这个头 {d_k} 列中的第 {a}–{b} 列", "en": "columns {a}–{b} of this head's {d_k}"},
    # --- step names on the step pills (the URL keeps the neutral name: walk_step=softmax)
    "walk.input.short": {"zh": "输入", "en": "input"},
    "walk.project.short": {"zh": "投影", "en": "project"},
    "walk.split.short": {"zh": "拆分", "en": "split"},
    "walk.scores.short": {"zh": "分数", "en": "scores"},
    "walk.scale.short": {"zh": "缩放", "en": "scale"},
    "walk.mask.short": {"zh": "掩码", "en": "mask"},
    "walk.softmax.short": {"zh": "softmax", "en": "softmax"},
    "walk.mix.short": {"zh": "加权求和", "en": "weighted sum"},
    "walk.concat.short": {"zh": "拼接", "en": "concat"},
    "walk.output.short": {"zh": "输出", "en": "output"},
    # --- step titles, texts and formulas
    "walk.input.title": {"zh": "输入 X", "en": "The input X"},
    "walk.input.text": {
        "zh": "自注意力：查询、键和值的输入是同一个矩阵 X，每个标记 (token) 一行，每行 d_model 个数。"
        "这里的 X 由随机种子生成，标记只是给各行起名字。公式里的 query、key、value 是 forward 的三个参数"
        "（种子文本写作 Q、K、V）；它们的投影 q、k、v 见第 2 步。",
        "en": "Self-attention: the query, key and value inputs are all the same matrix X, one row of d_model "
        "numbers per token. Here X comes from the random seed; the tokens only name the rows. In the formula, "
        "query, key and value are forward's three arguments (the seed text calls them Q, K, V); their "
        "projections q, k, v are step 2.",
    },
    "walk.input.latex": {
        "zh": r"\text{query} = \text{key} = \text{value} = X \in \mathbb{R}^{T \times d_{model}}",
        "en": r"\text{query} = \text{key} = \text{value} = X \in \mathbb{R}^{T \times d_{model}}",
    },
    "walk.project.title": {"zh": "线性投影：q、k、v", "en": "The projections q, k, v"},
    "walk.project.text": {
        "zh": "三个学到的线性层把 X 的每一行变成一个查询、一个键和一个值。一个 d_model × d_model 的线性层里"
        "并排存放了所有头的投影 $W^Q_i$（nn.Linear 还会加上偏置 $b^Q$）。代码里的名字也是这样：输入 x，投影结果 q、k、v。",
        "en": "Three learned linear layers turn every row of X into a query, a key and a value. One "
        "d_model × d_model layer holds every head's $W^Q_i$ side by side (nn.Linear also adds a bias $b^Q$). The names are the code's: the input x, the projections q, k, v.",
    },
    "walk.project.latex": {
        "zh": r"\begin{gathered} q = XW^Q + b^Q \\ k = XW^K + b^K \\ v = XW^V + b^V \end{gathered} \quad \in \mathbb{R}^{T \times d_{model}}",
        "en": r"\begin{gathered} q = XW^Q + b^Q \\ k = XW^K + b^K \\ v = XW^V + b^V \end{gathered} \quad \in \mathbb{R}^{T \times d_{model}}",
    },
    "walk.split.title": {"zh": "拆分成多个注意力头", "en": "Split into heads"},
    "walk.split.text": {
        "zh": "view 把最后一个轴（d_model 列）切成 h 块，每块 d_k 列：头 i 得到 q、k、v 的第 i·d_k 到 "
        "(i+1)·d_k − 1 列。随后 transpose(1, 2) 把头这个轴移到批次旁边，每个头成为一个独立的 T × d_k 矩阵。"
        "数值一个都没变。头 i 的切片 $q_i$ 就是种子文本里的 $QW^Q_i$（这里 Q = X，另加偏置 $b^Q_i$）。",
        "en": "view cuts the last axis (the d_model columns) into h blocks of d_k columns: head i gets columns "
        "i·d_k to (i+1)·d_k − 1 of q, k and v. transpose(1, 2) then moves the head axis next to the batch, "
        "so each head is its own T × d_k matrix. Not one number changes. Head i's slice $q_i$ is what the seed "
        "text writes $QW^Q_i$ (with Q = X here, plus the bias $b^Q_i$).",
    },
    "walk.split.mistake": {
        "zh": "常见误解：以为是把标记（行）分给各个头。其实每个头都看到全部 {T} 个标记；分给各个头的是列。",
        "en": "The common mistake: thinking the tokens (rows) are shared out. Every head sees all {T} tokens; "
        "it is the columns that are shared out.",
    },
    "walk.split.map": {"zh": "头 {i} ← 第 {a}–{b} 列", "en": "head {i} ← columns {a}–{b}"},
    "walk.split.check": {
        "zh": "已检查：对每个头 i，q_heads[:, i] 与 q[:, :, i·d_k:(i+1)·d_k] 完全相同（k、v 也一样），最大差值 {diff:.1e}。",
        "en": "Checked: for every head i, q_heads[:, i] equals q[:, :, i·d_k:(i+1)·d_k] (and likewise for k and v); "
        "max difference {diff:.1e}.",
    },
    "walk.split.check_off": {
        "zh": "不相等：q_heads 与 q 按列切出的块最多相差 {diff:.1e}。切分只是搬动数字，差值应当正好为 0。",
        "en": "Not equal: q_heads differs from the column blocks of q (or k, v) by up to {diff:.1e}. A split only moves "
        "numbers, so the difference should be exactly 0.",
    },
    "walk.split.band": {
        "zh": "上方色带：{role} 的每一列属于哪个头（每块 d_k = {d_k} 列）。下方：每个头得到的 T × d_k 切片，列号沿用 {role} 中的原列号。",
        "en": "Top band: which head owns each column of {role} (blocks of d_k = {d_k}). Below: the T × d_k slice "
        "each head gets, its columns numbered as in {role}.",
    },
    "walk.split.strip": {
        "zh": "每个头一个面板：它得到的 {role} 的 T × d_k 切片（每块 d_k = {d_k} 列，列号沿用 {role} 中的原列号；{role} 本身见第 2 步），"
        "上方的色条是这个头的颜色。",
        "en": "One panel per head: the T × d_k slice of {role} it gets (blocks of d_k = {d_k} columns, numbered as in "
        "{role}; {role} itself is step 2), the strip above it in the head's colour.",
    },
    "walk.split.latex": {
        "zh": r"\begin{gathered} q_i = (XW^Q + b^Q)[:,\; i d_k : (i+1) d_k] \\ = XW^Q_i + b^Q_i \in \mathbb{R}^{T \times d_k} \\ W^Q_i = W^Q[:,\; i d_k : (i+1) d_k] \in \mathbb{R}^{d_{model} \times d_k} \\ d_k = d_{model} / h \end{gathered}",
        "en": r"\begin{gathered} q_i = (XW^Q + b^Q)[:,\; i d_k : (i+1) d_k] \\ = XW^Q_i + b^Q_i \in \mathbb{R}^{T \times d_k} \\ W^Q_i = W^Q[:,\; i d_k : (i+1) d_k] \in \mathbb{R}^{d_{model} \times d_k} \\ d_k = d_{model} / h \end{gathered}",
    },
    "walk.scores.title": {"zh": "注意力分数 qᵢkᵢᵀ", "en": "Scores qᵢkᵢᵀ"},
    "walk.scores.text": {
        "zh": "在每个头里，每个查询行与每个键行做点积：第 (i, j) 个元素表示标记 i 的查询与标记 j 的键有多匹配。"
        "所有头在一次批量矩阵乘法中同时计算。",
        "en": "In each head, every query row is dotted with every key row: entry (i, j) says how well token i's "
        "query matches token j's key. All heads are computed in one batched matrix product.",
    },
    "walk.scores.latex": {
        "zh": r"S_i = q_i\, k_i^\top \in \mathbb{R}^{T \times T}",
        "en": r"S_i = q_i\, k_i^\top \in \mathbb{R}^{T \times T}",
    },
    "walk.scale.title": {"zh": "缩放：除以 √d_k", "en": "Scale by √d_k"},
    "walk.scale.text": {
        "zh": "除以 √d_k = √{d_k} = {root:.4g}：使分数的分布范围不随每个头的维度变化，softmax 就不会饱和。",
        "en": "Divide by √d_k = √{d_k} = {root:.4g}: the scores' spread no longer grows with the head width, "
        "so the softmax does not saturate.",
    },
    "walk.scale.latex": {"zh": r"\frac{S_i}{\sqrt{d_k}}", "en": r"\frac{S_i}{\sqrt{d_k}}"},
    "walk.mask.title": {"zh": "掩码", "en": "The mask"},
    "walk.mask.text": {
        "zh": "掩码为 0 的位置在 softmax 之前被填成 −1e9，softmax 之后它们的权重约为 0。当前掩码：{kind}，"
        "屏蔽了 {blocked}/{total} 个位置（图中深色）。",
        "en": "Cells where the mask is 0 are set to −1e9 before the softmax, so their weight becomes ≈ 0. "
        "Mask: {kind}, {blocked} of {total} cells blocked (dark in the charts).",
    },
    "walk.mask.full_rows": {
        "zh": "但 {T} 行中有 {n} 行的键全被屏蔽：整行都是 −1e9，softmax 给每个位置同样的 1/T = {u}，而不是约 0"
        "（见“掩码实验室”的整行屏蔽）。",
        "en": "But the mask blocks every key of {n} of the {T} rows: the whole row is −1e9, and the softmax gives "
        "every cell the same 1/T = {u}, not ≈ 0 (see the Masks lab on fully blocked rows).",
    },
    "walk.mask.none": {
        "zh": "当前没有选择掩码：masked_scores 就是缩放后的分数，保持不变。在侧边栏选择一种掩码可以看到它的作用。",
        "en": "No mask is selected: masked_scores is the scaled scores, unchanged. Choose a mask in the sidebar "
        "to see it act.",
    },
    "walk.mask.grid": {"zh": "掩码（浅色 = 保留，深色 = 屏蔽）", "en": "Mask (light = keep, dark = blocked)"},
    "walk.mask.latex": {
        "zh": r"\tilde S_i[a,b] = \begin{cases} S_i[a,b]/\sqrt{d_k} & \text{mask}[a,b] = 1 \\ -10^9 & \text{mask}[a,b] = 0 \end{cases}",
        "en": r"\tilde S_i[a,b] = \begin{cases} S_i[a,b]/\sqrt{d_k} & \text{mask}[a,b] = 1 \\ -10^9 & \text{mask}[a,b] = 0 \end{cases}",
    },
    "walk.softmax.title": {"zh": "对每一行做 softmax", "en": "Softmax over the keys"},
    "walk.softmax.text": {
        "zh": "每一行变成一组和为 1 的正权重：查询 i 从每个键那里取多少。已检查：每行之和都为 1（最大偏差 {dev:.1e}）。",
        "en": "Each row becomes positive weights that sum to 1: how much query i takes from each key. Checked: every "
        "row sums to 1 (max deviation {dev:.1e}).",
    },
    "walk.softmax.follow": {
        "zh": "在下方“追踪一个格子”中可以查看任一格子的完整计算过程。",
        "en": "Follow any cell's whole story in “Follow one cell” below.",
    },
    "walk.softmax.latex": {
        "zh": r"\begin{gathered} A_i = \operatorname{softmax}\!\left(\tilde S_i\right) \\ A_i[a,b] = \frac{e^{\tilde S_i[a,b]}}{\sum_{c} e^{\tilde S_i[a,c]}} \end{gathered}",
        "en": r"\begin{gathered} A_i = \operatorname{softmax}\!\left(\tilde S_i\right) \\ A_i[a,b] = \frac{e^{\tilde S_i[a,b]}}{\sum_{c} e^{\tilde S_i[a,c]}} \end{gathered}",
    },
    "walk.mix.title": {"zh": "对 V 加权求和", "en": "Weighted sum of V"},
    "walk.mix.text": {
        "zh": "每个头的第 a 个输出行 = 第 a 行的权重对各个值向量的加权求和：它关注的那些标记的值的混合。"
        "每个头的输出是 T × d_v，其中 d_v = d_k = {d_k}。",
        "en": "Row a of each head's output is the weights of row a applied to the value rows: a mix of the values "
        "of the tokens it attends to. Each head gives T × d_v, with d_v = d_k = {d_k}.",
    },
    "walk.mix.latex": {
        "zh": r"\text{头}_i = \text{注意力}(q_i, k_i, v_i) = A_i\, v_i \in \mathbb{R}^{T \times d_v}",
        "en": r"\text{head}_i = \text{Attention}(q_i, k_i, v_i) = A_i\, v_i \in \mathbb{R}^{T \times d_v}",
    },
    "walk.concat.title": {"zh": "拼接各个头", "en": "Concatenate the heads"},
    "walk.concat.text": {
        "zh": "拆分的逆过程：transpose 转置回来，contiguous() 按新顺序复制到内存，view 再把各个头并排放好，"
        "头 i 的输出重新占据第 i·d_v 到 (i+1)·d_v − 1 列。h · d_v = {h} · {d_k} = {d_model} = d_model。",
        "en": "The split in reverse: transpose back, contiguous() copies the data into that order, and view lays the "
        "heads side by side, so head i's output fills columns i·d_v to (i+1)·d_v − 1 again. "
        "h · d_v = {h} · {d_k} = {d_model} = d_model.",
    },
    "walk.concat.check": {
        "zh": "已检查：concat 的第 i·d_v 到 (i+1)·d_v − 1 列正是头 i 的输出，最大差值 {diff:.1e}。",
        "en": "Checked: columns i·d_v to (i+1)·d_v − 1 of concat are exactly head i's output; max difference {diff:.1e}.",
    },
    "walk.concat.check_off": {
        "zh": "不相等：concat 的列与各头的输出最多相差 {diff:.1e}。拼接只是搬动数字，差值应当正好为 0。",
        "en": "Not equal: the columns of concat differ from the heads' outputs by up to {diff:.1e}. Concatenation only "
        "moves numbers, so the difference should be exactly 0.",
    },
    "walk.concat.latex": {
        "zh": r"\text{concat} = \text{拼接}(\text{头}_0, \ldots, \text{头}_{h-1}) \in \mathbb{R}^{T \times (h \cdot d_v)}",
        "en": r"\text{concat} = \text{Concat}(\text{head}_0, \ldots, \text{head}_{h-1}) \in \mathbb{R}^{T \times (h \cdot d_v)}",
    },
    "walk.output.title": {"zh": "输出投影 Wᴼ", "en": "The output projection Wᴼ"},
    "walk.output.text": {
        "zh": "最后一个学到的线性层 $W^O$（加上偏置 $b^O$）把各个头的列混合在一起；结果与 X 的形状相同。",
        "en": "A last learned linear layer, $W^O$ (plus its bias $b^O$), mixes the heads' columns together; the result has the shape of X.",
    },
    "walk.output.latex": {
        "zh": r"\text{output} = \text{多头}(X, X, X) = \text{拼接}(\text{头}_0, \ldots, \text{头}_{h-1})\,W^O + b^O",
        "en": r"\text{output} = \text{MultiHead}(X, X, X) = \text{Concat}(\text{head}_0, \ldots, \text{head}_{h-1})\,W^O + b^O",
    },
    # Reference check
    "walk.reference": {
        "zh": "实时验证：本页的结果等于 torch.nn.MultiheadAttention（使用相同权重）的结果。"
        "输出的最大绝对误差 {out:.2e}，注意力权重的最大绝对误差 {w:.2e}。",
        "en": "Checked live: this page's result equals torch.nn.MultiheadAttention with the same weights. "
        "Max abs difference: {out:.2e} for the output, {w:.2e} for the attention weights.",
    },
    "walk.reference_blocked": {
        "zh": "实时验证：在保留了键的 {kept} 行上，本页的结果等于 torch.nn.MultiheadAttention（使用相同权重）的结果。"
        "输出的最大绝对误差 {out:.2e}，注意力权重的最大绝对误差 {w:.2e}。另外 {n} 行的键全被屏蔽，两边按设计不同："
        "这里填 −1e9，权重是均匀的 1/T；PyTorch 的布尔掩码填 −inf，得到 NaN。",
        "en": "Checked live: on the {kept} rows that keep a key, this page's result equals torch.nn.MultiheadAttention "
        "with the same weights. Max abs difference: {out:.2e} for the output, {w:.2e} for the attention weights. "
        "The other {n} row(s) keep no key and differ by design: here they are filled with −1e9 and get uniform "
        "weights 1/T; PyTorch's boolean mask fills −inf and gives NaN.",
    },
    "walk.reference_off": {
        "zh": "实时验证失败：本页的结果与 torch.nn.MultiheadAttention（使用相同权重）不一致。"
        "输出的最大绝对误差 {out:.2e}，注意力权重的最大绝对误差 {w:.2e}。",
        "en": "Checked live: this page's result does NOT match torch.nn.MultiheadAttention with the same weights. "
        "Max abs difference: {out:.2e} for the output, {w:.2e} for the attention weights.",
    },
    # Drill-down
    "walk.drill.title": {"zh": "追踪一个格子", "en": "Follow one cell"},
    "walk.drill.help": {
        "zh": "用下面的选择框选一个格子（或打开图，点击热图中的一个格子）：查询 a 对键 b 的注意力权重是怎样一步步算出来的。",
        "en": "Choose a cell with the selectors (or turn on the charts and click a cell of the heatmap): how the "
        "weight of query a on key b is computed, step by step.",
    },
    "walk.drill.charts": {
        "zh": "显示这个格子的图（可点击的权重热图、q_a 与 k_b、V 的混合）",
        "en": "Show this cell's charts (clickable weights, q_a and k_b, the mix of V)",
    },
    "walk.drill.head": {"zh": "注意力头", "en": "Head"},
    "walk.drill.i": {"zh": "查询位置 a（行）", "en": "Query position a (row)"},
    "walk.drill.j": {"zh": "键位置 b（列）", "en": "Key position b (column)"},
    "walk.drill.chart": {"zh": "头 {head} 的注意力权重（点击一个格子）", "en": "Weights of head {head} (click a cell)"},
    "walk.drill.cell": {
        "zh": "头 {head}，查询 a = {i}（“{qi}”），键 b = {j}（“{kj}”）",
        "en": "Head {head}, query a = {i} (“{qi}”), key b = {j} (“{kj}”)",
    },
    "walk.drill.s1": {
        "zh": "**① 取出向量。** q_a 是 q 第 {i} 行的第 {c0}–{c1} 列（头 {head} 的列），k_b 是 k 第 {j} 行的同样这些列，各 d_k = {d_k} 个数。",
        "en": "**① The vectors.** q_a is row {i} of q, columns {c0}–{c1} (head {head}'s columns); k_b is row {j} of k, "
        "the same columns; d_k = {d_k} numbers each.",
    },
    "walk.drill.s2": {
        "zh": "**② 点积。** 逐个相乘再相加：",
        "en": "**② Dot product.** Multiply element by element, then add:",
    },
    "walk.drill.s3": {"zh": "**③ 缩放。** 除以 √d_k = {root:.4g}：", "en": "**③ Scale.** Divide by √d_k = {root:.4g}:"},
    "walk.drill.s4_keep": {
        "zh": "**④ 掩码。** 掩码[{i}, {j}] = 1，保留：进入 softmax 的值仍是 {v:.4f}。",
        "en": "**④ Mask.** mask[{i}, {j}] = 1, kept: the value entering the softmax stays {v:.4f}.",
    },
    "walk.drill.s4_block": {
        "zh": "**④ 掩码。** 掩码[{i}, {j}] = 0，被屏蔽：值被替换成 {fill:.0e}，softmax 之后权重约为 0。",
        "en": "**④ Mask.** mask[{i}, {j}] = 0, blocked: the value is replaced by {fill:.0e}, so its weight will be ≈ 0.",
    },
    "walk.drill.s4_none": {
        "zh": "**④ 掩码。** 没有掩码：值保持 {v:.4f}。",
        "en": "**④ Mask.** No mask: the value stays {v:.4f}.",
    },
    "walk.drill.s5": {
        "zh": "**⑤ 对整行做 softmax。** 第 {i} 行的最大值 m = {m:.4f}，Σ e^(s−m) = {total:.4f}，所以",
        "en": "**⑤ Softmax over the whole row {i}.** The row's max m = {m:.4f}, Σ e^(s−m) = {total:.4f}, so",
    },
    "walk.drill.s6": {
        "zh": "**⑥ 用这一行权重混合 V 的各行。** 头 {head} 的输出第 {i} 行 = Σ_b 权重[{i}, b] · v_b。权重最大的几项：{top}",
        "en": "**⑥ This row of weights mixes the rows of V.** Row {i} of head {head}'s output = Σ_b weight[{i}, b] · v_b. "
        "Largest terms: {top}",
    },
    "walk.drill.check": {
        "zh": "手算结果与模型的中间张量一致（最大差值 {diff:.1e}）。",
        "en": "The hand computation matches the model's own tensors (max difference {diff:.1e}).",
    },
    "walk.drill.vectors": {"zh": "q_a、k_b 及逐元素乘积", "en": "q_a, k_b and their element-wise product"},
    "walk.drill.mixchart": {
        "zh": "每一行是 权重 × v_b；最后一行 Σ 是它们的和，即这个头的输出行。",
        "en": "Each row is weight × v_b; the last row, Σ, is their sum: this head's output row.",
    },
    "walk.drill.col.key": {"zh": "键 b", "en": "key b"},
    "walk.drill.col.token": {"zh": "标记", "en": "token"},
    "walk.drill.col.scaled": {"zh": "缩放后分数", "en": "scaled score"},
    "walk.drill.col.mask": {"zh": "掩码", "en": "mask"},
    "walk.drill.col.masked": {"zh": "进入 softmax 的值 s", "en": "value s into softmax"},
    "walk.drill.col.exp": {"zh": "e^(s−m)", "en": "e^(s−m)"},
    "walk.drill.col.weight": {"zh": "权重", "en": "weight"},
    "walk.drill.in_steps": {
        "zh": "追踪格子出现在第 4–8 步（分数、缩放、掩码、softmax、加权求和）。",
        "en": "The cell drill-down appears on steps 4–8 (scores, scale, mask, softmax, weighted sum).",
    },
}
