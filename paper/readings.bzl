"""The two readings of the paper's data regime (paper/paper.md section 1),
drawn side by side through the same stages at paper scale.

The paper tunes beta to "an average Hamming distance of 0.3 between sampled
sequences, typical for protein families". Protein families share 20-40 %
pairwise sequence identity, so the headline reads 0.3 as an identity
(mean Hamming distance 0.70); the literal reading takes 0.3 as a distance.
Both use the same J and U (Gaussian), drawn from the same seed.

Each reading R names the paper-scale stages <stage package>:paper_R...
and the figures <fig>_R.
"""

READINGS = ["h70", "h30"]

# The headline reading (paper/paper.md section 1): where figure 3 right's
# peak is resolved with more realisations.
HEADLINE = "h70"

# Seeds (independent restarts) per model at paper scale: figure 2a-c report
# mean +- standard error over them, stalled runs included.
PAPER_SEEDS = [1, 2, 3, 4, 5]

