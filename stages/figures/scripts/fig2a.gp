# Figure 2a: test loss ε (eq. 3) against epoch for the three models, with the
# optimal loss ε* of the true conditionals (eq. 5) dashed.
# Variables from stages/figures/main.cc: datafile, caption, titles[],
# n_series, hline (ε*), has_hline.
set border lw 1
set key top right box opaque samplen 2 spacing 1.1
set xlabel 'epoch'
# At most about six x tics, whatever the number of epochs.
stats datafile using 1 nooutput
step = 10**floor(log10(STATS_max/3.0))
if (STATS_max/step > 6) { step = step*2 }
if (STATS_max/step > 6) { step = step*2.5 }
set xtics step
set ylabel 'test loss ε (nats)'
set bmargin at screen plot_bottom
set offsets 0, 0, graph 0.05, graph 0.05
set label 99 caption at screen 0.02, screen caption_y left font ',6' noenhanced
set grid lt 1 lc rgb '#dddddd' lw 0.5
colours = '#0072b2 #d55e00 #009e73 #cc79a7'
plot for [i=1:n_series] datafile index (i-1) using 1:2 with lines lw 1.5 lc rgb word(colours, i) title titles[i], \
     (has_hline ? hline : NaN) with lines dt 2 lw 1.5 lc rgb 'black' title 'ε*'
