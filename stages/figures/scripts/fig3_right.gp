# Figure 3 right: test loss ε of factored attention trained on M Potts
# sequences against α = M/L (paper/spec.md §6): median and quartiles over
# realisations (series 1, and 2 around the peak), means ± s.e. (3, 4);
# ε* dashed, ln C dotted, and ε* + d_eff/(2ML) (no fitted constant).
# Run after common.gp (caption, grid, bottom margin). Variables: L, C.
set key outside top center horizontal Left reverse maxcols 3 samplen 1.5 width -2 font ',7'
set logscale x
set xlabel 'sample ratio α = M/L'
set ylabel 'test loss ε (nats)'
set autoscale xfix
set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
deff = L*(L-1) + C*C - C - 1
excess(x) = (x >= 5 && has_hline) ? hline + deff/(2.0*x*L*L) : NaN
set samples 400
plot datafile index 2 using 1:2:3 with yerrorbars pt 1 ps 0.4 lw 0.7 lc rgb '#999999' title titles[3], \
     datafile index 3 using 1:2:3 with yerrorbars pt 1 ps 0.4 lw 0.7 lc rgb '#999999' notitle, \
     datafile index 0 using 1:2:5:6 with yerrorlines pt 7 ps 0.5 lw 1.2 lc rgb '#0072b2' title titles[1], \
     datafile index 1 using 1:2:5:6 with yerrorbars pt 6 ps 0.7 lw 1.0 lc rgb '#d55e00' title titles[2], \
     (has_hline ? hline : NaN) with lines dt 2 lw 1.5 lc rgb 'black' title 'ε*', \
     log(C) with lines dt 3 lw 1.2 lc rgb 'black' title 'ln C', \
     excess(x) with lines lw 1.2 lc rgb 'black' title 'ε* + d_{eff}/(2ML)'
