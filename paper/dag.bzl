"""The sweeps of the paper's DAG, declared once: every model list, seed
list, grid and chunk count that a stage package, the figures, the paper's
index or the tests need. The stage BUILD files build their targets from
these; a change here reruns exactly the stages it touches. The two readings
of the data regime and the paper-scale seeds are in readings.bzl."""

load("//paper:readings.bzl", "HEADLINE", "READINGS")

# What every run of the sample stage writes (//stages/sample:sample).
SAMPLE_OUTS = [
    "model.h5",
    "train.h5",
    "test.h5",
    "summary.json",
]

# The models of figure 2a-c (train configs configs/<scale>_<model>.json):
# factored self-attention, vanilla transformers with one and three layers.
MODELS = ["factored", "vanilla1", "vanilla3"]

# Seeds of the quick train runs: seed 1 as quick_<model>, 2 as quick_<model>_s2.
QUICK_SEEDS = [1, 2]

# Figure 2d: the perturbation a between factored and coupled attention, and
# the seeds of every a at quick scale (paper scale: readings.bzl's PAPER_SEEDS).
PERTURB_A = [0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1]
PERTURB_QUICK_SEEDS = [1, 2, 3]

# Figure 3 left: chunks of the Gaussian-model simulation (chunk k takes the
# alpha points k, k + chunks, ... of the model's grid), at both scales.
GAUSSIAN_CHUNKS = 4

# The Gaussian model's finite-size study: the sizes D at each scale and the
# order of the fit in 1/D (the shift's expansion is in 1/(D (alpha - 1)), so
# at alpha = 1.25 and D = 40 the 1/D^2 term is 10 % of the 1/D term: order
# 2 at paper scale, with one degree of freedom left).
FINITE_SIZE_D = {
    "quick": [40, 80, 160],
    "paper": [40, 80, 160, 320],
}
FINITE_SIZE_ORDER = {
    "quick": 1,
    "paper": 2,
}

# Figure 3 right: chunks of each sample-complexity experiment.
# paper_<reading>_peak: the grid around the peak with ten times the
# realisations, and on the headline reading 3000 for alpha = 1-2: 16 chunks
# of about 80 s each, so that on a build farm the chain sample -> chunk ->
# merge stays short (docs/scale.md).
POTTS_ALPHA_CHUNKS = dict(
    [("quick", 2)] +
    [("paper_" + r, 6) for r in READINGS] +
    [("paper_%s_peak" % r, 16 if r == HEADLINE else 6) for r in READINGS],
)

# The diversity study's points (colour kind, target Hamming distance x 100).
DIVERSITY_POINTS = {
    "quick": ["gaussian_85", "gaussian_60", "gaussian_35"],
    "paper": [
        "gaussian_90",
        "gaussian_80",
        "gaussian_70",
        "gaussian_60",
        "gaussian_55",
        "gaussian_50",
        "identity_60",
        "identity_30",
    ],
}

# Figure 3 right's initial decay (claim 5c), investigated on the headline
# data: variants of the estimator at the smallest M
# (stages/potts_alpha/configs/initial_<variant>.json).
INITIAL_DECAY = ["start_small_V", "ridge_1e-2"]
