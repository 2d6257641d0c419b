# The panel of families (claim P6). Left: attention's top-L against the
# PLM's on the same conventions, one point per family, the diagonal (solid)
# and the diagonal shifted by the observation's median gap (dashed). Right:
# d_f = attention − PLM against N_eff per column (log axis), P6's median
# (solid) and the margin's −delta (dotted). Ras, not a panel family, as a
# diamond in both. Run after common.gp. Variables from figure_stage.cc:
# datafile, titles[], n_series, gap, median_d, margin, ras_plm,
# ras_attention, ras_n_eff, ras_L.
set multiplot
set tmargin at screen 0.97
unset key
set lmargin at screen 0.12
set rmargin at screen 0.47
set xrange [0:1]
set yrange [0:1]
set xtics 0.2
set ytics 0.2
set xlabel 'top-L, PLM (same conventions)'
set ylabel 'top-L, factored attention'
set label 1 'Ras' at ras_plm, ras_attention offset 1.0, 0 font ',7'
plot x with lines lw 1.0 lc rgb '#555555', \
     x + gap with lines lw 1.0 dt 2 lc rgb '#d55e00', \
     datafile index 0 using 1:2 with points pt 7 ps 0.9 lc rgb '#0072b2', \
     '+' using (ras_plm):(ras_attention) every ::0::0 with points pt 13 ps 1.3 lc rgb '#cc79a7'
unset label 1
unset label 99
set lmargin at screen 0.62
set rmargin at screen 0.97
set logscale x
set xrange [*:*]
set autoscale xfix
set offsets graph 0.05, graph 0.05, 0, 0
set yrange [*:*]
set xtics auto
set ytics auto
set xlabel 'N_{eff} per column'
set ylabel 'd_f, attention − PLM'
set label 2 'Ras' at ras_n_eff / ras_L, ras_attention - ras_plm offset 1.0, 0 font ',7'
plot median_d with lines lw 1.0 lc rgb '#0072b2', \
     -margin with lines lw 1.0 dt 3 lc rgb '#555555', \
     0 with lines lw 0.5 lc rgb '#999999', \
     datafile index 1 using 1:2 with points pt 7 ps 0.9 lc rgb '#0072b2', \
     '+' using (ras_n_eff / ras_L):(ras_attention - ras_plm) every ::0::0 with points pt 13 ps 1.3 lc rgb '#cc79a7'
unset multiplot
