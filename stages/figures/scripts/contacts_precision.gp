# Precision of the top k pairs against k for every predictor a user chose
# (//proteins:contacts, up to ten); k = L dotted (the config passes L as
# `hline`). Run after common.gp (caption, grid, bottom margin).
set key outside top center horizontal Left reverse maxcols 2 samplen 1.5 width -2 font ',7'
set logscale x
set xrange [1:*]
set autoscale xfixmax
set yrange [0:1.02]
set xlabel 'number of predicted pairs k'
set ylabel 'precision'
if (has_hline) set arrow 1 from first hline, graph 0 to first hline, graph 1 nohead dt 3 lc rgb '#555555'
colours = "#0072b2 #cc79a7 #e69f00 #d55e00 #009e73 #56b4e9 #000000 #f0e442 #999999 #882255"
plot for [s = 1:n_series] datafile index (s - 1) using 1:2 with lines lw 1.5 lc rgb word(colours, s) title titles[s]
