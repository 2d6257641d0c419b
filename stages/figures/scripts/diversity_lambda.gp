# The L2 penalty each estimator's validation chose, against the mean Hamming
# distance of the data (Gaussian U). The two series share grid values, so
# the full pseudo-likelihood is drawn as large open squares (dashed) and
# factored attention as small filled circles on top of them.
# Run after common.gp (caption, grid, bottom margin). Variables from
# stages/figures/figure_stage.cc: datafile, caption, titles[],
# n_series, plot_bottom, caption_y.
set key outside top center horizontal Left reverse samplen 1.5 font ',7'
set xlabel 'mean Hamming distance of the data'
set xrange [*:*] reverse
set offsets graph 0.05, graph 0.05, 0, 0
set logscale y
set yrange [3e-7:3e-2]
set format y '10^{%L}'
set ylabel 'chosen L2 penalty λ'
plot datafile index 1 using 1:2 with linespoints pt 4 ps 1.8 lw 1.2 dt 2 lc rgb '#d55e00' title titles[2], \
     datafile index 0 using 1:2 with linespoints pt 7 ps 0.7 lw 1.2 lc rgb '#0072b2' title titles[1]
