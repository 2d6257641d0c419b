# Where J is recovered (issue 9): left, test-loss gap ε − ε* against the mean
# Hamming distance of the data; right, reconstruction error e_rec. Factored
# attention (points with error bars) and the full pseudo-likelihood baseline
# (open symbols), Gaussian U (solid) and identity U (dashed).
set multiplot layout 1, 2 margins 0.09, 0.98, plot_bottom, 0.95 spacing 0.13
set label 99 caption at screen 0.02, screen caption_y left font ',6' noenhanced
set grid lt 1 lc rgb '#dddddd' lw 0.5
set xlabel 'mean Hamming distance of the data'
set xrange [*:*] reverse
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set key top left box opaque samplen 2 font ',7'
set logscale y
set ylabel 'test-loss gap ε − ε* (nats)'
plot datafile index 0 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 lc rgb '#0072b2' title titles[1], \
     datafile index 1 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 lc rgb '#d55e00' title titles[2], \
     datafile index 4 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 dt 2 lc rgb '#0072b2' title titles[5], \
     datafile index 5 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 dt 2 lc rgb '#d55e00' title titles[6]
unset label 99
unset logscale y
set yrange [0:1.05]
set offsets graph 0.03, graph 0.03, 0, 0
set ylabel 'reconstruction error e_{rec}'
plot datafile index 2 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 lc rgb '#0072b2' title titles[3], \
     datafile index 3 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 lc rgb '#d55e00' title titles[4], \
     datafile index 6 using 1:2:3 with yerrorlines pt 7 ps 0.5 lw 1.2 dt 2 lc rgb '#0072b2' title titles[7], \
     datafile index 7 using 1:2 with linespoints pt 6 ps 0.6 lw 1.2 dt 2 lc rgb '#d55e00' title titles[8]
unset multiplot
