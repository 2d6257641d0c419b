# Figure 3 right: test loss ε of factored attention trained on M Potts
# sequences against α = M/L (paper/spec.md §6), mean ± standard error over
# realisations, with ε* dashed.
# Run after common.gp (caption, grid, bottom margin).
set key outside top center horizontal Left reverse maxcols 3 samplen 1.5 width -2 font ',7'
set logscale x
set xlabel 'sample ratio α = M/L'
set ylabel 'test loss ε (nats)'
# The x range ends at the first and last α (padded by 2 % so that the end
# points' error bars are not cut by the border).
set autoscale xfix
set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
plot datafile index 0 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 lc rgb '#0072b2' title titles[1], \
     datafile index 1 using 1:2:3 with yerrorbars pt 6 ps 0.7 lw 1.2 lc rgb '#d55e00' title titles[2], \
     (has_hline ? hline : NaN) with lines dt 2 lw 1.5 lc rgb 'black' title 'ε*'
