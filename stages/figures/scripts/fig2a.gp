# Figure 2a: the gap ε − ε* between the test loss (eq. 3) and the optimal
# loss ε* of the true conditionals (eq. 5, same test set) against epoch for
# the three models, on a log axis (the config subtracts each curve's
# optimal_test_loss column, "y_minus").
# Run after common.gp (caption, grid, bottom margin). Variables from
# stages/figures/figure_stage.cc: datafile, caption, titles[],
# n_series.
set border lw 1
set key outside top center horizontal Left reverse maxcols 3 samplen 1.5 width -2 font ',7'
set xlabel 'epoch'
# At most about six x tics, whatever the number of epochs; the x range ends
# at the first and last epoch drawn.
stats datafile using 1 nooutput
step = 10**floor(log10(STATS_max/3.0))
if (STATS_max/step > 6) { step = step*2 }
if (STATS_max/step > 6) { step = step*2.5 }
set xtics step
set xrange [STATS_min:STATS_max]
set logscale y
set format y '10^{%L}'
set ylabel 'test-loss gap ε − ε* (nats)'
colours = '#0072b2 #d55e00 #009e73 #cc79a7'
# Series 1-3: the models (mean over seeds, band lowest to highest seed);
# 4-9: the data replicates' means (two per model, headline data only);
# dashed: the expected finite-sample excess of factored attention.
nm = (n_series < 3) ? n_series : 3
excess_title = has_hline ? 'expected finite-sample excess' : ''
if (n_series >= 9) {
  plot for [i=1:nm] datafile index (i-1) using 1:5:6 with filledcurves fs transparent solid 0.18 noborder lc rgb word(colours, i) notitle, \
       for [i=1:nm] datafile index (i-1) using 1:2 with lines lw 1.5 lc rgb word(colours, i) title titles[i], \
       for [k=4:9] datafile index (k-1) using 1:2 with lines lw 0.6 lc rgb word(colours, (k-2)/2) title ((k == 4 && titles[4] ne '') ? 'data replicates' : ''), \
       (has_hline ? hline : NaN) with lines dt 2 lw 1.2 lc rgb word(colours, 1) title excess_title
} else {
  plot for [i=1:nm] datafile index (i-1) using 1:5:6 with filledcurves fs transparent solid 0.18 noborder lc rgb word(colours, i) notitle, \
       for [i=1:nm] datafile index (i-1) using 1:2 with lines lw 1.5 lc rgb word(colours, i) title titles[i], \
       (has_hline ? hline : NaN) with lines dt 2 lw 1.2 lc rgb word(colours, 1) title excess_title
}
