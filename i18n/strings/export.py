"""Strings of the tensor downloads (ui/downloads.py), shown on the walkthrough, heads and masks pages."""

STRINGS = {
    "export.title": {"zh": "下载张量", "en": "Download the tensors"},
    "export.about": {
        "zh": "当前设置下的每个张量，名字与页面上和种子文本公式中的一致："
        "输入 x、掩码 mask、q/k/v、q_heads/k_heads/v_heads、scores、scaled_scores、masked_scores、"
        "weights、head_outputs、concat、output，以及线性层的权重 W_q.weight、W_q.bias 等"
        "（按 nn.Linear 的存法：q = x @ W_q.weight.T + W_q.bias）。",
        "en": "Every tensor for the current settings, named as on screen and in the seed's formulas: the input x, "
        "the mask, q/k/v, q_heads/k_heads/v_heads, scores, scaled_scores, masked_scores, weights, "
        "head_outputs, concat, output, and the layer's weights W_q.weight, W_q.bias, ... "
        "(stored as nn.Linear keeps them: q = x @ W_q.weight.T + W_q.bias).",
    },
    "export.npz": {"zh": "全部张量（.npz）", "en": "All tensors (.npz)"},
    "export.npz.help": {
        "zh": '用 NumPy 读取：np.load(文件, allow_pickle=False)["weights"]；tokens 是每个位置的词元。',
        "en": 'Read with NumPy: np.load(file, allow_pickle=False)["weights"]; tokens holds each position\'s token.',
    },
    "export.json": {"zh": "设置（.json）", "en": "Settings (.json)"},
    "export.json.help": {
        "zh": "重现这些张量所需的全部设置（含种子、手绘掩码、库版本和链接的查询字符串）。",
        "en": "Everything needed to reproduce these tensors: the settings with the seed, the hand-drawn mask, "
        "the library versions and the link's query string.",
    },
    "export.csv.title": {"zh": "一个二维切片（CSV）", "en": "One 2-D slice (CSV)"},
    "export.csv.tensor": {"zh": "张量", "en": "Tensor"},
    "export.csv.batch": {"zh": "批次中的序列 b", "en": "Sequence b of the batch"},
    "export.csv.head": {"zh": "注意力头", "en": "Head"},
    "export.csv.shape": {
        "zh": "`{name}` 的形状是 `{shape}`；下载 `{slice}`，形状 {rows} × {cols}，行是{row_axis}，列是{col_axis}。",
        "en": "`{name}` has shape `{shape}`; this downloads `{slice}`, {rows} × {cols}: rows are {row_axis}, "
        "columns are {col_axis}.",
    },
    "export.csv.button": {"zh": "下载 {slice}（.csv）", "en": "Download {slice} (.csv)"},
    "export.axis.query": {"zh": "查询位置", "en": "query positions"},
    "export.axis.key": {"zh": "键位置", "en": "key positions"},
    "export.axis.dim": {"zh": "特征维度", "en": "feature dimensions"},
    "export.axis.out": {"zh": "输出维度", "en": "output dimensions"},
    "export.axis.in": {"zh": "输入维度", "en": "input dimensions"},
    "export.axis.bias": {"zh": "偏置", "en": "the bias"},
    "export.lab_note": {
        "zh": "本页的张量来自掩码实验自己的设置（额外的掩码、批次、T_k、填充值），它们也写在 .json 里。",
        "en": "This page's tensors come from the lab's own choices (extra masks, batch, T_k, fill value); "
        "the .json records them too.",
    },
}
