# Figure 3 left: generalisation loss ε_g (eq. 7) of ridge regression on the
# Gaussian model against α = n/D: replica theory (line, SPEC §5) and
# simulation (points, mean ± standard error over realisations, SPEC §4).
set key top right box opaque samplen 2
set logscale x
set xlabel 'sample ratio α = n/D'
set ylabel 'generalisation loss ε_g'
set bmargin 5.5
set offsets 0, 0, graph 0.05, graph 0.05
set label 99 caption at screen 0.02, screen 0.025 left font ',6' noenhanced
set grid lt 1 lc rgb '#dddddd' lw 0.5
plot datafile index 0 using 1:2 with lines lw 1.5 lc rgb '#d55e00' title titles[1], \
     datafile index 1 using 1:2:3 with yerrorbars pt 7 ps 0.5 lc rgb '#0072b2' title titles[2]
