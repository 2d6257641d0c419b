# Where J is recovered: left, test-loss gap ε − ε* against the mean
# Hamming distance of the data; right, reconstruction error e_rec. Factored
# attention (points with error bars) and the full pseudo-likelihood baseline
# (open symbols), Gaussian U (solid) and identity U (dashed); black squares
# ring the points whose data did not mix. One key for both
# panels, in a row above them (the series and their styles are the same in
# both): drawn by a third, empty plot spanning the figure's width.
# Run after common.gp (caption, grid, bottom margin). Variables from
# stages/figures/figure_stage.cc: datafile, caption, titles[],
# n_series, plot_bottom, caption_y.
set multiplot
top = 0.84  # room for the two rows of the key above the panels
set tmargin at screen top
set xlabel 'mean Hamming distance of the data'
# The x range ends at the first and last point (padded by 3 % so that the
# end points' error bars are not cut by the border); the log y range ends at
# the decades around the data.
set autoscale xfix
set xrange [*:*] reverse
set offsets graph 0.03, graph 0.03, 0, 0
unset key
set lmargin at screen 0.11
set rmargin at screen 0.47
set logscale y
set format y '10^{%L}'
set ylabel 'test-loss gap ε − ε* (nats)'
plot datafile index 0 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 lc rgb '#0072b2', \
     datafile index 1 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 lc rgb '#d55e00', \
     datafile index 4 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 dt 2 lc rgb '#0072b2', \
     datafile index 5 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 dt 2 lc rgb '#d55e00', \
     datafile index 8 using 1:2 with points pt 4 ps 1.4 lw 1.0 lc rgb 'black'
unset label 99
unset logscale y
set format y '% h'
set yrange [0:1.05]
set lmargin at screen 0.60
set rmargin at screen 0.97
set ylabel 'reconstruction error e_{rec}'
plot datafile index 2 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 lc rgb '#0072b2', \
     datafile index 3 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 lc rgb '#d55e00', \
     datafile index 6 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 dt 2 lc rgb '#0072b2', \
     datafile index 7 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 dt 2 lc rgb '#d55e00', \
     datafile index 9 using 1:2 with points pt 4 ps 1.4 lw 1.0 lc rgb 'black'
# The key: the same styles with no points drawn (y = NaN), above both panels.
unset border; unset tics; unset grid; unset xlabel; unset ylabel
set lmargin at screen 0.11
set rmargin at screen 0.97
set key at screen 0.54, screen 0.995 center top horizontal maxcols 3 Left reverse samplen 2 font ',7'
plot datafile index 0 using 1:(NaN):3 with yerrorlines pt 7 ps 0.5 lw 1.2 lc rgb '#0072b2' title titles[1], \
     datafile index 1 using 1:(NaN) with linespoints pt 6 ps 0.6 lw 1.2 lc rgb '#d55e00' title titles[2], \
     datafile index 4 using 1:(NaN):3 with yerrorlines pt 7 ps 0.5 lw 1.2 dt 2 lc rgb '#0072b2' title titles[5], \
     datafile index 5 using 1:(NaN) with linespoints pt 6 ps 0.6 lw 1.2 dt 2 lc rgb '#d55e00' title titles[6], \
     datafile index 8 using 1:(NaN) with points pt 4 ps 1.4 lw 1.0 lc rgb 'black' title titles[9]
unset multiplot
