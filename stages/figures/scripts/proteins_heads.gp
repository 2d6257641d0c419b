# Top-L precision of the heads sweep against H (log 2 axis): factored
# attention with the seed spread as bars (filled: P4's budgets, open: 300
# iterations), the softmax configuration as points (filled: 60 iterations,
# open: 300), the baselines as lines.
# Run after common.gp.
set key outside top center horizontal Left reverse maxcols 2 samplen 1.5 width -2 font ',7'
set logscale x 2
set xlabel 'heads H'
set ylabel 'top-L precision'
set yrange [0:*]
set ytics 0.1
# Room above the highest line (the PLM's), which would sit on the frame.
set offsets 0, 0, graph 0.1, 0
set autoscale xfix
# The follow-ups sit at the same x as the fits with P4's budgets: drawn a
# little to the right (a factor on the log axis) so that both show.
dodge = 1.15
colours = "#0072b2 #e69f00 #cc79a7 #7b3294 #d55e00 #009e73 #56b4e9"
plot datafile index 0 using 1:2:5:6 with yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb word(colours, 1) title titles[1], \
     datafile index 1 using ($1 * dodge):2:5:6 with yerrorlines pt 6 ps 1.2 lw 1.5 dt 2 lc rgb word(colours, 2) title titles[2], \
     datafile index 2 using 1:2:5:6 with yerrorbars pt 5 ps 0.8 lw 1.5 lc rgb word(colours, 3) title titles[3], \
     datafile index 3 using ($1 * dodge):2:5:6 with yerrorbars pt 4 ps 1.0 lw 1.5 lc rgb word(colours, 4) title titles[4], \
     for [s = 5:n_series] datafile index (s - 1) using 1:2 with lines dt int(s - 4) lw 1.2 lc rgb word(colours, s) title titles[s]
