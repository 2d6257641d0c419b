# Figure 2c (log y axis): reconstruction error e_rec (paper/spec.md §2: 1 - best least-squares fit
# of J by c·A, relative) of each model's attention map against epoch.
# Run after common.gp (caption, grid, bottom margin).
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
set ylabel 'reconstruction error e_{rec}'
set logscale y
set yrange [*:1.5]
set format y '10^{%L}'
colours = '#0072b2 #d55e00 #009e73 #cc79a7'
plot for [i=1:n_series] datafile index (i-1) using 1:2 with lines lw 1.5 lc rgb word(colours, i) title titles[i]
