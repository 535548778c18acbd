"""Where Poc-López & Aguilera (2024) make each claim chapter 6 tests: the section and a verbatim phrase of the text at
hand (``../shared/papers/002_…``, a summary in Chinese, quoted as it stands) with the book's translation; a number
the summary does not print is located in the paper's public code at commit de41c41 (the repository
muxitox/Dynamical-MF-Self-Attention, which has no licence: the locations are cited, nothing of it is copied).

What the text does not print, and where it comes from instead:

- the zoom window [1.24, 1.28] is printed; a torus birth "near β ≈ 1.244" is not, and neither the code at de41c41
  nor its configurations hold 1.244 (a plotting script of earlier commits picks ``beta_to_show = 1.244``, the
  trajectory shown in a plot): the chapter's rules no longer use it;
- the bin-count thresholds (< 80 periodic, < 2500 quasi-periodic, 5001 bins): ``plotting/plotting.py`` at de41c41;
- the run length: the text says 1.2·10⁶ steps with 10⁶ discarded, the code 1.2·10⁵ with 10⁵ discarded
  (``cfgs/bif_diagram_inf_0.yaml:7-8``); the book runs the code's protocol;
- the N^-1/2 rate of the finite network: the central limit theorem, ours (the text says only that the equations are
  exact as N → ∞).
"""

from __future__ import annotations

from ..companion.premises import Quote

__all__ = ["QUOTES", "S1", "S3", "S4", "S41", "S42", "S5", "ABSTRACT"]

ABSTRACT = "摘要 (the opening paragraphs, before §1)"
S1 = "1. Transformer与Hopfield网络的奇妙联系"
S3 = "3. 1比特token编码的注意力层的动态平均场理论"
S4 = "4. 结果"
S41 = "4.1 非平衡相变"
S42 = "4.2 动态和时间记忆"
S5 = "5. 总结"

_WINDOW = ("[1.24, 1.28]内的分岔图。在较低的β处,系统陷入周期性吸引子,然后发展到一个具有准周期性行为的区域,"
           "最终突然过渡到混沌状态")
_WINDOW_EN = ("[the bifurcation diagrams for β in] [1.24, 1.28]. At lower β the system falls into a periodic "
              "attractor, "
              "then develops into a region of quasi-periodic behaviour, and finally abruptly transitions to chaos")

#: The quote of each claim of the paper (and the statement each claim of ours builds on, where there is one).
QUOTES = {
    "dmft-asymmetric-nonequilibrium": Quote(
        S1, "而不对称随机耦合会导致非平衡稳态,表现出有序-无序相变和混沌动力学",
        translation="while asymmetric random couplings lead to non-equilibrium steady states, showing order-disorder "
                    "transitions and chaotic dynamics (said of the bipartite Hopfield network 'when the output k is "
                    "fed back into the input q', whose connections are 'now asymmetric, i.e. possibly W^k_a ≠ "
                    "W^q_a'; the paper then studies attention as such an asymmetric network)"),
    "dmft-query-key-control": Quote(
        S1, "请注意,现在k, q之间的连接是不对称的",
        translation="note that the connections between k and q are now asymmetric (the paper's asymmetry; the "
                    "counterfactual W^k := W^q this claim tests is ours: the paper does not propose it)"),
    "dmft-symmetric-couplings": Quote(
        S1, "请注意,现在k, q之间的连接是不对称的",
        translation="note that the connections between k and q are now asymmetric (the paper's asymmetry; the "
                    "output-value symmetrisation this claim tests is ours)"),
    "dmft-path-probability": Quote(
        S5, "我们的计算在网络规模趋于无穷大时,得到了路径概率统计的精确结果",
        translation="our calculations give exact results for the statistics of the path probability as the network "
                    "size tends to infinity"),
    "dmft-mean-field-map": Quote(
        S3, "我们使用路径积分方法[5]来求解系统,引入平均场变量",
        translation="we solve the system with path-integral methods [5], introducing mean-field variables"),
    "dmft-route-to-chaos": Quote(
        S41, "在较低的β处,系统陷入周期性吸引子,然后发展到一个具有准周期性行为的区域,最终突然过渡到混沌状态",
        translation="at lower β the system falls into a periodic attractor, then develops into a region of "
                    "quasi-periodic behaviour, and finally abruptly transitions to chaos"),
    "dmft-zoom": Quote(S41, _WINDOW, translation=_WINDOW_EN,
                       code="cfgs/bif_diagram_inf_0_zoom-in.yaml:4-5 at de41c41 (the window 1.24 / 1.28)"),
    "dmft-bin-rule": Quote(
        S41, "在这里我们只通过目视检查和对每个分岔图中点的数量进行计数来区分它们",
        translation="here we tell them apart only by visual inspection and by counting the number of points in each "
                    "bifurcation diagram",
        code="plotting/plotting.py:363 (filter_periodic=80), :465 (< 2500 quasi-periodic) and :431-434 (5001 bins "
             "on the scale max(|min|, |max|)) at de41c41"),
    "dmft-planes": Quote(
        S41, "在一组连续曲线上的点之间跳跃的准周期性循环(例如,图4中的β = 1.255和β = 1.26405)",
        translation="quasi-periodic cycles jumping between points on a set of continuous curves (e.g. β = 1.255 and "
                    "β = 1.26405 in Fig. 4); the same passage: periodic at β = 1.27, chaotic at 1.266, 1.28 and 1.4"),
    "dmft-spectra": Quote(
        S42, "我们看到所有信号都具有与低频分量相关的长相关性,特别是在混沌状态的情况下",
        translation="we see that all signals have long correlations tied to low-frequency components, especially in "
                    "the chaotic state (the paper's statement; the contrast this claim tests is ours)"),
    "dmft-low-frequency": Quote(
        S42, "在准周期性轨迹的情况下,我们观察到的低频分量比与上下文长度相关的低频分量(f = 1/L = 0.25)更低",
        translation="in the case of the quasi-periodic trajectory we observe lower-frequency components than those "
                    "associated with the context length (f = 1/L = 0.25)"),
    "dmft-memory": Quote(
        S42, "它们的记忆容量并不局限于上下文窗口的跨度",
        translation="their memory capacity is not limited to the span of the context window"),
    "dmft-finite-n": Quote(
        S3, "这些方程在网络规模趋于无穷大时是精确的,尽管我们应该期望在较小的规模下出现热涨落",
        translation="these equations are exact as the network size tends to infinity, although we should expect "
                    "thermal fluctuations at smaller sizes"),
    "dmft-lyapunov": Quote(
        S41, "虽然在未来的研究中我们将系统地研究吸引子",
        translation="although in future work we will study the attractors systematically (the paper tells them "
                    "apart by eye and by counting points; the classification by λ_max is ours)"),
    "dmft-coexistence": Quote(
        S42, "不同吸引子的共存表明,模型可以由混沌动态驱动,在不同的结构之间切换",
        translation="the coexistence of different attractors indicates that the model can be driven by chaotic "
                    "dynamics to switch between structures (the paper's Fig. 5; coexistence by initial context is "
                    "ours)"),
    "dmft-torus-birth-floquet": Quote(S41, _WINDOW, translation=_WINDOW_EN,
                                      code="cfgs/bif_diagram_inf_0_zoom-in.yaml:4-5 at de41c41 (the window)"),
    "dmft-network-limit": Quote(
        ABSTRACT, "在网络规模趋于无穷大时,该近似将变得精确",
        translation="the approximation becomes exact as the network size tends to infinity"),
}


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
