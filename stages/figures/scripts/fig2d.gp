# Figure 2d: final test loss ε against the perturbation a (paper/spec.md §3):
# every seed, the best restart's line, mean ± s.e.; a = 0 is factored attention. ε* dashed.
# Run after common.gp (caption, grid, bottom margin).
set key outside top center horizontal Left reverse maxcols 3 samplen 1.5 width -2 font ',7'
set xlabel 'perturbation a'
set ylabel 'test loss ε (nats)'
# The x range ends at the first and last a (padded by 2 % so that the end
# points' error bars are not cut by the border).
set autoscale xfix
set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
# 1: the best restart at each a (the protocol); 2: every seed; 3: mean ± s.e.
# (a single series: mean ± s.e. only, as the test fixtures draw it).
if (n_series >= 3) {
  plot datafile index 2 using 1:2:3 with yerrorbars pt 1 ps 0.5 lw 0.8 lc rgb '#999999' title titles[3], \
       datafile index 1 using 1:2 with points pt 6 ps 0.6 lc rgb '#d55e00' title titles[2], \
       datafile index 0 using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb '#0072b2' title titles[1], \
       (has_hline ? hline : NaN) with lines dt 2 lw 1.5 lc rgb 'black' title 'ε*'
} else {
  plot datafile index 0 using 1:2:3 with yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb '#0072b2' title titles[1], \
       (has_hline ? hline : NaN) with lines dt 2 lw 1.5 lc rgb 'black' title 'ε*'
}
