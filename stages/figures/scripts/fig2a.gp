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
plot for [i=1:n_series] datafile index (i-1) using 1:2 with lines lw 1.5 lc rgb word(colours, i) title titles[i]
