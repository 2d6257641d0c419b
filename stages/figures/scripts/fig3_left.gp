# Figure 3 left: generalisation loss ε_g (eq. 7) of ridge regression on the
# Gaussian model against α = n/D: replica theory (line, paper/spec.md §5) and
# simulation (points, mean ± standard error over realisations, paper/spec.md §4).
# Run after common.gp (caption, grid, bottom margin).
set key outside top center horizontal Left reverse maxcols 3 samplen 1.5 width -2 font ',7'
set autoscale xfix
set logscale xy
set xlabel 'sample ratio α = n/D'
set ylabel 'generalisation loss ε_g'

plot datafile index 0 using 1:2 with lines lw 1.8 lc rgb '#d55e00' title titles[1], \
     datafile index 1 using 1:2:3 with yerrorbars pt 7 ps 0.5 lc rgb '#0072b2' title titles[2]
