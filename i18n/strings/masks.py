"""Strings of the Masks lab page (pages/masks.py). Chinese follows the seed: 掩码, 填充, 解码器中的未来标记."""

STRINGS = {
    "masks.intro": {
        "zh": "掩码决定每个查询可以关注哪些键。种子文本在 softmax 之前应用掩码（例如，用于填充或解码器中的未来标记）："
        "被屏蔽的位置填入 -1e9，softmax 之后它们的权重就是 0。",
        "en": "A mask decides which keys each query may look at. The seed applies it before the softmax "
        "(for padding, or for the future tokens in a decoder): blocked cells are filled with -1e9, "
        "so after the softmax their weight is 0.",
    },
    # Sections (tabs, in the order a lesson goes): the id is in the URL (?masks_tab=row), the label is not
    "masks.tab.grid": {"zh": "掩码 → 分数 → 权重", "en": "Mask → scores → weights"},
    "masks.tab.row": {"zh": "仔细看一行", "en": "One row up close"},
    "masks.tab.full": {"zh": "整行被屏蔽", "en": "Fully blocked rows"},
    "masks.tab.polarity": {"zh": "极性与它引起的错误", "en": "Polarity and its bug"},
    # Controls
    "masks.controls": {"zh": "本页的掩码设置", "en": "This page's mask settings"},
    "masks.kind_from_sidebar": {
        "zh": "起点是侧边栏的掩码：**{kind}**。可以在这里再叠加其他掩码。",
        "en": "The starting point is the sidebar's mask: **{kind}**. Add more masks on top here.",
    },
    "masks.extra": {"zh": "再叠加（逐格取“与”）", "en": "Combine with (cell-wise AND)"},
    "masks.extra.help": {
        "zh": "只有所有掩码都保留的格子才会被保留。因果掩码：不能看后面的标记；填充掩码：不能看 [PAD]。",
        "en": "A cell is kept only if every mask keeps it. Causal: no peeking at later tokens; padding: no attending to [PAD].",
    },
    "masks.in_use": {"zh": "正在使用的掩码：{parts}", "en": "Mask in use: {parts}"},
    "masks.in_use.none": {
        "zh": "正在使用的掩码：无（每个查询都能看到所有键）",
        "en": "Mask in use: none (every query sees every key)",
    },
    "masks.cross": {"zh": "交叉注意力（T_q ≠ T_k）", "en": "Cross-attention (T_q ≠ T_k)"},
    "masks.cross.help": {
        "zh": "查询来自 X（T_q = 序列长度 T），键和值来自另一个序列（长度 T_k），例如解码器关注编码器的输出。",
        "en": "Queries come from X (T_q = sequence length T), keys and values from a second sequence of length T_k, "
        "as when a decoder attends to the encoder's output.",
    },
    "masks.tk": {"zh": "键/值序列长度 T_k", "en": "Key/value length T_k"},
    "masks.batch": {"zh": "批次大小 B（填充掩码）", "en": "Batch size B (padding)"},
    "masks.batch.help": {
        "zh": "B = 2：两句长度不同的句子放进同一个批次，短的那句在末尾用 [PAD] 填充。",
        "en": "B = 2: two sentences of different lengths in one batch; the shorter one is padded with [PAD] at the end.",
    },
    "masks.pad": {"zh": "末尾的填充标记数", "en": "Padding tokens at the end"},
    "masks.len": {"zh": "序列 {b} 的真实长度", "en": "Real length of sequence {b}"},
    "masks.polarity": {"zh": "掩码的极性：1（True）表示什么？", "en": "Mask polarity: what does 1 (True) mean?"},
    "masks.polarity.keep.label": {"zh": "1 = 保留", "en": "1 = keep"},
    "masks.polarity.block.label": {"zh": "1 = 屏蔽", "en": "1 = block"},
    "masks.polarity.keep": {
        "zh": "种子文本的约定，1 = 保留，mask == 0 的位置被屏蔽。",
        "en": "The seed's convention, 1 = keep; cells where mask == 0 are blocked.",
    },
    "masks.polarity.block": {
        "zh": "许多库的约定，True = 屏蔽（例如 torch.nn.MultiheadAttention 的 attn_mask 和 key_padding_mask）。",
        "en": "The convention of many libraries, True = blocked (e.g. attn_mask and key_padding_mask "
        "of torch.nn.MultiheadAttention).",
    },
    "masks.fill": {"zh": "填充值（被屏蔽位置的分数）", "en": "Fill value (score of a blocked cell)"},
    "masks.fill.help": {
        "zh": "-1e9 与种子文本相同；-inf 是另一种常见选择。只有当一整行都被屏蔽时，两者才有区别（见“整行被屏蔽”）。",
        "en": "-1e9 as in the seed; -inf is the other common choice. They differ only when a whole row is blocked "
        "(see “Fully blocked rows”).",
    },
    "masks.head": {"zh": "显示哪个注意力头", "en": "Head shown"},
    "masks.head.help": {
        "zh": "掩码对所有头都一样；分数和权重每个头不同。",
        "en": "The mask is the same for every head; the scores and weights differ per head.",
    },
    "masks.fixed": {
        "zh": "{what} = “{given}” 在这里无效，已改用 {used}。",
        "en": "{what} = “{given}” is not valid here; using {used}.",
    },
    "masks.hover.keep": {"zh": "保留", "en": "keep"},
    "masks.hover.blocked": {"zh": "屏蔽", "en": "blocked"},
    "masks.hover.mask.keep": {"zh": "mask = {v}（1 = 保留）", "en": "mask = {v} (1 = keep)"},
    "masks.hover.mask.block": {"zh": "mask = {v}（1 = 屏蔽）", "en": "mask = {v} (1 = blocked)"},
    "masks.state.keep": {"zh": "保留", "en": "keep"},
    "masks.state.blocked": {"zh": "屏蔽", "en": "blocked"},
    # Custom editor
    "masks.editor": {"zh": "手绘掩码", "en": "Hand-drawn mask"},
    "masks.cell.i": {"zh": "查询（行）i", "en": "Query (row) i"},
    "masks.cell.j": {"zh": "键（列）j", "en": "Key (column) j"},
    "masks.cell.toggle": {"zh": "切换这个格子", "en": "Toggle this cell"},
    "masks.editor.how": {
        "zh": "点击下方“掩码”网格中的格子来切换它（浅色 = 保留，深色 = 屏蔽），"
        "或者用键盘：选好行 i 和列 j，再按“切换这个格子”。网格保存在链接里，可以直接分享。",
        "en": "Click a cell of the mask grid below to toggle it (light = keep, dark = blocked), or with the keyboard: "
        "choose row i and column j, then press “Toggle this cell”. The grid is part of the link, so you can "
        "share it.",
    },
    "masks.editor.combined": {
        "zh": "被 causal 或 padding 屏蔽的格子无论怎么画都保持屏蔽。",
        "en": "Cells blocked by causal or padding stay blocked whatever you draw.",
    },
    "masks.btn.all_on": {"zh": "全部保留", "en": "All on"},
    "masks.btn.all_off": {"zh": "全部屏蔽", "en": "All off"},
    "masks.btn.causal": {"zh": "因果", "en": "Causal"},
    "masks.btn.invert": {"zh": "反转", "en": "Invert"},
    "masks.grid_text": {
        "zh": "掩码文本（每行由 0/1 组成，行之间用 . 分隔）",
        "en": "Mask as text (rows of 0/1, separated by '.')",
    },
    "masks.grid_text.help": {
        "zh": "1 = 保留，0 = 屏蔽（种子文本的约定），与上面的极性开关无关。留空 = 默认的局部窗口。",
        "en": "1 = keep, 0 = blocked (the seed's convention), whatever the polarity switch says. "
        "Empty = the default local window.",
    },
    "masks.grid_unfit": {
        "zh": "手绘掩码必须是 {T_q} 行、每行 {T_k} 个 0/1 字符，当前文本不符合（可能是 T 改变了），已改用默认的局部窗口。"
        "点击格子或按钮会从这个默认网格开始重新绘制。",
        "en": "The hand-drawn mask must be {T_q} rows of {T_k} characters 0/1; the current text does not fit "
        "(T may have changed), so the default local window is used. Clicking a cell or a button starts "
        "again from that default.",
    },
    # Main figures
    "masks.figures": {"zh": "掩码、被屏蔽后的分数和权重", "en": "The mask, the masked scores and the weights"},
    "masks.sequence": {"zh": "序列 {b}（真实长度 {n}）", "en": "Sequence {b} (real length {n})"},
    "masks.fig.mask.keep": {"zh": "掩码（1 = 保留）", "en": "mask (1 = keep)"},
    "masks.fig.mask.block": {"zh": "掩码（1 = 屏蔽）", "en": "mask (1 = block)"},
    "masks.fig.scores": {"zh": "被屏蔽的分数，头 {h}", "en": "masked scores, head {h}"},
    "masks.fig.weights": {"zh": "softmax 权重，头 {h}", "en": "softmax weights, head {h}"},
    "masks.fig.correct": {"zh": "正确的极性，头 {h}", "en": "right polarity, head {h}"},
    "masks.fig.bug": {"zh": "错误的极性，头 {h}", "en": "wrong polarity, head {h}"},
    "masks.legend": {
        "zh": "掩码：浅色 = 保留，深色 = 屏蔽。分数：灰色斜线格子在 softmax 之前被填成 {fill}（颜色只显示未被屏蔽的分数）。"
        "权重：被屏蔽的格子正好是 0；灰色斜线、写着 NaN 的格子是 NaN（整行都被屏蔽）。",
        "en": "Mask: light = keep, dark = blocked. Scores: hatched grey cells hold {fill} before the softmax (the colours "
        "only cover the kept scores). Weights: blocked cells are exactly 0; a hatched cell marked NaN is NaN "
        "(its whole row is blocked).",
    },
    "masks.numbers_hint": {
        "zh": "悬停在格子上可以看到精确数值；打开侧边栏的“在格子里显示数值”，分数和权重会直接写在格子里"
        "（“仔细看一行”列出一整行）。",
        "en": "Hover a cell for its exact value; turn on “Numbers in the cells” in the sidebar to print the scores "
        "and weights in their cells (“One row up close” lists a whole row).",
    },
    "masks.shapes": {
        "zh": "掩码形状 {mask_shape} 广播到分数形状 (B, h, T_q, T_k) = {scores_shape}：所有 {h} 个头共用同一个掩码。",
        "en": "Mask shape {mask_shape} broadcasts to the scores' (B, h, T_q, T_k) = {scores_shape}: "
        "all {h} heads share one mask.",
    },
    "masks.check.zero": {
        "zh": "{n} / {total} 个格子被屏蔽。头 {h} 中，在还能看到至少一个键的行里，{m} 个被屏蔽格子的权重全部正好是 0"
        "（最大值 {max}）。",
        "en": "{n} of {total} cells are blocked. In head {h}, the {m} blocked cells of rows that still see a key all "
        "have weight exactly 0 (largest: {max}).",
    },
    "masks.check.none": {
        "zh": "没有被屏蔽的格子：softmax 看到的就是缩放后的分数。",
        "en": "No cell is blocked: the softmax sees the scaled scores as they are.",
    },
    "masks.cross.about": {
        "zh": "交叉注意力：分数矩阵是 T_q × T_k = {T_q} × {T_k}（长方形）。行是 X 中的查询，列是另一个序列中的键；"
        "填充掩码作用在键上（整列被屏蔽）。因果掩码在这里按左上角对齐：查询 i 只看键 0..i。",
        "en": "Cross-attention: the scores are T_q × T_k = {T_q} × {T_k} (rectangular). Rows are the queries from X, "
        "columns the keys of the other sequence; padding applies to the keys (whole columns are blocked). "
        "A causal mask is aligned top-left here: query i sees keys 0..i.",
    },
    # Row inspector
    "masks.row": {"zh": "仔细看一行", "en": "One row up close"},
    "masks.row.query": {"zh": "查询（行）", "en": "Query (row)"},
    "masks.row.seq": {"zh": "序列", "en": "Sequence"},
    "masks.row.caption": {
        "zh": "查询 {i}（{tok}），头 {h}：softmax 只作用在这一行上。",
        "en": "Query {i} ({tok}), head {h}: the softmax runs along this row.",
    },
    "masks.col.key": {"zh": "键", "en": "key"},
    "masks.col.mask": {"zh": "掩码（{polarity}）", "en": "mask ({polarity})"},
    "masks.col.scaled": {"zh": "分数 / √d_k", "en": "score / √d_k"},
    "masks.col.masked": {"zh": "屏蔽后", "en": "masked"},
    "masks.col.weight": {"zh": "权重", "en": "weight"},
    # Fully blocked rows
    "masks.full": {"zh": "填充值与整行被屏蔽", "en": "The fill value and a fully blocked row"},
    "masks.full.found": {
        "zh": "有 {n} 个查询不能关注任何键（整行被屏蔽）：{where}。当前填充值为 {fill}，{effect}",
        "en": "{n} queries may attend to no key at all (a fully blocked row): {where}. With the fill value {fill}, "
        "{effect}",
    },
    "masks.full.effect.-1e9": {
        "zh": "这些行的权重是均匀的 1/T_k = {u}：查询悄悄地关注了所有键，包括本应屏蔽的键。",
        "en": "these rows get uniform weights 1/T_k = {u}: the query quietly attends to every key, "
        "including the ones the mask meant to hide.",
    },
    "masks.full.effect.-inf": {
        "zh": "这些行的权重是 NaN，NaN 还流进了 {nan} 个查询的输出。没有报错——NaN 会悄悄传播。",
        "en": "these rows are NaN, and the NaN flows into the output of {nan} queries. Nothing raises: the NaN "
        "spreads silently.",
    },
    "masks.full.where": {"zh": "序列 {b} 的查询 {i}（{tok}）", "en": "query {i} ({tok}) of sequence {b}"},
    "masks.full.where1": {"zh": "查询 {i}（{tok}）", "en": "query {i} ({tok})"},
    "masks.full.none": {
        "zh": "现在没有整行被屏蔽的查询。下表演示：如果查询 {i} 的整行都被屏蔽会怎样。"
        "（试试：手绘掩码里“全部屏蔽”，或者把填充标记数设为 T_k。）",
        "en": "No query is fully blocked right now. The table shows what would happen if query {i}'s whole row were "
        "blocked. (Try it: All off in the hand-drawn mask, or padding = T_k.)",
    },
    "masks.full.table": {
        "zh": "查询 {i}（{tok}）这一行，两个填充值并排比较：",
        "en": "Query {i} ({tok}), the two fill values side by side:",
    },
    "masks.col.shift": {"zh": "减去行最大值", "en": "minus row max"},
    "masks.col.masked_f": {"zh": "填入 {fill}", "en": "filled with {fill}"},
    "masks.full.why": {
        "zh": "为什么？softmax 先减去这一行的最大值，再取指数（为了数值稳定）。\n\n"
        "- **-1e9**：整行都是 -1e9，最大值也是 -1e9，每一项减去最大值后都是 0，exp(0) = 1，所以每个权重都是 "
        "1/T_k。结果是一个有限的数，但它是错的：这个查询平均了所有的值。\n"
        "- **-inf**：最大值是 -inf，而 -inf − (−inf) 没有定义，得到 NaN，于是整行都是 NaN，并且流进这个查询的输出"
        "（训练时还会流进梯度）。PyTorch 不会报错。\n\n"
        "只要一行里还有一个键可见，两种填充值的结果完全相同：被屏蔽的格子 exp(很大的负数) 都正好是 0。"
        "常见的解决办法：用一个有限的很大负数（如 -1e9 或 torch.finfo(dtype).min），保证每个查询至少能看到一个键"
        "（例如它自己），或者在 softmax 之后把这些行清零并忽略它们的输出。",
        "en": "Why? The softmax first subtracts the row's maximum, then exponentiates (for numerical stability).\n\n"
        "- **-1e9**: every cell is -1e9, so the maximum is -1e9 and every cell minus the maximum is 0; exp(0) = 1, "
        "so each weight is 1/T_k. A finite number, but a wrong one: the query averages all the values.\n"
        "- **-inf**: the maximum is -inf, and -inf − (−inf) is undefined: NaN. The whole row is NaN and it flows "
        "into this query's output (and, in training, into the gradients). PyTorch does not raise.\n\n"
        "As long as one key of the row is visible, both fill values give the same result: exp(huge negative) is "
        "exactly 0 for every blocked cell. Usual fixes: a large finite negative fill (like -1e9 or "
        "torch.finfo(dtype).min), making sure every query sees at least one key (e.g. itself), or zeroing such "
        "rows after the softmax and ignoring their outputs.",
    },
    # Polarity
    "masks.pol": {"zh": "极性：1 表示“保留”还是“屏蔽”？", "en": "Polarity: does 1 mean keep or block?"},
    "masks.pol.now": {
        "zh": "“掩码 → 分数 → 权重”中的掩码网格按当前极性 **{polarity}** 显示数字；两种写法的计算结果完全相同，"
        "只要代码和约定一致：",
        "en": "The mask grid (in “Mask → scores → weights”) shows its numbers in the current polarity, "
        "**{polarity}**; both ways give exactly the same result as long as the code matches the convention:",
    },
    "masks.pol.libs": {
        "zh": "陷阱在于不同的库约定不同：torch.nn.MultiheadAttention 的布尔掩码 True = 屏蔽；"
        "F.scaled_dot_product_attention 的布尔掩码 True = 参与注意力（与种子文本相同）；"
        "Hugging Face 的 attention_mask 中 1 = 真实标记。",
        "en": "The trap: libraries disagree. torch.nn.MultiheadAttention's boolean masks mean True = blocked; "
        "F.scaled_dot_product_attention's boolean attn_mask means True = takes part (like the seed); "
        "Hugging Face's attention_mask uses 1 = real token.",
    },
    "masks.pol.check": {
        "zh": "验证：把 flip_polarity(mask)（True = 屏蔽）交给 torch.nn.MultiheadAttention（相同权重），"
        "得到的权重与我们的最大绝对误差为 {diff:.2e}。",
        "en": "Check: torch.nn.MultiheadAttention (same weights) given flip_polarity(mask) (True = blocked) "
        "gives weights within {diff:.2e} of ours.",
    },
    "masks.bug": {"zh": "极性写反的错误：关注未来", "en": "The wrong-polarity bug: attending to the future"},
    "masks.bug.setup": {
        "zh": "把一个按 True = 屏蔽 写好的因果掩码（自注意力，T = {T}）直接交给种子文本的 "
        "`masked_fill(mask == 0, {fill})`：代码把 0 当成屏蔽，于是过去和自己被屏蔽，未来反而可见。",
        "en": "Take a causal mask written as True = blocked (self-attention, T = {T}) and pass it straight to the "
        "seed's `masked_fill(mask == 0, {fill})`: the code reads 0 as blocked, so the past and the token "
        "itself are hidden and the future is visible.",
    },
    "masks.bug.stored": {"zh": "因果掩码，按 True = 屏蔽 存储", "en": "causal, stored as True = blocked"},
    "masks.bug.seen": {"zh": "种子代码实际保留的格子", "en": "what the seed's code keeps"},
    "masks.bug.first": {
        "zh": "查询 0（{tok}）本应把 100% 的权重放在自己身上；用了错误的极性，它把 {future:.0%} 的权重放在后面的标记上，"
        "放在自己身上的是 {self_w:.0%}。",
        "en": "Query 0 ({tok}) should put 100% of its weight on itself; with the wrong polarity it puts {future:.0%} on "
        "later tokens and {self_w:.0%} on itself.",
    },
    "masks.bug.last.-1e9": {
        "zh": "最后一个查询（{tok}）没有未来，整行被屏蔽：用 -1e9 时它的权重是均匀的 1/T = {u}。",
        "en": "The last query ({tok}) has no future, so its whole row is blocked: with -1e9 its weights are a "
        "uniform 1/T = {u}.",
    },
    "masks.bug.last.-inf": {
        "zh": "最后一个查询（{tok}）没有未来，整行被屏蔽：用 -inf 时它的权重是 NaN。",
        "en": "The last query ({tok}) has no future, so its whole row is blocked: with -inf its weights are NaN.",
    },
    "masks.bug.col.query": {"zh": "查询", "en": "query"},
    "masks.bug.col.cp": {"zh": "正确：过去和自己", "en": "right: past + itself"},
    "masks.bug.col.cf": {"zh": "正确：未来", "en": "right: future"},
    "masks.bug.col.bp": {"zh": "写反后：过去和自己", "en": "bug: past + itself"},
    "masks.bug.col.bf": {"zh": "写反后：未来", "en": "bug: future"},
    "masks.bug.table": {
        "zh": "每个查询的权重之和：键 0..i（过去和自己）与键 i+1..T-1（未来），头 {h}。",
        "en": "Sum of each query's weights over keys 0..i (past and itself) and keys i+1..T-1 (future), head {h}.",
    },
}
