"""Strings shared by the whole app: navigation, sidebar settings, notices, home page."""

STRINGS = {
    "app.title": {"zh": "注意力实验室", "en": "Attention Lab"},
    "app.tagline": {
        "zh": "亲手拆开多头注意力：每一步的公式、代码、形状和数值。",
        "en": "Multi-head attention, taken apart: the formula, the code, the shape and the numbers of every step.",
    },
    # Page titles (navigation)
    "page.home": {"zh": "首页", "en": "Home"},
    "page.walkthrough": {"zh": "逐步计算", "en": "Walkthrough"},
    "page.heads": {"zh": "头与形状", "en": "Heads and shapes"},
    "page.masks": {"zh": "掩码实验", "en": "Masks lab"},
    "page.real-model": {"zh": "真实模型的注意力头", "en": "Real heads"},
    "page.why-heads": {"zh": "为什么要多头", "en": "Why many heads"},
    "page.quiz": {"zh": "先预测，再揭晓", "en": "Predict, then reveal"},
    "page.walkthrough.blurb": {
        "zh": "从输入 X 出发，逐步走过投影、拆分成头、qᵢkᵢᵀ、缩放、掩码、softmax、加权求和、拼接和 Wᴼ。",
        "en": "Follow X through the projections, the head split, qᵢkᵢᵀ, the scaling, the mask, the softmax, "
        "the weighted sum, the concatenation and Wᴼ.",
    },
    "page.heads.blurb": {
        "zh": "改变头数 h 时，哪些形状变了、哪些没变？计算量和参数量为什么几乎不变？",
        "en": "What changes when you add heads, what does not, and why the cost stays about the same.",
    },
    "page.masks.blurb": {
        "zh": "因果掩码、填充掩码、手绘掩码：被屏蔽的位置在 softmax 前后到底发生了什么。",
        "en": "Causal, padding and hand-drawn masks: what really happens to the blocked cells before and after the softmax.",
    },
    "page.real-model.blurb": {
        "zh": "把预训练模型 all-MiniLM-L6-v2 的权重装进我们自己的实现，看真实的注意力头学到了什么。",
        "en": "Load the pretrained all-MiniLM-L6-v2 into our own implementation and see what real heads learned.",
    },
    "page.why-heads.blurb": {
        "zh": "现场训练一个小模型：多个头能同时学会不同的关系，单个头却做不到。",
        "en": "Train a tiny model live: several heads learn different relations at once; one head cannot.",
    },
    "page.quiz.blurb": {
        "zh": "根据当前设置出题：形状、参数个数、掩码屏蔽的格子、d_k。先作答，再看答案和讲解的那一步。",
        "en": "Questions built from the current settings: shapes, parameter counts, masked cells, d_k. Answer "
        "first, then see the answer and the step that explains it.",
    },
    # Sidebar settings
    "settings.header": {"zh": "共享设置", "en": "Shared settings"},
    "settings.d_model": {"zh": "模型维度 d_model", "en": "Model width d_model"},
    "settings.num_heads": {"zh": "头数 h（num_heads）", "en": "Heads h (num_heads)"},
    "settings.num_heads.help": {
        "zh": "只提供能整除 d_model 的头数：每个头的维度 d_k = d_model / h 必须是整数。",
        "en": "Only divisors of d_model are offered: each head's width d_k = d_model / h must be a whole number.",
    },
    "settings.seq_len": {"zh": "序列长度 T", "en": "Sequence length T"},
    "settings.mask": {"zh": "掩码", "en": "Mask"},
    "settings.seed": {"zh": "随机种子", "en": "Random seed"},
    "settings.seed.help": {
        "zh": "相同的设置和种子在每台机器上给出相同的数值：全班看到的和老师一样。",
        "en": "The same settings and seed give the same numbers on every machine: the class sees what the teacher sees.",
    },
    "settings.lang": {"zh": "语言", "en": "Language"},
    "settings.d_k": {
        "zh": "每个头的维度 d_k = {d_model} / {h} = {d_k}",
        "en": "Per-head width d_k = {d_model} / {h} = {d_k}",
    },
    "settings.share": {
        "zh": "地址栏里的链接包含全部设置：复制它，学生打开后看到的是同一个视图。",
        "en": "The address bar holds every setting: copy it and students open exactly this view.",
    },
    "mask.none": {"zh": "无掩码", "en": "no mask"},
    "mask.causal": {"zh": "因果掩码（解码器）", "en": "causal (decoder)"},
    "mask.padding": {"zh": "填充掩码", "en": "padding"},
    "mask.custom": {"zh": "自定义掩码", "en": "custom"},
    "mask.none.about": {"zh": "每个查询都能看到所有键。", "en": "Every query sees every key."},
    "mask.causal.about": {
        "zh": "位置 i 只能看到 0..i，看不到后面的标记。",
        "en": "Position i sees 0..i only, never later tokens.",
    },
    "mask.padding.about": {
        "zh": "最后约四分之一的标记是 [PAD]，任何查询都不能关注它们。",
        "en": "The last quarter of the tokens are [PAD]; no query may attend to them.",
    },
    "mask.custom.about": {"zh": "在“掩码实验”页面逐格绘制。", "en": "Drawn cell by cell on the Masks lab page."},
    "lang.zh": {"zh": "中文", "en": "中文"},
    "lang.en": {"zh": "English", "en": "English"},
    # Notices about corrected input
    "notice.corrected": {
        "zh": "设置 {key} = “{given}” 无效，已改用最接近的有效值 {used}。",
        "en": "Setting {key} = “{given}” is not valid; using the nearest valid value, {used}.",
    },
    "sections.label": {"zh": "本页的小节", "en": "Sections of this page"},  # ui/sections.py (a screen reader says it)
    "notice.page_param": {
        "zh": "链接中的 {param} = “{given}” 无效，已改用 {used}。",
        "en": "The link's {param} = “{given}” is not valid; using {used}.",
    },
    "notice.widget_reset": {
        "zh": "一个控件收到了它不能取的值 “{given}”；它保留了上一个有效值。",
        "en": "A control received “{given}”, a value it cannot take; it keeps its last valid value.",
    },
    "notice.url_too_long": {
        "zh": "链接中 {key} 的值超过了它能容纳的 {limit} 个字符，已忽略。",
        "en": "The link's value for {key} is longer than the {limit} characters it can hold; it was ignored.",
    },
    "notice.url_unknown": {
        "zh": "链接中有 {n} 个本应用不读取的参数（{keys}），已从地址栏移除。",
        "en": "The link has {n} parameter(s) this app does not read ({keys}); they were removed from the address.",
    },
    "notice.text_too_long": {
        "zh": "这段文字太长（{n} 个字符以上，最多 {limit} 个），未被采用；保留原来的内容。",
        "en": "That text is too long ({n}+ characters; at most {limit}), so it was not used; the previous text is kept.",
    },
    "notice.num_heads_divisor": {
        "zh": "h = {given} 不能整除 d_model = {d_model}，已改用 h = {used}。可选：{choices}",
        "en": "h = {given} does not divide d_model = {d_model}; using h = {used}. Valid: {choices}",
    },
    # Home page
    "home.what": {"zh": "这个应用教什么", "en": "What this app teaches"},
    "home.intro": {
        "zh": "缩放点积注意力只使用一组学到的查询（Q）、键（K）和值（V）投影，这可能会限制模型同时识别多种关系的能力。"
        "多头注意力并行运行缩放点积注意力 h 次，每次使用自己学到的线性投影；每个并行运行被称为一个“注意力头”。",
        "en": "Scaled dot-product attention uses a single set of learned query (Q), key (K) and value (V) projections, "
        "which can limit the model's ability to capture several relations at once. Multi-head attention runs "
        "scaled dot-product attention h times in parallel, each with its own learned projections; each run is "
        "called an attention head.",
    },
    "home.formula_heads": {
        "zh": "自注意力里查询、键和值的输入都是同一个 X（每个标记一行）。对每个头 i（i = 0 … h − 1），取三个投影的第 i 块列"
        "（$k_i$、$v_i$ 同理；种子文本写作 $QW^Q_i$、$KW^K_i$、$VW^V_i$，这里 Q = K = V = X，nn.Linear 另加偏置 $b$）：",
        "en": "In self-attention the query, key and value inputs are all the same X (one row per token). For each head "
        "i (i = 0 … h − 1), take the i-th block of columns of the three projections ($k_i$, $v_i$ likewise; the "
        "seed text writes $QW^Q_i$, $KW^K_i$, $VW^V_i$; here Q = K = V = X, and nn.Linear adds a bias $b$):",
    },
    "home.formula_concat": {
        "zh": "把所有头的输出拼接起来，再经过最终的线性投影 $W^O$：",
        "en": "The heads' outputs are concatenated and passed through a final projection $W^O$:",
    },
    # The home page's formulas (LaTeX, no format fields): the code's symbols in both languages, the functions named
    # as the seed names them in each (头_i、注意力、拼接、多头 in its Chinese formulas).
    "home.split.latex": {
        "zh": r"q_i = (XW^Q + b^Q)[:,\; i d_k : (i+1) d_k] = XW^Q_i + b^Q_i",
        "en": r"q_i = (XW^Q + b^Q)[:,\; i d_k : (i+1) d_k] = XW^Q_i + b^Q_i",
    },
    "home.head.latex": {
        "zh": r"\text{头}_i = \text{注意力}(q_i, k_i, v_i) = \operatorname{softmax}\!\left(\frac{q_i k_i^\top}{\sqrt{d_k}}\right)v_i",
        "en": r"\text{head}_i = \text{Attention}(q_i, k_i, v_i) = \operatorname{softmax}\!\left(\frac{q_i k_i^\top}{\sqrt{d_k}}\right)v_i",
    },
    "home.multihead.latex": {
        "zh": r"\text{多头}(X, X, X) = \text{拼接}(\text{头}_0, \dots, \text{头}_{h-1})\,W^O + b^O",
        "en": r"\text{MultiHead}(X, X, X) = \text{Concat}(\text{head}_0, \dots, \text{head}_{h-1})\,W^O + b^O",
    },
    "home.col.tensor": {"zh": "张量", "en": "tensor"},
    "home.dims": {
        "zh": "通常 d_k = d_v = d_model / h，这种划分确保了总计算成本与具有完整维度的单头注意力相似。",
        "en": "Usually d_k = d_v = d_model / h, so the total cost stays similar to a single full-width head.",
    },
    "home.pages": {"zh": "页面", "en": "Pages"},
    "home.current": {
        "zh": "当前设置：d_model = {d_model}，h = {h}，d_k = {d_k}，T = {T}，掩码：{mask}，种子 {seed}。在左侧边栏修改；每个页面都使用这些设置。",
        "en": "Current settings: d_model = {d_model}, h = {h}, d_k = {d_k}, T = {T}, mask: {mask}, seed {seed}. "
        "Change them in the sidebar; every page uses them.",
    },
    "home.shapes": {"zh": "当前设置下的形状", "en": "Shapes with the current settings"},
    "home.check": {
        "zh": "本页实时验证：我们从零实现的结果与 torch.nn.MultiheadAttention（相同权重）的最大绝对误差为 {diff:.2e}。",
        "en": "Checked live on this page: our from-scratch result differs from torch.nn.MultiheadAttention "
        "(same weights) by at most {diff:.2e}.",
    },
    "home.check_blocked": {
        "zh": "（不含键全被屏蔽的 {n} 行：这里它们的权重是均匀的 1/T，PyTorch 的布尔掩码给出 NaN。）",
        "en": " (not counting the {n} row(s) that keep no key: here they get uniform weights 1/T, PyTorch's boolean "
        "mask gives NaN.)",
    },
    "home.teacher": {"zh": "给老师", "en": "For teachers"},
    "home.teacher.text": {
        "zh": "用左侧边栏设置好视图，然后把地址栏中的链接发给学生：链接包含页面和全部设置，学生看到相同的数值。",
        "en": "Set up the view in the sidebar, then send the address-bar link to the class: it holds the page and "
        "every setting, so students see the same numbers.",
    },
    "common.head": {"zh": "头", "en": "head"},
    "common.query": {"zh": "查询", "en": "query"},
    "common.key": {"zh": "键", "en": "key"},
    "common.shape": {"zh": "形状", "en": "Shape"},
    "common.page_of_heads": {"zh": "显示哪一组头", "en": "Heads shown"},
    "common.heads_range": {"zh": "头 {first}–{last}（共 {h} 个）", "en": "heads {first}–{last} of {h}"},
}
