# Figure 2d: final test loss ε against the perturbation a (paper/spec.md §3), mean and
# standard error over seeds; a = 0 is factored attention. ε* dashed.
# Run after common.gp (caption, grid, bottom margin).
set key outside top center horizontal Left reverse maxcols 3 samplen 1.5 width -2 font ',7'
set xlabel 'perturbation a'
set ylabel 'test loss ε (nats)'
# The x range ends at the first and last a (padded by 2 % so that the end
# points' error bars are not cut by the border).
set autoscale xfix
set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
plot datafile index 0 using 1:2:3 with yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb '#0072b2' title titles[1], \
     (has_hline ? hline : NaN) with lines dt 2 lw 1.5 lc rgb 'black' title 'ε*'
