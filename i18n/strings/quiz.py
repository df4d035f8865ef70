"""Strings of the Predict-then-reveal quiz page (lessons/quiz/ builds the questions)."""

STRINGS = {
    "quiz.intro": {
        "zh": "题目根据侧边栏当前的设置生成；只有 d_k 的题例外，它们故意用别的模型的大小（比如 d_model = 768，h = 12），"
        "让你推算而不是照抄侧边栏。先写下你的预测，再看正确答案、原因，以及讲解这一步的逐步计算页面。"
        "之后是来自“KV 缓存与共享键值头”“Softmax 细看”和“位置”三页的题目，每题都链接到讲解它的那一节。",
        "en": "The questions are built from the current settings in the sidebar, except the d_k questions: they use "
        "other models' sizes on purpose (e.g. d_model = 768, h = 12), so the answer must be worked out, not "
        "read off the sidebar. Write your prediction first, then see the right answer, why, and the "
        "walkthrough step that explains it. After them come questions from the pages “KV cache, MQA, GQA”, "
        "“Softmax up close” and “Positions”, each linked to the section that explains it.",
    },
    "quiz.set": {
        "zh": "题组由随机种子 {seed} 决定：打开同一个链接的全班同学会按相同顺序看到相同的题目。"
        "当前设置：d_model = {d_model}，h = {h}，T = {T}，批大小 B = 1，{mask_name}。",
        "en": "The question set comes from seed {seed}: everyone who opens the same link gets the same questions in "
        "the same order. Settings: d_model = {d_model}, h = {h}, T = {T}, batch B = 1, {mask_name}.",
    },
    "quiz.progress": {"zh": "第 {n} 题，共 {total} 题", "en": "Question {n} of {total}"},
    "quiz.score": {"zh": "得分", "en": "Score"},
    "quiz.score.value": {"zh": "{right} / {answered}", "en": "{right} / {answered}"},
    "quiz.score.help": {
        "zh": "只记录在你这个浏览器会话里，不会和别人共享；重新开始会清零。",
        "en": "Kept in your browser session only, never shared with anyone; Start again clears it.",
    },
    "quiz.your_answer": {"zh": "你的答案", "en": "Your answer"},
    "quiz.check": {"zh": "提交并揭晓", "en": "Check and reveal"},
    "quiz.next": {"zh": "下一题", "en": "Next question"},
    "quiz.prev": {"zh": "上一题", "en": "Previous"},
    "quiz.reset": {"zh": "重新开始", "en": "Start again"},
    "quiz.right": {"zh": "答对了！你的答案：{given}", "en": "Right! Your answer: {given}"},
    "quiz.wrong": {"zh": "还差一点。你的答案：{given}", "en": "Not quite. Your answer: {given}"},
    # ---------------------------------------------------------------- known mistakes (lessons.quiz.mistake_of)
    "quiz.mistake.no_head_axis": {
        "zh": "你的形状少了头这一维 h = {h}：拆分之后每个头都有自己的一份，形状是 (B, h, …)。",
        "en": "Your shape is missing the head axis h = {h}: after the split every head has its own copy, (B, h, …).",
    },
    "quiz.mistake.d_model_for_d_k": {
        "zh": "你用了 d_model = {d_model}，这里应该是每个头的宽度 d_k = d_model / h。",
        "en": "You used d_model = {d_model} where a head's width d_k = d_model / h belongs.",
    },
    "quiz.mistake.before_split": {
        "zh": "这是拆分之前的形状 (B, T, d_model)；拆分之后多了头这一维，最后一维变成 d_k = {d_k}。",
        "en": "That is the shape before the split, (B, T, d_model); the split adds the head axis and the last axis "
        "becomes d_k = {d_k}.",
    },
    "quiz.mistake.d_k_for_d_model": {
        "zh": "你用了一个头的宽度 d_k = {d_k}；这个张量里所有头已经合在一起（或还没有拆开），最后一维是 d_model = {d_model}。",
        "en": "You used one head's width d_k = {d_k}; in this tensor the heads are together (joined, or not yet split), "
        "so its last axis is d_model = {d_model}.",
    },
    "quiz.mistake.no_bias": {
        "zh": "你只数了权重，忘了偏置：nn.Linear 默认每个输出还有一个偏置参数。",
        "en": "You counted the weights and forgot the bias: nn.Linear has one bias per output by default.",
    },
    "quiz.mistake.one_layer": {
        "zh": "这是一个投影层的参数量；W_q、W_k、W_v、W_o 四个层要加在一起。",
        "en": "That is one projection's count; W_q, W_k, W_v and W_o together are four of them.",
    },
    "quiz.mistake.times_h": {
        "zh": "d_k 是 d_model 除以 h，不是乘以 h。",
        "en": "d_k is d_model divided by h, not times h.",
    },
    "quiz.mistake.kv_query_heads": {
        "zh": "你用了 h = {h} 个查询头；缓存只存 h_kv = {h_kv} 个键/值头，几个查询头共用一个。",
        "en": "You used the h = {h} query heads; the cache stores only the h_kv = {h_kv} K/V heads, shared by "
        "several query heads.",
    },
    "quiz.mistake.kv_query_heads_bytes": {
        "zh": "你按 {heads} 个查询头算了；缓存里只有 {kv_heads} 个键/值头。",
        "en": "You counted the {heads} query heads; the cache holds only the {kv_heads} K/V heads.",
    },
    "quiz.mistake.kv_only_k": {
        "zh": "你只算了 K：缓存里 K 和 V 各存一份，所以要乘 2。",
        "en": "You counted K only: the cache stores K and V, so times 2.",
    },
    "quiz.mistake.rounded": {
        "zh": "d_model = {d_model} 不能被 h = {h} 整除：MultiHeadAttention 不会向下取整，而是拒绝这个 h。",
        "en": "d_model = {d_model} is not divisible by h = {h}: MultiHeadAttention does not round down, it refuses this h.",
    },
    "quiz.bad_q": {
        "zh": "链接里的题号 quiz_q = {given} 不存在（共 {total} 题），现在显示第 {used} 题。",
        "en": "The link's question number quiz_q = {given} does not exist ({total} questions): showing question {used}.",
    },
    "quiz.answer": {"zh": "正确答案：{answer}", "en": "Right answer: {answer}"},
    "quiz.why": {"zh": "原因：", "en": "Why:"},
    "quiz.link": {"zh": "在逐步计算中查看：{step}", "en": "See it in the walkthrough: {step}"},
    "quiz.done": {
        "zh": "这是最后一题。你答了 {answered} 题，答对 {right} 题。点“重新开始”可以再做一遍。",
        "en": "That was the last question. You answered {answered} and got {right} right. "
        "Press Start again to go once more.",
    },
    "quiz.not_counted": {"zh": "这个答案没有计分：", "en": "This answer was not counted: "},
    # ---------------------------------------------------------------- prompts
    "quiz.shape.prompt": {
        "zh": "d_model = {d_model}，h = {h}，T = {T}，批大小 B = 1。{what} `{tensor}` 的形状是什么？",
        "en": "With d_model = {d_model}, h = {h}, T = {T} and batch B = 1: what is the shape of `{tensor}`, {what}?",
    },
    "quiz.tensor.q": {"zh": "投影之后的查询", "en": "the queries after the projection"},
    "quiz.tensor.k": {"zh": "投影之后的键", "en": "the keys after the projection"},
    "quiz.tensor.v": {"zh": "投影之后的值", "en": "the values after the projection"},
    "quiz.tensor.q_heads": {"zh": "拆分成多个头之后的查询 Q", "en": "Q after the split into heads"},
    "quiz.tensor.k_heads": {"zh": "拆分成多个头之后的键 K", "en": "K after the split into heads"},
    "quiz.tensor.v_heads": {"zh": "拆分成多个头之后的值 V", "en": "V after the split into heads"},
    "quiz.tensor.scores": {"zh": "注意力分数 QKᵀ", "en": "the scores QKᵀ"},
    "quiz.tensor.scaled_scores": {"zh": "除以 √d_k 之后的分数", "en": "the scores divided by √d_k"},
    "quiz.tensor.masked_scores": {"zh": "掩码之后的分数", "en": "the scores after the mask"},
    "quiz.tensor.weights": {"zh": "softmax 之后的注意力权重", "en": "the attention weights after the softmax"},
    "quiz.tensor.head_outputs": {"zh": "每个头对 V 加权求和的输出", "en": "each head's weighted sum of V"},
    "quiz.tensor.concat": {"zh": "各个头拼接之后的结果", "en": "the heads concatenated"},
    "quiz.tensor.output": {"zh": "经过 $W^O$ 之后的最终输出", "en": "the final output after $W^O$"},
    "quiz.params.W_q.prompt": {
        "zh": "d_model = {d_model}：线性层 `W_q = nn.Linear(d_model, d_model)` 有多少个参数（权重加偏置）？",
        "en": "With d_model = {d_model}: how many parameters (weights plus biases) does "
        "`W_q = nn.Linear(d_model, d_model)` have?",
    },
    "quiz.params.W_k.prompt": {
        "zh": "d_model = {d_model}：线性层 `W_k = nn.Linear(d_model, d_model)` 有多少个参数（权重加偏置）？",
        "en": "With d_model = {d_model}: how many parameters (weights plus biases) does "
        "`W_k = nn.Linear(d_model, d_model)` have?",
    },
    "quiz.params.W_v.prompt": {
        "zh": "d_model = {d_model}：线性层 `W_v = nn.Linear(d_model, d_model)` 有多少个参数（权重加偏置）？",
        "en": "With d_model = {d_model}: how many parameters (weights plus biases) does "
        "`W_v = nn.Linear(d_model, d_model)` have?",
    },
    "quiz.params.W_o.prompt": {
        "zh": "d_model = {d_model}：拼接之后的输出层 `W_o = nn.Linear(d_model, d_model)` 有多少个参数（权重加偏置）？",
        "en": "With d_model = {d_model}: how many parameters (weights plus biases) does the output layer "
        "`W_o = nn.Linear(d_model, d_model)` have?",
    },
    "quiz.params.all.prompt": {
        "zh": "d_model = {d_model}，h = {h}：整个多头注意力层（W_q、W_k、W_v、W_o 四个线性层）一共有多少个参数？",
        "en": "With d_model = {d_model} and h = {h}: how many parameters does the whole multi-head attention layer "
        "have (the four linear layers W_q, W_k, W_v, W_o together)?",
    },
    "quiz.params.head.prompt": {
        "zh": "d_model = {d_model}，h = {h}：头 0 用到的那一块 $W^Q_0$（以及它那一段偏置）有多少个参数？",
        "en": "With d_model = {d_model} and h = {h}: how many parameters are in head 0's own slice $W^Q_0$ of W_q "
        "(its block of weights plus its part of the bias)?",
    },
    "quiz.d_k.prompt": {
        "zh": "一个模型的 d_model = {d_model}，h = {h} 个头。每个头的维度 d_k 是多少？"
        "（如果这个 h 不被允许，就写“不允许”。）",
        "en": "A model has d_model = {d_model} and h = {h} heads. What is each head's width d_k? "
        "(If this h is not allowed, write “no”.)",
    },
    "quiz.heads_change.prompt": {
        "zh": "d_model = {d_model} 的模型现在有 h = {h} 个头。如果把头数改成 h = {h2}（d_model 不变），"
        "这一层的参数个数会怎样？",
        "en": "A model with d_model = {d_model} has h = {h} heads. If it had h = {h2} heads instead (same d_model), "
        "what happens to the layer's number of parameters?",
    },
    "quiz.mask_row.prompt": {
        "zh": "使用{mask_name}，T = {T}：查询 {i}（“{token}”）不能看哪些键？把被屏蔽的键全部选出来"
        "（如果一个都没有被屏蔽，就什么都不选）。",
        "en": "With the {mask_name} mask and T = {T}: which keys may query {i} (“{token}”) NOT look at? "
        "Pick every blocked key (pick none if nothing is blocked).",
    },
    "quiz.mask_count.prompt": {
        "zh": "使用{mask_name}，T = {T}：在 T × T = {cells} 个格子里，有多少个格子被屏蔽？",
        "en": "With the {mask_name} mask and T = {T}: how many of the T × T = {cells} cells are blocked?",
    },
    "quiz.row_sum.prompt": {
        "zh": "看头 {head} 的注意力权重中查询 {i}（“{token}”）那一行：这一行的所有数加起来等于多少？",
        "en": "Take the attention weights of head {head}, row of query {i} (“{token}”): what do the numbers in "
        "this row add up to?",
    },
    "quiz.row_sum.answer": {"zh": "1（这一行实际的和：{total:.7f}）", "en": "1 (this row's actual sum: {total:.7f})"},
    # ---------------------------------------------------------------- how to answer
    "quiz.hint.shape": {"zh": "例如 (1, 2, 3)、1,2,3 或 1×2×3", "en": "e.g. (1, 2, 3), 1,2,3 or 1×2×3"},
    "quiz.hint.int": {"zh": "一个整数，例如 1234", "en": "a whole number, e.g. 1234"},
    "quiz.hint.d_k": {"zh": "一个整数，或者“不允许”", "en": "a whole number, or “no” if not allowed"},
    "quiz.hint.number": {"zh": "一个数，例如 0.5", "en": "a number, e.g. 0.5"},
    "quiz.hint.choice": {"zh": "选一项", "en": "pick one"},
    "quiz.hint.cells": {"zh": "键的位置（可以多选，也可以不选）", "en": "key positions (pick several, or none)"},
    "quiz.choice.more": {"zh": "变多", "en": "it grows"},
    "quiz.choice.same": {"zh": "完全不变", "en": "it stays exactly the same"},
    "quiz.choice.fewer": {"zh": "变少", "en": "it shrinks"},
    "quiz.not_allowed": {"zh": "不允许（h 不能整除 d_model）", "en": "not allowed (h does not divide d_model)"},
    "quiz.cells.none": {"zh": "一个都不屏蔽", "en": "none blocked"},
    # ---------------------------------------------------------------- questions from the lesson pages
    "quiz.hint.heads": {"zh": "查询头（可以多选）", "en": "query heads (pick several)"},
    "quiz.hint.order": {
        "zh": "三个除数，熵最低的在前，例如 d_k, 1, √d_k",
        "en": "the three divisors, lowest entropy first, e.g. d_k, 1, √d_k",
    },
    "quiz.hint.bytes": {
        "zh": "字节数，例如 1,048,576，也可以写 1 MiB",
        "en": "a number of bytes, e.g. 1,048,576, or 1 MiB",
    },
    "quiz.hint.row": {"zh": "一个行号，例如 2", "en": "a row number, e.g. 2"},
    "quiz.head": {"zh": "头 {j}", "en": "head {j}"},
    "quiz.heads.none": {"zh": "一个头都没有", "en": "no head"},
    "quiz.choice.zero": {"zh": "为零（浮点误差以内）", "en": "zero (up to float error)"},
    "quiz.choice.nonzero": {"zh": "不为零", "en": "not zero"},
    "quiz.choice.yes": {"zh": "能", "en": "yes"},
    "quiz.choice.no": {"zh": "不能", "en": "no"},
    # short: a page link is one line, cut with "…" on a 390 px phone
    "quiz.link.page": {"zh": "查看：{page} › {section}", "en": "See it: {page} › {section}"},
    # ---------------------------------------------------------------- why
    "quiz.why.shape.proj": {
        "zh": "X 的形状是 (B, T, d_model)；nn.Linear(d_model, d_model) 只改变最后一维里的数，不改变形状。",
        "en": "X is (B, T, d_model); nn.Linear(d_model, d_model) changes the numbers of the last axis, not the shape.",
    },
    "quiz.why.shape.split": {
        "zh": "view 把最后一维 d_model = {d_model} 切成 h = {h} 段、每段 d_k = {d_k}，得到 (B, T, h, d_k)；"
        "transpose(1, 2) 再把头这一维移到批维之后：(B, h, T, d_k)。",
        "en": "view cuts the last axis d_model = {d_model} into h = {h} blocks of d_k = {d_k}, giving (B, T, h, d_k); "
        "transpose(1, 2) then moves the head axis next to the batch: (B, h, T, d_k).",
    },
    "quiz.why.shape.scores": {
        "zh": "每个头里 (T_q, d_k) @ (d_k, T_k) = (T_q, T_k)：每个查询和每个键一个分数，d_k 在乘法里被求和掉了。",
        "en": "In every head (T_q, d_k) @ (d_k, T_k) = (T_q, T_k): one score per query and key; d_k is summed away "
        "by the product.",
    },
    "quiz.why.shape.scaled": {
        "zh": "除以 √d_k 是逐元素的运算：形状和分数 QKᵀ 一样，(B, h, T_q, T_k)。",
        "en": "Dividing by √d_k acts on each element: the shape stays that of the scores QKᵀ, (B, h, T_q, T_k).",
    },
    "quiz.why.shape.masked": {
        "zh": "masked_fill 只是把被屏蔽的格子换成 -1e9，形状不变：(B, h, T_q, T_k)。",
        "en": "masked_fill only replaces the blocked cells by -1e9; the shape stays (B, h, T_q, T_k).",
    },
    "quiz.why.shape.weights": {
        "zh": "softmax 沿最后一维（键）把每一行变成概率，不改变形状：(B, h, T_q, T_k)。",
        "en": "The softmax turns every row (over the keys) into probabilities without changing the shape: "
        "(B, h, T_q, T_k).",
    },
    "quiz.why.shape.mix": {
        "zh": "每个头里 (T_q, T_k) @ (T_k, d_k) = (T_q, d_k)：每个查询得到值向量的一个加权平均。",
        "en": "In every head (T_q, T_k) @ (T_k, d_k) = (T_q, d_k): every query gets a weighted average of the "
        "value vectors.",
    },
    "quiz.why.shape.concat": {
        "zh": "transpose(1, 2) 回到 (B, T, h, d_k)，再 view 成 (B, T, h·d_k)；h·d_k = {h}·{d_k} = {d_model}。",
        "en": "transpose(1, 2) goes back to (B, T, h, d_k), then view joins the heads: (B, T, h·d_k), and "
        "h·d_k = {h}·{d_k} = {d_model}.",
    },
    "quiz.why.shape.output": {
        "zh": "$W^O$ 是 nn.Linear(d_model, d_model)：输出和输入 X 的形状一样，(B, T, d_model)。",
        "en": "$W^O$ is nn.Linear(d_model, d_model): the output has the input's shape, (B, T, d_model).",
    },
    "quiz.why.params.W_q": {
        "zh": "nn.Linear(d_model, d_model) 有 d_model × d_model 个权重加 d_model 个偏置："
        "{d_model}·{d_model} + {d_model}。这个数由模型自己的参数数出来。",
        "en": "nn.Linear(d_model, d_model) holds d_model × d_model weights plus d_model biases: "
        "{d_model}·{d_model} + {d_model}. The number is counted from the model's own parameters.",
    },
    "quiz.why.params.W_k": {
        "zh": "和 W_q 一样：{d_model}·{d_model} 个权重加 {d_model} 个偏置。所有头共用这一个层，每个头用其中的一段。",
        "en": "Same as W_q: {d_model}·{d_model} weights plus {d_model} biases. One layer holds every head; each "
        "head uses its own block.",
    },
    "quiz.why.params.W_v": {
        "zh": "和 W_q 一样：{d_model}·{d_model} 个权重加 {d_model} 个偏置。所有头共用这一个层，每个头用其中的一段。",
        "en": "Same as W_q: {d_model}·{d_model} weights plus {d_model} biases. One layer holds every head; each "
        "head uses its own block.",
    },
    "quiz.why.params.W_o": {
        "zh": "拼接后的宽度是 h·d_k = d_model，所以 $W^O$ 也是 nn.Linear(d_model, d_model)："
        "{d_model}·{d_model} + {d_model}。",
        "en": "The concatenation is h·d_k = d_model wide, so $W^O$ is nn.Linear(d_model, d_model) too: "
        "{d_model}·{d_model} + {d_model}.",
    },
    "quiz.why.params.all": {
        "zh": "四个同样大小的线性层：4 × ({d_model}·{d_model} + {d_model})。头数 h 不出现在这个数里。",
        "en": "Four linear layers of the same size: 4 × ({d_model}·{d_model} + {d_model}). The number of heads h "
        "does not appear in it.",
    },
    "quiz.why.params.head": {
        "zh": "头 0 只用 W_q 输出的第 0 到 {d_k} − 1 列：d_model × d_k = {d_model}·{d_k} 个权重，加上 d_k = {d_k} 个偏置。",
        "en": "Head 0 uses only columns 0 to {d_k} − 1 of W_q's output: d_model × d_k = {d_model}·{d_k} weights, "
        "plus d_k = {d_k} biases.",
    },
    "quiz.why.d_k.fits": {
        "zh": "d_k = d_model / h = {d_model} / {h} = {d_k}：d_model 平均分给每个头。",
        "en": "d_k = d_model / h = {d_model} / {h} = {d_k}: d_model is shared out evenly among the heads.",
    },
    "quiz.why.d_k.misfits": {
        "zh": "{d_model} 不能被 {h} 整除，拆分时 view 无法把 d_model 切成 {h} 段相同宽度的头；"
        "代码里的 `assert d_model % num_heads == 0` 会拒绝这个设置。",
        "en": "{d_model} is not divisible by {h}: the split's view cannot cut d_model into {h} equal heads, and "
        "the code's check d_model % num_heads == 0 refuses this model.",
    },
    "quiz.why.heads_change": {
        "zh": "参数都在四个 d_model × d_model 的线性层里；改变 h 只是把同样的列重新分给头。"
        "h = {h} 时有 {before:,} 个参数，h = {h2} 时有 {after:,} 个。",
        "en": "Every parameter sits in the four d_model × d_model linear layers; changing h only deals the same "
        "columns out to the heads differently. h = {h}: {before:,} parameters; h = {h2}: {after:,}.",
    },
    "quiz.why.mask_row.causal": {
        "zh": "因果掩码让查询 {i} 只能看键 0 到 {i}（它自己和之前的位置），之后的位置全部被屏蔽。",
        "en": "A causal mask lets query {i} look at keys 0 to {i} (itself and earlier positions); every later "
        "position is blocked.",
    },
    "quiz.why.mask_row.padding": {
        "zh": "填充掩码屏蔽的是 [PAD] 键：每个查询都不能看它们，和查询在哪一行无关。",
        "en": "A padding mask blocks the [PAD] keys: no query may look at them, whatever its row.",
    },
    "quiz.why.mask_row.custom": {
        "zh": "这是在掩码实验页面手绘的掩码：这一行里画成 0 的格子就是被屏蔽的键。",
        "en": "This is the mask hand-drawn on the Masks lab page: the cells drawn as 0 in this row are the "
        "blocked keys.",
    },
    "quiz.why.mask_count.causal": {
        "zh": "查询 i 屏蔽它之后的 T − 1 − i 个键：(T − 1) + … + 1 + 0 = T(T − 1)/2 = {count}，正好是对角线以上的格子。",
        "en": "Query i blocks the T − 1 − i keys after it: (T − 1) + … + 1 + 0 = T(T − 1)/2 = {count}, exactly "
        "the cells above the diagonal.",
    },
    "quiz.why.mask_count.padding": {
        "zh": "每一行都屏蔽同样的 [PAD] 键，所以被屏蔽的格子数 = T × [PAD] 的个数 = {count}。",
        "en": "Every row blocks the same [PAD] keys, so the blocked cells = T × the number of [PAD] keys = {count}.",
    },
    "quiz.why.mask_count.custom": {
        "zh": "数一数掩码实验页面手绘网格里的 0：一共 {count} 个。",
        "en": "Count the 0s of the grid hand-drawn on the Masks lab page: {count} of them.",
    },
    "quiz.why.row_sum": {
        "zh": "softmax 把每一行变成概率分布，所以每一行加起来等于 1（这里实际算出来是 {total:.7f}，差别只是浮点误差）。"
        "被屏蔽的格子权重约为 0，其余格子分掉这 1。",
        "en": "The softmax turns each row into a probability distribution, so every row sums to 1 (here the "
        "computed sum is {total:.7f}; any difference is float rounding). Blocked cells get about 0 and the "
        "others share the 1.",
    },
    # ---------------------------------------------------------------- refused answers (not counted)
    "quiz.err.empty": {"zh": "请先写下一个答案。", "en": "Write an answer first."},
    "quiz.err.too_long": {
        "zh": "答案太长了（最多 {n} 个字符）。",
        "en": "That answer is too long (at most {n} characters).",
    },
    "quiz.err.not_number": {"zh": "这不是一个数。", "en": "That is not a number."},
    "quiz.err.too_big": {"zh": "这个数太大了（最多 {max}）。", "en": "That number is too big (at most {max})."},
    "quiz.err.not_whole": {"zh": "这里要一个整数。", "en": "A whole number is needed here."},
    "quiz.err.negative": {"zh": "个数不能是负数。", "en": "A count cannot be negative."},
    "quiz.err.not_shape": {
        "zh": "这不像一个形状。请写成 (1, 2, 3)、1,2,3 或 1×2×3。",
        "en": "That does not look like a shape. Write it as (1, 2, 3), 1,2,3 or 1×2×3.",
    },
    "quiz.err.too_many_dims": {"zh": "维度太多了（最多 {n} 维）。", "en": "Too many axes (at most {n})."},
    "quiz.err.size_zero": {"zh": "形状里的每个数都至少是 1。", "en": "Every size in a shape is at least 1."},
    "quiz.err.not_d_k": {
        "zh": "请写一个整数，或者写“不允许”。",
        "en": "Write a whole number, or “no” if this h is not allowed.",
    },
    "quiz.err.pick_one": {"zh": "请先选一项。", "en": "Pick one of the options first."},
    "quiz.err.not_order": {
        "zh": "请按顺序写出三个除数 1、√d_k、d_k，例如 d_k, 1, √d_k。",
        "en": "Write the three divisors 1, √d_k, d_k in an order, e.g. d_k, 1, √d_k.",
    },
    "quiz.err.bad_cells": {"zh": "只能选这一行里的键。", "en": "Only keys of this row can be picked."},
}
