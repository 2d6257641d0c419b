# Settings every figure shares, run before the figure's own script (the
# figures stage passes it as input common/common.gp). Variables from
# stages/figures/figure_stage.cc: caption, caption_y, plot_bottom.
# The plot's bottom edge above the caption, the caption in 6 pt type under
# it (label 99, so that a multiplot script can unset it after one panel),
# and a light grid.
set bmargin at screen plot_bottom
set label 99 caption at screen 0.02, screen caption_y left font ',6' noenhanced
set grid lt 1 lc rgb '#dddddd' lw 0.5
